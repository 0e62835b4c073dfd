// SPDX-License-Identifier: GPL-2.0
/*
 * Parking a spinning vCPU until the vCPU it waits behind runs again.
 *
 * Each vCPU that ever registered has, in its struct pvple_vcpu, a simple
 * wait queue of the spinners parked behind it and a count of its "runs":
 * every time KVM loads it (schedule-in, or an ioctl's vcpu_load()) and
 * every time one of its own parks ends or is declined (pvple_park_begin()).
 * Nothing is shared between VMs, and nothing between vCPUs but the queue
 * of the vCPU waited on and its count of parkers.
 *
 * A park is only taken behind a target whose next step is certain to be a
 * run (policy.c): PREEMPTED (KVM schedules it in again), PARKED (its park
 * ends), OUT (its next KVM_RUN loads it).  Everything else gets stock
 * handling, so a park normally ends by that run, and its bound, park_max_us,
 * only matters for a stale or hostile record, or behind a vCPU whose task
 * left KVM_RUN for good (its VM is going away).
 *
 * Ordering.  The spinner must never sleep through the target's run:
 *
 *   target (its own task, preemption off)  spinner
 *   KVM: ->preempted = false,              ticket = READ_ONCE(->runs)
 *        ->wants_to_run = true, ...        smp_rmb()                    [R]
 *   smp_wmb()                        [W]   read KVM's flags, decide to park
 *   WRITE_ONCE(->runs, ->runs + 1)         prepare_to_swait_exclusive():
 *   swq_has_sleeper(): smp_mb()      [M1]    queued, then set_current_state()
 *   swait_active(): anyone queued?             implies smp_mb()         [M2]
 *     yes: swake_up_all()                  READ_ONCE(->runs) != ticket?
 *                                            yes: do not sleep
 *
 * [M1] and [M2] make the last two lines of each side a store-buffering
 * pair: the target sees the spinner queued, or the spinner sees the new
 * count, or both.  Without them the spinner could read the old count after
 * the target found the queue empty, and sleep until the bound.  [W] and
 * [R]: a spinner that read the new count also reads the flags KVM stored
 * before the load (kvm_sched_in() clears ->preempted and ->ready before
 * it calls kvm_arch_vcpu_load(); kvm_vcpu_ioctl()'s KVM_RUN sets
 * ->wants_to_run before kvm_arch_vcpu_ioctl_run() calls vcpu_load()), so
 * it cannot take the new count while it reads a stale "preempted" and
 * park behind a vCPU that already runs.  kvm_sched_in() clears
 * ->scheduled_out only after the load, which
 * is why policy.c never parks on it.
 *
 * ->runs is written only under the target's vcpu->mutex, with preemption
 * disabled: by the load hook, in KVM's preempt notifier of the task in
 * KVM_RUN or under an ioctl's vcpu_load(), and by the target's own park
 * exit or declined park, in KVM_RUN.  So the increment needs no atomic,
 * and a schedule-in cannot interleave with a park exit's increment.  (A
 * vCPU being created is loaded before it has its index; pvple_vcpu_find()
 * does not take it for another, vm.c.)
 *
 * Every park ends on the first of:
 *  - the target runs (above),
 *  - an event for the spinner: it is a KVM "blocking" vCPU for the
 *    duration (its rcuwait is armed), so kvm_vcpu_kick() -- interrupts, PV
 *    kicks, a software LAPIC timer -- wakes it like a halted vCPU; and it
 *    looks for an event it must take after setting its task state
 *    (pvple_event()).  Not a LAPIC timer that runs on the VMX preemption
 *    timer: KVM moves it to a software timer around a halt (vcpu_block()
 *    calls kvm_lapic_switch_to_sw_timer() and back, arch/x86/kvm/x86.c),
 *    which a module cannot call, and the hardware
 *    timer only fires in guest mode, so such a timer is delivered when the
 *    park ends, at most park_max_us late (Intel hosts with APICv off),
 *  - the bound, park_max_us,
 *  - a signal, a dead VM, or module unload.
 *
 * With APICv/AVIC active for the VM there is no park at all (spin.c sets
 * no_park from kvm_apicv_activated()): kvm_vcpu_block() brackets its wait
 * with kvm_arch_vcpu_blocking()/_unblocking(), static calls into the
 * vendor module that a module cannot make (kvm_x86_call() in their
 * definitions in arch/x86/include/asm/kvm_host.h); without them AVIC's
 * IsRunning stays clear after a park, as avic_vcpu_load() skips a
 * blocking vCPU (kvm_vcpu_is_blocking(), arch/x86/kvm/svm/avic.c).
 * Intel's APICv would
 * allow a park (vmx_vcpu_pi_put() arms the wake-up vector for a blocking
 * vCPU, and kvm_cpu_has_interrupt() syncs the PIR), but there it is the
 * default, and its timer goes to the VMX preemption timer (above); the
 * gate stays on both until that is measured on hardware.
 */
