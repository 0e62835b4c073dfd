// SPDX-License-Identifier: GPL-2.0
/*
 * The slice extension: keep a vCPU on its CPU for a bounded moment when
 * the host would take it off while its guest is inside a critical
 * section, so that the lock it may hold is not held by a vCPU that does
 * not run.  The idea of eCS (USENIX ATC 2018) and of the rseq time-slice
 * extension (Linux 2025), on a stock kernel.
 *
 * Where a vCPU is descheduled.  A tick (the slice used up) or a wake-up
 * that preempts the vCPU task only sets TIF_NEED_RESCHED on it; the task
 * then leaves the CPU at the next point that honours the flag.  For a
 * vCPU in the guest that point is on the way back in: vcpu_run() calls
 * xfer_to_guest_mode_handle_work() when __xfer_to_guest_mode_work_pending()
 * says so, and it calls schedule() (kernel/entry/kvm.c); vcpu_enter_guest()
 * also bails out to that loop when kvm_vcpu_exit_request() sees the flag
 * just before VM entry.  The hook (hooks.c) runs pvple_slice_resched()
 * there, before the flag is read.  The other points, not covered:
 *  - preempt=full: the preempt_enable() after the VM exit in
 *    vcpu_enter_guest(), and the preempt_enable_notrace() that ends
 *    ftrace's own callback (ftrace_ops_assist_func()), schedule before the
 *    redirect runs; it then finds no request and does nothing.  The
 *    distro kernels pvple targets boot PREEMPT_DYNAMIC voluntary, where
 *    neither does (design.rst).
 *  - cond_resched() and might_sleep() points inside exit handlers (the
 *    MMU's fault-in, the emulator's): a host request is honoured there
 *    too, with no hook before it.
 *  - the vCPU's own blocking or yielding (HLT, a PLE exit): not a
 *    preemption.
 *
 * A grant clears TIF_NEED_RESCHED and its folded copy in the preemption
 * count (clear_tsk_need_resched(), clear_preempt_need_resched()) and arms
 * a per-vCPU hrtimer, pinned to this CPU, that sets both again after
 * slice_ext_us.  The task then enters the guest; the timer's interrupt
 * makes it exit, the flag sends it back through the hook, and the hook,
 * seeing the grant, ends it and lets schedule() run.  A request that comes
 * in between (an RT task's wake-up, say) ends the grant the same way at
 * the next exit: the extension is one delay of at most slice_ext_us (plus
 * the timer's latency) per request, never two in a row.
 *
 * In steps (slice_step_us): the timer fires every step instead of once at
 * the bound, and at each step the hook reads the count again.  Still in a
 * section, the grant goes on (PVPLE_SLICE_STEP: the flags cleared again,
 * the timer re-armed for the next step or what is left of the bound);
 * out of it, the grant ends there and the reschedule goes ahead between
 * two sections.  Only a request the timer itself raised is a step
 * (@slice_fired); any other ends the grant as before, and the bound is
 * counted from the grant, so steps never lengthen it.  The one case where
 * a step hides another request: a wake-up that sets the flag between the
 * timer's callback and the hook; it then waits for the rest of the
 * bound, as it would have without steps.
 *
 * Ended by the guest (ABI 4).  While a grant runs the area's @slice
 * says so; a guest that reads it set at its outermost unlock writes 0
 * and calls KVM_HC_PVPLE_SLICE_DONE (pvple_slice_done()), which raises
 * the reschedule again: the vCPU leaves its CPU there, with the lock
 * released, rather than at the bound, perhaps inside its next section.
 * The call only brings a reschedule forward.
 *
 * Ordering.  @slice_task and @slice_granted are the vCPU's own task's:
 * written there, with preemption off around the grant so that the timer
 * is armed on the CPU whose flags were cleared.  The timer callback runs
 * on that CPU in hard interrupt context and reads @slice_task only to
 * compare it with current: if the task left the CPU meanwhile (it blocked,
 * or returned to user space and slept), the callback must not set the
 * flag of a task that is not running; a stale pointer compared is never
 * dereferenced.  The grant ends, at the latest, when the vCPU is loaded
 * again (pvple_slice_left()), which cancels the timer.  @slice_fired is
 * written by the callback and read and cleared by the task, both on the
 * CPU the timer is pinned to: while a grant runs the task cannot leave
 * that CPU without a schedule(), whose vcpu_load() on its return ends
 * the grant.  @slice_done_ns and @slice_flag are the task's alone: written
 * by its hypercall and its hook, never by the timer.  One CPU's program
 * order orders them; READ_ONCE() and
 * WRITE_ONCE() keep the compiler from tearing or caching the flag across
 * the interrupt.  A @slice_fired left over from an ended grant is cleared
 * by the next grant before its timer is armed.
 */
