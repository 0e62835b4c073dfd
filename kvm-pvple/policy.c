// SPDX-License-Identifier: GPL-2.0
#include <asm/processor-flags.h>
#include <linux/errno.h>
#include <linux/kvm_para.h>
#include <uapi/linux/kvm_pvple.h>

#include "policy.h"

/**
 * pvple_target_classify() - Run state of the vCPU a spinner waits behind.
 * @f: what KVM says of it, each flag read once.
 *
 * The order matters: a preempted or kicked vCPU is also still "blocking"
 * until it runs, and one of our own parks is "blocking" too.
 *
 * Return: the run state (policy.h).
 */
enum pvple_target pvple_target_classify(const struct pvple_target_flags *f)
{
	if (f->preempted)
		return PVPLE_TARGET_PREEMPTED;
	if (f->parked)
		return PVPLE_TARGET_PARKED;
	/*
	 * ->ready is cleared only at the next schedule-in (kvm_sched_in()):
	 * a vCPU kicked out of a halt before it slept runs with it still set.
	 */
	if (f->ready && (f->blocking || f->scheduled_out))
		return PVPLE_TARGET_READY;
	if (f->blocking)
		return PVPLE_TARGET_HALTED;
	if (!f->wants_to_run)
		return PVPLE_TARGET_OUT;
	if (f->scheduled_out)
		return PVPLE_TARGET_SLEEPING;
	return PVPLE_TARGET_RUNNING;
}

/**
 * pvple_rec_check() - Check a vCPU's record.
 * @a: the record.
 * @self_id: the vCPU's own APIC ID (vcpu_id).
 * @max_id: the VM's bound on APIC IDs (max_vcpu_ids).
 *
 * @a is the host's private copy of the guest's record, read once: every
 * field is checked here, on the copy, and never re-read from the guest.
 * @gen is the guest's own business and is not checked.
 *
 * Return: PVPLE_REC_OK for a wait behind a valid, other vCPU; else
 * PVPLE_REC_IDLE, PVPLE_REC_NO_HOLDER, or what is wrong with the record.
 */
enum pvple_rec pvple_rec_check(const struct pvple_area *a, __u32 self_id,
			       __u32 max_id)
{
	__u32 state = PVPLE_WAIT_STATE(a->wait);
	__u32 role = PVPLE_WAIT_ROLE(a->wait);
	__u32 target = PVPLE_WAIT_TARGET(a->wait);
	unsigned int i;

	for (i = 0; i < PVPLE_AREA_RESERVED; i++)
		if (a->reserved[i])
			return PVPLE_REC_BAD;
	if (state == PVPLE_STATE_IDLE)
		return role || target ? PVPLE_REC_BAD : PVPLE_REC_IDLE;
	if (state != PVPLE_STATE_WAITING || !a->lock)
		return PVPLE_REC_BAD;
	if (role == PVPLE_ROLE_UNKNOWN)
		return target ? PVPLE_REC_BAD : PVPLE_REC_NO_HOLDER;
	if (role != PVPLE_ROLE_HOLDER && role != PVPLE_ROLE_PREDECESSOR)
		return PVPLE_REC_BAD;
	if (target >= max_id)
		return PVPLE_REC_TARGET_RANGE;
	if (target == self_id)
		return PVPLE_REC_TARGET_SELF;
	return PVPLE_REC_OK;
}

/**
 * pvple_reg_check() - Check the registration fields of an area (ABI v3).
 * @a: a copy of the area, as the guest left it at KVM_HC_PVPLE_REGISTER.
 *
 * The slow-path range must hold at least one byte; the preemption count,
 * if the guest gives one, must be a 4-aligned 32-bit word (so it lies in
 * one page).  Neither is trusted beyond that: a range that covers more
 * than the slow path only lets the guest's own records be acted on more
 * often, and the count is read as any guest value.
 *
 * Return: PVPLE_REG_OK, or what is wrong.
 */
