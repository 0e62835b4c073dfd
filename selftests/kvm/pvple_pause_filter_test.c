// SPDX-License-Identifier: GPL-2.0
/*
 * The host's pause filter counts, as AMD's does (APM vol. 2, "Pause
 * Intercept Filtering"): a PAUSE loop shorter than kvm_amd's PLE window
 * makes no exit, a longer one does, PAUSEs further apart than the filter
 * threshold never add up to an exit, and KVM grows the window on each
 * exit (grow_ple_window() in arch/x86/kvm/svm/svm.c, seen through the
 * kvm_ple_window_update tracepoint).
 *
 * In the pvple test host this is QEMU's filter as patched by
 * scripts/testhost/qemu-10.2.patch; on an AMD host it is the CPU's.  The
 * tests skip where PAUSE is not intercepted, where every PAUSE exits (the
 * fixture mode, Documentation/testhost.rst) and on Intel, whose PLE is
 * another mechanism.  PLE exits are counted by kvm-pvple, per VM.
 */
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "kvm_util.h"
#include "processor.h"
#include "ucall_common.h"
#include "pvple_util.h"

#define PARAM(name)	"/sys/module/kvm_amd/parameters/" name

/*
 * What the guest does: ROUNDS loops of PAUSES each, GAP cycles apart.  It
 * reports each round's cycles and how many PAUSEs came more than THRESH
 * cycles after the previous one (each of those reloads the counter).
 */
static u64 guest_pauses, guest_rounds, guest_gap, guest_thresh;

static void guest_spin(void)
{
	u64 r, i, t0, last, now, late;

	for (r = 0; r < guest_rounds; r++) {
		t0 = rdtsc();
		last = t0;
		late = 0;
		for (i = 0; i < guest_pauses; i++) {
			u64 until = last + guest_gap;

			while (guest_gap && rdtsc() < until)
				;
			asm volatile("pause" ::: "memory");
			now = rdtsc();
			late += now - last > guest_thresh;
			last = now;
		}
		/* A user exit: the next VMRUN loads the counter afresh. */
		GUEST_SYNC_ARGS(0, last - t0, late, 0, 0);
	}
	GUEST_DONE();
}

struct spin_result {
	u64 exits;		/* PLE exits of the VM */
	u64 min_cycles;		/* TSC cycles of the fastest round */
	u64 late;		/* PAUSEs more than the threshold apart */
};

/* One vCPU runs the loop; kvm-pvple counts its PLE exits. */
static struct spin_result spin(u64 pauses, u64 rounds, u64 gap)
{
	struct spin_result res = { .min_cycles = ~0ULL };
	struct pvple_counts c;
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	struct ucall uc;

	vm = vm_create_with_one_vcpu(&vcpu, guest_spin);
	guest_pauses = pauses;
	guest_rounds = rounds;
	guest_gap = gap;
	guest_thresh = pvple_read_long(PARAM("pause_filter_thresh"));
	sync_global_to_guest(vm, guest_thresh);
	sync_global_to_guest(vm, guest_pauses);
	sync_global_to_guest(vm, guest_rounds);
	sync_global_to_guest(vm, guest_gap);
	for (;;) {
		vcpu_run(vcpu);
		switch (get_ucall(vcpu, &uc)) {
		case UCALL_SYNC:
			/* GUEST_SYNC_ARGS: "hello", stage, arg1, ... */
			if (uc.args[2] < res.min_cycles)
				res.min_cycles = uc.args[2];
			res.late += uc.args[3];
			continue;
		case UCALL_DONE:
			break;
		case UCALL_ABORT:
			REPORT_GUEST_ASSERT(uc);
			break;
		default:
			TEST_FAIL("unexpected exit %s",
				  exit_reason_str(vcpu->run->exit_reason));
		}
		break;
	}
	TEST_ASSERT(pvple_vm_counts(vm, &c), "kvm-pvple tracks the VM");
	res.exits = c.ple_exits;
	kvm_vm_free(vm);
	ksft_print_msg("%lu x %lu PAUSEs, gap %lu: %lu PLE exits, %lu cycles per PAUSE",
		       rounds, pauses, gap, res.exits, res.min_cycles / pauses);
	printf(", %lu later than %lu cycles\n", res.late, guest_thresh);
	return res;
}

/*
 * One round of tight PAUSEs, in a new VM each time, until it makes an
 * exit, three times at most.  The threshold is three PAUSE-loop iterations
 * measured when L1 booted (Documentation/testhost.rst), and the emulator's
 * speed changes during a run: 11 to 19 of 4,096 tight PAUSEs came later
 * than it in the debug L1 of 2026-12-03, and once a whole run of 64
 * windows made no exit.  Each late PAUSE reloads the counter.  spin()
 * prints how many came late.  On hardware the first round exits.
 */
