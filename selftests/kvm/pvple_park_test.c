// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-pvple's parks: parking behind the vCPU ahead until it runs, in queue
 * order, never a queue head, the bound on a park, the events that end one,
 * unload under a parked vCPU, cycles, and no lost wake-up.
 *
 * Preemption is made deterministic by pinning the vCPU threads that matter
 * to one host CPU.  PLE-path tests need a host that intercepts PAUSE; the
 * park hypercall path does not.  Tests that read the module's tracepoints
 * must run alone on the host.
 */
#include <sched.h>

#include "pvple_lock.h"

/*
 * A park woken by its target's run waits for a CPU at most this long
 * before the timer fires (at equal weights: a few time slices).
 */
#define LATE_NS	(20 * 1000 * 1000ULL)

static void check_parks_end_on_sched_in(struct __test_metadata *_metadata,
					struct kvm_vm *vm,
					struct pvple_event *ev, int n)
{
	int i, sched_in = 0;
	struct pvple_counts c;

	for (i = 0; i < n; i++) {
		if (ev[i].type != PVPLE_EV_WAKE)
			continue;
		/* Only the waiter behind the head parks, behind the head. */
		ASSERT_EQ(ev[i].vcpu, 2);
		ASSERT_EQ(ev[i].target, 1);
		sched_in += !strcmp(ev[i].why, "sched_in");
	}
	ASSERT_TRUE(pvple_vm_counts(vm, &c));
	ksft_print_msg("parks %lu: sched_in %lu timeout %lu event %lu; traced sched_in wakes %d\n",
		       c.parks, c.wake_sched_in, c.wake_timeout, c.wake_event,
		       sched_in);
	ASSERT_GE(c.parks, 3);
	ASSERT_GE(sched_in, 3);
	/* 100 ms is far beyond any time slice: a lost wake-up would show here. */
	ASSERT_EQ(c.wake_timeout, 0);
	ASSERT_EQ(c.yield_tried, 0);
}

/*
 * vCPU 2 waits behind vCPU 1, the queue head, which waits for vCPU 0, all
 * on one CPU, spinning with PAUSE or the park hypercall: vCPU 2 parks
 * behind the head whenever it is preempted, and the head never parks.
 */
static void park_until_holder_runs(struct __test_metadata *_metadata,
				   void *guest_code)
{
	struct pvple_event *ev = calloc(MAX_EVENTS, sizeof(*ev));
	struct pvple_vcpu_thread t[3];
	struct pvple_counts c;
	struct kvm_vm *vm;

	set_params("park", "100000");
	vm = create_vm(3, guest_code, t, 0);
	SET(vm, guest_waiters, 2);
	pvple_trace_begin();
	pvple_start_vcpus(t, 3);
	ASSERT_TRUE(wait_counts(vm, &c, three_parks, TIMEOUT_S));
	release_and_wait(vm, t, 3);
	check_parks_end_on_sched_in(_metadata, vm, ev,
				    pvple_trace_end(ev, MAX_EVENTS));
	ASSERT_TRUE(pvple_vm_counts(vm, &c));
	if (guest_code == guest_hc_waiter)
		ASSERT_GE(c.hc_park, c.parks);
	kvm_vm_free(vm);
	free(ev);
}

TEST_F_TIMEOUT(pvple, park_until_holder_runs, HARNESS_TIMEOUT_S)
{
	if (unsupported(true))
		SKIP(return, "%s", unsupported(true));
	park_until_holder_runs(_metadata, guest_pause_waiter);
}

/* The same through the park hypercall: no PLE needed. */
TEST_F_TIMEOUT(pvple, park_hypercall_until_holder_runs, HARNESS_TIMEOUT_S)
{
	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	park_until_holder_runs(_metadata, guest_hc_waiter);
}

/*
 * vCPU 0 holds; vCPU k > 0 waits behind vCPU k - 1 (an MCS-like queue):
 * vCPU 1, the head, never parks; each waiter behind it parks behind a vCPU
 * that is preempted or itself parked, and must be woken by that vCPU's
 * schedule-in, in chain order, with no park left to time out.
 */