enum pvple_reg pvple_reg_check(const struct pvple_area *a)
{
	if (a->text_start >= a->text_end)
		return PVPLE_REG_BAD_TEXT;
	if (a->preempt_gpa & 3)
		return PVPLE_REG_BAD_PREEMPT;
	return PVPLE_REG_OK;
}

/**
 * pvple_in_slowpath() - Is a PLE exit's RIP in the registered slow path?
 * @rip: the spinner's linear RIP (0 for a guest whose state is protected).
 * @text_start: the first byte of the range the vCPU registered.
 * @text_end: one past its last byte.
 *
 * A PLE exit elsewhere -- an interrupt or NMI handler that spins while
 * the record of the context it interrupted is still live, a udelay() --
 * is not the wait the record describes.
 *
 * Return: true if @rip is in [@text_start, @text_end).
 */
bool pvple_in_slowpath(__u64 rip, __u64 text_start, __u64 text_end)
{
	return rip >= text_start && rip < text_end;
}

/**
 * pvple_chain_hop() - Whether the walk along a chain goes on past a vCPU.
 * @via: how the walk reached the vCPU.
 * @rec: the verdict on the vCPU's own record.
 * @a: the record.
 * @next: how the walk reaches the vCPU the record names.
 *
 * One step of the walk: @via is how it reached a vCPU, @rec and @a what
 * that vCPU's own record says.  Both @rec and @a are the caller's checked
 * copy.  A record that says nothing usable (idle, unregistered, torn,
 * malformed) ends the walk there: that vCPU is taken for the holder, and
 * only its run state, which KVM knows, is acted on.
 *
 * Same lock: a predecessor that waits behind someone is followed; one
 * named as the holder that waits for the lock it was said to hold is
 * STALE: it released and queued again, or was handed the lock and has
 * not run to see it (pvple_chain_step() says what that makes the chain).
 * Another lock: a predecessor has left our queue, so the hint is stale in
 * another way (cross); a holder that waits for a second lock is the nested
 * case, and the walk follows it to that lock's holder.  @next is written
 * only for PVPLE_HOP_NEXT, and may not be @via.
 *
 * Return: the hop.
 */
enum pvple_hop pvple_chain_hop(const struct pvple_link *via,
			       enum pvple_rec rec, const struct pvple_area *a,
			       struct pvple_link *next)
{
	bool same = a->lock == via->lock;
	bool holder = via->role == PVPLE_ROLE_HOLDER;

	if (rec != PVPLE_REC_OK && rec != PVPLE_REC_NO_HOLDER)
		return PVPLE_HOP_END;
	if (same && holder)
		return PVPLE_HOP_STALE;
	if (!same && !holder)
		return PVPLE_HOP_CROSS;
	if (rec == PVPLE_REC_NO_HOLDER)
		return PVPLE_HOP_NO_HOLDER;
	next->role = PVPLE_WAIT_ROLE(a->wait);
	next->lock = a->lock;
	return PVPLE_HOP_NEXT;
}

/**
 * pvple_chain_step() - Where the walk along a chain ends, if it ends here.
 * @hop: what chain[@i]'s record said.
 * @i: the index of the vCPU on the chain.
 * @role: for PVPLE_HOP_NEXT, the role in chain[@i]'s record.
 * @next: for PVPLE_HOP_NEXT, what the walk found of the vCPU it names.
 * @len: where to store how many vCPUs are on the chain.
 *
 * One step of the walk: chain[@i]'s record said @hop (pvple_chain_hop());
 * for PVPLE_HOP_NEXT, @role is that record's role (how chain[@i] relates
 * to the vCPU it names) and @next what the walk found of that vCPU.
 *
 *  - A holder named by chain[@i] waits for the same lock again (STALE
 *    hop): it has released, and chain[@i - 1], the head that named it,
 *    takes the lock next (a stealer can take it first only if it read
 *    the lock word before the head set the pending bit, or while the
 *    head, halted, cleared it): the chain ends at that head, HEAD.  At
 *    @i == 0 it is the spinner's own hint that names such a vCPU: STALE.
 *  - A named vCPU that is the spinner, or already on the chain: those all
 *    wait for a lock, so if chain[@i] named it as the holder of the lock
 *    it waits for, the wait-for graph would have a cycle -- a deadlock;
 *    it released and queued again, and chain[@i] is the head: HEAD.
 *    Named as a predecessor, it is a cycle of any length: CYCLE.
 *  - PVPLE_CHAIN_MAX vCPUs, all waiting: DEEP, before the next is looked
 *    at.
 *
 * Return: where the walk ends, *@len being the vCPUs on the chain then, or
 * PVPLE_CHAIN_FOLLOW (*@len = @i + 1) to go on to the named vCPU.
 */
