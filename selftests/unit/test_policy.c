// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of kvm-pvple's pure logic: pvple_hc_decode() (which guest
 * hypercalls are pvple's; everything else reaches KVM unchanged),
 * pvple_rec_check() (what a hostile record can make the host believe) and
 * pvple_decide() (spin, yield, park or stock).
 */
#include <stdbool.h>
#include <stdio.h>

#include <linux/kvm_para.h>
#include <uapi/linux/kvm_pvple.h>

#include "kselftest.h"
#include "policy.h"

static const char * const names[] = {
	[PVPLE_HC_NOT_OURS] = "not-ours", [PVPLE_HC_EPERM] = "eperm",
	[PVPLE_HC_PROBE] = "probe", [PVPLE_HC_REGISTER] = "register",
	[PVPLE_HC_UNREGISTER] = "unregister", [PVPLE_HC_PARK] = "park",
	[PVPLE_HC_UNKNOWN] = "unknown",
};

#define SELF	3
#define MAX_ID	8

static struct pvple_area waiting(__u32 target, __u32 role)
{
	struct pvple_area a = {
		.seq = 2, .state = PVPLE_STATE_WAITING, .target = target,
		.role = role, .lock = 0xffff888000001000ULL,
	};
	return a;
}

static void test_rec_check(void)
{
	static const struct {
		const char *what;
		int field;	/* which field to spoil, see below */
		__u64 value;
		enum pvple_rec want;
	} spoil[] = {
		{ "valid holder record", -1, 0, PVPLE_REC_OK },
		{ "odd sequence: torn", 0, 5, PVPLE_REC_TORN },
		{ "idle state", 1, PVPLE_STATE_IDLE, PVPLE_REC_IDLE },
		{ "unknown state", 1, 7, PVPLE_REC_BAD },
		{ "role 0", 3, 0, PVPLE_REC_BAD },
		{ "role 3", 3, 3, PVPLE_REC_BAD },
		{ "non-zero flags", 4, 1, PVPLE_REC_BAD },
		{ "non-zero pad", 5, 1, PVPLE_REC_BAD },
		{ "non-zero reserved[3]", 6, 1, PVPLE_REC_BAD },
		{ "target == max id", 2, MAX_ID, PVPLE_REC_TARGET_RANGE },
		{ "target 0xffffffff", 2, 0xffffffffu, PVPLE_REC_TARGET_RANGE },
		{ "target is self", 2, SELF, PVPLE_REC_TARGET_SELF },
		{ "predecessor role", 3, PVPLE_ROLE_PREDECESSOR, PVPLE_REC_OK },
		{ "lock address is not checked", 7, ~0ULL, PVPLE_REC_OK },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(spoil); i++) {
		struct pvple_area a = waiting(0, PVPLE_ROLE_HOLDER);
		enum pvple_rec got;
		__u64 v = spoil[i].value;

		switch (spoil[i].field) {
		case 0:
			a.seq = v;
			break;
		case 1:
			a.state = v;
			break;
		case 2:
			a.target = v;
			break;
		case 3:
			a.role = v;
			break;
		case 4:
			a.flags = v;
			break;
		case 5:
			a.pad = v;
			break;
		case 6:
			a.reserved[3] = v;
			break;
		case 7:
			a.lock = v;
			break;
		}
		got = pvple_rec_check(&a, SELF, MAX_ID);
		ksft_test_result(got == spoil[i].want, "rec_check: %s (got %d)\n",
				 spoil[i].what, got);
	}
}

