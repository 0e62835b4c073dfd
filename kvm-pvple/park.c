// SPDX-License-Identifier: GPL-2.0
/*
 * Parking a spinning vCPU until the vCPU it waits behind runs again.
 *
 * Waiters sleep on a hashed table of wait queues keyed by the target's
 * struct kvm_vcpu, as wait_on_bit() does for bits: nothing is allocated per
 * target, and a target needs no pvple state at all.  Each bucket also has a
 * generation count that every load of a vCPU hashing there bumps.  A waiter
 * samples it before it looks at the target's run state, so a schedule-in
 * that races with the decision to park is never lost: either the waiter
 * sees the new generation, or the waker sees the waiter on the queue.
 *
 * Every park ends on the first of:
 *  - the target is loaded (scheduled in, or vcpu_load()),
 *  - an event for the spinner: it is also a KVM "blocking" vCPU for the
 *    duration (its rcuwait is armed), so kvm_vcpu_kick() -- interrupts,
 *    PV kicks -- wakes it like a halted vCPU,
 *  - the bound, park_max_us,
 *  - a signal, a dead VM, or module unload.
 */
#include <linux/hash.h>
#include <linux/hrtimer.h>
#include <linux/sched/signal.h>
#include <linux/wait.h>

#include "pvple.h"
#include "pvple_trace.h"

#define PVPLE_PARK_HASH_BITS	8

struct pvple_bucket {
	wait_queue_head_t wq;
	unsigned long gen;
} ____cacheline_aligned_in_smp;

static struct pvple_bucket pvple_buckets[1 << PVPLE_PARK_HASH_BITS];
static bool pvple_shutting_down;

struct pvple_waiter {
	struct wait_queue_entry wq;
	struct kvm_vcpu *target;
	bool woken;
};

static struct pvple_bucket *pvple_bucket(struct kvm_vcpu *vcpu)
{
	return &pvple_buckets[hash_ptr(vcpu, PVPLE_PARK_HASH_BITS)];
}

/* Sample before reading the target's run state; see the comment above. */
unsigned long pvple_park_ticket(struct kvm_vcpu *target)
{
	unsigned long gen = READ_ONCE(pvple_bucket(target)->gen);

	smp_rmb();	/* pairs with the waker's store order in kvm_sched_in() */
	return gen;
}

static int pvple_wake_fn(struct wait_queue_entry *wq, unsigned int mode,
			 int flags, void *key)
{
	struct pvple_waiter *w = container_of(wq, struct pvple_waiter, wq);

	/* A NULL key (shutdown) wakes everyone; a vCPU wakes its own waiters. */
	if (key && key != w->target)
		return 0;
	WRITE_ONCE(w->woken, true);
	return autoremove_wake_function(wq, mode, flags, key);
}

/*
 * Hot path: every vCPU schedule-in.  With nobody parked it costs a hash,
 * one store and a barrier, plus the counter.
 */
void pvple_vcpu_loaded(struct kvm_vcpu *vcpu)
{
	struct pvple_bucket *b = pvple_bucket(vcpu);
	/*
	 * KVM's sched-in notifier loads the vCPU while ->scheduled_out is still
	 * set; an ioctl's vcpu_load() does not.
	 */
	bool sched_in = READ_ONCE(vcpu->scheduled_out);

	WRITE_ONCE(b->gen, b->gen + 1);
	/* wq_has_sleeper() orders the store above before the queue check. */
	if (wq_has_sleeper(&b->wq))
		__wake_up(&b->wq, TASK_NORMAL, 0, vcpu);

	trace_kvm_pvple_vcpu_load(vcpu->kvm, vcpu->vcpu_id, sched_in);
	pvple_vm_count(vcpu->kvm, sched_in ? PVPLE_STAT_SCHED_IN :
		       PVPLE_STAT_VCPU_LOAD);
}

enum pvple_wake pvple_park(struct kvm_vcpu *me, struct pvple_vcpu *pv,
			   struct kvm_vcpu *target, unsigned long ticket,
			   u64 *parked_ns)
{
	struct pvple_bucket *b = pvple_bucket(target);
	struct pvple_waiter w = { .target = target };
	ktime_t start = ktime_get(), deadline;
	bool woken_early = false;
	enum pvple_wake why;

	deadline = ktime_add_us(start, READ_ONCE(pvple_park_max_us));
	init_wait_entry(&w.wq, 0);
	w.wq.func = pvple_wake_fn;
	WRITE_ONCE(pv->parked_on, target);

	/* Like kvm_vcpu_block(): never sleep holding off memslot updates. */
	kvm_vcpu_srcu_read_unlock(me);
	prepare_to_rcuwait(kvm_arch_vcpu_get_wait(me));
	for (;;) {
		/* Tail of the queue: waiters on one target wake in FIFO order. */
		prepare_to_wait_exclusive(&b->wq, &w.wq, TASK_INTERRUPTIBLE);
		if (READ_ONCE(w.woken) || READ_ONCE(b->gen) != ticket) {
			why = PVPLE_WAKE_SCHED_IN;
			break;
		}
		if (READ_ONCE(pvple_shutting_down) || signal_pending(current) ||
		    READ_ONCE(me->kvm->vm_dead)) {
			why = PVPLE_WAKE_TEARDOWN;
			break;
		}
		/*
		 * Whatever else woke us was a kick of this vCPU (an interrupt,
		 * posted or not, a PV kick): the guest must run to take it.
		 */
		if (kvm_request_pending(me) || woken_early) {
			why = PVPLE_WAKE_EVENT;
			break;
		}
		if (!schedule_hrtimeout_range(&deadline, 10 * NSEC_PER_USEC,
					      HRTIMER_MODE_ABS)) {
			why = PVPLE_WAKE_TIMEOUT;
			break;
		}
		woken_early = true;
	}
	finish_wait(&b->wq, &w.wq);
	finish_rcuwait(kvm_arch_vcpu_get_wait(me));
	kvm_vcpu_srcu_read_lock(me);

	WRITE_ONCE(pv->parked_on, NULL);
	*parked_ns = ktime_to_ns(ktime_sub(ktime_get(), start));
	return why;
}

/*
 * Module unload: end the parks in progress, and make any park that starts
 * before the hooks are gone end at once.  A waiter between its decision and
 * its first check sees the flag after prepare_to_wait_exclusive().
 */
void pvple_park_shutdown(void)
{
	int i;

	WRITE_ONCE(pvple_shutting_down, true);
	/* The flag before the queue checks; pairs with set_current_state(). */
	smp_mb();
	for (i = 0; i < ARRAY_SIZE(pvple_buckets); i++)
		wake_up_all(&pvple_buckets[i].wq);
}

int pvple_park_init(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(pvple_buckets); i++)
		init_waitqueue_head(&pvple_buckets[i].wq);
	return 0;
}
