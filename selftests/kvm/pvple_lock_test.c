// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-pvple acting on what the guest publishes: directed yield to the
 * preempted lock holder, parking until it runs, the bound on a park, the
 * events that end one, unload under a parked vCPU, stock behaviour for a
 * guest that publishes nothing, and every kind of hostile input.
 *
 * Preemption is made deterministic by pinning the vCPU threads that matter
 * to one host CPU.  PLE-path tests need a host that intercepts PAUSE (the
 * pause-filter fixture in the test host); the park hypercall path does not.
 * Tests that read the module's tracepoints must run alone on the host.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "apic.h"
#include "kvm_util.h"
#include "processor.h"
#include "ucall_common.h"
#include "pvple_guest.h"
#include "pvple_util.h"

#define TIMEOUT_S		120
#define HARNESS_TIMEOUT_S	600
#define MAX_EVENTS		65536

FIXTURE(pvple) {};
FIXTURE_SETUP(pvple) {}
FIXTURE_TEARDOWN(pvple) {}

/* Guest state: one copy per VM, shared with the host through its HVA. */
static struct pvple_area guest_areas[PVPLE_MAX_VCPUS] __aligned(PVPLE_AREA_ALIGN);
static u64 guest_area_gpa[PVPLE_MAX_VCPUS];
static struct pvple_ticket_lock guest_lock;
static u64 guest_held, guest_release, guest_stop, guest_go[PVPLE_MAX_VCPUS];
static u64 guest_kick_now, guest_loops[PVPLE_MAX_VCPUS];
static u64 guest_res[PVPLE_MAX_VCPUS][32];

/* The guest's copy of a u64 global, seen from the host. */
static u64 *host_ptr(struct kvm_vm *vm, u64 *g)
{
	return addr_gva2hva(vm, (vm_vaddr_t)g);
}

#define SET(vm, g, v)	WRITE_ONCE(*host_ptr(vm, &(g)), v)
#define GET(vm, g)	READ_ONCE(*host_ptr(vm, &(g)))

static void guest_register(u32 id)
{
	GUEST_ASSERT_EQ(pvple_guest_register(guest_area_gpa[id]), 0);
}

static struct kvm_vm *create_vm(int n, void *code, struct pvple_vcpu_thread *t,
				int pin)
{
	struct kvm_vcpu *vcpus[PVPLE_MAX_VCPUS];
	struct kvm_vm *vm = vm_create_with_vcpus(n, code, vcpus);
	int i;

	for (i = 0; i < n; i++) {
		vcpu_args_set(vcpus[i], 1, i);
		t[i] = (struct pvple_vcpu_thread){ .vcpu = vcpus[i], .cpu = pin };
		guest_area_gpa[i] = addr_gva2gpa(vm, (vm_vaddr_t)&guest_areas[i]);
	}
	sync_global_to_guest(vm, guest_area_gpa);
	return vm;
}

static const char *unsupported(bool need_ple)
{
	if (!pvple_module_loaded())
		return "kvm-pvple is not loaded";
	if (need_ple && !pvple_ple_enabled())
		return "host does not intercept PAUSE (no PLE or pause filter)";
	return NULL;
}

static void set_params(const char *mode, const char *park_max_us)
{
	pvple_param_set("mode", mode);
	pvple_param_set("park_max_us", park_max_us);
}

/* Polls the VM's counters until @pred holds or @secs pass. */
static bool wait_counts(struct kvm_vm *vm, struct pvple_counts *c,
			bool (*pred)(struct pvple_counts *c), int secs)
{
	int ms;

	for (ms = 0; ms < secs * 1000; ms += 10) {
		if (pvple_vm_counts(vm, c) && pred(c))
			return true;
		usleep(10000);
	}
	return false;
}

static bool three_yields(struct pvple_counts *c) { return c->yield_ok >= 3; }
static bool three_parks(struct pvple_counts *c) { return c->parks >= 3; }
static bool one_park(struct pvple_counts *c) { return c->parks >= 1; }
static bool five_timeouts(struct pvple_counts *c) { return c->wake_timeout >= 5; }
static bool one_event(struct pvple_counts *c) { return c->wake_event >= 1; }

