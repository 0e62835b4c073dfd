// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of kvm-pvple's pure logic: pvple_hc_decode() (which guest
 * hypercalls are pvple's; everything else reaches KVM unchanged),
 * pvple_rec_check() (what a hostile record can make the host believe),
 * pvple_chain_hop() (how far the host follows the records towards the
 * lock holder) and pvple_decide() (spin, yield, park or stock).
 */
#include <stdbool.h>
#include <stdio.h>

#include <asm/processor-flags.h>
#include <linux/kvm_para.h>
#include <uapi/linux/kvm_pvple.h>

#include "kselftest.h"
#include "policy.h"

static bool mode_can_yield(unsigned int mode)
{
	return mode == PVPLE_MODE_YIELD || mode == PVPLE_MODE_AUTO;
}

static const char * const names[] = {
	[PVPLE_HC_NOT_OURS] = "not-ours", [PVPLE_HC_EPERM] = "eperm",
	[PVPLE_HC_PROBE] = "probe", [PVPLE_HC_REGISTER] = "register",
	[PVPLE_HC_UNREGISTER] = "unregister", [PVPLE_HC_PARK] = "park",
	[PVPLE_HC_SLICE_DONE] = "slice-done", [PVPLE_HC_FEATURES] = "features",
	[PVPLE_HC_UNKNOWN] = "unknown",
};

#define SELF	3
#define MAX_ID	8

#define LOCK_A	0xffff888000001000ULL
#define LOCK_B	0xffff888000002040ULL

static struct pvple_area waiting(__u32 target, __u32 role)
{
	struct pvple_area a = {
		.wait = PVPLE_WAIT(PVPLE_STATE_WAITING, role, target, 7),
		.lock = LOCK_A,
	};
	return a;
}

static unsigned int test_rec_check(bool run)
{
	static const struct {
		const char *what;
		int field;	/* which field to spoil, see below */
		__u64 value;
		enum pvple_rec want;
	} spoil[] = {
		{ "valid holder record", -1, 0, PVPLE_REC_OK },
		{ "idle state", 1, PVPLE_STATE_IDLE, PVPLE_REC_BAD },
		{ "unknown state", 1, 7, PVPLE_REC_BAD },
		{ "role 3", 3, 3, PVPLE_REC_BAD },
		{ "role 0xff", 3, 0xff, PVPLE_REC_BAD },
		{ "role unknown with a target", 3, PVPLE_ROLE_UNKNOWN,
		  PVPLE_REC_BAD },
		{ "non-zero reserved[1]", 6, 1, PVPLE_REC_BAD },
		{ "the host's slice flag set: not part of a record", 10, 1,
		  PVPLE_REC_OK },
		{ "any slow-path range: not part of a record", 9, 1,
		  PVPLE_REC_OK },
		{ "waiting on lock 0", 7, 0, PVPLE_REC_BAD },
		{ "target == max id", 2, MAX_ID, PVPLE_REC_TARGET_RANGE },
		{ "target 0xffffffff", 2, 0xffffffffu, PVPLE_REC_TARGET_RANGE },
		{ "target is self", 2, SELF, PVPLE_REC_TARGET_SELF },
		{ "predecessor role", 3, PVPLE_ROLE_PREDECESSOR, PVPLE_REC_OK },
		{ "any non-zero lock address", 7, ~0ULL, PVPLE_REC_OK },
		{ "any generation", 8, 0xffff, PVPLE_REC_OK },
	};
	static const struct {
		const char *what;
		__u64 wait, lock;
		enum pvple_rec want;
	} whole[] = {
		{ "idle, all zero", 0, 0, PVPLE_REC_IDLE },
		{ "idle with a stale lock and a generation",
		  PVPLE_WAIT(PVPLE_STATE_IDLE, 0, 0, 9), LOCK_A, PVPLE_REC_IDLE },
		{ "idle with a target", PVPLE_WAIT(PVPLE_STATE_IDLE, 0, 2, 0), 0,
		  PVPLE_REC_BAD },
		{ "idle with a role", PVPLE_WAIT(PVPLE_STATE_IDLE, 1, 0, 0), 0,
		  PVPLE_REC_BAD },
		{ "waiting, holder unknown",
		  PVPLE_WAIT(PVPLE_STATE_WAITING, PVPLE_ROLE_UNKNOWN, 0, 1),
		  LOCK_A, PVPLE_REC_NO_HOLDER },
		{ "waiting, holder unknown, lock 0",
		  PVPLE_WAIT(PVPLE_STATE_WAITING, PVPLE_ROLE_UNKNOWN, 0, 1), 0,
		  PVPLE_REC_BAD },
	};
	unsigned int i;

	if (!run)
		return ARRAY_SIZE(spoil) + ARRAY_SIZE(whole);
	for (i = 0; i < ARRAY_SIZE(spoil); i++) {
		struct pvple_area a = waiting(0, PVPLE_ROLE_HOLDER);
		__u32 st = PVPLE_STATE_WAITING, role = PVPLE_ROLE_HOLDER;
		__u32 target = 1, gen = 7;
		enum pvple_rec got;
		__u64 v = spoil[i].value;

		switch (spoil[i].field) {
		case 1:
			st = v;
			break;
		case 2:
			target = v;
			break;
		case 3:
			role = v;
			break;
		case 6:
			a.reserved[PVPLE_AREA_RESERVED - 1] = v;
			break;
		case 10:
			a.slice = v;
			break;
		case 9:
			a.text_start = v;
			a.text_end = 0;
			a.preempt_gpa = 3;
			break;
		case 7:
			a.lock = v;
			break;
		case 8:
			gen = v;
			break;
		}
		a.wait = PVPLE_WAIT(st, role, target, gen);
		got = pvple_rec_check(&a, SELF, MAX_ID);
		ksft_test_result(got == spoil[i].want, "rec_check: %s (got %d)\n",
				 spoil[i].what, got);
	}
	for (i = 0; i < ARRAY_SIZE(whole); i++) {
		struct pvple_area a = { .wait = whole[i].wait,
					.lock = whole[i].lock };
		enum pvple_rec got = pvple_rec_check(&a, SELF, MAX_ID);

		ksft_test_result(got == whole[i].want, "rec_check: %s (got %d)\n",
				 whole[i].what, got);
	}
	return 0;
}