static u64 guest_order_seq, guest_order[PVPLE_MAX_VCPUS];

static void guest_chain(u32 id)
{
	guest_register(id);
	if (id) {
		pvple_guest_publish(&guest_areas[id], id - 1,
				    id == 1 ? PVPLE_ROLE_HOLDER :
				    PVPLE_ROLE_PREDECESSOR);
		while (!READ_ONCE(guest_go[id]))
			asm volatile("pause" ::: "memory");
		pvple_guest_clear(&guest_areas[id]);
		guest_order[id] = __atomic_add_fetch(&guest_order_seq, 1,
						     __ATOMIC_SEQ_CST);
	} else {
		while (!READ_ONCE(guest_release))
			;
	}
	if (id + 1 < PVPLE_MAX_VCPUS)
		WRITE_ONCE(guest_go[id + 1], 1);
	GUEST_DONE();
}

TEST_F_TIMEOUT(pvple, chain_wakes_in_order, HARNESS_TIMEOUT_S)
{
	struct pvple_event *ev = calloc(MAX_EVENTS, sizeof(*ev));
	int i, n, lost, timeouts, woken_by_pred[4] = { 0 };
	const u64 bound_ns = 100000 * 1000ULL;
	struct pvple_vcpu_thread t[4];
	struct pvple_counts c;
	struct kvm_vm *vm;
	u64 longest_ns;
	pid_t tid[4];

	if (unsupported(true))
		SKIP(return, "%s", unsupported(true));
	set_params("park", "100000");
	vm = create_vm(4, guest_chain, t, 0);
	pvple_start_vcpus(t, 4);
	for (i = 0; i < 4; i++)
		while (!(tid[i] = __atomic_load_n(&t[i].tid, __ATOMIC_ACQUIRE)))
			usleep(100);
	pvple_trace_runs_begin(tid, 4);
	ASSERT_TRUE(wait_counts(vm, &c, three_parks, TIMEOUT_S));
	usleep(200000);
	pvple_trace_runs_stop();
	release_and_wait(vm, t, 4);
	n = pvple_trace_end(ev, MAX_EVENTS);
	lost = pvple_trace_runs_end(tid, 4, bound_ns, LATE_NS, &timeouts,
				    &longest_ns);

	for (i = 0; i < n; i++) {
		if (ev[i].type != PVPLE_EV_WAKE)
			continue;
		ASSERT_GE(ev[i].vcpu, 2);
		ASSERT_LE(ev[i].vcpu, 3);
		/* Each waiter parks behind its own predecessor only. */
		ASSERT_EQ(ev[i].target, ev[i].vcpu - 1);
		woken_by_pred[ev[i].vcpu] += !strcmp(ev[i].why, "sched_in");
	}
	ASSERT_TRUE(pvple_vm_counts(vm, &c));
	ksft_print_msg("sched_in wakes by waiter: %d %d %d; parks %lu timeouts %lu\n",
		       woken_by_pred[1], woken_by_pred[2], woken_by_pred[3],
		       c.parks, c.wake_timeout);
	ksft_print_msg("timeouts traced %d (longest %lu ms), %s: %d\n",
		       timeouts, longest_ns / 1000000,
		       "the target ran in, or the trace cannot tell", lost);
	ASSERT_EQ(woken_by_pred[1], 0);
	for (i = 2; i <= 3; i++)
		ASSERT_GE(woken_by_pred[i], 1) TH_LOG("waiter %d never woken", i);
	/* A timeout only where the emulator did not run the target. */
	ASSERT_EQ(lost, 0);
	ASSERT_EQ(timeouts, c.wake_timeout);
	/* The queue hands over in order, and nobody was skipped. */
	sync_global_from_guest(vm, guest_order);
	for (i = 1; i <= 3; i++)
		ASSERT_EQ(guest_order[i], i);
	kvm_vm_free(vm);
	free(ev);
}