#include <linux/hrtimer.h>
#include <linux/sched.h>

#include "pvple.h"
#include "pvple_trace.h"

/*
 * The grant is over: how it ended, and for how long it ran (for a vCPU
 * that left its CPU, no longer than its bound: the rest was off the CPU).
 * hrtimer_cancel(), not the try_ variant: a callback still running on the
 * CPU this vCPU left would keep the timer on that CPU for the next grant
 * (switch_hrtimer_base() does not move a running timer), where it would
 * find another task current and raise nothing.  It waits only for the
 * callback's few instructions.  Preemption is off.
 */
static void pvple_slice_end(struct pvple_vm *vm, struct pvple_vcpu *pv,
			    enum pvple_stat how)
{
	bool pending = hrtimer_cancel(&pv->slice_timer);
	u64 ns = (pv->slice_done_ns ?: ktime_get_ns()) - pv->slice_start_ns;

	WRITE_ONCE(pv->slice_task, NULL);
	pv->slice_granted = false;
	pv->slice_done_ns = 0;
	if (how == PVPLE_STAT_SLICE_LEFT)
		ns = min(ns, pv->slice_bound_ns);
	pvple_count(vm, pending && how == PVPLE_STAT_SLICE_EXPIRED ?
		    PVPLE_STAT_SLICE_CUT : how);
	pvple_count_n(vm, PVPLE_STAT_SLICE_NS, ns);
}

/**
 * pvple_slice_left() - A vCPU is loaded again: a grant it had is over.
 * @vm: its VM's state.
 * @pv: its state.
 *
 * The vCPU left its CPU while granted, before the hook saw a request:
 * it blocked, went out to user space, or met a reschedule point in an
 * exit handler.  A grant the guest had ended (pvple_slice_done()) ends
 * as done: the request its call raised was honoured at such a point.
 * Under PREEMPT_DYNAMIC voluntary, might_sleep() is one (might_resched(),
 * include/linux/kernel.h), and every guest page walk passes it
 * (walk_addr_generic(), arch/x86/kvm/mmu/paging_tmpl.h) -- among them
 * the instruction fetch with which SVM skips the VMMCALL on a CPU
 * without NRIPS (__svm_skip_emulated_instruction()), as on the emulated
 * test host, where every such call ends so.
 *
 * Context: the vCPU's own task, preemption off (the load hook).
 */
void pvple_slice_left(struct pvple_vm *vm, struct pvple_vcpu *pv)
{
	if (pv->slice_granted)
		pvple_slice_end(vm, pv, pv->slice_done_ns ? PVPLE_STAT_SLICE_DONE :
				PVPLE_STAT_SLICE_LEFT);
}

/*
 * The timer for the next step of a grant: slice_step_us, or what is left
 * of the bound if that is sooner (or the step is 0).
 */
static void pvple_slice_arm(struct pvple_vcpu *pv, u64 left_ns)
{
	u64 step_ns = (u64)READ_ONCE(pvple_slice_step_us) * NSEC_PER_USEC;

	if (step_ns && step_ns < left_ns)
		left_ns = step_ns;
	WRITE_ONCE(pv->slice_fired, false);
	hrtimer_start(&pv->slice_timer, left_ns, HRTIMER_MODE_REL_PINNED_HARD);
}