/* One step of the walk, for every kind of record met on the way. */
static unsigned int test_chain_hop(bool run)
{
	static const struct {
		const char *what;
		__u32 via_role;
		enum pvple_rec rec;
		__u32 role;
		__u64 lock;
		enum pvple_hop want;
	} cases[] = {
		{ "predecessor waits behind another, same lock: follow",
		  PVPLE_ROLE_PREDECESSOR, PVPLE_REC_OK, PVPLE_ROLE_PREDECESSOR,
		  LOCK_A, PVPLE_HOP_NEXT },
		{ "predecessor is the head and names the holder: follow",
		  PVPLE_ROLE_PREDECESSOR, PVPLE_REC_OK, PVPLE_ROLE_HOLDER,
		  LOCK_A, PVPLE_HOP_NEXT },
		{ "predecessor is the head, holder unknown",
		  PVPLE_ROLE_PREDECESSOR, PVPLE_REC_NO_HOLDER, PVPLE_ROLE_UNKNOWN,
		  LOCK_A, PVPLE_HOP_NO_HOLDER },
		{ "predecessor no longer waits: it is the holder now",
		  PVPLE_ROLE_PREDECESSOR, PVPLE_REC_IDLE, 0, 0, PVPLE_HOP_END },
		{ "predecessor waits on another lock: cross",
		  PVPLE_ROLE_PREDECESSOR, PVPLE_REC_OK, PVPLE_ROLE_PREDECESSOR,
		  LOCK_B, PVPLE_HOP_CROSS },
		{ "predecessor waits on another lock, no holder: cross",
		  PVPLE_ROLE_PREDECESSOR, PVPLE_REC_NO_HOLDER, PVPLE_ROLE_UNKNOWN,
		  LOCK_B, PVPLE_HOP_CROSS },
		{ "holder does not wait: the end", PVPLE_ROLE_HOLDER,
		  PVPLE_REC_IDLE, 0, 0, PVPLE_HOP_END },
		{ "holder waits for the lock it holds: stale",
		  PVPLE_ROLE_HOLDER, PVPLE_REC_OK, PVPLE_ROLE_PREDECESSOR,
		  LOCK_A, PVPLE_HOP_STALE },
		{ "holder waits for it, holder unknown: stale",
		  PVPLE_ROLE_HOLDER, PVPLE_REC_NO_HOLDER, PVPLE_ROLE_UNKNOWN,
		  LOCK_A, PVPLE_HOP_STALE },
		{ "holder waits for a second lock: follow (nested)",
		  PVPLE_ROLE_HOLDER, PVPLE_REC_OK, PVPLE_ROLE_HOLDER, LOCK_B,
		  PVPLE_HOP_NEXT },
		{ "holder waits for a second lock, holder unknown",
		  PVPLE_ROLE_HOLDER, PVPLE_REC_NO_HOLDER, PVPLE_ROLE_UNKNOWN,
		  LOCK_B, PVPLE_HOP_NO_HOLDER },
		{ "torn record: the end, run state only", PVPLE_ROLE_HOLDER,
		  PVPLE_REC_TORN, PVPLE_ROLE_PREDECESSOR, LOCK_A, PVPLE_HOP_END },
		{ "malformed record: the end", PVPLE_ROLE_PREDECESSOR,
		  PVPLE_REC_BAD, PVPLE_ROLE_PREDECESSOR, LOCK_A, PVPLE_HOP_END },
		{ "unregistered: the end", PVPLE_ROLE_PREDECESSOR,
		  PVPLE_REC_UNREGISTERED, 0, 0, PVPLE_HOP_END },
		{ "record names itself: the end", PVPLE_ROLE_PREDECESSOR,
		  PVPLE_REC_TARGET_SELF, PVPLE_ROLE_PREDECESSOR, LOCK_A,
		  PVPLE_HOP_END },
	};
	unsigned int i;

	if (!run)
		return ARRAY_SIZE(cases);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct pvple_link via = { cases[i].via_role, LOCK_A };
		struct pvple_link next = { 99, 99 };
		struct pvple_area a = {
			.wait = PVPLE_WAIT(PVPLE_STATE_WAITING, cases[i].role,
					   2, 1),
			.lock = cases[i].lock,
		};
		enum pvple_hop got = pvple_chain_hop(&via, cases[i].rec, &a,
						     &next);
		bool ok = got == cases[i].want;

		/* A followed link carries the record's own role and lock. */
		if (got == PVPLE_HOP_NEXT)
			ok &= next.role == cases[i].role &&
			      next.lock == cases[i].lock;
		else
			ok &= next.role == 99 && next.lock == 99;
		ksft_test_result(ok, "chain_hop: %s (got %d)\n", cases[i].what,
				 got);
	}
	return 0;
}

/*
 * pvple_chain_step(): every rule on its own, then whole walks over crafted
 * records the way spin.c's pvple_walk() drives it (records, not KVM).
 */
#define NSTEP	14

static unsigned int test_chain_step(bool run)
{
	static const struct {
		const char *what;
		enum pvple_hop hop;
		unsigned int i;
		__u32 role;
		enum pvple_next next;
		enum pvple_chain_end want;
		unsigned int len;
	} cases[NSTEP] = {
		{ "the spinner's hint names a waiter of its lock: stale",
		  PVPLE_HOP_STALE, 0, 0, 0, PVPLE_CHAIN_STALE, 1 },
		{ "a later holder waits again: the head before it",
		  PVPLE_HOP_STALE, 2, 0, 0, PVPLE_CHAIN_HEAD, 2 },
		{ "a record with nothing usable: the holder",
		  PVPLE_HOP_END, 1, 0, 0, PVPLE_CHAIN_HOLDER, 2 },
		{ "a waiter that does not know the holder",
		  PVPLE_HOP_NO_HOLDER, 0, 0, 0, PVPLE_CHAIN_NO_HOLDER, 1 },
		{ "a predecessor on another lock: cross",
		  PVPLE_HOP_CROSS, 1, 0, 0, PVPLE_CHAIN_CROSS, 2 },
		{ "a new vCPU: follow", PVPLE_HOP_NEXT, 0,
		  PVPLE_ROLE_PREDECESSOR, PVPLE_NEXT_FOUND, PVPLE_CHAIN_FOLLOW, 1 },
		{ "a new vCPU named as holder: follow", PVPLE_HOP_NEXT, 2,
		  PVPLE_ROLE_HOLDER, PVPLE_NEXT_FOUND, PVPLE_CHAIN_FOLLOW, 3 },
		{ "a vCPU the VM lacks: absent", PVPLE_HOP_NEXT, 1,
		  PVPLE_ROLE_PREDECESSOR, PVPLE_NEXT_ABSENT, PVPLE_CHAIN_ABSENT, 2 },
		{ "a predecessor seen before: a cycle", PVPLE_HOP_NEXT, 2,
		  PVPLE_ROLE_PREDECESSOR, PVPLE_NEXT_SEEN, PVPLE_CHAIN_CYCLE, 3 },
		{ "a holder seen before: it queued again, the head",
		  PVPLE_HOP_NEXT, 1, PVPLE_ROLE_HOLDER, PVPLE_NEXT_SEEN,
		  PVPLE_CHAIN_HEAD, 2 },
		{ "PVPLE_CHAIN_MAX vCPUs: deep, before the next is looked at",
		  PVPLE_HOP_NEXT, PVPLE_CHAIN_MAX - 1, PVPLE_ROLE_PREDECESSOR,
		  PVPLE_NEXT_SEEN, PVPLE_CHAIN_DEEP, PVPLE_CHAIN_MAX },
		{ "one short of the limit: follow", PVPLE_HOP_NEXT,
		  PVPLE_CHAIN_MAX - 2, PVPLE_ROLE_PREDECESSOR, PVPLE_NEXT_FOUND,
		  PVPLE_CHAIN_FOLLOW, PVPLE_CHAIN_MAX - 1 },
		{ "deep wins over absent", PVPLE_HOP_NEXT, PVPLE_CHAIN_MAX - 1,
		  PVPLE_ROLE_HOLDER, PVPLE_NEXT_ABSENT, PVPLE_CHAIN_DEEP,
		  PVPLE_CHAIN_MAX },
		{ "the first vCPU names the spinner as holder: the head",
		  PVPLE_HOP_NEXT, 0, PVPLE_ROLE_HOLDER, PVPLE_NEXT_SEEN,
		  PVPLE_CHAIN_HEAD, 1 },
	};
	unsigned int i, len;

	if (!run)
		return ARRAY_SIZE(cases);
	for (i = 0; i < NSTEP; i++) {
		enum pvple_chain_end got;

		len = 99;
		got = pvple_chain_step(cases[i].hop, cases[i].i, cases[i].role,
				       cases[i].next, &len);
		ksft_test_result(got == cases[i].want && len == cases[i].len,
				 "chain_step: %s (got %d, len %u)\n",
				 cases[i].what, got, len);
	}
	return 0;
}