/*
 * Who never sleeps (issue 20).  With qspinlock the queue head spins with
 * the pending bit set, and nobody else can take the lock while it is set:
 * a parked head stalls the whole queue.  vCPUs 1-3 register and leave
 * KVM_RUN, so that each of them, named, is a target a park would wait
 * for; in mode "park" vCPU 0 then publishes, in turn, a head's record
 * beside a chain that is fine, stale, nested or cyclic, and a waiter's
 * record whose walk ends at a head.  None may park: each gets stock
 * handling.  The last case, a waiter behind a vCPU that is out of KVM_RUN,
 * is the control: it parks, and its park ends at the 2 ms bound.
 */
static void guest_no_head_parks(u32 id)
{
	u64 *r = guest_res[id];

	guest_register(id);
	if (id) {
		GUEST_DONE();
		return;
	}
	/* A head, its holder out of KVM_RUN. */
	set_rec(0, 1, PVPLE_ROLE_HOLDER, PVPLE_TEST_LOCK);
	r[0] = pvple_guest_park();
	/* A head whose hint is stale: the named holder waits for the lock. */
	set_rec(1, 2, PVPLE_ROLE_HOLDER, PVPLE_TEST_LOCK);
	r[1] = pvple_guest_park();
	/* A head whose holder waits for another lock, held by 2. */
	set_rec(1, 2, PVPLE_ROLE_HOLDER, LOCK_2);
	r[2] = pvple_guest_park();
	/* A head on a 3-cycle: 0 -> 1 -> 2 -> 0, the last two on LOCK_2. */
	set_rec(1, 2, PVPLE_ROLE_PREDECESSOR, LOCK_2);
	set_rec(2, 0, PVPLE_ROLE_PREDECESSOR, LOCK_2);
	r[3] = pvple_guest_park();
	/* A waiter whose walk ends at a head: 1's holder, 2, has released. */
	set_rec(0, 1, PVPLE_ROLE_PREDECESSOR, PVPLE_TEST_LOCK);
	set_rec(1, 2, PVPLE_ROLE_HOLDER, PVPLE_TEST_LOCK);
	set_rec(2, 3, PVPLE_ROLE_PREDECESSOR, PVPLE_TEST_LOCK);
	r[4] = pvple_guest_park();
	/* The control: a waiter behind 1, which is out and names nobody. */
	pvple_guest_clear(&guest_areas[1]);
	r[5] = pvple_guest_park();
	GUEST_DONE();
}

TEST_F_TIMEOUT(pvple, head_never_parks, HARNESS_TIMEOUT_S)
{
	u64 *r = guest_res[0];
	struct pvple_counts c;
	struct kvm_vm *vm;
	int i;

	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	run_crafted(_metadata, 4, guest_no_head_parks, "park", &c, &vm);
	ksft_print_msg("parks %lu (timeout %lu), stock %lu: stale %lu head %lu cycle %lu\n",
		       c.parks, c.wake_timeout, c.stock, c.chain_stale,
		       c.chain_head, c.chain_cycle);
	for (i = 0; i <= 4; i++)
		ASSERT_EQ(r[i], PVPLE_PARK_RUNNING) TH_LOG("case %d", i);
	ASSERT_EQ(r[5], PVPLE_PARK_TIMEOUT);
	ASSERT_EQ(c.parks, 1);
	ASSERT_EQ(c.wake_timeout, 1);
	ASSERT_EQ(c.stock, 5);
	ASSERT_EQ(c.chain_stale, 1);
	ASSERT_EQ(c.chain_head, 1);
	ASSERT_EQ(c.chain_cycle, 1);
	kvm_vm_free(vm);
}

/*
 * vCPU 0 never runs (its thread is never started): vCPU 1 waits behind it
 * and nothing will ever wake it but the bound, or an event.
 */