#include <linux/hrtimer.h>
#include <linux/sched/signal.h>
#include <linux/swait.h>

#include "pvple.h"
#include "pvple_trace.h"

static bool pvple_shutting_down;

/**
 * pvple_park_ticket() - Sample a target's run count before a park.
 * @tpv: the state of the vCPU that would be waited behind.
 *
 * Sample before reading the target's run state; see [R] above.
 *
 * Return: the target's run count, for pvple_park().
 */
unsigned long pvple_park_ticket(struct pvple_vcpu *tpv)
{
	unsigned long runs = READ_ONCE(tpv->runs);

	smp_rmb();	/* [R]: pairs with [W] in pvple_vcpu_ran() */
	return runs;
}

/**
 * pvple_yield_reached() - Did the last directed yield reach its target?
 * @pv: the yielding vCPU's state, or NULL if it has none.
 *
 * kvm_vcpu_yield_to() > 0 says only that KVM made the target the next
 * buddy of its CPU (or sent that CPU a reschedule): with EEVDF the buddy is
 * taken only while it is eligible (pick_next_entity(), PICK_BUDDY).  The
 * target's run count, sampled before the yield (pvple_yield() in spin.c)
 * and looked at again at this vCPU's next exit, says whether it ran in
 * between.  The yield is checked once.  Only this vCPU's task touches
 * @yielded_*; ->runs is read without ordering: a statistic.
 *
 * Context: the vCPU's own task.
 *
 * Return: 1 if the target ran, 0 if not, -1 if there was no yield to
 * check.
 */
int pvple_yield_reached(struct pvple_vcpu *pv)
{
	int reached;

	if (!pv || !pv->yielded_to)
		return -1;
	reached = READ_ONCE(pv->yielded_to->runs) != pv->yielded_runs;
	pv->yielded_to = NULL;
	return reached;
}

/* @pv's vCPU runs: wake whoever parked behind it.  Preemption is off. */
static void pvple_vcpu_ran(struct pvple_vcpu *pv)
{
	smp_wmb();	/* [W]: KVM's run-state stores before the count */
	WRITE_ONCE(pv->runs, pv->runs + 1);
	if (swq_has_sleeper(&pv->waiters))	/* [M1] */
		swake_up_all(&pv->waiters);
}

/**
 * pvple_vcpu_loaded() - Count a vCPU load, and wake the spinners behind it.
 * @vcpu: the vCPU KVM loads.
 *
 * Hot path: every vCPU load on the host.  O(1): one hash lookup of the VM,
 * one of the vCPU, three stores to this CPU's struct pvple_loaded, then
 * nothing for a vCPU that never registered; else a store to the vCPU's own
 * count and a barrier.
 *
 * Context: on entry to kvm_arch_vcpu_load(), from an ftrace callback;
 * preemption off.
 */