/*
 * Whole walks: vCPU 0 spins; rec[v] is vCPU v's record ({role, target,
 * lock}; role 9: idle).  Walked as pvple_walk() does, with
 * pvple_chain_hop() and pvple_chain_step() only.
 */
struct wrec {
	__u32 role, target;
	__u64 lock;
};

#define NWALK	8
#define IDLE_R	9

static enum pvple_chain_end walk(const struct wrec *rec, unsigned int *len)
{
	struct pvple_link via = { rec[0].role, rec[0].lock }, link = { };
	unsigned int chain[PVPLE_CHAIN_MAX] = { rec[0].target }, i, k;
	enum pvple_chain_end end;

	for (i = 0;; i++) {
		const struct wrec *r = &rec[chain[i]];
		struct pvple_area a = { };
		enum pvple_next next = PVPLE_NEXT_FOUND;
		enum pvple_rec rc = PVPLE_REC_OK;
		enum pvple_hop hop;

		if (r->role == IDLE_R)
			rc = PVPLE_REC_IDLE;
		else
			a.wait = PVPLE_WAIT(PVPLE_STATE_WAITING, r->role,
					    r->target, 1);
		a.lock = r->lock;
		hop = pvple_chain_hop(&via, rc, &a, &link);
		if (hop == PVPLE_HOP_NEXT && i + 1 < PVPLE_CHAIN_MAX) {
			if (r->target >= 8)
				next = PVPLE_NEXT_ABSENT;
			for (k = 0; k <= i; k++)
				if (chain[k] == r->target || !r->target)
					next = PVPLE_NEXT_SEEN;
		}
		end = pvple_chain_step(hop, i, link.role, next, len);
		if (end != PVPLE_CHAIN_FOLLOW)
			return end;
		chain[i + 1] = r->target;
		via = link;
	}
}

static unsigned int test_walks(bool run)
{
	const __u32 P = PVPLE_ROLE_PREDECESSOR, H = PVPLE_ROLE_HOLDER;
	const __u64 A = LOCK_A, B = LOCK_B;
	static struct {
		const char *what;
		struct wrec rec[8];
		enum pvple_chain_end want;
		unsigned int len;
	} cases[NWALK];
	unsigned int i, len;

	if (!run)
		return ARRAY_SIZE(cases);
	cases[0] = (typeof(cases[0])){ "queue 0 -> 1 -> 2, 2 names 3, 3 idle: holder 3",
		{ { P, 1, A }, { P, 2, A }, { H, 3, A }, { IDLE_R, 0, 0 } },
		PVPLE_CHAIN_HOLDER, 3 };
	cases[1] = (typeof(cases[1])){ "a 2-cycle of predecessors: 0 -> 1 -> 0",
		{ { P, 1, A }, { P, 0, A } }, PVPLE_CHAIN_CYCLE, 1 };
	cases[2] = (typeof(cases[2])){ "a 3-cycle: 0 -> 1 -> 2 -> 1",
		{ { P, 1, A }, { P, 2, A }, { P, 1, A } }, PVPLE_CHAIN_CYCLE, 2 };
	cases[3] = (typeof(cases[3])){ "a 4-cycle back to the spinner: 0 -> 1 -> 2 -> 3 -> 0",
		{ { P, 1, A }, { P, 2, A }, { P, 3, A }, { P, 0, A } },
		PVPLE_CHAIN_CYCLE, 3 };
	cases[4] = (typeof(cases[4])){ "a 3-cycle back to the spinner: 0 -> 1 -> 2 -> 0",
		{ { P, 1, A }, { P, 2, A }, { P, 0, A } }, PVPLE_CHAIN_CYCLE, 2 };
	cases[5] = (typeof(cases[5])){ "nested: 1 holds A and waits for B, held by 2",
		{ { H, 1, A }, { H, 2, B }, { IDLE_R, 0, 0 } },
		PVPLE_CHAIN_HOLDER, 2 };
	cases[6] = (typeof(cases[6])){ "the head's holder queued again behind it: head 1",
		{ { P, 1, A }, { H, 2, A }, { P, 0, A } }, PVPLE_CHAIN_HEAD, 1 };
	cases[7] = (typeof(cases[7])){ "five waiters in a row: deep at four",
		{ { P, 1, A }, { P, 2, A }, { P, 3, A }, { P, 4, A }, { P, 5, A },
		  { IDLE_R, 0, 0 } }, PVPLE_CHAIN_DEEP, 4 };

	for (i = 0; i < NWALK; i++) {
		enum pvple_chain_end got = walk(cases[i].rec, &len);

		ksft_test_result(got == cases[i].want && len == cases[i].len,
				 "walk: %s (got %d, len %u)\n", cases[i].what,
				 got, len);
	}
	return 0;
}

#define RUN	PVPLE_TARGET_RUNNING
#define PRE	PVPLE_TARGET_PREEMPTED
#define RDY	PVPLE_TARGET_READY
#define PRK	PVPLE_TARGET_PARKED
#define HLT	PVPLE_TARGET_HALTED
#define OUT	PVPLE_TARGET_OUT
#define SLP	PVPLE_TARGET_SLEEPING
#define AUTO	PVPLE_MODE_AUTO
#define OK	PVPLE_REC_OK
#define HOLDER	PVPLE_CHAIN_HOLDER