static void test_decide_table(void)
{
	static const struct {
		const char *what;
		struct pvple_spin_in in;
		enum pvple_action want;
	} cases[] = {
		{ "running target: spin", { PVPLE_MODE_AUTO, PVPLE_REC_OK,
		  PVPLE_TARGET_RUNNING }, PVPLE_ACT_SPIN },
		{ "preempted target: yield", { PVPLE_MODE_AUTO, PVPLE_REC_OK,
		  PVPLE_TARGET_PREEMPTED }, PVPLE_ACT_YIELD },
		{ "preempted, yield failed: park", { PVPLE_MODE_AUTO,
		  PVPLE_REC_OK, PVPLE_TARGET_PREEMPTED, .yield_failed = true },
		  PVPLE_ACT_PARK },
		{ "target itself parked: park", { PVPLE_MODE_AUTO,
		  PVPLE_REC_OK, PVPLE_TARGET_PARKED }, PVPLE_ACT_PARK },
		{ "halted target: stock (no wake is certain)", {
		  PVPLE_MODE_AUTO, PVPLE_REC_OK, PVPLE_TARGET_HALTED },
		  PVPLE_ACT_STOCK },
		{ "target asleep in the host: stock", { PVPLE_MODE_AUTO,
		  PVPLE_REC_OK, PVPLE_TARGET_SLEEPING }, PVPLE_ACT_STOCK },
		{ "kicked target: yield", { PVPLE_MODE_AUTO, PVPLE_REC_OK,
		  PVPLE_TARGET_READY }, PVPLE_ACT_YIELD },
		{ "kicked target, yield failed: stock, never park", {
		  PVPLE_MODE_AUTO, PVPLE_REC_OK, PVPLE_TARGET_READY,
		  .yield_failed = true }, PVPLE_ACT_STOCK },
		{ "preempted, yield failed, APICv: stock", { PVPLE_MODE_AUTO,
		  PVPLE_REC_OK, PVPLE_TARGET_PREEMPTED, .yield_failed = true,
		  .no_park = true }, PVPLE_ACT_STOCK },
		{ "out of KVM_RUN, APICv: stock", { PVPLE_MODE_AUTO,
		  PVPLE_REC_OK, PVPLE_TARGET_OUT, .no_park = true },
		  PVPLE_ACT_STOCK },
		{ "target out of KVM_RUN: park", { PVPLE_MODE_AUTO,
		  PVPLE_REC_OK, PVPLE_TARGET_OUT }, PVPLE_ACT_PARK },
		{ "event pending: back to the guest", { PVPLE_MODE_AUTO,
		  PVPLE_REC_OK, PVPLE_TARGET_PREEMPTED, .event_pending = true },
		  PVPLE_ACT_SPIN },
		{ "no record: stock", { PVPLE_MODE_AUTO,
		  PVPLE_REC_UNREGISTERED, PVPLE_TARGET_PREEMPTED },
		  PVPLE_ACT_STOCK },
		{ "torn record: stock", { PVPLE_MODE_AUTO, PVPLE_REC_TORN },
		  PVPLE_ACT_STOCK },
		{ "wait cycle: stock", { PVPLE_MODE_AUTO, PVPLE_REC_OK,
		  PVPLE_TARGET_PARKED, .cycle = true }, PVPLE_ACT_STOCK },
		{ "mode off: stock", { PVPLE_MODE_OFF, PVPLE_REC_OK,
		  PVPLE_TARGET_PREEMPTED }, PVPLE_ACT_STOCK },
		{ "yield mode, yield failed: spin", { PVPLE_MODE_YIELD,
		  PVPLE_REC_OK, PVPLE_TARGET_PREEMPTED, .yield_failed = true },
		  PVPLE_ACT_SPIN },
		{ "yield mode, parked target: spin", { PVPLE_MODE_YIELD,
		  PVPLE_REC_OK, PVPLE_TARGET_PARKED }, PVPLE_ACT_SPIN },
		{ "park mode, preempted target: park", { PVPLE_MODE_PARK,
		  PVPLE_REC_OK, PVPLE_TARGET_PREEMPTED }, PVPLE_ACT_PARK },
		{ "unknown mode: stock", { PVPLE_NR_MODES, PVPLE_REC_OK,
		  PVPLE_TARGET_PREEMPTED }, PVPLE_ACT_STOCK },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		enum pvple_action got = pvple_decide(&cases[i].in);

		ksft_test_result(got == cases[i].want, "decide: %s (got %d)\n",
				 cases[i].what, got);
	}
}