/*
 * vCPU 0 takes the lock and keeps it until the host says; vCPUs 1 to
 * guest_waiters queue for it in that order (vCPU 1, the head, publishes
 * vCPU 0 as the holder, each one after it its predecessor); the others are
 * bystanders: runnable, preempted as often as the holder, and never worth
 * a yield.
 */
static u64 guest_waiters = 1;

static void guest_holder_waiter(u32 id, bool use_hc)
{
	guest_register(id);
	if (id == 0) {
		pvple_ticket_lock(&guest_lock, 0, &guest_areas[0], false);
		WRITE_ONCE(guest_held, 1);
		while (!READ_ONCE(guest_release))
			;
		pvple_ticket_unlock(&guest_lock);
	} else if (id <= READ_ONCE(guest_waiters)) {
		/* Queue in id order, behind a predecessor that says who it is. */
		while (!READ_ONCE(guest_held) ||
		       READ_ONCE(guest_lock.next) < id ||
		       READ_ONCE(guest_lock.vcpu_of[id - 1]) != id - 1)
			;
		pvple_ticket_lock(&guest_lock, id, &guest_areas[id], use_hc);
		pvple_ticket_unlock(&guest_lock);
	} else {
		while (!READ_ONCE(guest_stop))
			;
	}
	GUEST_DONE();
}

static void guest_pause_waiter(u32 id)
{
	guest_holder_waiter(id, false);
}

static void guest_hc_waiter(u32 id)
{
	guest_holder_waiter(id, true);
}

static void release_and_wait(struct kvm_vm *vm, struct pvple_vcpu_thread *t,
			     int n)
{
	SET(vm, guest_release, 1);
	SET(vm, guest_stop, 1);
	pvple_wait_vcpus(t, n, TIMEOUT_S);
}

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
	int i, n, woken_by_pred[4] = { 0 };
	struct pvple_vcpu_thread t[4];
	struct pvple_counts c;
	struct kvm_vm *vm;

	if (unsupported(true))
		SKIP(return, "%s", unsupported(true));
	set_params("park", "100000");
	vm = create_vm(4, guest_chain, t, 0);
	pvple_trace_begin();
	pvple_start_vcpus(t, 4);
	ASSERT_TRUE(wait_counts(vm, &c, three_parks, TIMEOUT_S));
	usleep(200000);
	release_and_wait(vm, t, 4);
	n = pvple_trace_end(ev, MAX_EVENTS);

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
	ASSERT_EQ(woken_by_pred[1], 0);
	for (i = 2; i <= 3; i++)
		ASSERT_GE(woken_by_pred[i], 1) TH_LOG("waiter %d never woken", i);
	ASSERT_EQ(c.wake_timeout, 0);
	/* The queue hands over in order, and nobody was skipped. */
	sync_global_from_guest(vm, guest_order);
	for (i = 1; i <= 3; i++)
		ASSERT_EQ(guest_order[i], i);
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

static const char *need_two_cpus(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN) < 2 ? "needs two host CPUs" :
	       NULL;
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
#define LOCK_2	(PVPLE_TEST_LOCK + 64)