static void guest_wait_behind_absent(u32 id)
{
	guest_register(id);
	if (id == 1) {
		pvple_guest_publish(&guest_areas[1], 0, PVPLE_ROLE_PREDECESSOR);
		while (!READ_ONCE(guest_release)) {
			asm volatile("pause" ::: "memory");
			WRITE_ONCE(guest_loops[1], guest_loops[1] + 1);
		}
		pvple_guest_clear(&guest_areas[1]);
	} else {
		while (!READ_ONCE(guest_stop)) {
			if (READ_ONCE(guest_kick_now))
				kvm_hypercall(KVM_HC_KICK_CPU, 0, 1, 0, 0);
		}
	}
	GUEST_DONE();
}

/*
 * Its PLE exits yield to the absent vCPU 0, one event each, which could
 * fill the buffer before the wake-ups these tests read.
 */
static void trace_wakes_only(void)
{
	pvple_trace_begin();
	pvple_trace_event("kvm_pvple/kvm_pvple_yield", false);
}

TEST_F_TIMEOUT(pvple, park_bound_holds, HARNESS_TIMEOUT_S)
{
	const u64 bound_ns = 5000 * 1000ULL, slack_ns = 250 * 1000 * 1000ULL;
	struct pvple_event *ev = calloc(MAX_EVENTS, sizeof(*ev));
	u64 min_ns = ~0ULL, max_ns = 0;
	struct pvple_vcpu_thread t[2];
	int i, n, timeouts = 0;
	struct pvple_counts c;
	struct kvm_vm *vm;

	if (unsupported(true))
		SKIP(return, "%s", unsupported(true));
	set_params("park", "5000");
	vm = create_vm(2, guest_wait_behind_absent, t, 0);
	trace_wakes_only();
	pvple_start_vcpus(&t[1], 1);
	ASSERT_TRUE(wait_counts(vm, &c, five_timeouts, TIMEOUT_S));
	SET(vm, guest_release, 1);
	pvple_wait_vcpus(&t[1], 1, TIMEOUT_S);
	n = pvple_trace_end(ev, MAX_EVENTS);

	for (i = 0; i < n; i++) {
		if (ev[i].type != PVPLE_EV_WAKE || strcmp(ev[i].why, "timeout"))
			continue;
		timeouts++;
		min_ns = ev[i].parked_ns < min_ns ? ev[i].parked_ns : min_ns;
		max_ns = ev[i].parked_ns > max_ns ? ev[i].parked_ns : max_ns;
	}
	ksft_print_msg("%d parks ended by the 5 ms bound, after %lu..%lu us\n",
		       timeouts, min_ns / 1000, max_ns / 1000);
	ASSERT_GE(timeouts, 5);
	ASSERT_GE(min_ns, bound_ns);
	ASSERT_LE(max_ns, bound_ns + slack_ns);
	kvm_vm_free(vm);
	free(ev);
}

TEST_F_TIMEOUT(pvple, event_ends_park, HARNESS_TIMEOUT_S)
{
	struct pvple_event *ev = calloc(MAX_EVENTS, sizeof(*ev));
	const u64 bound_ns = 100000 * 1000ULL, slack_ns = 250 * 1000 * 1000ULL;
	struct pvple_vcpu_thread t[3];
	int i, n, events = 0;
	u64 longest_ns = 0;
	struct pvple_counts c;
	struct kvm_vm *vm;

	if (unsupported(true))
		SKIP(return, "%s", unsupported(true));
	set_params("park", "100000");
	vm = create_vm(3, guest_wait_behind_absent, t, -1);
	trace_wakes_only();
	pvple_start_vcpus(&t[1], 2);
	ASSERT_TRUE(wait_counts(vm, &c, one_park, TIMEOUT_S));
	/* vCPU 2 now PV-kicks vCPU 1 (APIC ID 1) over and over. */
	SET(vm, guest_kick_now, 1);
	ASSERT_TRUE(wait_counts(vm, &c, one_event, TIMEOUT_S));
	SET(vm, guest_release, 1);
	SET(vm, guest_stop, 1);
	pvple_wait_vcpus(&t[1], 2, TIMEOUT_S);
	n = pvple_trace_end(ev, MAX_EVENTS);

	for (i = 0; i < n; i++) {
		if (ev[i].type != PVPLE_EV_WAKE || strcmp(ev[i].why, "event"))
			continue;
		events++;
		longest_ns = max(longest_ns, ev[i].parked_ns);
	}
	ksft_print_msg("%d parks ended by an event, the longest after %lu us\n",
		       events, longest_ns / 1000);
	/*
	 * "event" means the sleep ended before its deadline (pvple_park()).
	 * The time counts until the vCPU ran again: the emulator's slack.
	 */
	ASSERT_GE(events, 1);
	ASSERT_LE(longest_ns, bound_ns + slack_ns);
	kvm_vm_free(vm);
	free(ev);
}