/* Properties over every input combination, not just the chosen cases. */
static void test_decide_properties(void)
{
	const unsigned int n = (PVPLE_NR_MODES + 1) * PVPLE_NR_REC *
			       PVPLE_NR_TARGETS * 16;
	unsigned int i, mode, rec, target, bits, bad[7] = { 0 };

	for (i = 0; i < n; i++) {
		struct pvple_spin_in in;
		enum pvple_action a;

		bits = i % 16;
		target = i / 16 % PVPLE_NR_TARGETS;
		rec = i / 16 / PVPLE_NR_TARGETS % PVPLE_NR_REC;
		mode = i / 16 / PVPLE_NR_TARGETS / PVPLE_NR_REC;
		in = (struct pvple_spin_in){
			.mode = mode, .rec = rec, .target = target,
			.event_pending = bits & 1, .cycle = bits & 2,
			.yield_failed = bits & 4, .no_park = bits & 8,
		};
		a = pvple_decide(&in);

		/* Only a usable record in an active mode leaves stock. */
		bad[0] += a != PVPLE_ACT_STOCK &&
			  (rec != PVPLE_REC_OK || in.cycle ||
			   mode == PVPLE_MODE_OFF || mode >= PVPLE_NR_MODES);
		/* A yield goes to a runnable target only, and only once. */
		bad[1] += a == PVPLE_ACT_YIELD &&
			  ((target != PVPLE_TARGET_PREEMPTED &&
			    target != PVPLE_TARGET_READY) || in.yield_failed ||
			   mode == PVPLE_MODE_PARK);
		/* Never park a vCPU that has an event to take. */
		bad[2] += a == PVPLE_ACT_PARK && in.event_pending;
		/* Never park in a mode that forbids it, nor behind a runner. */
		bad[3] += a == PVPLE_ACT_PARK &&
			  (mode == PVPLE_MODE_YIELD ||
			   target == PVPLE_TARGET_RUNNING);
		bad[4] += a >= PVPLE_NR_ACTIONS;
		/* Park only behind a target whose next run wakes us. */
		bad[5] += a == PVPLE_ACT_PARK &&
			  target != PVPLE_TARGET_PREEMPTED &&
			  target != PVPLE_TARGET_PARKED &&
			  target != PVPLE_TARGET_OUT;
		/* Never park where parking is off (APICv/AVIC, no state). */
		bad[6] += a == PVPLE_ACT_PARK && in.no_park;
	}
	ksft_test_result(!bad[0], "decide: stock unless the record is usable (%u inputs)\n", n);
	ksft_test_result(!bad[1], "decide: yield only to a preempted target, once\n");
	ksft_test_result(!bad[2], "decide: never park with an event pending\n");
	ksft_test_result(!bad[3], "decide: %s\n",
			 "park only where the mode allows, behind a non-runner");
	ksft_test_result(!bad[4], "decide: always a defined action\n");
	ksft_test_result(!bad[5], "decide: %s\n",
			 "park only behind a preempted, parked or absent target");
	ksft_test_result(!bad[6], "decide: never park where parking is off\n");
}