static void set_rec(u32 id, u32 target, u32 role, u64 lock)
{
	pvple_guest_publish_on(&guest_areas[id], target, role, lock);
}

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
	struct pvple_vcpu_thread t[6];
	struct pvple_counts c;
	struct kvm_vm *vm;
	u64 *r;
	int i;

	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	set_params("yield", "2000");
	vm = create_vm(6, guest_bad_chains, t, -1);
	pvple_run_vcpus(&t[1], 5, TIMEOUT_S);
	pvple_run_vcpus(t, 1, TIMEOUT_S);
	sync_global_from_guest(vm, guest_res);
	r = guest_res[0];
	ASSERT_TRUE(pvple_vm_counts(vm, &c));
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
	struct pvple_vcpu_thread t[4];
	struct pvple_counts c;
	struct kvm_vm *vm;
	u64 *r;
	int i;

	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	set_params("park", "2000");
	vm = create_vm(4, guest_no_head_parks, t, -1);
	pvple_run_vcpus(&t[1], 3, TIMEOUT_S);
	pvple_run_vcpus(t, 1, TIMEOUT_S);
	sync_global_from_guest(vm, guest_res);
	r = guest_res[0];
	ASSERT_TRUE(pvple_vm_counts(vm, &c));
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
	pvple_trace_begin();
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
	struct pvple_vcpu_thread t[3];
	int i, n, early = 0;
	struct pvple_counts c;
	struct kvm_vm *vm;

	if (unsupported(true))
		SKIP(return, "%s", unsupported(true));
	set_params("park", "100000");
	vm = create_vm(3, guest_wait_behind_absent, t, -1);
	pvple_trace_begin();
	pvple_start_vcpus(&t[1], 2);
	ASSERT_TRUE(wait_counts(vm, &c, one_park, TIMEOUT_S));
	/* vCPU 2 now PV-kicks vCPU 1 (APIC ID 1) over and over. */
	SET(vm, guest_kick_now, 1);
	ASSERT_TRUE(wait_counts(vm, &c, one_event, TIMEOUT_S));
	SET(vm, guest_release, 1);
	SET(vm, guest_stop, 1);
	pvple_wait_vcpus(&t[1], 2, TIMEOUT_S);
	n = pvple_trace_end(ev, MAX_EVENTS);

	for (i = 0; i < n; i++)
		early += ev[i].type == PVPLE_EV_WAKE &&
			 !strcmp(ev[i].why, "event") &&
			 ev[i].parked_ns < 100000 * 1000ULL;
	ksft_print_msg("%d parks ended early by an event\n", early);
	ASSERT_GE(early, 1);
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

static void guest_pause_only(u32 id)
{
	int i;

	for (i = 0; i < 200; i++)
		asm volatile("pause" ::: "memory");
	GUEST_DONE();
}

TEST_F_TIMEOUT(pvple, unregistered_guest_gets_stock, HARNESS_TIMEOUT_S)
{
	struct pvple_vcpu_thread t[2];
	struct pvple_counts c;
	struct kvm_vm *vm;

	if (unsupported(true))
		SKIP(return, "%s", unsupported(true));
	set_params("auto", "2000");
	vm = create_vm(2, guest_pause_only, t, -1);
	pvple_run_vcpus(t, 2, TIMEOUT_S);
	ASSERT_TRUE(pvple_vm_counts(vm, &c));
	ASSERT_GE(c.ple_exits, 1);
	ASSERT_EQ(c.stock, c.ple_exits);
	ASSERT_EQ(c.rec_unregistered, c.ple_exits);
	ASSERT_EQ(c.yield_tried + c.parks + c.spin, 0);
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
 * Lost wake-ups (park.c): vCPU 0 works and halts in turn, and vCPU 2, on
 * another CPU, PV-kicks it out of each halt; vCPU 1 shares vCPU 0's CPU
 * and waits behind it with the park hypercall.  vCPU 1 must park behind
 * vCPU 0 whenever it is preempted, be woken by its run every time, and get
 * stock handling (never a park) while it is halted: no park may end by
 * the 100 ms bound.
 */
static u64 guest_halting, guest_halts, guest_target_done;

/* Waits behind vCPU 0 with the park hypercall until the host says stop. */
static void guest_park_behind_0(u32 id)
{
	pvple_guest_publish(&guest_areas[id], 0, PVPLE_ROLE_PREDECESSOR);
	while (!READ_ONCE(guest_stop))
		pvple_guest_park();
	pvple_guest_clear(&guest_areas[id]);
}

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
	struct pvple_vcpu_thread t[3];
	struct pvple_counts c;
	struct kvm_vm *vm;
	bool enough;

	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	set_params("park", "100000");
	vm = create_vm(3, guest_halting_target, t, 0);
	t[2].cpu = -1;
	pvple_start_vcpus(t, 3);
	enough = wait_counts(vm, &c, thousand_parks, TIMEOUT_S);
	SET(vm, guest_stop, 1);
	/* vCPU 0 may sit in its last halt: the kicker ends it. */
	pvple_wait_vcpus(t, 3, TIMEOUT_S);
	ASSERT_TRUE(pvple_vm_counts(vm, &c));
	ksft_print_msg("halts %lu; parks %lu: sched_in %lu timeout %lu event %lu; %s %lu %lu\n",
		       GET(vm, guest_halts), c.parks, c.wake_sched_in,
		       c.wake_timeout, c.wake_event, "stock/throttled", c.stock,
		       c.hc_throttled);
	ASSERT_TRUE(enough) TH_LOG("fewer than 1000 parks in %d s", TIMEOUT_S);
	ASSERT_EQ(c.wake_timeout, 0);
	ASSERT_GE(GET(vm, guest_halts), 1);
	/* Halted: stock handling, counted, and the record was fine. */
	ASSERT_GE(c.stock, 1);
	ASSERT_EQ(c.rec_bad + c.rec_torn + c.rec_idle, 0);
	kvm_vm_free(vm);
}

