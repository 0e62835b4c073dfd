// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-pvple's directed yields, and the chain it follows to find whom to
 * yield to: the preempted lock holder, a real queue walked to its holder,
 * and the hints the walk must refuse.
 *
 * Preemption is made deterministic by pinning the vCPU threads that matter
 * to one host CPU.  PLE-path tests need a host that intercepts PAUSE; the
 * park hypercall path does not.  Tests that read the module's tracepoints
 * must run alone on the host.
 */
#include "pvple_lock.h"

TEST_F_TIMEOUT(pvple, yield_to_preempted_holder, HARNESS_TIMEOUT_S)
{
	struct pvple_vcpu_thread t[3];
	struct pvple_event *ev = calloc(MAX_EVENTS, sizeof(*ev));
	int i, n, to_holder = 0, to_other = 0;
	struct pvple_counts c;
	struct kvm_vm *vm;

	if (unsupported(true))
		SKIP(return, "%s", unsupported(true));
	set_params("yield", "2000");
	vm = create_vm(3, guest_pause_waiter, t, 0);
	pvple_trace_begin();
	pvple_start_vcpus(t, 3);
	ASSERT_TRUE(wait_counts(vm, &c, three_yields, TIMEOUT_S))
		TH_LOG("fewer than 3 directed yields succeeded");
	release_and_wait(vm, t, 3);
	n = pvple_trace_end(ev, MAX_EVENTS);

	for (i = 0; i < n; i++) {
		if (ev[i].type != PVPLE_EV_YIELD)
			continue;
		ASSERT_EQ(ev[i].vcpu, 1);
		if (ev[i].target == 0)
			to_holder++;
		else
			to_other++;
	}
	ASSERT_TRUE(pvple_vm_counts(vm, &c));
	ksft_print_msg("yields to the holder %d, to anyone else %d; ple_exits %lu yield_ok %lu\n",
		       to_holder, to_other, c.ple_exits, c.yield_ok);
	ksft_print_msg("the holder ran before the next exit: %lu, did not: %lu\n",
		       c.yield_reached, c.yield_missed);
	ASSERT_GE(to_holder, 3);
	ASSERT_EQ(to_other, 0);
	/* One CPU, holder runnable: a yield the host took reaches it. */
	ASSERT_GE(c.yield_reached, 1);
	ASSERT_LE(c.yield_reached + c.yield_missed, c.yield_ok);
	ASSERT_EQ(c.parks, 0);
	kvm_vm_free(vm);
	free(ev);
}

/*
 * A real queue: vCPU 0 holds the lock and publishes nothing; vCPU 1, the
 * queue head, names it as the holder; vCPUs 2 and 3 each name the waiter
 * just ahead.  vCPUs 0 and 3 share host CPU 0, vCPUs 1 and 2 host CPU 1:
 * the holder is preempted whenever vCPU 3 spins, and vCPU 3 can only reach
 * it by following the chain 2 -> 1 -> 0.  Every directed yield must go to
 * the holder or to a waiter nearer it that is preempted, and no waiter
 * may be told to spin while the holder is preempted.
 */
static u64 guest_published[4], guest_chain_done[4];

static void guest_real_chain(u32 id, bool use_hc)
{
	struct pvple_area *a = &guest_areas[id];

	guest_register(id);
	if (id == 0) {
		WRITE_ONCE(guest_held, 1);
		/* Not out of KVM_RUN while anyone may still wait for us. */
		while (!READ_ONCE(guest_chain_done[1]))
			;
		GUEST_DONE();
	}
	/* Queue in order, and leave in reverse: every walk sees 0 hold. */
	while (id == 1 ? !READ_ONCE(guest_held) :
	       !READ_ONCE(guest_published[id - 1]))
		;
	pvple_guest_publish(a, id - 1, id == 1 ? PVPLE_ROLE_HOLDER :
			    PVPLE_ROLE_PREDECESSOR);
	WRITE_ONCE(guest_published[id], 1);
	while (!READ_ONCE(guest_release) ||
	       (id < 3 && !READ_ONCE(guest_chain_done[id + 1]))) {
		/*
		 * Paced, as the guest series is: a call per many spins;
		 * without PAUSE, so that no PLE exit does the work.
		 */
		if (!use_hc)
			asm volatile("pause" ::: "memory");
		else if (!(++guest_loops[id] % 256))
			pvple_guest_park();
		else
			asm volatile("" ::: "memory");
	}
	pvple_guest_clear(a);
	WRITE_ONCE(guest_chain_done[id], 1);
	GUEST_DONE();
}

static void guest_real_chain_pause(u32 id)
{
	guest_real_chain(id, false);
}

static void guest_real_chain_hc(u32 id)
{
	guest_real_chain(id, true);
}

static bool holder_yields(struct pvple_counts *c)
{
	return c->yield_holder >= 20;
}