/* Every combination of KVM's flags, against the rules in policy.h. */
static void test_classify(void)
{
	unsigned int bits, bad[4] = { 0 };

	for (bits = 0; bits < 64; bits++) {
		struct pvple_target_flags f = {
			.preempted = bits & 1, .parked = bits & 2,
			.ready = bits & 4, .blocking = bits & 8,
			.wants_to_run = bits & 16, .scheduled_out = bits & 32,
		};
		enum pvple_target t = pvple_target_classify(&f);

		/* Preempted wins: it is runnable, whatever else is stale. */
		bad[0] += f.preempted != (t == PVPLE_TARGET_PREEMPTED);
		/* A halted vCPU, not kicked, not ours, is never parkable. */
		bad[1] += !f.preempted && !f.parked && !f.ready && f.blocking &&
			  t != PVPLE_TARGET_HALTED;
		/* In KVM_RUN and scheduled out with nothing else: asleep. */
		bad[2] += t == PVPLE_TARGET_SLEEPING &&
			  !(f.wants_to_run && f.scheduled_out);
		/* Running: in KVM_RUN, on a CPU, nothing else but a stale ready. */
		bad[3] += (t == PVPLE_TARGET_RUNNING) !=
			  ((bits & ~4u) == 16);
	}
	ksft_test_result(!bad[0], "classify: preempted first\n");
	ksft_test_result(!bad[1], "classify: a halted vCPU is HALTED\n");
	ksft_test_result(!bad[2], "classify: SLEEPING only inside KVM_RUN\n");
	ksft_test_result(!bad[3], "classify: RUNNING only when nothing else holds\n");
}

/* The hypercall hook's pre-filter never drops a number decode calls ours. */
static void test_hc_filter(void)
{
	static const unsigned long probe[] = {
		0, 1, KVM_HC_KICK_CPU, KVM_HC_SCHED_YIELD, KVM_HC_SEND_IPI,
		KVM_HC_PVPLE_BASE - 1, KVM_HC_PVPLE_BASE, KVM_HC_PVPLE_PARK,
		KVM_HC_PVPLE_END - 1, KVM_HC_PVPLE_END, ~0UL,
		KVM_HC_PVPLE_PROBE | (1UL << 32), KVM_HC_PVPLE_PARK | (7UL << 40),
	};
	unsigned long missed = 0, extra = 0, nr, i;
	int op64;

	for (i = 0; i < ARRAY_SIZE(probe) + 8192; i++) {
		nr = i < ARRAY_SIZE(probe) ? probe[i] :
		     KVM_HC_PVPLE_BASE - 4096 + (i - ARRAY_SIZE(probe));
		for (op64 = 0; op64 <= 1; op64++) {
			bool ours = pvple_hc_decode(nr, op64, 0) != PVPLE_HC_NOT_OURS;

			missed += ours && !pvple_hc_maybe_ours(nr);
			extra += !ours && pvple_hc_maybe_ours(nr) && op64 == 0;
		}
	}
	ksft_test_result(!missed, "hc filter: every number of ours is redirected\n");
	ksft_test_result(!extra, "hc filter: a 32-bit guest's foreign numbers are not\n");
	ksft_test_result(!pvple_hc_maybe_ours(KVM_HC_KICK_CPU) &&
			 !pvple_hc_maybe_ours(KVM_HC_SCHED_YIELD) &&
			 !pvple_hc_maybe_ours(KVM_HC_SEND_IPI),
			 "hc filter: KICK_CPU, SCHED_YIELD and SEND_IPI go straight to KVM\n");
}

static void test_throttle(void)
{
	const __u64 gap = 25000;
	__u64 last = 0, now = 1000000;
	unsigned int acted = 0, i;

	/* 1000 calls 1 us apart: one acted on per gap, the rest throttled. */
	for (i = 0; i < 1000; i++, now += 1000)
		acted += !pvple_hc_park_throttled(now, &last, gap);
	ksft_test_result(acted == (1000 * 1000 + gap - 1) / gap,
			 "throttle: one park call per gap (%u of 1000)\n", acted);
	last = 0;
	ksft_test_result(!pvple_hc_park_throttled(5, &last, gap) &&
			 !pvple_hc_park_throttled(5 + gap, &last, gap),
			 "throttle: the first call, and one a whole gap later, act\n");
	for (acted = 0, last = 0, i = 0; i < 100; i++)
		acted += !pvple_hc_park_throttled(1000 + i, &last, 0);
	ksft_test_result(acted == 100, "throttle: a zero gap throttles nothing\n");
}