void pvple_vcpu_loaded(struct kvm_vcpu *vcpu)
{
	/*
	 * KVM's sched-in notifier loads the vCPU while ->scheduled_out is still
	 * set; an ioctl's vcpu_load() does not.
	 */
	bool sched_in = READ_ONCE(vcpu->scheduled_out);
	struct pvple_loaded *l = this_cpu_ptr(&pvple_loaded);
	struct pvple_vcpu *pv = NULL;
	struct pvple_vm *vm;

	rcu_read_lock();
	vm = pvple_vm_find(vcpu->kvm);
	if (vm) {
		pv = pvple_vcpu_find(vm, vcpu);
		if (pv) {
			pvple_vcpu_ran(pv);
			pvple_slice_left(vm, pv, sched_in);
		}
		pvple_count(vm, sched_in ? PVPLE_STAT_SCHED_IN :
			    PVPLE_STAT_VCPU_LOAD);
	}
	/* For pvple_lookup_loaded(), until pvple_loaded_forget(). */
	WRITE_ONCE(l->vm, vm);
	WRITE_ONCE(l->pv, pv);
	WRITE_ONCE(l->vcpu, vcpu);
	rcu_read_unlock();
	trace_kvm_pvple_vcpu_load(vcpu->kvm, vcpu->vcpu_id, sched_in);
}

/**
 * pvple_event() - Is anything waiting for the spinner in its guest?
 * @me: the spinning vCPU.
 * @irq_on: whether its guest can take an interrupt now
 *	(pvple_vcpu_irq_on()).
 *
 * What a halted vCPU's check looks for (kvm_vcpu_has_events(),
 * arch/x86/kvm/x86.c), as far as a module can see it:
 *  - always: a pending or queued NMI or SMI (their *_allowed() checks are
 *    static calls a module cannot make: pending counts), a PV kick
 *    (pv_unhalted: the lock's unlocker says it is our turn), a queued
 *    exception, a finished async page fault, a PMI, a protected guest's
 *    state update, a Hyper-V synthetic timer, an APICv change;
 *  - if the guest can take one now (pvple_vcpu_irq_on(): RFLAGS.IF, the
 *    main part of kvm_arch_interrupt_allowed(), which is not exported; an
 *    STI shadow at a PAUSE is not worth an exit): an interrupt or an
 *    expired LAPIC timer (apic_timer_expired() makes KVM_REQ_UNBLOCK,
 *    arch/x86/kvm/lapic.c).  As for a halt, an interrupt a spinner with
 *    interrupts off cannot take does not count: it would only come back
 *    and spin.
 * Not seen: a pending INIT or SIPI (kvm_apic_has_pending_init_or_sipi()
 * reads the private struct kvm_lapic; its KVM_REQ_EVENT is also made for
 * every masked interrupt), and nested and Xen events (vendor and Xen
 * code a module cannot call).  Each of those comes with a kvm_vcpu_kick(),
 * which ends a park in progress; only one that lands between the decision
 * and the sleep waits for the bound, park_max_us.  Nor do requests the
 * guest need not run for count: KVM makes KVM_REQ_STEAL_UPDATE on every
 * load (kvm_arch_vcpu_load()), which would end any park that was
 * preempted.
 *
 * Context: the spinner's own task.
 *
 * Return: true if the guest must run to take an event.
 */
bool pvple_event(struct kvm_vcpu *me, bool irq_on)
{
	return kvm_test_request(KVM_REQ_NMI, me) ||
	       READ_ONCE(me->arch.nmi_pending) ||
	       kvm_test_request(KVM_REQ_SMI, me) ||
	       READ_ONCE(me->arch.smi_pending) ||
	       READ_ONCE(me->arch.pv.pv_unhalted) ||
	       me->arch.exception.pending ||
	       !list_empty_careful(&me->async_pf.done) ||
	       kvm_test_request(KVM_REQ_PMI, me) ||
	       kvm_test_request(KVM_REQ_UPDATE_PROTECTED_GUEST_STATE, me) ||
	       kvm_test_request(KVM_REQ_HV_STIMER, me) ||
	       kvm_test_request(KVM_REQ_APICV_UPDATE, me) ||
	       (irq_on && (kvm_test_request(KVM_REQ_UNBLOCK, me) ||
			   kvm_cpu_has_interrupt(me)));
}

/**
 * pvple_vcpu_irq_on() - May a vCPU's guest take an interrupt now?
 * @me: the vCPU.
 *
 * SEV-ES/SNP guests count as interruptible: policy.h, pvple_irq_on().
 *
 * Return: true if the guest may take an interrupt now.
 */
bool pvple_vcpu_irq_on(struct kvm_vcpu *me)
{
	return pvple_irq_on(me->arch.guest_state_protected,
			    kvm_get_rflags(me));
}

#define PVPLE_PARK_HOPS		8	/* see pvple_park_begin() */