/* Grant: the reschedule waits for the timer.  Preemption is off. */
static void pvple_slice_grant(struct pvple_vm *vm, struct pvple_vcpu *pv,
			      unsigned int us)
{
	clear_tsk_need_resched(current);
	clear_preempt_need_resched();
	WRITE_ONCE(pv->slice_task, current);
	pv->slice_granted = true;
	pv->slice_done_ns = 0;
	pv->slice_start_ns = ktime_get_ns();
	pv->slice_bound_ns = us * NSEC_PER_USEC;
	pvple_slice_arm(pv, pv->slice_bound_ns);
	pvple_count(vm, PVPLE_STAT_SLICE_GRANTED);
}

/*
 * A step of a running grant: still in a section, the grant goes on, to
 * its bound at the latest.  Preemption is off.
 */
static void pvple_slice_step(struct pvple_vm *vm, struct pvple_vcpu *pv,
			     u64 left_ns)
{
	clear_tsk_need_resched(current);
	clear_preempt_need_resched();
	pvple_slice_arm(pv, left_ns);
	pvple_count(vm, PVPLE_STAT_SLICE_STEPS);
}

/*
 * What is left of a grant's bound if its own timer raised this request
 * at a step, else 0.  The timer never fires before it is due, so a
 * request it raised at the bound leaves nothing.  Preemption is off.
 */
static u64 pvple_slice_step_due(struct pvple_vcpu *pv)
{
	s64 left;

	if (!pv->slice_granted || !READ_ONCE(pv->slice_fired))
		return 0;
	left = pv->slice_start_ns + pv->slice_bound_ns - ktime_get_ns();
	return left > 0 ? left : 0;
}

/*
 * May this task keep its CPU at all?  Not with a signal pending (the vCPU
 * is on its way out to user space: xfer_to_guest_mode_work()), nor with a
 * core-scheduling cookie: __schedule() forces a sibling of another cookie
 * off with a reschedule, which a grant would delay.
 */
static bool pvple_slice_allowed(struct task_struct *t)
{
#ifdef CONFIG_SCHED_CORE
	if (t->core_cookie)
		return false;
#endif
	return !signal_pending(t);
}

/*
 * Tell the guest whether a grant runs: the area's @slice, which the guest
 * reads at its outermost unlock (ABI 4).  Written only here, by the
 * vCPU's own task on its way into the guest, and only when it differs
 * from what was written last (@slice_flag); the guest writes 0 itself
 * before it calls (pvple_slice_done()).  Program order in this task, then
 * VM entry, put the store before any guest load of it; the guest's own
 * store is done before the exit of its call.  No barrier beyond those:
 * both writers run on the vCPU's one thread, never at the same time.
 * Were the host's 1 seen late, the guest would let the grant run to its
 * bound; were its 0 seen after a new grant's 1, a grant would end at the
 * next outermost unlock, bounded either way.  A 1 left behind by a grant
 * that ended while the vCPU was off its CPU (pvple_slice_left(), which
 * cannot write: preemption is off there) is cleared at the next pass
 * here, or costs the guest one call answered 0.  A write that fails is
 * tried again at the next pass; until then the grant ends at its bound.
 * Process context, preemption on: the write may fault.
 */
static void pvple_slice_flag(struct kvm_vcpu *vcpu, struct pvple_vcpu *pv)
{
	u64 v = pv->slice_granted;
	int idx;

	if (pv->slice_flag == pv->slice_granted)
		return;
	idx = srcu_read_lock(&vcpu->kvm->srcu);
	if (!kvm_write_guest_offset_cached(vcpu->kvm, &pv->ghc, &v,
					   offsetof(struct pvple_area, slice),
					   sizeof(v)))
		pv->slice_flag = v;
	srcu_read_unlock(&vcpu->kvm->srcu, idx);
}