enum pvple_chain_end pvple_chain_step(enum pvple_hop hop, unsigned int i,
				      __u32 role, enum pvple_next next,
				      unsigned int *len)
{
	*len = i + 1;
	switch (hop) {
	case PVPLE_HOP_STALE:
		if (!i)
			return PVPLE_CHAIN_STALE;
		*len = i;
		return PVPLE_CHAIN_HEAD;
	case PVPLE_HOP_END:
		return PVPLE_CHAIN_HOLDER;
	case PVPLE_HOP_NO_HOLDER:
		return PVPLE_CHAIN_NO_HOLDER;
	case PVPLE_HOP_CROSS:
		return PVPLE_CHAIN_CROSS;
	case PVPLE_HOP_NEXT:
		break;
	}
	if (*len >= PVPLE_CHAIN_MAX)
		return PVPLE_CHAIN_DEEP;
	if (next == PVPLE_NEXT_ABSENT)
		return PVPLE_CHAIN_ABSENT;
	if (next == PVPLE_NEXT_SEEN)
		return role == PVPLE_ROLE_HOLDER ? PVPLE_CHAIN_HEAD :
						   PVPLE_CHAIN_CYCLE;
	return PVPLE_CHAIN_FOLLOW;
}

static bool mode_yields(enum pvple_mode mode)
{
	return mode == PVPLE_MODE_YIELD || mode == PVPLE_MODE_AUTO;
}

static bool mode_parks(enum pvple_mode mode)
{
	return mode == PVPLE_MODE_PARK || mode == PVPLE_MODE_AUTO;
}

static bool cannot_run(enum pvple_target t)
{
	return t == PVPLE_TARGET_PREEMPTED || t == PVPLE_TARGET_READY;
}

/* A park is only taken where its wake-up is certain (park.c). */
static bool park_wakes(enum pvple_target t)
{
	return t == PVPLE_TARGET_PREEMPTED || t == PVPLE_TARGET_PARKED ||
	       t == PVPLE_TARGET_OUT;
}

/*
 * Only a waiter that nobody waits for may sleep: never the queue head
 * (policy.h, @head), which holds off every other taker while it waits.
 * Nor on a chain the records contradict: when the spinner's hint is stale
 * (the vCPU it names as the holder waits for that lock itself) or the
 * walk ended at a head (the holder has released), the spinner may be the
 * next to take the lock, or be about to become the head, and nothing
 * certain wakes it when it does.  Those yield, spin or get stock.
 */
static bool may_park(const struct pvple_spin_in *in)
{
	return mode_parks(in->mode) && !in->no_park && !in->head &&
	       in->end != PVPLE_CHAIN_STALE && in->end != PVPLE_CHAIN_HEAD;
}

/* Ends at a vCPU that takes the lock next, or is taken to hold it. */
static bool end_known(enum pvple_chain_end end)
{
	return end == PVPLE_CHAIN_HOLDER || end == PVPLE_CHAIN_HEAD ||
	       end == PVPLE_CHAIN_STALE;
}