/* Results of park hypercalls, counted by the guest, for the unload test. */
static u64 guest_park_ret[8];

static void guest_park_loop(u32 id)
{
	long r;

	guest_register(id);
	if (id == 1) {
		pvple_guest_publish(&guest_areas[1], 0, PVPLE_ROLE_PREDECESSOR);
		while (!READ_ONCE(guest_release)) {
			r = pvple_guest_park();
			if (r == -KVM_ENOSYS)
				r = 5;
			else if (r < 0 || r > 4)
				r = 6;
			WRITE_ONCE(guest_park_ret[r], guest_park_ret[r] + 1);
		}
	}
	GUEST_DONE();
}

TEST_F_TIMEOUT(pvple, unload_while_parked, HARNESS_TIMEOUT_S)
{
	const char *ko = getenv("PVPLE_KO");
	struct pvple_vcpu_thread t[2];
	struct timespec a, b;
	struct pvple_counts c;
	struct kvm_vm *vm;
	int fd, ms;

	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	if (!ko)
		SKIP(return, "PVPLE_KO (path of kvm-pvple.ko to reload) is not set");
	set_params("park", "100000");
	vm = create_vm(2, guest_park_loop, t, -1);
	pvple_start_vcpus(&t[1], 1);
	ASSERT_TRUE(wait_counts(vm, &c, one_park, TIMEOUT_S));
	usleep(20000);	/* inside a 100 ms park now, all but certainly */

	clock_gettime(CLOCK_MONOTONIC, &a);
	ASSERT_EQ(syscall(__NR_delete_module, "kvm_pvple", O_NONBLOCK), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	for (ms = 0; ms < TIMEOUT_S * 1000 && !GET(vm, guest_park_ret[5]); ms++)
		usleep(1000);
	SET(vm, guest_release, 1);
	pvple_wait_vcpus(&t[1], 1, TIMEOUT_S);
	/* Back for the tests that follow, whatever the result here. */
	fd = open(ko, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(syscall(__NR_finit_module, fd, "", 0), 0);
	close(fd);

	sync_global_from_guest(vm, guest_park_ret);
	ksft_print_msg("rmmod took %ld ms; park results: %s %lu %lu %lu %lu %lu\n",
		       (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000,
		       "ran/timeout/event/enosys/other",
		       guest_park_ret[PVPLE_PARK_RAN],
		       guest_park_ret[PVPLE_PARK_TIMEOUT],
		       guest_park_ret[PVPLE_PARK_EVENT], guest_park_ret[5],
		       guest_park_ret[6]);
	/* The park in flight was ended by the unload, not by its bound... */
	ASSERT_GE(guest_park_ret[PVPLE_PARK_EVENT], 1);
	/* ...and the vCPU kept running under stock KVM afterwards. */
	ASSERT_GE(guest_park_ret[5], 1);
	ASSERT_EQ(guest_park_ret[6], 0);
	kvm_vm_free(vm);
}

/*
 * Both wait behind the other: the walk finds the cycle (or one is parked
 * behind the other and the other sees it), and gets stock handling; a
 * park, if any, never lasts.  Neither leaves KVM_RUN before both are done:
 * a vCPU that has left is rightly waited for until the bound.
 */
static u64 guest_cycle_done;

static void guest_cycle(u32 id)
{
	int i;

	guest_register(id);
	pvple_guest_publish(&guest_areas[id], !id, PVPLE_ROLE_PREDECESSOR);
	for (i = 0; i < 300; i++)
		asm volatile("pause" ::: "memory");
	pvple_guest_clear(&guest_areas[id]);
	__atomic_add_fetch(&guest_cycle_done, 1, __ATOMIC_SEQ_CST);
	while (READ_ONCE(guest_cycle_done) < 2)
		;
	GUEST_DONE();
}

TEST_F_TIMEOUT(pvple, wait_cycle_is_bounded, HARNESS_TIMEOUT_S)
{
	struct pvple_vcpu_thread t[2];
	struct pvple_counts c;
	struct kvm_vm *vm;

	if (unsupported(true))
		SKIP(return, "%s", unsupported(true));
	set_params("park", "100000");
	vm = create_vm(2, guest_cycle, t, 0);
	pvple_run_vcpus(t, 2, TIMEOUT_S);
	ASSERT_TRUE(pvple_vm_counts(vm, &c));
	ksft_print_msg("parks %lu, cycles refused %lu (walk) %lu (parked), timeouts %lu\n",
		       c.parks, c.chain_cycle, c.rec_cycle, c.wake_timeout);
	ASSERT_GE(c.chain_cycle + c.rec_cycle, 1);
	ASSERT_EQ(c.chain_stale + c.chain_cross, 0);
	ASSERT_EQ(c.wake_timeout, 0);
	kvm_vm_free(vm);
}

/*
 * A crowd (park.c): vCPUs 1 to 5 all wait behind vCPU 0, which registered
 * and left KVM_RUN, with the park hypercall.  Each park ends by its bound
 * and is taken again at once; at most PVPLE_PARKERS_MAX (4) of them may be
 * parked behind vCPU 0 at a time, and the fifth gets stock handling,
 * counted, with a "not waited on" answer.
 */
static u64 guest_crowd_running;

static void guest_crowd(u32 id)
{
	guest_register(id);
	if (id) {
		pvple_guest_publish(&guest_areas[id], 0, PVPLE_ROLE_PREDECESSOR);
		while (!READ_ONCE(guest_stop))
			if (pvple_guest_park() == PVPLE_PARK_RUNNING)
				__atomic_add_fetch(&guest_crowd_running, 1,
						   __ATOMIC_RELAXED);
		pvple_guest_clear(&guest_areas[id]);
	}
	GUEST_DONE();
}

static bool crowd_turned_away(struct pvple_counts *c)
{
	return c->park_crowded >= 3 && c->parks >= 10;
}

TEST_F_TIMEOUT(pvple, crowd_behind_one_vcpu_is_bounded, HARNESS_TIMEOUT_S)
{
	struct pvple_vcpu_thread t[6];
	struct pvple_counts c;
	struct kvm_vm *vm;
	bool seen;

	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	set_params("park", "50000");
	vm = create_vm(6, guest_crowd, t, -1);
	pvple_run_vcpus(t, 1, TIMEOUT_S);
	pvple_start_vcpus(&t[1], 5);
	seen = wait_counts(vm, &c, crowd_turned_away, TIMEOUT_S);
	SET(vm, guest_stop, 1);
	pvple_wait_vcpus(&t[1], 5, TIMEOUT_S);
	ASSERT_TRUE(pvple_vm_counts(vm, &c));
	ksft_print_msg("parks %lu (timeout %lu sched_in %lu event %lu)\n",
		       c.parks, c.wake_timeout, c.wake_sched_in, c.wake_event);
	ksft_print_msg("turned away %lu, answered running %lu, throttled %lu\n",
		       c.park_crowded, GET(vm, guest_crowd_running),
		       c.hc_throttled);
	ASSERT_TRUE(seen);
	/* Every park waits for vCPU 0, which never runs again. */
	ASSERT_EQ(c.wake_sched_in, 0);
	ASSERT_GE(c.wake_timeout, 8);
	ASSERT_GE(GET(vm, guest_crowd_running), c.park_crowded);
	kvm_vm_free(vm);
}

/*
 * Lost wake-ups (park.c): vCPU 0 works and halts in turn, and vCPU 2, on
 * another CPU, PV-kicks it out of each halt; vCPU 1 shares vCPU 0's CPU
 * and waits behind it with the park hypercall.  vCPU 1 must park behind
 * vCPU 0 whenever it is preempted, be woken by its run every time, and get
 * stock handling (never a park) while it is halted: no park may last the
 * 100 ms bound while vCPU 0 ran.  (One that ends by it while vCPU 0 did
 * not run is the emulated host stalling, not a lost wake-up.)
 */
static u64 guest_halting, guest_halts, guest_target_done;

static void guest_halting_target(u32 id)
{
	int i;

	guest_register(id);
	if (id == 0) {
		while (!READ_ONCE(guest_stop)) {
			/* Long enough to be preempted now and then. */
			for (i = 0; i < 2000000; i++)
				asm volatile("" ::: "memory");
			WRITE_ONCE(guest_halting, 1);
			/* IF=0: only the PV kick ends this halt. */
			asm volatile("hlt" ::: "memory");
			WRITE_ONCE(guest_halting, 0);
			WRITE_ONCE(guest_halts, guest_halts + 1);
		}
		WRITE_ONCE(guest_target_done, 1);
	} else if (id == 1) {
		guest_park_behind_0(id);
	} else {
		/* Until vCPU 0 is out of its last halt, not just told to stop. */
		while (!READ_ONCE(guest_target_done))
			if (READ_ONCE(guest_halting))
				kvm_hypercall(KVM_HC_KICK_CPU, 0, 0, 0, 0);
	}
	GUEST_DONE();
}

static bool thousand_parks(struct pvple_counts *c) { return c->parks >= 1000; }

TEST_F_TIMEOUT(pvple, park_never_misses_a_halting_target, HARNESS_TIMEOUT_S)
{
	const u64 bound_ns = 100000 * 1000ULL;
	struct pvple_vcpu_thread t[3];
	int lost, timeouts;
	struct pvple_counts c;
	struct kvm_vm *vm;
	u64 longest_ns;
	bool enough;

	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	set_params("park", "100000");
	vm = create_vm(3, guest_halting_target, t, 0);
	t[2].cpu = -1;
	pvple_start_vcpus(t, 3);
	while (!__atomic_load_n(&t[0].tid, __ATOMIC_ACQUIRE))
		usleep(100);
	pvple_trace_runs_begin(&t[0].tid, 1);
	enough = wait_counts(vm, &c, thousand_parks, TIMEOUT_S);
	pvple_trace_runs_stop();
	SET(vm, guest_stop, 1);
	/* vCPU 0 may sit in its last halt: the kicker ends it. */
	pvple_wait_vcpus(t, 3, TIMEOUT_S);
	lost = pvple_trace_runs_end(&t[0].tid, 1, bound_ns, LATE_NS, &timeouts,
				    &longest_ns);
	ASSERT_TRUE(pvple_vm_counts(vm, &c));
	ksft_print_msg("halts %lu; parks %lu: sched_in %lu timeout %lu event %lu; %s %lu %lu\n",
		       GET(vm, guest_halts), c.parks, c.wake_sched_in,
		       c.wake_timeout, c.wake_event, "stock/throttled", c.stock,
		       c.hc_throttled);
	ksft_print_msg("%d parks ended by the bound (longest %lu ms); %s: %d\n",
		       timeouts, longest_ns / 1000000,
		       "vCPU 0 ran in, or the trace cannot tell", lost);
	ASSERT_TRUE(enough) TH_LOG("fewer than 1000 parks in %d s", TIMEOUT_S);
	ASSERT_EQ(lost, 0);
	ASSERT_EQ(timeouts, c.wake_timeout);
	ASSERT_GE(GET(vm, guest_halts), 1);
	/* Halted: stock handling, counted, and the record was fine. */
	ASSERT_GE(c.stock, 1);
	ASSERT_EQ(c.rec_bad + c.rec_torn + c.rec_idle, 0);
	kvm_vm_free(vm);
}

/*
 * A target's run that the parker cannot act on before its bound: vCPU 1,
 * SCHED_IDLE on vCPU 0's CPU, parks behind vCPU 0 whenever it gets the
 * CPU, with a 20 ms bound.  vCPU 0 then runs, which wakes vCPU 1, but an
 * idle-policy task does not preempt on wake-up (check_preempt_wakeup_fair())
 * and weighs 3 to vCPU 0's 1024, so vCPU 1 gets the CPU back only after
 * tens of ms, when its timer has fired.  The park was ended by the run all
 * the same: it must be counted so (park.c looks at the count once more
 * after the timer), and no park may end by the bound while vCPU 0 ran.
 * (At nice 19 vCPU 1 was back within the 20 ms, every time.)
 */
static void guest_busy_target(u32 id)
{
	guest_register(id);
	if (id == 0)
		while (!READ_ONCE(guest_stop))
			;
	else
		guest_park_behind_0(id);
	GUEST_DONE();
}

static bool twenty_parks(struct pvple_counts *c) { return c->parks >= 20; }

TEST_F_TIMEOUT(pvple, run_before_the_timer_ends_the_park, HARNESS_TIMEOUT_S)
{
	struct pvple_event *ev = calloc(MAX_EVENTS, sizeof(*ev));
	const u64 bound_ns = 20000 * 1000ULL;
	struct sched_param idle = { 0 };
	int i, n, lost, timeouts, late = 0;
	struct pvple_vcpu_thread t[2];
	struct pvple_counts c;
	struct kvm_vm *vm;
	u64 longest_ns;
	bool enough;

	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	set_params("park", "20000");
	vm = create_vm(2, guest_busy_target, t, 0);
	pvple_start_vcpus(t, 2);
	while (!__atomic_load_n(&t[0].tid, __ATOMIC_ACQUIRE) ||
	       !__atomic_load_n(&t[1].tid, __ATOMIC_ACQUIRE))
		usleep(100);
	ASSERT_EQ(sched_setscheduler(t[1].tid, SCHED_IDLE, &idle), 0);
	pvple_trace_runs_begin(&t[0].tid, 1);
	enough = wait_counts(vm, &c, twenty_parks, TIMEOUT_S);
	pvple_trace_runs_stop();
	SET(vm, guest_stop, 1);
	pvple_wait_vcpus(t, 2, TIMEOUT_S);
	n = pvple_trace_end(ev, MAX_EVENTS);
	/* Late parks are the point here: judge the timeouts only. */
	lost = pvple_trace_runs_end(&t[0].tid, 1, bound_ns, 0, &timeouts,
				    &longest_ns);
	/* Parks that the run ended, but that lasted past the bound. */
	for (i = 0; i < n; i++)
		late += ev[i].type == PVPLE_EV_WAKE &&
			!strcmp(ev[i].why, "sched_in") &&
			ev[i].parked_ns > bound_ns;
	ASSERT_TRUE(pvple_vm_counts(vm, &c));
	ksft_print_msg("parks %lu: sched_in %lu (%d past the bound) timeout %lu event %lu\n",
		       c.parks, c.wake_sched_in, late, c.wake_timeout,
		       c.wake_event);
	ksft_print_msg("%d parks ended by the bound (longest %lu ms); %s: %d\n",
		       timeouts, longest_ns / 1000000,
		       "vCPU 0 ran in, or the trace cannot tell", lost);
	ASSERT_TRUE(enough) TH_LOG("fewer than 20 parks in %d s", TIMEOUT_S);
	/* The case happened: else this test could not fail. */
	ASSERT_GE(late, 1);
	ASSERT_EQ(lost, 0);
	ASSERT_EQ(timeouts, c.wake_timeout);
	kvm_vm_free(vm);
	free(ev);
}

TEST_HARNESS_MAIN