/**
 * pvple_slice_done() - The guest's section ended (KVM_HC_PVPLE_SLICE_DONE).
 * @vcpu: the calling vCPU.
 *
 * The guest saw @slice set at its outermost unlock: the lock that made
 * the grant worth having is released.  Raises the reschedule again, as
 * the grant's timer would at its bound; on the way back into the guest
 * the hook finds @slice_done_ns and ends the grant (PVPLE_SLICE_DONE), and
 * the vCPU leaves its CPU between two sections.  Without a running grant
 * (it ended first, or the guest calls at will) nothing changes but a
 * counter: the call can only bring a reschedule forward, never delay one,
 * and only its own vCPU's.  A reschedule point met before the hook (a
 * page walk's might_sleep(), pvple_slice_left(); under preempt=full this
 * preempt_enable()) honours the request there: a switch to another task
 * ends the grant at the vCPU's next load, and a schedule() that keeps the
 * vCPU task on its CPU leaves the grant done but running, to end at the
 * hook's next pass (its timer's, at the latest); done either way.
 *
 * Context: the vCPU's own task, in its exit, kvm->srcu held.
 *
 * Return: 0, or -PVPLE_ENOTREG without a registered area.
 */
long pvple_slice_done(struct kvm_vcpu *vcpu)
{
	struct pvple_vcpu *pv;
	struct pvple_vm *vm;

	vm = pvple_lookup(vcpu, &pv);
	if (!pv || !READ_ONCE(pv->registered))
		return -PVPLE_ENOTREG;
	/* The guest wrote 0 before its call. */
	pv->slice_flag = false;
	if (!pv->slice_granted || pv->slice_done_ns) {
		pvple_count(vm, PVPLE_STAT_SLICE_DONE_IDLE);
		return 0;
	}
	pv->slice_done_ns = ktime_get_ns();
	/* On this CPU, whose flags the grant cleared: preemption off. */
	preempt_disable();
	set_tsk_need_resched(current);
	set_preempt_need_resched();
	preempt_enable();
	return 0;
}

/**
 * pvple_slice_resched() - A vCPU task is about to be rescheduled.
 * @vcpu: the vCPU, on its way back into the guest.
 *
 * Called when TIF_NEED_RESCHED was set, just before KVM honours it.  Reads
 * the guest's preemption count and the vCPU's own record (which may
 * sleep: a fault), then, with preemption off, checks that the request is
 * still there -- a read that slept, or under preempt=full the
 * preempt_enable_notrace() of ftrace's callback (ftrace_ops_assist_func()),
 * may have honoured it already -- asks pvple_slice_decide() and grants,
 * ends a grant, or does nothing.  A vCPU that registered no count (a guest
 * without PREEMPT_COUNT, or one whose memory is encrypted) costs one
 * lookup.
 *
 * Context: the vCPU's own task, process context, preemption on, not in
 * kvm->srcu (vcpu_run() leaves it before xfer_to_guest_mode_handle_work()).
 */
void pvple_slice_resched(struct kvm_vcpu *vcpu)
{
	struct pvple_slice_in in = { };
	struct pvple_vcpu *pv;
	enum pvple_slice d;
	struct pvple_area rec = { };
	struct pvple_vm *vm;
	enum pvple_rec r;
	unsigned int us;
	u64 left_ns;
	int idx;

	vm = pvple_lookup(vcpu, &pv);
	if (!pv || !READ_ONCE(pv->registered) || !pv->preempt_gpa)
		return;

	us = READ_ONCE(pvple_slice_ext_us);
	idx = srcu_read_lock(&vcpu->kvm->srcu);
	in.read_ok = !kvm_read_guest_cached(vcpu->kvm, &pv->preempt_ghc,
					    &in.count, sizeof(in.count));
	/* Only a grant needs the record: not read with the extension off. */
	if (us && pvple_slice_in_cs(&in)) {
		r = pvple_read_record(vcpu, pv, &rec);
		pvple_slice_rec(&in, r, rec.wait);
	}
	srcu_read_unlock(&vcpu->kvm->srcu, idx);

	preempt_disable();
	if (!tif_need_resched()) {
		preempt_enable();
		return;
	}
	in.on = us && pvple_vm_mode(vm) != PVPLE_MODE_OFF &&
		pvple_slice_allowed(current);
	in.granted = pv->slice_granted;
	in.done = pv->slice_done_ns;
	left_ns = pvple_slice_step_due(pv);
	in.step = left_ns > 0;
	d = pvple_slice_decide(&in);
	if (d == PVPLE_SLICE_GRANT)
		pvple_slice_grant(vm, pv, us);
	else if (d == PVPLE_SLICE_STEP)
		pvple_slice_step(vm, pv, left_ns);
	else if (d == PVPLE_SLICE_END)
		pvple_slice_end(vm, pv, PVPLE_STAT_SLICE_EXPIRED);
	else if (d == PVPLE_SLICE_DONE)
		pvple_slice_end(vm, pv, PVPLE_STAT_SLICE_DONE);
	preempt_enable();

	pvple_slice_flag(vcpu, pv);
	trace_kvm_pvple_slice(vcpu->kvm, vcpu->vcpu_id, d, in.count);
	/*
	 * A step is the grant's own, and the end the guest asked for its
	 * own, with the lock released: not requests of the scheduler's.
	 */
	if (d == PVPLE_SLICE_STEP || d == PVPLE_SLICE_DONE)
		return;
	pvple_count(vm, PVPLE_STAT_SLICE_REQUESTS);
	if (!pvple_slice_in_cs(&in)) {
		if (d == PVPLE_SLICE_FAULT)
			pvple_count(vm, PVPLE_STAT_SLICE_FAULT);
		return;
	}
	pvple_count(vm, PVPLE_STAT_SLICE_IN_CS);
	if (d == PVPLE_SLICE_GRANT)
		return;
	if (d == PVPLE_SLICE_END)
		pvple_count(vm, PVPLE_STAT_SLICE_STILL_IN_CS);
	else if (d == PVPLE_SLICE_WAITING)
		pvple_count(vm, PVPLE_STAT_SLICE_WAITING);
	/* The reschedule goes ahead with the vCPU inside a section. */
	pvple_count(vm, PVPLE_STAT_SLICE_DESCHED_CS);
}