static unsigned int test_decide_table(bool run)
{
	static const struct {
		const char *what;
		struct pvple_spin_in in;
		enum pvple_action want;
		unsigned int at;
	} cases[] = {
		{ "holder named, running: spin",
		  { AUTO, OK, HOLDER, 1, { RUN } }, PVPLE_ACT_SPIN },
		{ "holder named, running, 8th spin to this record: stock",
		  { AUTO, OK, HOLDER, 1, { RUN }, .spins = PVPLE_SPIN_MAX },
		  PVPLE_ACT_STOCK },
		{ "holder named, preempted: yield to it",
		  { AUTO, OK, HOLDER, 1, { PRE } }, PVPLE_ACT_YIELD, 0 },
		{ "holder preempted, yield failed: park behind it",
		  { AUTO, OK, HOLDER, 1, { PRE }, .yield_failed = true },
		  PVPLE_ACT_PARK },
		{ "holder out of KVM_RUN: park",
		  { AUTO, OK, HOLDER, 1, { OUT } }, PVPLE_ACT_PARK },
		{ "holder halted, not waiting: stock (stale)",
		  { AUTO, OK, HOLDER, 1, { HLT } }, PVPLE_ACT_STOCK },
		{ "holder asleep in the host: stock",
		  { AUTO, OK, HOLDER, 1, { SLP } }, PVPLE_ACT_STOCK },
		{ "holder kicked: yield", { AUTO, OK, HOLDER, 1, { RDY } },
		  PVPLE_ACT_YIELD, 0 },
		{ "holder kicked, yield failed: stock, never park",
		  { AUTO, OK, HOLDER, 1, { RDY }, .yield_failed = true },
		  PVPLE_ACT_STOCK },
		{ "predecessor spins, holder preempted: yield to the holder",
		  { AUTO, OK, HOLDER, 2, { RUN, PRE } }, PVPLE_ACT_YIELD, 1 },
		{ "predecessor spins, holder runs: spin",
		  { AUTO, OK, HOLDER, 2, { RUN, RUN } }, PVPLE_ACT_SPIN },
		{ "two waiters spin, holder preempted: yield to the holder",
		  { AUTO, OK, HOLDER, 3, { RUN, RUN, PRE } }, PVPLE_ACT_YIELD,
		  2 },
		{ "predecessor and holder preempted: the holder first",
		  { AUTO, OK, HOLDER, 2, { PRE, PRE } }, PVPLE_ACT_YIELD, 1 },
		{ "predecessor preempted, holder runs: yield to predecessor",
		  { AUTO, OK, HOLDER, 2, { PRE, RUN } }, PVPLE_ACT_YIELD, 0 },
		{ "holder preempted, yield failed, predecessor spins: stock",
		  { AUTO, OK, HOLDER, 2, { RUN, PRE }, .yield_failed = true },
		  PVPLE_ACT_STOCK },
		{ "holder preempted, yield failed, predecessor preempted: park",
		  { AUTO, OK, HOLDER, 2, { PRE, PRE }, .yield_failed = true },
		  PVPLE_ACT_PARK },
		{ "predecessor parked: park behind it (FIFO)",
		  { AUTO, OK, HOLDER, 2, { PRK, RUN } }, PVPLE_ACT_PARK },
		{ "predecessor halted in pv_wait, holder runs: spin",
		  { AUTO, OK, HOLDER, 2, { HLT, RUN } }, PVPLE_ACT_SPIN },
		{ "predecessor spins, holder out of KVM_RUN: stock",
		  { AUTO, OK, HOLDER, 2, { RUN, OUT } }, PVPLE_ACT_STOCK },
		{ "head does not know the holder, all run: stock",
		  { AUTO, OK, PVPLE_CHAIN_NO_HOLDER, 2, { RUN, RUN } },
		  PVPLE_ACT_STOCK },
		{ "head does not know the holder, head preempted: yield to it",
		  { AUTO, OK, PVPLE_CHAIN_NO_HOLDER, 2, { RUN, PRE } },
		  PVPLE_ACT_YIELD, 1 },
		{ "deep chain, all run: stock",
		  { AUTO, OK, PVPLE_CHAIN_DEEP, 4, { RUN, RUN, RUN, RUN } },
		  PVPLE_ACT_STOCK },
		{ "hint names the vCPU handed the lock, preempted: yield to it",
		  { AUTO, OK, PVPLE_CHAIN_STALE, 1, { PRE } },
		  PVPLE_ACT_YIELD, 0 },
		{ "hint names the vCPU handed the lock, running: spin",
		  { AUTO, OK, PVPLE_CHAIN_STALE, 1, { RUN } }, PVPLE_ACT_SPIN },
		{ "cross-lock hint: stock",
		  { AUTO, OK, PVPLE_CHAIN_CROSS, 2, { PRE, PRE } },
		  PVPLE_ACT_STOCK },
		{ "cyclic chain: stock", { AUTO, OK, PVPLE_CHAIN_CYCLE, 2,
		  { PRE, PRE } }, PVPLE_ACT_STOCK },
		{ "head whose holder released, preempted: yield to it",
		  { AUTO, OK, PVPLE_CHAIN_HEAD, 2, { RUN, PRE } },
		  PVPLE_ACT_YIELD, 1 },
		{ "head whose holder released, running: spin",
		  { AUTO, OK, PVPLE_CHAIN_HEAD, 2, { RUN, RUN } },
		  PVPLE_ACT_SPIN },
		{ "head whose holder released, halted: stock",
		  { AUTO, OK, PVPLE_CHAIN_HEAD, 2, { RUN, HLT } },
		  PVPLE_ACT_STOCK },
		{ "hop to an absent vCPU: stock", { AUTO, OK,
		  PVPLE_CHAIN_ABSENT, 1, { PRE } }, PVPLE_ACT_STOCK },
		{ "holder preempted, yield failed, APICv: stock",
		  { AUTO, OK, HOLDER, 1, { PRE }, .yield_failed = true,
		    .no_park = true }, PVPLE_ACT_STOCK },
		{ "holder out of KVM_RUN, APICv: stock",
		  { AUTO, OK, HOLDER, 1, { OUT }, .no_park = true },
		  PVPLE_ACT_STOCK },
		{ "event pending: back to the guest",
		  { AUTO, OK, HOLDER, 1, { PRE }, .event_pending = true },
		  PVPLE_ACT_SPIN },
		{ "no record: stock", { AUTO, PVPLE_REC_UNREGISTERED, HOLDER, 1,
		  { PRE } }, PVPLE_ACT_STOCK },
		{ "holder unknown (own record): stock",
		  { AUTO, PVPLE_REC_NO_HOLDER }, PVPLE_ACT_STOCK },
		{ "parked behind the spinner: stock", { AUTO, OK, HOLDER, 1,
		  { PRK }, .cycle = true }, PVPLE_ACT_STOCK },
		{ "mode off: stock", { PVPLE_MODE_OFF, OK, HOLDER, 1, { PRE } },
		  PVPLE_ACT_STOCK },
		{ "yield mode, yield failed: stock, not spin",
		  { PVPLE_MODE_YIELD, OK, HOLDER, 1, { PRE },
		    .yield_failed = true }, PVPLE_ACT_STOCK },
		{ "yield mode, parked predecessor: stock",
		  { PVPLE_MODE_YIELD, OK, HOLDER, 1, { PRK } },
		  PVPLE_ACT_STOCK },
		{ "park mode, holder preempted: park",
		  { PVPLE_MODE_PARK, OK, HOLDER, 1, { PRE } }, PVPLE_ACT_PARK },
		{ "park mode, spinning predecessor, holder preempted: stock",
		  { PVPLE_MODE_PARK, OK, HOLDER, 2, { RUN, PRE } },
		  PVPLE_ACT_STOCK },
		{ "unknown mode: stock", { PVPLE_NR_MODES, OK, HOLDER, 1,
		  { PRE } }, PVPLE_ACT_STOCK },
		{ "empty chain: stock", { AUTO, OK, HOLDER, 0 },
		  PVPLE_ACT_STOCK },
		/* Issue 20: a queue head holds off every taker; never park it. */
		{ "head, holder preempted: yield to it",
		  { AUTO, OK, HOLDER, 1, { PRE }, .head = true },
		  PVPLE_ACT_YIELD, 0 },
		{ "head, holder preempted, yield failed: stock, never park",
		  { AUTO, OK, HOLDER, 1, { PRE }, .yield_failed = true,
		    .head = true }, PVPLE_ACT_STOCK },
		{ "head, holder out of KVM_RUN: stock, never park",
		  { AUTO, OK, HOLDER, 1, { OUT }, .head = true },
		  PVPLE_ACT_STOCK },
		{ "head, park mode, holder preempted: stock",
		  { PVPLE_MODE_PARK, OK, HOLDER, 1, { PRE }, .head = true },
		  PVPLE_ACT_STOCK },
		{ "stale hint, named vCPU out of KVM_RUN: stock, never park",
		  { AUTO, OK, PVPLE_CHAIN_STALE, 1, { OUT } },
		  PVPLE_ACT_STOCK },
		{ "walk ended at a head, predecessor parked: stock",
		  { AUTO, OK, PVPLE_CHAIN_HEAD, 2, { PRK, RUN } },
		  PVPLE_ACT_STOCK },
	};
	unsigned int i, at;

	if (!run)
		return ARRAY_SIZE(cases);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		enum pvple_action got = pvple_decide(&cases[i].in, &at);
		bool ok = got == cases[i].want;

		if (got == PVPLE_ACT_YIELD)
			ok &= at == cases[i].at;
		ksft_test_result(ok, "decide: %s (got %d at %u)\n",
				 cases[i].what, got, at);
	}
	return 0;
}

#define NPROPS	11