static void chain_reaches_holder(struct __test_metadata *_metadata,
				 void *guest_code)
{
	struct pvple_event *ev = calloc(MAX_EVENTS, sizeof(*ev));
	int i, n, to_holder = 0, to_waiter = 0, walked = 0;
	int spin_behind_preempted = 0, decided = 0;
	struct pvple_vcpu_thread t[4];
	struct pvple_counts c;
	struct kvm_vm *vm;
	bool enough;

	set_params("auto", "100000");
	vm = create_vm(4, guest_code, t, 0);
	t[1].cpu = 1;
	t[2].cpu = 1;
	pvple_trace_begin_decide();
	pvple_start_vcpus(t, 4);
	enough = wait_counts(vm, &c, holder_yields, TIMEOUT_S);
	release_and_wait(vm, t, 4);
	n = pvple_trace_end(ev, MAX_EVENTS);

	for (i = 0; i < n; i++) {
		if (ev[i].type == PVPLE_EV_YIELD) {
			ASSERT_GE(ev[i].vcpu, 1);
			/* To the holder, or a waiter between it and us. */
			ASSERT_LT(ev[i].target, ev[i].vcpu);
			to_holder += ev[i].target == 0;
			to_waiter += ev[i].target != 0;
		}
		if (ev[i].type != PVPLE_EV_DECIDE || !strcmp(ev[i].rec, "idle"))
			continue;
		decided++;
		/* Every chain was walked to the holder, vCPU 0. */
		ASSERT_STREQ(ev[i].end, "holder");
		ASSERT_EQ(ev[i].end_id, 0);
		ASSERT_EQ(ev[i].len, ev[i].vcpu);
		walked += ev[i].vcpu == 3;
		spin_behind_preempted +=
			!strcmp(ev[i].action, "spin") &&
			(!strcmp(ev[i].end_state, "preempted") ||
			 !strcmp(ev[i].end_state, "ready"));
	}
	ASSERT_TRUE(pvple_vm_counts(vm, &c));
	ksft_print_msg("decisions %d (%d by vCPU 3, 3 hops)\n", decided, walked);
	ksft_print_msg("yields: %d to the holder, %d to a waiter\n", to_holder,
		       to_waiter);
	ksft_print_msg("told to spin with the holder preempted: %d\n",
		       spin_behind_preempted);
	ksft_print_msg("yields ok %lu, to the holder %lu, beyond chain[0] %lu\n",
		       c.yield_ok, c.yield_holder, c.yield_beyond);
	ksft_print_msg("parks %lu spin %lu stock %lu\n", c.parks, c.spin,
		       c.stock);
	ASSERT_TRUE(enough) TH_LOG("fewer than 20 yields reached the holder");
	/* The trace keeps the last events only; the counters keep all. */
	ASSERT_GE(decided, 10);
	ASSERT_GE(c.chain_hops, 1);
	/* Yields past the vCPU a record names: the chain was followed. */
	ASSERT_GE(c.yield_beyond, 1);
	ASSERT_EQ(c.chain_head, 0);
	if (guest_code == guest_real_chain_hc) {
		ASSERT_EQ(c.ple_exits, 0);
		ASSERT_GE(c.hc_park, 1);
	}
	ASSERT_GE(to_holder, 20);
	ASSERT_EQ(spin_behind_preempted, 0);
	ASSERT_EQ(c.chain_stale + c.chain_cross + c.chain_cycle +
		  c.chain_absent + c.chain_deep, 0);
	ASSERT_EQ(c.wake_timeout, 0);
	kvm_vm_free(vm);
	free(ev);
}

TEST_F_TIMEOUT(pvple, chain_reaches_preempted_holder, HARNESS_TIMEOUT_S)
{
	if (unsupported(true) || need_two_cpus())
		SKIP(return, "%s", unsupported(true) ?: need_two_cpus());
	chain_reaches_holder(_metadata, guest_real_chain_pause);
}

/* The same through the park hypercall: no PLE needed. */
TEST_F_TIMEOUT(pvple, chain_hypercall_reaches_preempted_holder,
	       HARNESS_TIMEOUT_S)
{
	if (unsupported(false) || need_two_cpus())
		SKIP(return, "%s", unsupported(false) ?: need_two_cpus());
	chain_reaches_holder(_metadata, guest_real_chain_hc);
}

/*
 * Hints the walk must refuse.  vCPUs 1-5 register and leave KVM_RUN; then
 * vCPU 0 writes their records as each case needs (guest memory is shared:
 * only the convention says a vCPU writes its own) and asks the host to
 * act.  Mode "yield", so that the vCPUs out of KVM_RUN are never waited
 * for: every case ends in stock handling, each with its own counter --
 * and the two last, which are not bad hints, with the chain ended at the
 * queue head.
 */