static const struct {
	const char *what;
	unsigned long nr;
	int op_64_bit, cpl;
	enum pvple_hc_action want;
} cases[] = {
	{ "probe, 64-bit", KVM_HC_PVPLE_PROBE, 1, 0, PVPLE_HC_PROBE },
	{ "probe, 32-bit", KVM_HC_PVPLE_PROBE, 0, 0, PVPLE_HC_PROBE },
	{ "probe with bit 32 set, 64-bit: not ours",
	  KVM_HC_PVPLE_PROBE | (1UL << 32), 1, 0, PVPLE_HC_NOT_OURS },
	{ "probe with bit 32 set, 32-bit: truncated like KVM",
	  KVM_HC_PVPLE_PROBE | (1UL << 32), 0, 0, PVPLE_HC_PROBE },
	{ "probe from CPL 3", KVM_HC_PVPLE_PROBE, 1, 3, PVPLE_HC_EPERM },
	{ "register", KVM_HC_PVPLE_REGISTER, 1, 0, PVPLE_HC_REGISTER },
	{ "unregister", KVM_HC_PVPLE_UNREGISTER, 1, 0, PVPLE_HC_UNREGISTER },
	{ "park", KVM_HC_PVPLE_PARK, 0, 0, PVPLE_HC_PARK },
	{ "park from CPL 3", KVM_HC_PVPLE_PARK, 1, 3, PVPLE_HC_EPERM },
	{ "last reserved number", KVM_HC_PVPLE_END - 1, 1, 0, PVPLE_HC_UNKNOWN },
	{ "one below the range", KVM_HC_PVPLE_BASE - 1, 1, 0, PVPLE_HC_NOT_OURS },
	{ "one past the range", KVM_HC_PVPLE_END, 1, 0, PVPLE_HC_NOT_OURS },
	{ "KVM_HC_SCHED_YIELD", KVM_HC_SCHED_YIELD, 1, 0, PVPLE_HC_NOT_OURS },
	{ "KVM_HC_KICK_CPU from CPL 3 is KVM's to refuse", KVM_HC_KICK_CPU, 1,
	  3, PVPLE_HC_NOT_OURS },
	{ "zero", 0, 1, 0, PVPLE_HC_NOT_OURS },
	{ "all ones, 64-bit", ~0UL, 1, 0, PVPLE_HC_NOT_OURS },
};

int main(void)
{
	unsigned long nr, bad;
	unsigned int i;

	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(cases) + 2 + 14 + 20 + 7 + 4 + 3 + 3);

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		enum pvple_hc_action got = pvple_hc_decode(cases[i].nr,
							   cases[i].op_64_bit,
							   cases[i].cpl);

		if (got != cases[i].want)
			ksft_print_msg("got %s, want %s\n", names[got],
				       names[cases[i].want]);
		ksft_test_result(got == cases[i].want, "hc_decode: %s\n",
				 cases[i].what);
	}

	/* The whole reserved range is ours; the 4096 numbers below are not. */
	for (bad = 0, nr = KVM_HC_PVPLE_BASE; nr < KVM_HC_PVPLE_END; nr++)
		bad += pvple_hc_decode(nr, 1, 0) == PVPLE_HC_NOT_OURS;
	ksft_test_result(!bad, "hc_decode: every reserved number is ours\n");
	for (bad = 0, nr = KVM_HC_PVPLE_BASE - 4096; nr < KVM_HC_PVPLE_BASE; nr++)
		bad += pvple_hc_decode(nr, 1, 0) != PVPLE_HC_NOT_OURS;
	ksft_test_result(!bad, "hc_decode: no number below the range is ours\n");

	test_rec_check();
	test_decide_table();
	test_decide_properties();
	test_classify();
	test_hc_filter();
	test_throttle();

	ksft_finished();
}