/* The properties every decision must have, whatever the input. */
static void check_decision(const struct pvple_spin_in *in,
			   enum pvple_action a, unsigned int at, bool usable,
			   bool offcpu, bool highest, unsigned long *bad)
{
	unsigned int len = in->len, mode = in->mode, end = in->end;
	enum pvple_target last = in->chain[len - 1];
	bool calm = !in->event_pending;

	/* Only a usable record and chain, in an active mode, act. */
	bad[0] += a != PVPLE_ACT_STOCK && !usable;
	/* A yield goes to a vCPU kept off a CPU, once, if allowed. */
	bad[1] += a == PVPLE_ACT_YIELD &&
		  (at >= len || (in->chain[at] != PRE &&
				 in->chain[at] != RDY) ||
		   in->yield_failed || mode == PVPLE_MODE_PARK);
	/* ... and to the one nearest the holder. */
	bad[2] += a == PVPLE_ACT_YIELD && !highest;
	/* Never park a vCPU that has an event to take. */
	bad[3] += a == PVPLE_ACT_PARK && !calm;
	/* Park only where allowed, behind chain[0], if it will run. */
	bad[4] += a == PVPLE_ACT_PARK &&
		  (mode == PVPLE_MODE_YIELD || in->no_park ||
		   (in->chain[0] != PRE && in->chain[0] != PRK &&
		    in->chain[0] != OUT));
	/* Never park a queue head, on a stale hint, or behind a head. */
	bad[10] += a == PVPLE_ACT_PARK &&
		   (in->head || end == PVPLE_CHAIN_STALE ||
		    end == PVPLE_CHAIN_HEAD);
	/* Never a park where a yield could still be tried. */
	bad[5] += a == PVPLE_ACT_PARK && offcpu && mode_can_yield(mode) &&
		  !in->yield_failed;
	/* Nobody spins while a vCPU on the chain waits for a CPU. */
	bad[6] += a == PVPLE_ACT_SPIN && offcpu && calm;
	/* Spin only behind a known holder (or next owner) that runs... */
	bad[7] += a == PVPLE_ACT_SPIN && calm &&
		  ((end != HOLDER && end != PVPLE_CHAIN_HEAD &&
		    end != PVPLE_CHAIN_STALE) || last != RUN);
	/* ... and only so many times per record. */
	bad[8] += a == PVPLE_ACT_SPIN && calm && in->spins >= PVPLE_SPIN_MAX;
	/*
	 * Whoever on a usable chain is kept off a CPU is yielded to, the one
	 * nearest the end first (the holder, if it is one of them).
	 */
	bad[9] += usable && calm && offcpu && mode_can_yield(mode) &&
		  !in->yield_failed && (a != PVPLE_ACT_YIELD || !highest ||
					(last == PRE || last == RDY ?
					 at != len - 1 : 0));
}

/*
 * Properties over every input combination -- every mode, record result,
 * chain end, chain length and run state of each vCPU on it, flag and
 * spin count -- not just the chosen cases.
 */
static unsigned int test_decide_properties(bool run)
{
	const unsigned long per_len = (PVPLE_NR_MODES + 1) * PVPLE_NR_REC *
				      PVPLE_NR_CHAIN_ENDS * 32 * 2;
	unsigned long n = 0, bad[NPROPS] = { 0 }, k, combos, v;
	unsigned int len, nstates, i;

	if (!run)
		return NPROPS;
	for (len = 1, nstates = PVPLE_NR_TARGETS; len <= PVPLE_CHAIN_MAX;
	     len++, nstates *= PVPLE_NR_TARGETS) {
		combos = per_len * nstates;
		for (k = 0; k < combos; k++, n++) {
			struct pvple_spin_in in = { .len = len };
			bool usable, offcpu = false, highest = true;
			unsigned int mode, rec, end, spins, at;
			enum pvple_action a;

			v = k;
			for (i = 0; i < len; i++, v /= PVPLE_NR_TARGETS) {
				in.chain[i] = v % PVPLE_NR_TARGETS;
				offcpu |= in.chain[i] == PRE ||
					  in.chain[i] == RDY;
			}
			in.event_pending = v & 1;
			in.cycle = v & 2;
			in.yield_failed = v & 4;
			in.no_park = v & 8;
			in.head = v & 16;
			v /= 32;
			spins = v % 2 ? PVPLE_SPIN_MAX : 0;
			v /= 2;
			end = v % PVPLE_NR_CHAIN_ENDS;
			v /= PVPLE_NR_CHAIN_ENDS;
			rec = v % PVPLE_NR_REC;
			mode = v / PVPLE_NR_REC;
			in.mode = mode;
			in.rec = rec;
			in.end = end;
			in.spins = spins;

			a = pvple_decide(&in, &at);
			usable = rec == OK && !in.cycle &&
				 mode != PVPLE_MODE_OFF && mode < PVPLE_NR_MODES &&
				 (end == HOLDER || end == PVPLE_CHAIN_HEAD ||
				  end == PVPLE_CHAIN_STALE ||
				  end == PVPLE_CHAIN_NO_HOLDER ||
				  end == PVPLE_CHAIN_DEEP);
			if (a == PVPLE_ACT_YIELD)
				for (i = at + 1; i < len; i++)
					highest &= in.chain[i] != PRE &&
						   in.chain[i] != RDY;
			check_decision(&in, a, at, usable, offcpu, highest, bad);
		}
	}
	ksft_test_result(!bad[0], "decide: %s (%lu inputs)\n",
			 "stock unless record and chain are usable", n);
	ksft_test_result(!bad[1], "decide: yield only to a vCPU kept off a CPU, once\n");
	ksft_test_result(!bad[2], "decide: yield to the one nearest the holder\n");
	ksft_test_result(!bad[3], "decide: never park with an event pending\n");
	ksft_test_result(!bad[4], "decide: %s\n",
			 "park only where allowed, behind a vCPU certain to run");
	ksft_test_result(!bad[5], "decide: no park while a yield may help\n");
	ksft_test_result(!bad[6], "decide: never spin while the chain has a preempted vCPU\n");
	ksft_test_result(!bad[7], "decide: spin only behind a running, known holder\n");
	ksft_test_result(!bad[8], "decide: at most %d spins per record\n",
			 PVPLE_SPIN_MAX);
	ksft_test_result(!bad[9], "decide: %s\n",
			 "a vCPU kept off a CPU is yielded to, the holder first");
	ksft_test_result(!bad[10], "decide: %s\n",
			 "never park a queue head, on a stale hint or at a head");
	return 0;
}

/* SEV-ES/SNP: KVM's RFLAGS of a protected guest is not its IF. */
static unsigned int test_irq_on(bool run)
{
	if (!run)
		return 3;
	ksft_test_result(pvple_irq_on(true, 0),
			 "irq_on: a protected guest counts as interruptible\n");
	ksft_test_result(!pvple_irq_on(false, X86_EFLAGS_ZF),
			 "irq_on: IF clear in RFLAGS: not interruptible\n");
	ksft_test_result(pvple_irq_on(false, X86_EFLAGS_IF),
			 "irq_on: IF set in RFLAGS: interruptible\n");
	return 0;
}