/* An announced park not taken: no longer PARKED, and counted as a run. */
static void pvple_park_decline(struct pvple_vcpu *pv)
{
	WRITE_ONCE(pv->parked_on, NULL);
	preempt_disable();	/* ->runs: as at the end of a park */
	pvple_vcpu_ran(pv);
	preempt_enable();
}

/**
 * pvple_park_begin() - Announce a park, unless it would close a cycle or
 * join a crowd.
 * @vm: the VM's state.
 * @me: the spinning vCPU.
 * @pv: its state.
 * @target: the vCPU it would park behind.
 * @tpv: @target's state.
 *
 * Cycles of parks.  Spinner A parked behind B, B behind C, ..., and the
 * last behind A: each waits for the next one's run, and none runs until
 * its bound.  Honest records make none (a queue is a chain, and heads do
 * not park, policy.c), but stale and hostile ones can, and vCPUs that
 * decide at the same time see nothing of each other's decision.  So the
 * park is announced before anyone sleeps, and looked for afterwards::
 *
 *   each spinner X of a would-be cycle
 *   WRITE_ONCE(X->parked_on, its target)
 *   smp_mb()                                                        [C]
 *   follow ->parked_on from its target, at most PVPLE_PARK_HOPS vCPUs;
 *   back at X: WRITE_ONCE(X->parked_on, NULL), do not park
 *
 * Full barriers are ordered among themselves: of the spinners of a cycle,
 * the one whose [C] comes last reads every other's ->parked_on store,
 * made before that one's own [C], and finds the cycle -- the store
 * buffering argument of [M1]/[M2] above, for any number of CPUs.  Without
 * [C] each could read the others' old NULL and all of them sleep to the
 * bound.  Two or more of them may find it and all decline: that costs one
 * stock exit each.  A cycle longer than PVPLE_PARK_HOPS vCPUs is not
 * found; park_max_us still bounds it.
 *
 * Crowds.  The target's run wakes everyone parked behind it, with
 * preemption off (pvple_vcpu_ran(), from KVM's preempt notifier): its
 * cost grows with their number, and on that CPU it delays whatever runs
 * next, which may be another VM.  Honest records name distinct vCPUs (a
 * queue's predecessors), but stale or hostile ones can name one vCPU from
 * every other.  So at most PVPLE_PARKERS_MAX spinners park behind one
 * vCPU at a time: ->parkers counts them, taken here with
 * atomic_inc_return() and given back by pvple_park() when the park ends;
 * the one beyond gets stock handling.  The count is a bound, not a
 * synchronisation: nothing else is read under it.
 *
 * A spinner that declines has been PARKED to the others since its store
 * of ->parked_on, and one of them may have parked behind it meanwhile:
 * the decline counts as a run of the decliner (pvple_park_decline()), so
 * that one is woken as by the end of a park, by the same [W]/[M1]/[M2]
 * pairing, rather than sleeping to its bound.
 *
 * Context: the spinner's own task.
 *
 * Return: PVPLE_START_OK if the park may be taken (@pv's ->parked_on now
 * names @target and a place behind @tpv is taken), else why not
 * (->parked_on is cleared).
 */
enum pvple_park_start pvple_park_begin(struct pvple_vm *vm,
				       struct kvm_vcpu *me,
				       struct pvple_vcpu *pv,
				       struct kvm_vcpu *target,
				       struct pvple_vcpu *tpv)
{
	struct kvm_vcpu *t = target;
	struct pvple_vcpu *hop;
	unsigned int i;

	/* Spinners that check us from now on see PARKED and may queue. */
	WRITE_ONCE(pv->parked_on, target);
	smp_mb();	/* [C] */
	for (i = 0; i < PVPLE_PARK_HOPS; i++) {
		hop = pvple_vcpu_find(vm, t);
		t = hop ? READ_ONCE(hop->parked_on) : NULL;
		if (!t)
			break;
		if (t == me) {
			pvple_park_decline(pv);
			return PVPLE_START_CYCLE;
		}
	}
	if (atomic_inc_return(&tpv->parkers) > PVPLE_PARKERS_MAX) {
		atomic_dec(&tpv->parkers);
		pvple_park_decline(pv);
		return PVPLE_START_CROWDED;
	}
	return PVPLE_START_OK;
}

