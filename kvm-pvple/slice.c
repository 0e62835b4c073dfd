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
 *    vcpu_enter_guest(), and the preempt_enable_notrace() of the
 *    recursion guard that ends pvple's ftrace callback
 *    (ftrace_test_recursion_unlock() in pvple_ftrace_redirect()),
 *    schedule before the redirect runs; it then finds no request and
 *    does nothing.  The distro kernels pvple targets boot PREEMPT_DYNAMIC
 *    voluntary, where neither does (design.rst).
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
 * Given back.  A grant holds one reschedule request: it cleared it, and
 * the timer sets it again.  A grant that ends otherwise must set it again
 * itself unless the task was switched out since the grant (which served
 * it): a vCPU that went out to the VMM (a PIO or MMIO exit, a signal,
 * immediate_exit) with its grant running comes back through vcpu_load(),
 * and a request that is not set again there is lost -- update_curr()
 * raises the next one only at the next deadline (or for a short-slice
 * task's wake-up, did_preempt_short()), never while the vCPU task is
 * the only fair task of its CPU, and an RT, deadline or stopper task
 * woken meanwhile gets none (wakeup_preempt() asked once).
 * So every end that is not the hook's answer to a request
 * (pvple_slice_left(), pvple_slice_stop()) sets it again, and marks it
 * (@slice_owed): the hook refuses to extend it a second time
 * (PVPLE_GATE_REGRANT).  Whether the task was switched out is its
 * context-switch count: __schedule() adds to nvcsw or nivcsw only when it
 * switches to another task, never when it picks the same one.
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
 * by the next grant before its timer is armed.  The two halves of a
 * request, TIF_NEED_RESCHED and its folded copy in the preemption count,
 * are cleared and set with interrupts off on this CPU, as upstream's
 * rseq_grant_slice_extension() clears them: a wake-up in an interrupt
 * between the two would otherwise leave the flag set and its copy clear.
 * A request from another CPU that lands between the hook's
 * tif_need_resched() and the clear is cleared with the one the grant
 * holds, and comes back with it (the timer, or a give-back): delayed to
 * the bound, as upstream's is, never lost.  pvple_slice_stop() ends a
 * grant from a task that is not the grantee: it compares @slice_task and
 * @slice_switches with the current task of @slice_cpu in an IPI there
 * (the pointer never dereferenced; current's own counts read), after
 * hrtimer_cancel() has made sure the callback will not run.  The IPI
 * handler stores its answer (@raised) before it returns, and
 * smp_call_function_single() with wait returns only after
 * csd_lock_wait() has seen the handler's csd_unlock()
 * (smp_cond_load_acquire() against smp_store_release(), kernel/smp.c):
 * the caller then reads the answer, marks the request (@slice_owed) and
 * counts it.  Without that pair a request set in the IPI could go unmarked
 * and be extended a second time.  @slice_owed itself is written and read
 * under the vCPU's mutex (its KVM_RUN, or the ioctl that reset it), or
 * after the last vCPU task left (teardown, unload), so no barrier more.
 */
#include <linux/hrtimer.h>
#include <linux/sched.h>
#include <linux/sched/rt.h>
#include <linux/smp.h>

#include "pvple.h"
#include "pvple_trace.h"

/*
 * How often the current task was switched out: __schedule() adds to one
 * of the two only when it switches to another task (prev != next), never
 * when it picks the same one.  Equal before and after: no switch.
 */
static unsigned long pvple_switches(void)
{
	return current->nvcsw + current->nivcsw;
}

/*
 * Ask the current task to reschedule, both halves of the request, as
 * resched_curr() does for the task running on this CPU.  Interrupts off.
 */
static void pvple_slice_raise(void)
{
	lockdep_assert_irqs_disabled();
	set_tsk_need_resched(current);
	set_preempt_need_resched();
}

/*
 * The grant's timer: the bound (or a step) is reached.  Asks the granted
 * task to reschedule, if that task still runs here (hard interrupt
 * context, on the CPU the timer was armed on; the pointer is compared,
 * never dereferenced).
 */
static enum hrtimer_restart pvple_slice_expired(struct hrtimer *t)
{
	struct pvple_vcpu *pv = container_of(t, struct pvple_vcpu, slice_timer);

	if (READ_ONCE(pv->slice_task) == current) {
		/* A step or the bound: the hook tells them apart. */
		WRITE_ONCE(pv->slice_fired, true);
		pvple_slice_raise();
	}
	return HRTIMER_NORESTART;
}

/**
 * pvple_slice_init() - Set up a vCPU's slice-extension timer.
 * @pv: the vCPU's state, being allocated.
 */
void pvple_slice_init(struct pvple_vcpu *pv)
{
	hrtimer_init(&pv->slice_timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_REL_PINNED_HARD);
	pv->slice_timer.function = pvple_slice_expired;
}

/*
 * The grant is over: how it ended, and for how long it ran (to the
 * guest's call if it ended it, else to now).
 * hrtimer_cancel(), not the try_ variant: a callback still running on the
 * CPU this vCPU left would keep the timer on that CPU for the next grant
 * (switch_hrtimer_base() does not move a running timer), where it would
 * find another task current and raise nothing.  It waits only for the
 * callback's few instructions.
 *
 * Return: whether the grant still held its request: its timer had not
 * fired, and the guest had not ended it (pvple_slice_done() raises it).
 */
static bool pvple_slice_end(struct pvple_vm *vm, struct pvple_vcpu *pv,
			    enum pvple_stat how)
{
	bool pending = hrtimer_cancel(&pv->slice_timer);
	u64 ns = (pv->slice_done_ns ?: ktime_get_ns()) - pv->slice_start_ns;
	bool held = pending && !pv->slice_done_ns;

	WRITE_ONCE(pv->slice_task, NULL);
	pv->slice_granted = false;
	pv->slice_done_ns = 0;
	pvple_count(vm, pending && how == PVPLE_STAT_SLICE_EXPIRED ?
		    PVPLE_STAT_SLICE_CUT : how);
	pvple_count_n(vm, PVPLE_STAT_SLICE_NS, ns);
	return held;
}

/*
 * Give the current task back the request its grant held, marked so that
 * the hook does not extend it again.  Any CPU: the flag is the task's,
 * and its folded copy is set on the CPU that runs it, interrupts off.
 */
static void pvple_slice_give_back(struct pvple_vm *vm, struct pvple_vcpu *pv)
{
	unsigned long flags;

	local_irq_save(flags);
	pvple_slice_raise();
	local_irq_restore(flags);
	pv->slice_owed = true;
	pvple_count(vm, PVPLE_STAT_SLICE_GIVEN_BACK);
}

/* Whom pvple_slice_stop() gives a request back to, and whether it did. */
struct pvple_slice_owner {
	struct task_struct *task;	/* compared, never dereferenced */
	unsigned long switches;
	bool raised;
};

/*
 * In an IPI on the grant's CPU: the grant's task, if it runs there and
 * was not switched out since the grant (current is live here: its
 * counts can be read).
 */
static void pvple_slice_give_back_here(void *arg)
{
	struct pvple_slice_owner *o = arg;

	if (current != o->task || pvple_switches() != o->switches)
		return;
	pvple_slice_raise();
	o->raised = true;
}

/**
 * pvple_slice_left() - A vCPU is loaded again: a grant it had is over.
 * @vm: its VM's state.
 * @pv: its state.
 * @sched_in: the load is KVM's sched-in notifier: the task was switched.
 *
 * The vCPU left its CPU, or its guest, while granted, before the hook
 * saw a request: it blocked, went out to user space (a PIO or MMIO exit
 * to the VMM, a signal), or met a reschedule point in an exit handler.
 * A grant the guest had ended (pvple_slice_done()) ends as done: the
 * request its call raised was honoured at such a point.
 * Under PREEMPT_DYNAMIC voluntary, might_sleep() is one (might_resched(),
 * include/linux/kernel.h), and every guest page walk passes it
 * (walk_addr_generic(), arch/x86/kvm/mmu/paging_tmpl.h) -- among them
 * the instruction fetch with which SVM skips the VMMCALL on a CPU
 * without NRIPS (__svm_skip_emulated_instruction()), as on the emulated
 * test host, where every such call ends so.  If the task was not
 * switched out since the grant (its context-switch count), the request
 * the grant held is given back.  A load by another task (a VMM's ioctl
 * from another thread) leaves the grant to its own task and its timer;
 * that task's hook, at its first reschedule request, ends it
 * (pvple_slice_stop()).  A switch serves a request given back before:
 * @slice_owed ends with it.
 *
 * Context: the vCPU's own task, preemption off (the load hook).
 */
void pvple_slice_left(struct pvple_vm *vm, struct pvple_vcpu *pv,
		      bool sched_in)
{
	unsigned long switches;

	if (sched_in && pv->slice_owed)
		pv->slice_owed = false;
	if (!pv->slice_granted || READ_ONCE(pv->slice_task) != current)
		return;
	switches = pvple_switches();
	if (pvple_slice_end(vm, pv, pv->slice_done_ns ? PVPLE_STAT_SLICE_DONE :
			    PVPLE_STAT_SLICE_LEFT) &&
	    switches == pv->slice_switches)
		pvple_slice_give_back(vm, pv);
}

/**
 * pvple_slice_stop() - End a vCPU's grant from anywhere, giving back its
 *	request.
 * @vm: its VM's state.
 * @pv: its state.
 *
 * For the ends that are not the grant's own task on its way through the
 * hook or a load: the area forgotten (unregistration, INIT, a new
 * registration), the vCPU's state freed (VM teardown, module unload), a
 * grant found by another task running the vCPU.  In the grantee itself
 * the request is set again here; in another task, in an IPI to the CPU
 * the grant was made on, if the grantee still runs there (else it was
 * switched out, which served it).
 *
 * Context: process context, interrupts on (smp_call_function_single()
 * waits); no lock of the vCPU's state is needed: only the vCPU's own
 * task and its timer touch a grant, and the callers hold off the first
 * (the vCPU's mutex, or no vCPU task left in the module).
 */
void pvple_slice_stop(struct pvple_vm *vm, struct pvple_vcpu *pv)
{
	struct pvple_slice_owner o = {
		.task = READ_ONCE(pv->slice_task),
		.switches = pv->slice_switches,
	};
	int cpu = pv->slice_cpu;

	if (!pv->slice_granted ||
	    !pvple_slice_end(vm, pv, PVPLE_STAT_SLICE_LEFT))
		return;
	if (o.task == current) {
		pvple_slice_give_back(vm, pv);
		return;
	}
	/*
	 * -ENXIO: that CPU went offline, which moved the task: served.  The
	 * caller keeps the grantee out of the hook (the vCPU's mutex, or no
	 * vCPU task left in the module), so the mark is set after the IPI.
	 */
	smp_call_function_single(cpu, pvple_slice_give_back_here, &o, 1);
	if (!o.raised)
		return;
	pv->slice_owed = true;
	pvple_count(vm, PVPLE_STAT_SLICE_GIVEN_BACK);
}

/*
 * The timer for the next step of a grant: slice_step_us, or what is left
 * of the bound if that is sooner (or the step is 0).
 */
static void pvple_slice_arm(struct pvple_vcpu *pv, u64 left_ns)
{
	u64 step_ns = pvple_bound_ns(READ_ONCE(pvple_slice_step_us));

	if (step_ns && step_ns < left_ns)
		left_ns = step_ns;
	WRITE_ONCE(pv->slice_fired, false);
	hrtimer_start(&pv->slice_timer, left_ns, HRTIMER_MODE_REL_PINNED_HARD);
}

/*
 * Take the request away from the current task, both halves, interrupts
 * off (see "Ordering" above).
 */
static void pvple_slice_hold(void)
{
	unsigned long flags;

	local_irq_save(flags);
	clear_tsk_need_resched(current);
	clear_preempt_need_resched();
	local_irq_restore(flags);
}

/* Grant: the reschedule waits for the timer.  Preemption is off. */
static void pvple_slice_grant(struct pvple_vm *vm, struct pvple_vcpu *pv,
			      u64 bound_ns)
{
	pvple_slice_hold();
	WRITE_ONCE(pv->slice_task, current);
	pv->slice_cpu = smp_processor_id();
	pv->slice_switches = pvple_switches();
	pv->slice_granted = true;
	pv->slice_done_ns = 0;
	pv->slice_start_ns = ktime_get_ns();
	pv->slice_bound_ns = bound_ns;
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
	pvple_slice_hold();
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
 * Never a grant to a task with a core-scheduling cookie: __schedule()
 * forces a sibling of another cookie off with a reschedule, which a grant
 * would delay.
 */
static bool pvple_slice_cookie(struct task_struct *t)
{
#ifdef CONFIG_SCHED_CORE
	return t->core_cookie;
#else
	return false;
#endif
}

/*
 * May this task keep its CPU now?  Not with a cookie, nor with a signal
 * pending (the vCPU is on its way out to user space:
 * xfer_to_guest_mode_work()).
 */
static bool pvple_slice_allowed(struct task_struct *t)
{
	return !pvple_slice_cookie(t) && !signal_pending(t);
}

/*
 * Where a grant is not safe (pvple_slice_gate()), asked per request:
 *  - the preemption model, which PREEMPT_DYNAMIC lets the administrator
 *    change at run time (sched_dynamic_update(), kernel/sched/core.c);
 *  - the vCPU thread's class: rt_or_dl_task(), PI boosts included;
 *  - a nested guest: is_guest_mode() (arch/x86/kvm/kvm_cache_regs.h,
 *    not in the headers a module sees: the same test of HF_GUEST_MASK);
 *  - hrtimer_resolution: without high-resolution timers it is a tick;
 *  - a request a grant gave back (@owed).
 * With @lasting, for what the host offers (pvple_slice_features()), only
 * what lasts: the thread's policy (rt_or_dl_task_policy(), no boost), no
 * nested guest, nothing owed.  The vCPU's own task.
 */
static enum pvple_slice_gate pvple_slice_gate_now(struct kvm_vcpu *vcpu,
						  bool owed, unsigned int us,
						  bool lasting)
{
	struct pvple_slice_env e = {
		.model_ok = preempt_model_none() || preempt_model_voluntary(),
		.rt_task = lasting ? rt_or_dl_task_policy(current) :
				     rt_or_dl_task(current),
		.nested = !lasting && (vcpu->arch.hflags & HF_GUEST_MASK),
		.owed = !lasting && owed,
		.resolution_ns = hrtimer_resolution,
		.bound_ns = pvple_bound_ns(us),
	};

	return pvple_slice_gate(&e);
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
	unsigned long flags;
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
	local_irq_save(flags);
	pvple_slice_raise();
	local_irq_restore(flags);
	return 0;
}

/**
 * pvple_slice_features() - What the host offers (KVM_HC_PVPLE_FEATURES).
 * @vcpu: the calling vCPU.
 *
 * Whether a request of this vCPU inside a section would be extended now
 * (pvple_hc_features()): the guest turns its end-of-section test on only
 * then (ABI 5).  The same tests as a request meets in
 * pvple_slice_resched(), less those of one moment: a pending signal, a
 * PI boost, a nested guest (the vCPU runs L1 code to make this call), a
 * request given back.  Only this vCPU's own state and the host's are
 * read: the answer says nothing of another VM.
 *
 * Context: the vCPU's own task, in its exit, kvm->srcu held.
 *
 * Return: PVPLE_F_* for this vCPU, or -PVPLE_ENOTREG without a registered
 * area.
 */
long pvple_slice_features(struct kvm_vcpu *vcpu)
{
	unsigned int us = READ_ONCE(pvple_slice_ext_us);
	struct pvple_vcpu *pv;
	struct pvple_vm *vm;
	bool on;

	vm = pvple_lookup(vcpu, &pv);
	if (!pv || !READ_ONCE(pv->registered))
		return -PVPLE_ENOTREG;
	on = us && pvple_vm_mode(vm) != PVPLE_MODE_OFF &&
	     pvple_slice_hooked() && !pvple_slice_cookie(current);
	return pvple_hc_features(on, pv->preempt_gpa,
				 pvple_slice_gate_now(vcpu, false, us, true));
}

/**
 * pvple_slice_resched() - A vCPU task is about to be rescheduled.
 * @vcpu: the vCPU, on its way back into the guest.
 *
 * Called when TIF_NEED_RESCHED was set, just before KVM honours it.  Reads
 * the guest's preemption count and the vCPU's own record (which may
 * sleep: a fault), then, with preemption off, checks that the request is
 * still there -- a read that slept, or under preempt=full the
 * preempt_enable_notrace() that ends the recursion guard of pvple's
 * ftrace callback (ftrace_test_recursion_unlock()), may have honoured it
 * already -- asks pvple_slice_decide() and grants,
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
	if (!pv)
		return;
	/* A grant of another task that ran this vCPU before (slice_left). */
	if (pv->slice_granted && READ_ONCE(pv->slice_task) != current)
		pvple_slice_stop(vm, pv);
	if (!READ_ONCE(pv->registered) || !pv->preempt_gpa)
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
	in.gate = pvple_slice_gate_now(vcpu, pv->slice_owed, us, false);
	/* The request given back is this one, or was served before it. */
	pv->slice_owed = false;
	in.granted = pv->slice_granted;
	in.done = pv->slice_done_ns;
	left_ns = pvple_slice_step_due(pv);
	in.step = left_ns > 0;
	d = pvple_slice_decide(&in);
	if (d == PVPLE_SLICE_GRANT)
		pvple_slice_grant(vm, pv, pvple_bound_ns(us));
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
	else if (d == PVPLE_SLICE_REFUSED)
		pvple_count(vm, PVPLE_STAT_SLICE_REFUSED_MODEL + in.gate -
			    PVPLE_GATE_MODEL);
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