/* ABI v3: the registration fields, and the slow-path range at a PLE exit. */
static unsigned int test_registration(bool run)
{
	struct pvple_area a = { .text_start = 0x1000, .text_end = 0x1001 };

	if (!run)
		return 10;
	ksft_test_result(pvple_reg_check(&a) == PVPLE_REG_OK,
			 "reg_check: a one-byte range, no preemption count\n");
	a.preempt_gpa = 0x7ffc;
	ksft_test_result(pvple_reg_check(&a) == PVPLE_REG_OK,
			 "reg_check: a 4-aligned preemption count\n");
	a.preempt_gpa = 0x7ffe;
	ksft_test_result(pvple_reg_check(&a) == PVPLE_REG_BAD_PREEMPT,
			 "reg_check: a preemption count not 4-aligned\n");
	a.preempt_gpa = 0;
	a.text_end = a.text_start;
	ksft_test_result(pvple_reg_check(&a) == PVPLE_REG_BAD_TEXT,
			 "reg_check: an empty range\n");
	a.text_end = a.text_start - 1;
	ksft_test_result(pvple_reg_check(&a) == PVPLE_REG_BAD_TEXT,
			 "reg_check: an inverted range\n");
	a = (struct pvple_area){ };
	ksft_test_result(pvple_reg_check(&a) == PVPLE_REG_BAD_TEXT,
			 "reg_check: a v2 guest's zeroes: no range\n");
	ksft_test_result(pvple_in_slowpath(0x1000, 0x1000, 0x1040),
			 "in_slowpath: the first byte is in\n");
	ksft_test_result(pvple_in_slowpath(0x103f, 0x1000, 0x1040),
			 "in_slowpath: the last byte is in\n");
	ksft_test_result(!pvple_in_slowpath(0x1040, 0x1000, 0x1040) &&
			 !pvple_in_slowpath(0xfff, 0x1000, 0x1040),
			 "in_slowpath: one past either end is out\n");
	ksft_test_result(!pvple_in_slowpath(0, 0x1000, 0x1040),
			 "in_slowpath: a protected guest's RIP (0) is out\n");
	return 0;
}

/* Every combination of KVM's flags, against the rules in policy.h. */
static unsigned int test_classify(bool run)
{
	unsigned int bits, bad[4] = { 0 };

	if (!run)
		return ARRAY_SIZE(bad);
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
	return 0;
}

/* The hypercall hook's pre-filter never drops a number decode calls ours. */
static unsigned int test_hc_filter(bool run)
{
	static const unsigned long probe[] = {
		0, 1, KVM_HC_KICK_CPU, KVM_HC_SCHED_YIELD, KVM_HC_SEND_IPI,
		KVM_HC_PVPLE_BASE - 1, KVM_HC_PVPLE_BASE, KVM_HC_PVPLE_PARK,
		KVM_HC_PVPLE_END - 1, KVM_HC_PVPLE_END, ~0UL,
		KVM_HC_PVPLE_PROBE | (1UL << 32), KVM_HC_PVPLE_PARK | (7UL << 40),
	};
	unsigned long missed = 0, extra = 0, nr, i;
	int op64;

	if (!run)
		return 3;
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
	return 0;
}

static unsigned int test_throttle(bool run)
{
	const __u64 gap = 25000;
	__u64 last = 0, now = 1000000;
	unsigned int acted = 0, i;

	if (!run)
		return 3;
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
	return 0;
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
	{ "slice done", KVM_HC_PVPLE_SLICE_DONE, 1, 0, PVPLE_HC_SLICE_DONE },
	{ "slice done, 32-bit", KVM_HC_PVPLE_SLICE_DONE, 0, 0,
	  PVPLE_HC_SLICE_DONE },
	{ "slice done from CPL 3", KVM_HC_PVPLE_SLICE_DONE, 1, 3,
	  PVPLE_HC_EPERM },
	{ "features", KVM_HC_PVPLE_FEATURES, 1, 0, PVPLE_HC_FEATURES },
	{ "features, 32-bit", KVM_HC_PVPLE_FEATURES, 0, 0, PVPLE_HC_FEATURES },
	{ "features from CPL 3", KVM_HC_PVPLE_FEATURES, 1, 3, PVPLE_HC_EPERM },
	{ "one past features: no such call", KVM_HC_PVPLE_FEATURES + 1, 1,
	  0, PVPLE_HC_UNKNOWN },
	{ "last reserved number", KVM_HC_PVPLE_END - 1, 1, 0, PVPLE_HC_UNKNOWN },
	{ "one below the range", KVM_HC_PVPLE_BASE - 1, 1, 0, PVPLE_HC_NOT_OURS },
	{ "one past the range", KVM_HC_PVPLE_END, 1, 0, PVPLE_HC_NOT_OURS },
	{ "KVM_HC_SCHED_YIELD", KVM_HC_SCHED_YIELD, 1, 0, PVPLE_HC_NOT_OURS },
	{ "KVM_HC_KICK_CPU from CPL 3 is KVM's to refuse", KVM_HC_KICK_CPU, 1,
	  3, PVPLE_HC_NOT_OURS },
	{ "zero", 0, 1, 0, PVPLE_HC_NOT_OURS },
	{ "all ones, 64-bit", ~0UL, 1, 0, PVPLE_HC_NOT_OURS },
};

/* The hypercall numbers: the cases above, the range and below it. */
static unsigned int test_hc_decode(bool run)
{
	unsigned long nr, bad;
	unsigned int i;

	if (!run)
		return ARRAY_SIZE(cases) + 2;
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
	return 0;
}

/* The park call's answer when it acts not: one case per kind of record. */
static const struct {
	const char *what;
	int mode;
	enum pvple_rec rec;
	bool cycle;
	long want;
} stock_cases[] = {
	{ "mode off, whatever the record", PVPLE_MODE_OFF, PVPLE_REC_OK, false,
	  -KVM_EOPNOTSUPP },
	{ "a chain not waited on: a race", PVPLE_MODE_AUTO, PVPLE_REC_OK, false,
	  PVPLE_PARK_RUNNING },
	{ "a cycle of records", PVPLE_MODE_AUTO, PVPLE_REC_OK, true,
	  -KVM_EINVAL },
	{ "no area", PVPLE_MODE_AUTO, PVPLE_REC_UNREGISTERED, false,
	  -PVPLE_ENOTREG },
	{ "not waiting", PVPLE_MODE_PARK, PVPLE_REC_IDLE, false,
	  PVPLE_PARK_IDLE },
	{ "no holder named", PVPLE_MODE_YIELD, PVPLE_REC_NO_HOLDER, false,
	  PVPLE_PARK_RUNNING },
	{ "area not readable", PVPLE_MODE_AUTO, PVPLE_REC_FAULT, false,
	  -KVM_EFAULT },
	{ "malformed", PVPLE_MODE_AUTO, PVPLE_REC_BAD, false, -KVM_EINVAL },
	{ "torn", PVPLE_MODE_AUTO, PVPLE_REC_TORN, false, -KVM_EINVAL },
	{ "target out of range", PVPLE_MODE_AUTO, PVPLE_REC_TARGET_RANGE, false,
	  -KVM_EINVAL },
	{ "waits behind itself", PVPLE_MODE_AUTO, PVPLE_REC_TARGET_SELF, false,
	  -KVM_EINVAL },
	{ "target absent", PVPLE_MODE_AUTO, PVPLE_REC_TARGET_ABSENT, false,
	  -KVM_EINVAL },
};

static unsigned int test_stock_result(bool run)
{
	struct pvple_spin_in in = { };
	unsigned int i;
	long got;

	if (!run)
		return ARRAY_SIZE(stock_cases) + 1;
	for (i = 0; i < ARRAY_SIZE(stock_cases); i++) {
		in.mode = stock_cases[i].mode;
		in.rec = stock_cases[i].rec;
		in.cycle = stock_cases[i].cycle;
		got = pvple_stock_result(&in);
		if (got != stock_cases[i].want)
			ksft_print_msg("got %ld, want %ld\n", got,
				       stock_cases[i].want);
		ksft_test_result(got == stock_cases[i].want,
				 "stock_result: %s\n", stock_cases[i].what);
	}
	/* Too many parked behind the target already: a race, no error. */
	in = (struct pvple_spin_in){ .mode = PVPLE_MODE_AUTO,
				     .rec = PVPLE_REC_OK, .crowded = true };
	got = pvple_stock_result(&in);
	ksft_test_result(got == PVPLE_PARK_RUNNING,
			 "stock_result: a crowd behind the target (got %ld)\n",
			 got);
	return 0;
}