static struct spin_result spin_to_exit(u64 pauses)
{
	struct spin_result r;
	int i;

	for (i = 0; i < 3; i++) {
		r = spin(pauses, 1, 0);
		if (r.exits)
			break;
	}
	return r;
}

/* Why the pause filter cannot be tested here, or NULL. */
static const char *no_filter(void)
{
	if (!host_cpu_is_amd)
		return "not an AMD host";
	if (!pvple_module_loaded())
		return "kvm-pvple is not loaded (it counts the PLE exits)";
	/* Either at 0 makes svm_vm_init() leave PAUSE to the guest. */
	if (pvple_read_long(PARAM("pause_filter_count")) <= 0 ||
	    pvple_read_long(PARAM("pause_filter_thresh")) <= 0)
		return "kvm_amd does not intercept PAUSE";
	if (pvple_fixture_loaded())
		return "every PAUSE exits (the fixture mode)";
	return NULL;
}

static long window(void)
{
	return pvple_read_long(PARAM("pause_filter_count"));
}

/*
 * Half a window per round, twenty rounds: ten windows' worth of PAUSEs
 * and not one exit, since every round starts from a fresh counter.  (An
 * interrupt in between only reloads the counter: fewer exits, never more.)
 */
TEST(below_window_no_exit)
{
	struct spin_result r;

	if (no_filter())
		SKIP(return, "%s", no_filter());
	r = spin(window() / 2, 20, 0);
	ASSERT_EQ(r.exits, 0);
}

/*
 * Sixty-four windows in one round: at least one exit, and no more than one
 * per window (KVM doubles the window on each, so in fact far fewer).  Not
 * eight: under TCG a window lasts about a millisecond, and every #VMEXIT
 * in between (a timer tick, an IPI) reloads the counter, so in the test
 * host most windows never complete (Documentation/testhost.rst).
 */
TEST(above_window_exits)
{
	struct spin_result r;
	u64 pauses = 64 * window();

	if (no_filter())
		SKIP(return, "%s", no_filter());
	r = spin_to_exit(pauses);
	ASSERT_GE(r.exits, 1);
	ASSERT_LE(r.exits, pauses / window());
}

/*
 * The threshold: thirty-two windows, each PAUSE twice the threshold after
 * the last.  The counter is reloaded at every PAUSE, so nothing exits.
 * It can fail only where a window completes between two #VMEXITs: make
 * check's filter boot runs it with a window of 64 PAUSEs
 * (pvple.ple_count), about 2 ms of these; the same PAUSEs without the
 * threshold would exit several times.  Every PAUSE must have come late.
 */
TEST(threshold_reloads)
{
	long thresh = pvple_read_long(PARAM("pause_filter_thresh"));
	u64 pauses = 32 * window();
	struct spin_result r;

	if (no_filter())
		SKIP(return, "%s", no_filter());
	r = spin(pauses, 1, 2 * thresh);
	ASSERT_EQ(r.late, pauses);
	ASSERT_EQ(r.exits, 0);
}

/*
 * KVM's window adapts: each exit grows it (grow_ple_window(): times
 * pause_filter_count_grow while that is below the base, up to
 * pause_filter_count_max).  The first update of the vCPU starts from the
 * base, and every grow step follows that rule.
 */
TEST(window_grows)
{
	long base = window(), grow = pvple_read_long(PARAM("pause_filter_count_grow"));
	long max = pvple_read_long(PARAM("pause_filter_count_max"));
	unsigned int vcpu, old, new, grows = 0, first_old = 0;
	char line[256], how[16];
	struct spin_result r;
	FILE *f;

	if (no_filter())
		SKIP(return, "%s", no_filter());
	if (grow <= 0)
		SKIP(return, "pause_filter_count_grow=0: the window never grows");
	pvple_trace_event("kvm/kvm_ple_window_update", true);
	r = spin_to_exit(64 * base);
	pvple_trace_event("kvm/kvm_ple_window_update", false);
	ASSERT_GE(r.exits, 1);

	f = pvple_trace_open();
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "kvm_ple_window_update: ");

		if (!p || sscanf(p, "kvm_ple_window_update: vcpu %u old %u new %u (%15[a-z])",
				 &vcpu, &old, &new, how) != 4 || strcmp(how, "growed"))
			continue;
		if (!grows++)
			first_old = old;
		ASSERT_EQ(new, min(grow < base ? (long)old * grow : (long)old + grow, max));
	}
	fclose(f);
	ksft_print_msg("%u window grow events, the first from %u\n", grows, first_old);
	ASSERT_GE(grows, 1);
	ASSERT_EQ(first_old, base);
}

TEST_HARNESS_MAIN