/**
 * pvple_park() - Sleep until the target runs, or until the park must end.
 * @me: the spinning vCPU.
 * @pv: its state.
 * @target: the vCPU it parks behind.
 * @tpv: @target's state, whose queue it sleeps on.
 * @ticket: @target's run count, from pvple_park_ticket().
 * @start_ns: where to store when the park began (ktime_get(), in ns: the
 *	trace clock "mono").
 * @parked_ns: where to store how long the park lasted, in nanoseconds.
 *
 * After pvple_park_begin() said yes.  The park ends on the first of the
 * causes listed above: @target's run, an event for the spinner, the bound
 * park_max_us, or teardown (a signal, a dead VM, module unload).  At the
 * end the park is withdrawn, and counts as a run of @me for whoever parked
 * behind it.
 *
 * Context: the vCPU's task, in KVM_RUN, kvm->srcu held; sleeps, with
 * kvm->srcu released meanwhile.
 *
 * Return: how the park ended.
 */
enum pvple_wake pvple_park(struct kvm_vcpu *me, struct pvple_vcpu *pv,
			   struct kvm_vcpu *target, struct pvple_vcpu *tpv,
			   unsigned long ticket, u64 *start_ns, u64 *parked_ns)
{
	/* The guest's RFLAGS cannot change while it is parked. */
	bool irq_on = pvple_vcpu_irq_on(me);
	ktime_t start = ktime_get(), deadline;
	DECLARE_SWAITQUEUE(w);
	bool woken_early = false, timed_out = false;
	enum pvple_wake why;

	*start_ns = ktime_to_ns(start);
	deadline = ktime_add_ns(start,
				pvple_bound_ns(READ_ONCE(pvple_park_max_us)));

	/* Like kvm_vcpu_block(): never sleep holding off memslot updates. */
	kvm_vcpu_srcu_read_unlock(me);
	prepare_to_rcuwait(kvm_arch_vcpu_get_wait(me));
	for (;;) {
		/* A run of the target wakes every spinner queued on it. */
		prepare_to_swait_exclusive(&tpv->waiters, &w,
					   TASK_INTERRUPTIBLE);	/* [M2] */
		if (READ_ONCE(tpv->runs) != ticket) {
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
		 * a PV kick): the guest must run to take it.
		 */
		if (woken_early || pvple_event(me, irq_on)) {
			why = PVPLE_WAKE_EVENT;
			break;
		}
		if (timed_out) {
			why = PVPLE_WAKE_TIMEOUT;
			break;
		}
		/*
		 * 0: the timer fired.  The target's run may have woken us
		 * before it, while we waited for a CPU (often the target's
		 * own), so the count is looked at once more above: only a
		 * park whose target did not run ends by the bound.
		 */
		timed_out = !schedule_hrtimeout_range(&deadline,
						      10 * NSEC_PER_USEC,
						      HRTIMER_MODE_ABS);
		woken_early = !timed_out;
	}
	finish_swait(&tpv->waiters, &w);
	atomic_dec(&tpv->parkers);	/* taken in pvple_park_begin() */
	finish_rcuwait(kvm_arch_vcpu_get_wait(me));
	kvm_vcpu_srcu_read_lock(me);

	/* Whoever parked behind us: we run again.  [W] orders the clear. */
	WRITE_ONCE(pv->parked_on, NULL);
	preempt_disable();
	pvple_vcpu_ran(pv);
	preempt_enable();
	*parked_ns = ktime_to_ns(ktime_sub(ktime_get(), start));
	return why;
}

/**
 * pvple_park_shutdown() - End every park, now and until the hooks are gone.
 *
 * Module unload: end the parks in progress, and make any park that starts
 * before the hooks are gone end at once.  A waiter between its decision and
 * its first check sees the flag after prepare_to_swait_exclusive().
 *
 * Context: takes pvple_vm_lock (pvple_vm_wake_all()).
 */
void pvple_park_shutdown(void)
{
	WRITE_ONCE(pvple_shutting_down, true);
	/* The flag before the queue checks; pairs with [M2]. */
	smp_mb();
	pvple_vm_wake_all();
}