/**
 * pvple_decide() - What to do with a spinner.
 * @in: what the decision rests on (struct pvple_spin_in, policy.h).
 * @at: where to store the index in @in->chain of the vCPU to yield to;
 *	0 for any other action.
 *
 * Yields go to the vCPU nearest the holder that wants a CPU and has none:
 * the holder itself if it is preempted, else the waiter that will take the
 * lock next.  Parks go behind chain[0], the vCPU the spinner itself waits
 * for, so that wake-ups keep the queue's order.  "Spin" only while the
 * holder runs and nobody on the chain is kept off a CPU, and only
 * PVPLE_SPIN_MAX times per record; the same for a holder that spins
 * inside its critical section (@in->held).  Everything else is stock:
 * KVM's own guess costs what it costs today.
 *
 * Return: the action.
 */
enum pvple_action pvple_decide(const struct pvple_spin_in *in,
			       unsigned int *at)
{
	unsigned int i, len = in->len;
	bool stuck = false;

	*at = 0;
	/* A holder keeps its CPU, PVPLE_SPIN_MAX exits in a row at most. */
	if (in->mode != PVPLE_MODE_OFF && in->mode < PVPLE_NR_MODES &&
	    in->rec == PVPLE_REC_IDLE && in->held &&
	    in->spins < PVPLE_SPIN_MAX)
		return PVPLE_ACT_SPIN;
	/* Without a usable record, KVM's own guess is the best there is. */
	if (in->mode == PVPLE_MODE_OFF || in->mode >= PVPLE_NR_MODES ||
	    in->rec != PVPLE_REC_OK || in->cycle || !len ||
	    len > PVPLE_CHAIN_MAX)
		return PVPLE_ACT_STOCK;
	if (!end_known(in->end) && in->end != PVPLE_CHAIN_NO_HOLDER &&
	    in->end != PVPLE_CHAIN_DEEP)
		return PVPLE_ACT_STOCK;
	/* The guest must take its interrupt; it will spin again if need be. */
	if (in->event_pending)
		return PVPLE_ACT_SPIN;

	for (i = len; i-- > 0;) {
		if (!cannot_run(in->chain[i]))
			continue;
		if (mode_yields(in->mode) && !in->yield_failed) {
			*at = i;
			return PVPLE_ACT_YIELD;
		}
		stuck = true;
		break;
	}
	if (park_wakes(in->chain[0]))
		return may_park(in) ? PVPLE_ACT_PARK : PVPLE_ACT_STOCK;
	/* Someone is kept off a CPU and no yield or park can help: stock. */
	if (stuck)
		return PVPLE_ACT_STOCK;
	/*
	 * The lock moves soon: spinning is productive, for a while.  A head
	 * whose holder has released takes the lock as soon as it runs.
	 */
	if (end_known(in->end) && in->chain[len - 1] == PVPLE_TARGET_RUNNING &&
	    in->spins < PVPLE_SPIN_MAX)
		return PVPLE_ACT_SPIN;
	/*
	 * Halted, asleep in the host, or a holder nobody knows: no wake-up
	 * of ours is certain to follow, and a spin may wait for nothing.
	 */
	return PVPLE_ACT_STOCK;
}

/**
 * pvple_stock_result() - What the park hypercall answers when it acts not.
 * @in: what pvple_decide() was given.
 *
 * The answer to a park call that got stock handling: nothing done, and
 * why, so that the guest can tell a normal race from an error of its own.
 *
 * Return: -KVM_EOPNOTSUPP in mode off; PVPLE_PARK_RUNNING for a chain
 * pvple will not wait on (a stale hint is a normal race, not an error) or
 * a wait with no holder named; -KVM_EINVAL for a cycle of records or a
 * malformed record; -PVPLE_ENOTREG without an area; PVPLE_PARK_IDLE for a
 * record that does not wait; -KVM_EFAULT for an area the host cannot read.
 */