/**
 * pvple_slice_named() - A spinner takes a vCPU for the holder of its lock.
 * @tpv: that vCPU's state, or NULL if it has none.
 * @state: its run state now.
 *
 * Notes the run of @tpv in which it holds the lock others wait for: this
 * one if it runs, else its next (->runs counts its loads).  A hint, read
 * and written without ordering: a stale or lost one costs at most
 * PVPLE_SPIN_MAX "spin" answers, or a yield stock would have made.
 *
 * Context: a spinner of @tpv's VM, in a PLE exit.
 */
void pvple_slice_named(struct pvple_vcpu *tpv, enum pvple_target state)
{
	unsigned long run;

	if (!tpv)
		return;
	run = READ_ONCE(tpv->runs) + (state != PVPLE_TARGET_RUNNING);
	/* Every waiter names the same run: write the shared line once. */
	if (READ_ONCE(tpv->named_runs) != run)
		WRITE_ONCE(tpv->named_runs, run);
}

/**
 * pvple_slice_may_hold() - Can pvple_slice_held() be true?
 * @pv: the vCPU's state.
 *
 * The cheaper half of pvple_slice_held(), which reads nothing from the
 * guest: if this is false, so is that.
 *
 * Context: the vCPU's own task, in the exit; does not sleep.
 *
 * Return: whether the vCPU registered its preemption count and another
 * vCPU took it for the holder during this run of it.
 */
bool pvple_slice_may_hold(struct pvple_vcpu *pv)
{
	return pv->preempt_gpa && READ_ONCE(pv->named_runs) == pv->runs;
}

/**
 * pvple_slice_held() - Is a vCPU in a PLE exit a holder others wait for?
 * @vcpu: the vCPU, whose own record is idle.
 * @pv: its state.
 *
 * True if another vCPU took it for the holder during this run of it
 * (pvple_slice_named()) and its guest is inside a critical section: it
 * spins on something else with a lock held (a udelay() under the lock).
 * The count is read only after the cheaper test passed.
 *
 * Context: the vCPU's own task, in the exit, kvm->srcu held.
 *
 * Return: whether yielding would give its CPU away from those waiting.
 */
bool pvple_slice_held(struct kvm_vcpu *vcpu, struct pvple_vcpu *pv)
{
	u32 count;

	if (!pvple_slice_may_hold(pv))
		return false;
	if (kvm_read_guest_cached(vcpu->kvm, &pv->preempt_ghc, &count,
				  sizeof(count)))
		return false;
	return count & PVPLE_PREEMPT_COUNT_MASK;
}