/*
 * A park-hypercall storm: vCPU 1 asks without pause, its target preempted
 * on the same CPU.  Every call is answered, but the yields and parks it
 * may cause are paced by the rate limit (PVPLE_HC_PARK_GAP_NS).
 */
static void guest_park_storm(u32 id)
{
	guest_register(id);
	if (id == 1) {
		guest_park_behind_0(id);
	} else {
		while (!READ_ONCE(guest_stop))
			asm volatile("" ::: "memory");
	}
	GUEST_DONE();
}

TEST_F_TIMEOUT(pvple, park_hypercall_storm_is_paced, HARNESS_TIMEOUT_S)
{
	/* Wider than the default, so that an emulated host shows it too. */
	const u64 gap_ns = 20 * 1000 * 1000;
	struct pvple_vcpu_thread t[2];
	struct timespec a, b;
	struct pvple_counts c;
	struct kvm_vm *vm;
	u64 ns;

	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	set_params("auto", "2000");
	pvple_param_set("park_hc_gap_us", "20000");
	vm = create_vm(2, guest_park_storm, t, 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	pvple_start_vcpus(t, 2);
	sleep(3);
	SET(vm, guest_stop, 1);
	pvple_wait_vcpus(t, 2, TIMEOUT_S);
	clock_gettime(CLOCK_MONOTONIC, &b);
	pvple_param_set("park_hc_gap_us", "25");
	ns = (b.tv_sec - a.tv_sec) * 1000000000ULL + b.tv_nsec - a.tv_nsec;
	ASSERT_TRUE(pvple_vm_counts(vm, &c));
	ksft_print_msg("%lu park calls in %lu ms: %lu acted on (yields %lu, parks %lu), %s\n",
		       c.hc_park, ns / 1000000, c.yield_tried + c.parks,
		       c.yield_tried, c.parks, "throttled/answered otherwise");
	ksft_print_msg("%lu %lu\n", c.hc_throttled,
		       c.hc_park - c.yield_tried - c.parks - c.hc_throttled);
	ASSERT_GE(c.hc_park, 100);
	/* At most one action per gap, over the whole run. */
	ASSERT_LE(c.yield_tried + c.parks, ns / gap_ns + 1);
	ASSERT_GE(c.yield_tried + c.parks, 1);
	ASSERT_GE(c.hc_throttled, 1);
	kvm_vm_free(vm);
}

/*
 * Another VM's share of a CPU.  VM B counts as fast as it can on host CPU
 * 0; beside it, VM A's two vCPUs share the same CPU: first both simply
 * spin, then vCPU 1 storms park hypercalls behind vCPU 0.  The storm's
 * yields go to vCPU 0 of its own VM, its parks sleep vCPU 1 only, so VM
 * B must progress as fast in the storm as beside plain spinners.
 */
static void guest_count(u32 id)
{
	while (!READ_ONCE(guest_stop))
		WRITE_ONCE(guest_loops[0], guest_loops[0] + 1);
	GUEST_DONE();
}

static void guest_plain_spin(u32 id)
{
	guest_register(id);
	while (!READ_ONCE(guest_stop))
		asm volatile("" ::: "memory");
	GUEST_DONE();
}

/* VM B's count per second while VM A runs @code, both on host CPU 0. */
static double rate_beside(struct __test_metadata *_metadata,
			  struct kvm_vm *b, void *code, struct pvple_counts *c)
{
	struct pvple_vcpu_thread t[2];
	u64 before, after;
	struct kvm_vm *a;

	a = create_vm(2, code, t, 0);
	pvple_start_vcpus(t, 2);
	sleep(1);
	before = GET(b, guest_loops[0]);
	sleep(3);
	after = GET(b, guest_loops[0]);
	SET(a, guest_stop, 1);
	pvple_wait_vcpus(t, 2, TIMEOUT_S);
	ASSERT_TRUE(pvple_vm_counts(a, c));
	kvm_vm_free(a);
	return (after - before) / 3.0;
}

TEST_F_TIMEOUT(pvple, park_hypercall_storm_spares_other_vms,
	       HARNESS_TIMEOUT_S)
{
	double plain, storm, plain2;
	struct pvple_vcpu_thread tb;
	struct pvple_counts ca, cb;
	struct kvm_vcpu *vcpu;
	struct kvm_vm *b;

	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	set_params("auto", "2000");
	b = vm_create_with_one_vcpu(&vcpu, guest_count);
	tb = (struct pvple_vcpu_thread){ .vcpu = vcpu, .cpu = 0 };
	pvple_start_vcpus(&tb, 1);
	/* Plain, storm, plain again: the emulator's drift shows. */
	plain = rate_beside(_metadata, b, guest_plain_spin, &ca);
	storm = rate_beside(_metadata, b, guest_park_storm, &ca);
	plain2 = rate_beside(_metadata, b, guest_plain_spin, &cb);
	SET(b, guest_stop, 1);
	pvple_wait_vcpus(&tb, 1, TIMEOUT_S);
	ksft_print_msg("VM B: %.0f/s beside spinners, %.0f/s beside the storm, %.0f/s after\n",
		       plain, storm, plain2);
	ksft_print_msg("the storm: %lu park calls, %lu yields, %lu parks, %lu throttled\n",
		       ca.hc_park, ca.yield_tried, ca.parks, ca.hc_throttled);
	ASSERT_GE(ca.hc_park, 100);
	ASSERT_GE(storm, 0.75 * (plain < plain2 ? plain : plain2));
	/* VM B was never chosen, parked or counted by the storm. */
	ASSERT_TRUE(pvple_vm_counts(b, &cb));
	ASSERT_EQ(cb.yield_tried + cb.parks + cb.hypercalls, 0);
	kvm_vm_free(b);
}

/*
 * Per-VM mode: VM A is set to "off" through debugfs, VM B follows the
 * module's "auto".  Both run the same guest, a park hypercall loop behind
 * a running vCPU: A's calls all get -KVM_EOPNOTSUPP (pvple off), none of
 * B's do.  Unknown VMs and modes are refused; "default" restores.
 */
#define MODE_CALLS	200

static void guest_mode_probe(u32 id)
{
	int i;

	guest_register(id);
	if (id == 1) {
		pvple_guest_publish(&guest_areas[1], 0, PVPLE_ROLE_HOLDER);
		for (i = 0; i < MODE_CALLS; i++)
			guest_res[1][pvple_guest_park() == -KVM_EOPNOTSUPP]++;
		WRITE_ONCE(guest_stop, 1);
	} else {
		while (!READ_ONCE(guest_stop))
			asm volatile("" ::: "memory");
	}
	GUEST_DONE();
}

TEST_F_TIMEOUT(pvple, mode_per_vm, HARNESS_TIMEOUT_S)
{
	struct pvple_vcpu_thread ta[2], tb[2];
	struct kvm_vm *a, *b;
	u64 ra[2], rb[2];

	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	set_params("auto", "2000");
	a = create_vm(2, guest_mode_probe, ta, -1);
	b = create_vm(2, guest_mode_probe, tb, -1);
	ASSERT_EQ(pvple_vm_set_mode(NULL, "0-0", "off"), -ENOENT);
	ASSERT_EQ(pvple_vm_set_mode(a, NULL, "sometimes"), -EINVAL);
	ASSERT_EQ(pvple_vm_set_mode(a, NULL, "off"), 0);
	ASSERT_TRUE(pvple_vm_mode_is(a, "off"));
	ASSERT_TRUE(pvple_vm_mode_is(b, "default"));
	pvple_run_vcpus(ta, 2, TIMEOUT_S);
	pvple_run_vcpus(tb, 2, TIMEOUT_S);
	memcpy(ra, host_ptr(a, &guest_res[1][0]), sizeof(ra));
	memcpy(rb, host_ptr(b, &guest_res[1][0]), sizeof(rb));
	ksft_print_msg("VM A (off): %lu of %d calls refused; VM B: %lu\n",
		       ra[1], MODE_CALLS, rb[1]);
	ASSERT_EQ(ra[1], MODE_CALLS);
	ASSERT_EQ(rb[1], 0);
	ASSERT_EQ(rb[0], MODE_CALLS);
	ASSERT_EQ(pvple_vm_set_mode(a, NULL, "default"), 0);
	ASSERT_TRUE(pvple_vm_mode_is(a, "default"));
	kvm_vm_free(a);
	kvm_vm_free(b);
}

/*
 * Lifecycle.  INIT forgets the area, as it forgets steal time: vCPU 1
 * registers, vCPU 0 sends it an INIT IPI, and KVM_GET_MP_STATE makes KVM
 * take the INIT (kvm_apic_accept_events() -> kvm_vcpu_reset()).
 */
static void guest_init_other(u32 id)
{
	guest_register(id);
	if (id == 0) {
		x2apic_enable();
		x2apic_write_reg(APIC_ICR, ((u64)1 << 32) | APIC_DEST_PHYSICAL |
				 APIC_DM_INIT | APIC_INT_ASSERT);
	}
	GUEST_DONE();
}

TEST_F_TIMEOUT(pvple, init_forgets_the_area, HARNESS_TIMEOUT_S)
{
	struct kvm_mp_state mp;
	struct pvple_vcpu_thread t[2];
	struct pvple_counts c;
	struct kvm_vm *vm;
	struct ucall uc;

	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	vm = create_vm(2, guest_init_other, t, -1);
	vcpu_run(t[1].vcpu);
	ASSERT_EQ(get_ucall(t[1].vcpu, &uc), UCALL_DONE);
	vcpu_run(t[0].vcpu);
	ASSERT_EQ(get_ucall(t[0].vcpu, &uc), UCALL_DONE);
	ASSERT_TRUE(pvple_vm_counts(vm, &c));
	ASSERT_EQ(c.reg_ok, 2);
	ASSERT_EQ(c.unreg_reset, 0);
	vcpu_mp_state_get(t[1].vcpu, &mp);
	ASSERT_EQ(mp.mp_state, KVM_MP_STATE_INIT_RECEIVED);
	ASSERT_TRUE(pvple_vm_counts(vm, &c));
	ASSERT_EQ(c.unreg_reset, 1);
	kvm_vm_free(vm);
}

/*
 * With the hooks in, "sysctl kernel.ftrace_enabled=0" is refused: it
 * would otherwise detach them silently under running VMs.
 */
TEST_F_TIMEOUT(pvple, ftrace_cannot_be_switched_off, HARNESS_TIMEOUT_S)
{
	int fd, r;

	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	fd = open("/proc/sys/kernel/ftrace_enabled", O_WRONLY);
	if (fd < 0)
		SKIP(return, "no /proc/sys/kernel/ftrace_enabled");
	r = write(fd, "0\n", 2);
	if (r == 2) {
		ASSERT_EQ(write(fd, "1\n", 2), 2);
		close(fd);
		ASSERT_TRUE(false) TH_LOG("ftrace_enabled=0 was accepted");
	}
	close(fd);
	ASSERT_EQ(errno, EBUSY);
}

/*
 * Every hostile or malformed input, from vCPU 0, in order; results go to
 * guest_res[0][] and are checked against both the ABI and the counters.
 */
#define ABSENT_ID	5

static void guest_hostile(u32 id)
{
	struct pvple_area *a = &guest_areas[id];
	u64 gpa = guest_area_gpa[id], *r = guest_res[id];
	int i, storm_failed = 0;

	if (id) {
		GUEST_DONE();
		return;
	}
	r[0] = pvple_guest_register(gpa | 8);
	r[1] = pvple_guest_register(1ULL << 45);
	r[2] = kvm_hypercall(KVM_HC_PVPLE_REGISTER, gpa, PVPLE_ABI_VERSION + 1,
			     0, 0);
	r[3] = pvple_guest_park();
	r[4] = pvple_guest_register(gpa);
	r[5] = pvple_guest_register(gpa);
	r[6] = pvple_guest_park();
	pvple_guest_publish(a, 0xffffffff, PVPLE_ROLE_HOLDER);
	r[7] = pvple_guest_park();
	pvple_guest_publish(a, id, PVPLE_ROLE_HOLDER);
	r[8] = pvple_guest_park();
	pvple_guest_publish(a, ABSENT_ID, PVPLE_ROLE_HOLDER);
	r[9] = pvple_guest_park();
	pvple_guest_publish_on(a, 1, PVPLE_ROLE_HOLDER, 0);
	r[10] = pvple_guest_park();		/* waiting on lock 0 */
	pvple_guest_publish(a, 1, PVPLE_ROLE_HOLDER);
	a->reserved[2] = 1;
	r[11] = pvple_guest_park();
	a->reserved[2] = 0;
	pvple_guest_publish(a, 1, 7);
	r[12] = pvple_guest_park();
	pvple_guest_publish(a, 1, PVPLE_ROLE_HOLDER);
	r[13] = kvm_hypercall(KVM_HC_PVPLE_UNREGISTER, 0, 0, 0, 0);
	r[14] = kvm_hypercall(KVM_HC_PVPLE_UNREGISTER, 0, 0, 0, 0);
	for (i = 0; i < 1000; i++) {
		storm_failed += pvple_guest_register(gpa) != 0;
		storm_failed += kvm_hypercall(KVM_HC_PVPLE_UNREGISTER, 0, 0, 0,
					      0) != 0;
	}
	r[15] = storm_failed;
	r[16] = pvple_guest_park();
	/* A version 1 guest on this version 2 host. */
	r[17] = kvm_hypercall(KVM_HC_PVPLE_REGISTER, gpa, 1, 0, 0);
	r[18] = kvm_hypercall(KVM_HC_PVPLE_PROBE, 0, 0, 0, 0);
	/* A refused registration drops the area registered before it. */
	r[19] = pvple_guest_register(gpa);
	r[20] = kvm_hypercall(KVM_HC_PVPLE_REGISTER, gpa, 1, 0, 0);
	r[21] = pvple_guest_park();
	GUEST_DONE();
}

TEST_F_TIMEOUT(pvple, hostile_input, HARNESS_TIMEOUT_S)
{
	struct kvm_vcpu *other_vcpus[ABSENT_ID + 1];
	struct pvple_vcpu_thread t[2];
	struct pvple_counts c, oc;
	struct kvm_vm *vm, *other;
	u64 *r;

	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	set_params("auto", "2000");
	/* Another VM that does have a vCPU with the absent id. */
	other = vm_create_with_vcpus(ABSENT_ID + 1, guest_pause_only,
				     other_vcpus);
	vm = create_vm(2, guest_hostile, t, -1);
	pvple_run_vcpus(t, 2, TIMEOUT_S);
	sync_global_from_guest(vm, guest_res);
	r = guest_res[0];

	ASSERT_EQ(r[0], (u64)-KVM_EINVAL);	/* unaligned */
	ASSERT_EQ(r[1], (u64)-KVM_EFAULT);	/* outside every memslot */
	ASSERT_EQ(r[2], (u64)-KVM_EOPNOTSUPP);	/* unknown ABI version */
	ASSERT_EQ(r[3], (u64)-PVPLE_ENOTREG);	/* park before registering */
	ASSERT_EQ(r[4], 0);
	ASSERT_EQ(r[5], 0);			/* registering again replaces */
	ASSERT_EQ(r[6], PVPLE_PARK_IDLE);
	ASSERT_EQ(r[7], (u64)-KVM_EINVAL);	/* target out of range */
	ASSERT_EQ(r[8], (u64)-KVM_EINVAL);	/* target is self */
	ASSERT_EQ(r[9], (u64)-KVM_EINVAL);	/* target in another VM only */
	ASSERT_EQ(r[10], (u64)-KVM_EINVAL);	/* waiting on lock 0 */
	ASSERT_EQ(r[11], (u64)-KVM_EINVAL);	/* non-zero reserved */
	ASSERT_EQ(r[12], (u64)-KVM_EINVAL);	/* unknown role */
	ASSERT_EQ(r[13], 0);
	ASSERT_EQ(r[14], 0);			/* unregister twice */
	ASSERT_EQ(r[15], 0);			/* register/unregister storm */
	ASSERT_EQ(r[16], (u64)-PVPLE_ENOTREG);	/* park after unregistering */
	ASSERT_EQ(r[17], (u64)-KVM_EOPNOTSUPP);	/* v1 area: refused */
	ASSERT_EQ(r[18], 2);			/* what a v1 guest probes */
	ASSERT_EQ(r[19], 0);
	ASSERT_EQ(r[20], (u64)-KVM_EOPNOTSUPP);
	ASSERT_EQ(r[21], (u64)-PVPLE_ENOTREG);	/* the old area is gone */

	ASSERT_TRUE(pvple_vm_counts(vm, &c));
	ASSERT_EQ(c.reg_unaligned, 1);
	ASSERT_EQ(c.reg_bad_gpa, 1);
	ASSERT_EQ(c.reg_bad_version, 3);
	ASSERT_EQ(c.reg_ok, 3 + 1000);
	ASSERT_EQ(c.reg_replaced, 1);
	ASSERT_EQ(c.rec_unregistered, 3);
	ASSERT_EQ(c.rec_idle, 1);
	ASSERT_EQ(c.rec_target_range, 1);
	ASSERT_EQ(c.rec_target_self, 1);
	ASSERT_EQ(c.rec_target_absent, 1);
	ASSERT_EQ(c.rec_torn, 0);
	ASSERT_EQ(c.rec_bad, 3);
	ASSERT_EQ(c.unreg_unknown, 1);
	ASSERT_EQ(c.hc_park, 10);
	ASSERT_EQ(c.yield_tried + c.parks, 0);
	/*
	 * The other VM never ran: nothing was done to it.  Not its
	 * schedule-ins: kvm_arch_vcpu_create() loads its vCPU, and a creating
	 * thread preempted while it is loaded counts one (seen once in a
	 * debug L1 on a loaded machine).
	 */
	ASSERT_TRUE(pvple_vm_counts(other, &oc));
	ASSERT_EQ(oc.yield_tried + oc.parks + oc.hypercalls + oc.ple_exits, 0);
	kvm_vm_free(vm);
	kvm_vm_free(other);
}

/* The area lives in its own memslot, which the host deletes under it. */
#define AREA_SLOT	10
#define AREA_GPA	(3ULL << 30)

static void guest_area_in_slot(u32 id)
{
	struct pvple_area *a = (struct pvple_area *)AREA_GPA;
	int i;

	if (id) {
		GUEST_DONE();
		return;
	}
	GUEST_ASSERT_EQ(pvple_guest_register(AREA_GPA), 0);
	pvple_guest_publish(a, 1, PVPLE_ROLE_HOLDER);
	GUEST_SYNC(1);
	/* The slot is gone: the record must not be read, nor anything else. */
	guest_res[0][0] = pvple_guest_park();
	for (i = 0; i < 20; i++)
		asm volatile("pause" ::: "memory");
	GUEST_DONE();
}

TEST_F_TIMEOUT(pvple, memslot_deleted_under_area, HARNESS_TIMEOUT_S)
{
	struct pvple_vcpu_thread t[2];
	struct pvple_counts c;
	struct kvm_vm *vm;
	struct ucall uc;

	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	set_params("auto", "2000");
	vm = create_vm(2, guest_area_in_slot, t, -1);
	vm_userspace_mem_region_add(vm, VM_MEM_SRC_ANONYMOUS, AREA_GPA,
				    AREA_SLOT, 1, 0);
	virt_map(vm, AREA_GPA, AREA_GPA, 1);

	vcpu_run(t[0].vcpu);
	ASSERT_EQ(get_ucall(t[0].vcpu, &uc), UCALL_SYNC);
	vm_mem_region_delete(vm, AREA_SLOT);
	vcpu_run(t[0].vcpu);
	ASSERT_EQ(get_ucall(t[0].vcpu, &uc), UCALL_DONE);
	sync_global_from_guest(vm, guest_res);

	ASSERT_EQ(guest_res[0][0], (u64)-KVM_EFAULT);
	ASSERT_TRUE(pvple_vm_counts(vm, &c));
	ASSERT_EQ(c.rec_fault, 1 + c.ple_exits);
	ASSERT_EQ(c.stock, 1 + c.ple_exits);
	kvm_vm_free(vm);
}

TEST_HARNESS_MAIN