long pvple_stock_result(const struct pvple_spin_in *in)
{
	if (in->mode == PVPLE_MODE_OFF)
		return -KVM_EOPNOTSUPP;
	switch (in->rec) {
	case PVPLE_REC_OK:
		return in->cycle ? -KVM_EINVAL : PVPLE_PARK_RUNNING;
	case PVPLE_REC_UNREGISTERED:
		return -PVPLE_ENOTREG;
	case PVPLE_REC_IDLE:
		return PVPLE_PARK_IDLE;
	case PVPLE_REC_NO_HOLDER:
		return PVPLE_PARK_RUNNING;
	case PVPLE_REC_FAULT:
		return -KVM_EFAULT;
	default:
		return -KVM_EINVAL;
	}
}

/**
 * pvple_irq_on() - May the guest take an interrupt now?
 * @state_protected: whether the guest's state is protected (SEV-ES,
 *	SEV-SNP).
 * @rflags: the guest's RFLAGS, as kvm_get_rflags() reads it.
 *
 * RFLAGS.IF, as kvm_get_rflags() reads it, unless the guest's state is
 * protected (SEV-ES, SEV-SNP): KVM keeps no trustworthy RFLAGS for those
 * (svm_get_if_flag() reads the VMCB's interrupt shadow state instead,
 * through a static call a module cannot make), so such a guest counts as
 * always interruptible: a pending interrupt then ends or forbids a park
 * rather than being slept through.
 *
 * Return: true if the guest may take an interrupt now.
 */
bool pvple_irq_on(bool state_protected, unsigned long rflags)
{
	return state_protected || (rflags & X86_EFLAGS_IF);
}

/**
 * pvple_slice_in_cs() - Is the guest inside a critical section?
 * @in: what the host read of the vCPU.
 *
 * Return: true if its preemption count was read and is not zero, the
 * folded "need resched" bit aside.
 */
bool pvple_slice_in_cs(const struct pvple_slice_in *in)
{
	return in->read_ok && (in->count & PVPLE_PREEMPT_COUNT_MASK);
}

/**
 * pvple_slice_rec() - What a vCPU's own record tells the slice extension.
 * @in: where to note it.
 * @r: what reading the record found (pvple_read_record()).
 * @wait: the record's wait word, if @r is PVPLE_REC_OK.
 *
 * Any record but an idle one is a wait (one that cannot be read or
 * checked too: no grant on a guess).  Only a queue head publishes the
 * holder or "not known" (pv_wait_publish_head() in the guest series);
 * every other waiter names its predecessor.
 */
void pvple_slice_rec(struct pvple_slice_in *in, enum pvple_rec r, __u64 wait)
{
	in->waiting = r != PVPLE_REC_IDLE;
	in->head = r == PVPLE_REC_NO_HOLDER ||
		   (r == PVPLE_REC_OK &&
		    PVPLE_WAIT_ROLE(wait) == PVPLE_ROLE_HOLDER);
}

/**
 * pvple_slice_decide() - Delay a reschedule of a vCPU, or not.
 * @in: the vCPU's state when its task is asked to reschedule.
 *
 * One grant per request and never two in a row: a request that comes
 * while a grant runs (the grant's own timer at its bound, or anything
 * else) ends it, whatever the guest does, so that no guest value can keep
 * the CPU longer than slice_ext_us past a request.  A grant cut in steps
 * (slice_step_us, @step: the request is the grant's own timer at a step
 * short of the bound) goes on only while it would still be granted now,
 * and ends at the first step that finds the guest out of its section:
 * the reschedule then lands between two sections rather than wherever
 * the bound falls.  The bound is the same.  A guest that speaks ABI 4
 * says itself when the granted section ends (@done: it called
 * KVM_HC_PVPLE_SLICE_DONE at its outermost unlock): the grant ends there,
 * whatever else would have been decided, and the reschedule goes ahead
 * with the lock released.  Only a running grant can end so: a call
 * without one changes nothing (slice.c), so the call can never delay a
 * reschedule, only bring it forward.  A lock waiter is not kept:
 * it has nothing to finish, and its own preemption count is raised by
 * the lock it waits for.  The queue head is the exception (@head: it
 * publishes the holder, or "not known"; every other waiter names its
 * predecessor).  While it spins it keeps the lock's pending bit set
 * (set_pending() in pv_wait_head_or_lock(), the guest's
 * kernel/locking/qspinlock_paravirt.h), so a lock stealer gives up
 * (pv_hybrid_queued_unfair_trylock()) and the lock passes to no one but
 * the head: descheduled now, it stalls every waiter behind it for as long
 * as its task waits for a CPU.  Kept, it takes the lock as the holder
 * releases it, which is what all of them wait for.  A head holds the
 * pending bit for at most SPIN_THRESHOLD turns of its loop before it
 * clears it and halts, and a grant ends at the bound all the same.
 * Where a grant is not safe (@gate, pvple_slice_gate()) none is given,
 * and a running one ends at its next step.
 *
 * Return: PVPLE_SLICE_DONE if a grant runs and the guest ended its
 * section; else what to do, PVPLE_SLICE_GRANT only if the guest is in a
 * critical section, the extension is on, no gate refuses, no grant is
 * running and the vCPU waits for no lock, or only as the head of its
 * queue; PVPLE_SLICE_REFUSED where only a gate refuses;
 * PVPLE_SLICE_STEP on the same conditions at a step of a running grant.
 */