/* The slice extension: one grant, inside a critical section only. */
static unsigned int test_slice(bool run)
{
	static const struct {
		const char *name;
		struct pvple_slice_in in;
		enum pvple_slice want;
	} cases[] = {
		{ "in a section, on: grant",
		  { .on = true, .read_ok = true, .count = 1 }, PVPLE_SLICE_GRANT },
		{ "the count in bit 30 only: in a section",
		  { .on = true, .read_ok = true, .count = 0x40000000 },
		  PVPLE_SLICE_GRANT },
		{ "no resched folded (bit 31) and a count: grant",
		  { .on = true, .read_ok = true, .count = 0x80000002 },
		  PVPLE_SLICE_GRANT },
		{ "bit 31 alone is no section",
		  { .on = true, .read_ok = true, .count = 0x80000000 },
		  PVPLE_SLICE_NONE },
		{ "a zero count: none",
		  { .on = true, .read_ok = true }, PVPLE_SLICE_NONE },
		{ "in a section, off: reschedule",
		  { .read_ok = true, .count = 1 }, PVPLE_SLICE_OFF },
		{ "in a section, waiting for a lock: reschedule",
		  { .on = true, .read_ok = true, .count = 1, .waiting = true },
		  PVPLE_SLICE_WAITING },
		{ "in a section, the head of a lock's queue: grant",
		  { .on = true, .read_ok = true, .count = 1, .waiting = true,
		    .head = true }, PVPLE_SLICE_GRANT },
		{ "the head, a grant running: end it",
		  { .on = true, .granted = true, .read_ok = true, .count = 1,
		    .waiting = true, .head = true }, PVPLE_SLICE_END },
		{ "the head, off: reschedule",
		  { .read_ok = true, .count = 1, .waiting = true,
		    .head = true }, PVPLE_SLICE_OFF },
		{ "a grant running: end it, whatever the count",
		  { .on = true, .granted = true, .read_ok = true, .count = 1 },
		  PVPLE_SLICE_END },
		{ "a grant running, the count unreadable: end it",
		  { .on = true, .granted = true }, PVPLE_SLICE_END },
		{ "the count unreadable: fault",
		  { .on = true, .count = 1 }, PVPLE_SLICE_FAULT },
		{ "a step, still in a section: go on",
		  { .on = true, .granted = true, .step = true, .read_ok = true,
		    .count = 1 }, PVPLE_SLICE_STEP },
		{ "a step, out of the section: end it",
		  { .on = true, .granted = true, .step = true, .read_ok = true },
		  PVPLE_SLICE_END },
		{ "a step, bit 31 alone: out, end it",
		  { .on = true, .granted = true, .step = true, .read_ok = true,
		    .count = 0x80000000 }, PVPLE_SLICE_END },
		{ "a step, the count unreadable: end it",
		  { .on = true, .granted = true, .step = true, .count = 1 },
		  PVPLE_SLICE_END },
		{ "a step, the extension switched off: end it",
		  { .granted = true, .step = true, .read_ok = true, .count = 1 },
		  PVPLE_SLICE_END },
		{ "a step, now waiting behind another waiter: end it",
		  { .on = true, .granted = true, .step = true, .read_ok = true,
		    .count = 1, .waiting = true }, PVPLE_SLICE_END },
		{ "a step, the head of a queue: go on",
		  { .on = true, .granted = true, .step = true, .read_ok = true,
		    .count = 1, .waiting = true, .head = true }, PVPLE_SLICE_STEP },
		{ "a step without a grant: a grant of its own",
		  { .on = true, .step = true, .read_ok = true, .count = 1 },
		  PVPLE_SLICE_GRANT },
		{ "the guest ended the granted section: done",
		  { .on = true, .granted = true, .done = true, .read_ok = true,
		    .count = 1 }, PVPLE_SLICE_DONE },
		{ "the guest's end at a step: done, not a step",
		  { .on = true, .granted = true, .step = true, .done = true,
		    .read_ok = true, .count = 1 }, PVPLE_SLICE_DONE },
		{ "the guest's end, the count unreadable: done",
		  { .granted = true, .done = true }, PVPLE_SLICE_DONE },
		{ "the guest's end without a grant: a request like any",
		  { .on = true, .done = true, .read_ok = true, .count = 1 },
		  PVPLE_SLICE_GRANT },
		{ "in a section, a gate shut: refused",
		  { .on = true, .read_ok = true, .count = 1,
		    .gate = PVPLE_GATE_NESTED }, PVPLE_SLICE_REFUSED },
		{ "out of a section, a gate shut: none",
		  { .on = true, .read_ok = true, .gate = PVPLE_GATE_MODEL },
		  PVPLE_SLICE_NONE },
		{ "a gate shut, the extension off: off",
		  { .read_ok = true, .count = 1, .gate = PVPLE_GATE_REGRANT },
		  PVPLE_SLICE_OFF },
		{ "a gate shut, a waiter: refused first",
		  { .on = true, .read_ok = true, .count = 1, .waiting = true,
		    .gate = PVPLE_GATE_RT_TASK }, PVPLE_SLICE_REFUSED },
		{ "a step, a gate shut meanwhile: end it",
		  { .on = true, .granted = true, .step = true, .read_ok = true,
		    .count = 1, .gate = PVPLE_GATE_MODEL }, PVPLE_SLICE_END },
		{ "the guest's end, a gate shut: done",
		  { .on = true, .granted = true, .done = true, .read_ok = true,
		    .count = 1, .gate = PVPLE_GATE_TIMER }, PVPLE_SLICE_DONE },
	};
	unsigned int i, bits, bad = 0;
	struct pvple_slice_in in;

	if (!run)
		return ARRAY_SIZE(cases) + 1;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		ksft_test_result(pvple_slice_decide(&cases[i].in) == cases[i].want,
				 "slice: %s\n", cases[i].name);
	/*
	 * Every input: a grant needs all six conditions, and only those;
	 * "not waiting" is met by the head of a queue too; a shut gate
	 * refuses exactly what would have been granted or waited.  A step keeps a
	 * running grant on the same four and its own step; every other
	 * request to a running grant ends it, as the guest's end (@done)
	 * does, and only that one ends it as done.
	 */
	for (bits = 0; bits < 1024; bits++) {
		bool kept, want, done, shut = bits & 512;
		enum pvple_slice d;

		in = (struct pvple_slice_in){
			.on = bits & 1, .granted = bits & 2, .read_ok = bits & 4,
			.waiting = bits & 8, .head = bits & 64, .step = bits & 128,
			.done = bits & 256,
			.count = (bits & 16 ? 3 : 0) | (bits & 32 ? 0x80000000 : 0),
			.gate = shut ? PVPLE_GATE_REGRANT : PVPLE_GATE_OPEN,
		};
		kept = in.on && in.read_ok && (!in.waiting || in.head) &&
		       (bits & 16) && !shut;
		done = in.granted && in.done;
		want = kept && !in.granted;
		d = pvple_slice_decide(&in);
		bad += (d == PVPLE_SLICE_DONE) != done;
		bad += (d == PVPLE_SLICE_GRANT) != want;
		bad += (d == PVPLE_SLICE_STEP) !=
		       (kept && in.granted && in.step && !done);
		bad += in.granted && !done && d != PVPLE_SLICE_STEP &&
		       d != PVPLE_SLICE_END;
		bad += (d == PVPLE_SLICE_REFUSED) !=
		       (shut && !in.granted && in.on && in.read_ok &&
			(bits & 16));
	}
	ksft_test_result(!bad, "slice: grant, step or done just when all hold (%u of 1024 wrong)\n",
			 bad);
	return 0;
}