static void guest_bad_chains(u32 id)
{
	u64 *r = guest_res[id];
	u32 i;

	guest_register(id);
	if (id) {
		GUEST_DONE();
		return;
	}
	/* Stale: the named holder waits for the lock it holds. */
	set_rec(0, 1, PVPLE_ROLE_HOLDER, PVPLE_TEST_LOCK);
	set_rec(1, 2, PVPLE_ROLE_PREDECESSOR, PVPLE_TEST_LOCK);
	r[0] = pvple_guest_park();
	/* Cross: the predecessor waits on another lock. */
	set_rec(0, 1, PVPLE_ROLE_PREDECESSOR, PVPLE_TEST_LOCK);
	set_rec(1, 2, PVPLE_ROLE_PREDECESSOR, LOCK_2);
	r[1] = pvple_guest_park();
	/* Cycle back to the spinner: 0 -> 1 -> 2 -> 0. */
	set_rec(1, 2, PVPLE_ROLE_PREDECESSOR, PVPLE_TEST_LOCK);
	set_rec(2, 0, PVPLE_ROLE_PREDECESSOR, PVPLE_TEST_LOCK);
	r[2] = pvple_guest_park();
	/* Cycle further on: 0 -> 1 -> 2 -> 1. */
	set_rec(2, 1, PVPLE_ROLE_PREDECESSOR, PVPLE_TEST_LOCK);
	r[3] = pvple_guest_park();
	/* A hop to a vCPU the VM does not have. */
	set_rec(2, 7, PVPLE_ROLE_PREDECESSOR, PVPLE_TEST_LOCK);
	r[4] = pvple_guest_park();
	/* Deeper than the host looks: 0 -> 1 -> 2 -> 3 -> 4 -> 5. */
	for (i = 2; i <= 4; i++)
		set_rec(i, i + 1, PVPLE_ROLE_PREDECESSOR, PVPLE_TEST_LOCK);
	r[5] = pvple_guest_park();
	/* The head does not know the holder. */
	set_rec(1, 0, PVPLE_ROLE_UNKNOWN, PVPLE_TEST_LOCK);
	r[6] = pvple_guest_park();
	/* The spinner itself does not know it. */
	set_rec(0, 0, PVPLE_ROLE_UNKNOWN, PVPLE_TEST_LOCK);
	r[7] = pvple_guest_park();
	/* A hint that names the spinner. */
	set_rec(0, 0, PVPLE_ROLE_HOLDER, PVPLE_TEST_LOCK);
	r[8] = pvple_guest_park();
	/* Nested: 1 holds our lock and waits for another, held by 2. */
	set_rec(0, 1, PVPLE_ROLE_HOLDER, PVPLE_TEST_LOCK);
	set_rec(1, 2, PVPLE_ROLE_HOLDER, LOCK_2);
	pvple_guest_clear(&guest_areas[2]);
	r[9] = pvple_guest_park();
	/*
	 * Not stale: the holder 1 names has released and queued again, so
	 * 1, the queue head, is who the queue waits for (chain_head).
	 */
	set_rec(0, 1, PVPLE_ROLE_PREDECESSOR, PVPLE_TEST_LOCK);
	set_rec(1, 2, PVPLE_ROLE_HOLDER, PVPLE_TEST_LOCK);
	set_rec(2, 3, PVPLE_ROLE_PREDECESSOR, PVPLE_TEST_LOCK);
	r[10] = pvple_guest_park();
	/* The same, the holder having queued behind us. */
	set_rec(1, 0, PVPLE_ROLE_HOLDER, PVPLE_TEST_LOCK);
	r[11] = pvple_guest_park();
	GUEST_DONE();
}

TEST_F_TIMEOUT(pvple, chain_bad_hints_get_stock, HARNESS_TIMEOUT_S)
{
	u64 *r = guest_res[0];
	struct pvple_counts c;
	struct kvm_vm *vm;
	int i;

	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	run_crafted(_metadata, 6, guest_bad_chains, "yield", &c, &vm);
	ksft_print_msg("stale %lu cross %lu cycle %lu absent %lu deep %lu\n",
		       c.chain_stale, c.chain_cross, c.chain_cycle,
		       c.chain_absent, c.chain_deep);
	ksft_print_msg("no_holder %lu/%lu self %lu hops %lu\n",
		       c.chain_no_holder, c.rec_no_holder, c.rec_target_self,
		       c.chain_hops);
	for (i = 0; i <= 11; i++)
		ASSERT_EQ(r[i], i == 8 ? (u64)-KVM_EINVAL : PVPLE_PARK_RUNNING)
			TH_LOG("case %d", i);
	ASSERT_EQ(c.chain_stale, 1);	/* acted on as the holder: OUT, so stock */
	ASSERT_EQ(c.chain_cross, 1);
	ASSERT_EQ(c.chain_cycle, 2);
	ASSERT_EQ(c.chain_absent, 1);
	ASSERT_EQ(c.chain_deep, 1);
	ASSERT_EQ(c.chain_no_holder, 1);
	ASSERT_EQ(c.rec_no_holder, 1);
	ASSERT_EQ(c.rec_target_self, 1);
	ASSERT_EQ(c.chain_head, 2);
	/* Hops beyond chain[0]: 0 + 0 + 1 + 1 + 1 + 3 + 0 + 0 + 0 + 1 + 0 + 0. */
	ASSERT_EQ(c.chain_hops, 7);
	ASSERT_EQ(c.stock, 12);
	ASSERT_EQ(c.yield_tried + c.parks + c.spin, 0);
	kvm_vm_free(vm);
}

TEST_HARNESS_MAIN