enum pvple_slice pvple_slice_decide(const struct pvple_slice_in *in)
{
	enum pvple_slice d;

	if (in->granted && in->done)
		return PVPLE_SLICE_DONE;
	if (in->granted && !in->step)
		return PVPLE_SLICE_END;
	if (!in->read_ok)
		d = PVPLE_SLICE_FAULT;
	else if (!pvple_slice_in_cs(in))
		d = PVPLE_SLICE_NONE;
	else if (!in->on)
		d = PVPLE_SLICE_OFF;
	else if (in->gate != PVPLE_GATE_OPEN)
		d = PVPLE_SLICE_REFUSED;
	else if (in->waiting && !in->head)
		d = PVPLE_SLICE_WAITING;
	else
		d = PVPLE_SLICE_GRANT;
	/* A step: what a request now would be given, or the end. */
	if (in->granted)
		return d == PVPLE_SLICE_GRANT ? PVPLE_SLICE_STEP : PVPLE_SLICE_END;
	return d;
}

/**
 * pvple_slice_gate() - May a reschedule request be extended here at all?
 * @e: what the host knows of itself, the vCPU and the request.
 *
 * A grant delays everything the request was for, so it is refused where
 * that delay is not the one bounded delay of a fair task (design.rst,
 * "What a grant may delay"):
 *  - a preemption model other than none or voluntary (PREEMPT_DYNAMIC
 *    can change it at run time, so asked per request): under full the
 *    request is honoured at the preempt_enable() after the VM exit,
 *    before the hook, and a grant could only come from a lazy path that
 *    full does not have; under RT the module does not load;
 *  - a vCPU thread with an RT or deadline policy (or boosted to one):
 *    its requests come from RT and deadline tasks, whose latency is the
 *    point of their class;
 *  - a vCPU running a nested guest: the count is L1's, non-zero for as
 *    long as L2 runs, so every request would be extended and the guest's
 *    end of section never comes;
 *  - hrtimers coarser than the bound: the timer could not end the grant
 *    in time;
 *  - a request a grant gave back (@owed): extended once already.
 *
 * Return: PVPLE_GATE_OPEN, or the first reason in the order above.
 */
enum pvple_slice_gate pvple_slice_gate(const struct pvple_slice_env *e)
{
	if (!e->model_ok)
		return PVPLE_GATE_MODEL;
	if (e->rt_task)
		return PVPLE_GATE_RT_TASK;
	if (e->nested)
		return PVPLE_GATE_NESTED;
	if (e->resolution_ns > e->bound_ns)
		return PVPLE_GATE_TIMER;
	if (e->owed)
		return PVPLE_GATE_REGRANT;
	return PVPLE_GATE_OPEN;
}