/* Which records make a waiter, and which of those the queue's head. */
/* Where a grant is not safe: the first reason, in the documented order. */
static unsigned int test_slice_gate(bool run)
{
	static const struct {
		const char *name;
		struct pvple_slice_env e;
		enum pvple_slice_gate want;
	} cases[] = {
		{ "voluntary, a fair thread, 1 ns timers: open",
		  { .model_ok = true, .resolution_ns = 1, .bound_ns = 5000 },
		  PVPLE_GATE_OPEN },
		{ "preempt=full or RT: model",
		  { .resolution_ns = 1, .bound_ns = 5000 }, PVPLE_GATE_MODEL },
		{ "an RT or deadline vCPU thread",
		  { .model_ok = true, .rt_task = true, .resolution_ns = 1,
		    .bound_ns = 5000 }, PVPLE_GATE_RT_TASK },
		{ "a vCPU in a nested guest",
		  { .model_ok = true, .nested = true, .resolution_ns = 1,
		    .bound_ns = 5000 }, PVPLE_GATE_NESTED },
		{ "low-resolution timers (4 ms) under a 5 us bound",
		  { .model_ok = true, .resolution_ns = 4000000,
		    .bound_ns = 5000 }, PVPLE_GATE_TIMER },
		{ "a resolution equal to the bound: open",
		  { .model_ok = true, .resolution_ns = 5000, .bound_ns = 5000 },
		  PVPLE_GATE_OPEN },
		{ "a request a grant gave back: not again",
		  { .model_ok = true, .owed = true, .resolution_ns = 1,
		    .bound_ns = 5000 }, PVPLE_GATE_REGRANT },
		{ "all shut: the model first",
		  { .rt_task = true, .nested = true, .owed = true,
		    .resolution_ns = 9, .bound_ns = 1 }, PVPLE_GATE_MODEL },
		{ "RT and nested: RT first",
		  { .model_ok = true, .rt_task = true, .nested = true,
		    .resolution_ns = 1, .bound_ns = 5000 }, PVPLE_GATE_RT_TASK },
	};
	unsigned int i;

	if (!run)
		return ARRAY_SIZE(cases);
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		ksft_test_result(pvple_slice_gate(&cases[i].e) == cases[i].want,
				 "slice gate: %s\n", cases[i].name);
	return 0;
}

/*
 * The features answer (ABI 5): PVPLE_F_SLICE exactly when the extension is
 * on, the vCPU registered a count and no gate refuses, over every input.
 */
static unsigned int test_hc_features(bool run)
{
	unsigned int bad = 0, set = 0, g, on, counted;

	if (!run)
		return 2;
	for (g = 0; g < PVPLE_NR_GATES; g++)
		for (on = 0; on < 2; on++)
			for (counted = 0; counted < 2; counted++) {
				__u64 f = pvple_hc_features(on, counted, g);
				bool want = on && counted &&
					    g == PVPLE_GATE_OPEN;

				bad += f != (want ? PVPLE_F_SLICE : 0);
				set += !!f;
			}
	ksft_test_result(!bad, "features: the slice bit iff on, counted and open\n");
	ksft_test_result(set == 1, "features: one input of %u sets it\n",
			 PVPLE_NR_GATES * 4);
	return 0;
}

static unsigned int test_slice_rec(bool run)
{
	static const struct {
		const char *name;
		enum pvple_rec r;
		__u32 role;
		bool waiting, head;
	} cases[] = {
		{ "idle: not waiting", PVPLE_REC_IDLE, 0, false, false },
		{ "behind the holder: the head", PVPLE_REC_OK,
		  PVPLE_ROLE_HOLDER, true, true },
		{ "behind a predecessor: a waiter", PVPLE_REC_OK,
		  PVPLE_ROLE_PREDECESSOR, true, false },
		{ "holder not known: the head", PVPLE_REC_NO_HOLDER, 0,
		  true, true },
		{ "the holder out of range: a waiter, not a head",
		  PVPLE_REC_TARGET_RANGE, PVPLE_ROLE_HOLDER, true, false },
		{ "a bad record: a waiter", PVPLE_REC_BAD, PVPLE_ROLE_HOLDER,
		  true, false },
		{ "unreadable: a waiter", PVPLE_REC_FAULT, PVPLE_ROLE_HOLDER,
		  true, false },
	};
	struct pvple_slice_in in;
	unsigned int i;

	if (!run)
		return ARRAY_SIZE(cases);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		in = (struct pvple_slice_in){ };
		pvple_slice_rec(&in, cases[i].r,
				PVPLE_WAIT(PVPLE_STATE_WAITING, cases[i].role,
					   3, 1));
		ksft_test_result(in.waiting == cases[i].waiting &&
				 in.head == cases[i].head,
				 "slice record: %s\n", cases[i].name);
	}
	return 0;
}

/* A holder spinning inside its section (an idle record) keeps its CPU. */
static unsigned int test_held(bool run)
{
	struct pvple_spin_in in = {
		.mode = PVPLE_MODE_AUTO, .rec = PVPLE_REC_IDLE, .held = true,
	};
	unsigned int at;

	if (!run)
		return 6;
	ksft_test_result(pvple_decide(&in, &at) == PVPLE_ACT_SPIN && !at,
			 "held: a holder in its section spins\n");
	in.spins = PVPLE_SPIN_MAX - 1;
	ksft_test_result(pvple_decide(&in, &at) == PVPLE_ACT_SPIN,
			 "held: up to the spin limit\n");
	in.spins = PVPLE_SPIN_MAX;
	ksft_test_result(pvple_decide(&in, &at) == PVPLE_ACT_STOCK,
			 "held: at the spin limit: stock\n");
	in.spins = 0;
	in.mode = PVPLE_MODE_OFF;
	ksft_test_result(pvple_decide(&in, &at) == PVPLE_ACT_STOCK,
			 "held: mode off: stock\n");
	in.mode = PVPLE_MODE_YIELD;
	in.held = false;
	ksft_test_result(pvple_decide(&in, &at) == PVPLE_ACT_STOCK,
			 "held: an idle record not taken for a holder: stock\n");
	in.held = true;
	in.rec = PVPLE_REC_UNREGISTERED;
	ksft_test_result(pvple_decide(&in, &at) == PVPLE_ACT_STOCK,
			 "held: only with an idle record\n");
	return 0;
}

/* Each returns, asked with run = false, how many results it reports. */
static unsigned int (*const tests[])(bool run) = {
	test_hc_decode, test_rec_check, test_chain_hop, test_chain_step,
	test_walks, test_decide_table, test_decide_properties, test_classify,
	test_hc_filter, test_throttle, test_irq_on, test_stock_result,
	test_registration, test_slice, test_slice_gate, test_slice_rec, test_held,
	test_hc_features,
};

int main(void)
{
	unsigned int i, plan = 0;

	ksft_print_header();
	for (i = 0; i < ARRAY_SIZE(tests); i++)
		plan += tests[i](false);
	ksft_set_plan(plan);
	for (i = 0; i < ARRAY_SIZE(tests); i++)
		tests[i](true);
	ksft_finished();
}
