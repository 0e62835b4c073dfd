// SPDX-License-Identifier: GPL-2.0
/*
 * The PLE path and the park hypercall: read what the spinning vCPU
 * published, decide (policy.c), then yield to the vCPU it waits behind or
 * park until that vCPU runs.  Both entry points share one decision.
 */
#include <linux/nospec.h>
#include <linux/sched/signal.h>

#include "outcome.h"

static const long pvple_wake_result[] = {
	[PVPLE_WAKE_SCHED_IN]	= PVPLE_PARK_RAN,
	[PVPLE_WAKE_TIMEOUT]	= PVPLE_PARK_TIMEOUT,
	[PVPLE_WAKE_EVENT]	= PVPLE_PARK_EVENT,
	[PVPLE_WAKE_TEARDOWN]	= PVPLE_PARK_EVENT,
};

/*
 * KVM's view of @t, each flag read once, classified by policy.c.  For
 * chain[0], the only vCPU a park waits behind, read after its park ticket
 * (park.c, [R]).  @tpv is NULL for a vCPU that never registered.
 */
static enum pvple_target pvple_target_state(struct kvm_vcpu *t,
					    struct pvple_vcpu *tpv)
{
	struct pvple_target_flags f = {
		.preempted = READ_ONCE(t->preempted),
		.parked = tpv && READ_ONCE(tpv->parked_on),
		.ready = READ_ONCE(t->ready),
		.blocking = kvm_vcpu_is_blocking(t),
		.wants_to_run = READ_ONCE(t->wants_to_run),
		.scheduled_out = READ_ONCE(t->scheduled_out),
	};

	return pvple_target_classify(&f);
}

static bool pvple_on_chain(struct pvple_chain *c, unsigned int len,
			   struct kvm_vcpu *v)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		if (c->vcpu[i] == v)
			return true;
	return false;
}

/*
 * From chain[0] to the holder: each vCPU's run state, and the record that
 * names the next; pvple_chain_step() (policy.c) decides where the walk
 * ends, this only fetches.  At most PVPLE_CHAIN_MAX vCPUs, each looked at
 * once (a vCPU named twice, or the spinner, ends the walk), so the cost is
 * bounded whatever the records say.  chain[0]'s state is read by the
 * caller, after its park ticket.
 */
static void pvple_walk(struct kvm_vcpu *me, struct pvple_vm *vm,
		       const struct pvple_area *own, struct pvple_outcome *o)
{
	struct pvple_spin_in *in = &o->in;
	struct pvple_chain *c = &o->c;
	struct pvple_link via = {
		.role = PVPLE_WAIT_ROLE(own->wait), .lock = own->lock,
	};
	struct pvple_link link = { };
	enum pvple_chain_end end;
	struct kvm_vcpu *next;
	enum pvple_next found;
	struct pvple_area rec;
	enum pvple_rec trec;
	enum pvple_hop hop;
	unsigned int i;
	u32 id;

	for (i = 0;; i++) {
		if (i) {
			c->pv[i] = pvple_vcpu_find(vm, c->vcpu[i]);
			in->chain[i] = pvple_target_state(c->vcpu[i], c->pv[i]);
		}
		trec = pvple_read_other(c->vcpu[i], c->pv[i], &rec);
		if (trec == PVPLE_REC_TORN)
			o->torn++;
		hop = pvple_chain_hop(&via, trec, &rec, &link);
		next = NULL;
		found = PVPLE_NEXT_FOUND;
		if (hop == PVPLE_HOP_NEXT && i + 1 < PVPLE_CHAIN_MAX) {
			id = array_index_nospec(PVPLE_WAIT_TARGET(rec.wait),
						me->kvm->arch.max_vcpu_ids);
			next = pvple_vcpu_by_id(vm, me->kvm, id);
			if (!next)
				found = PVPLE_NEXT_ABSENT;
			else if (next == me || pvple_on_chain(c, i + 1, next))
				found = PVPLE_NEXT_SEEN;
		}
		end = pvple_chain_step(hop, i, link.role, found, &in->len);
		if (end != PVPLE_CHAIN_FOLLOW) {
			in->end = end;
			return;
		}
		c->vcpu[i + 1] = next;
		via = link;
	}
}

/*
 * A directed yield to c->vcpu[@at], as stock kvm_vcpu_on_spin() yields:
 * marked with kvm_vcpu_set_in_spin_loop() around it, so that another
 * vCPU's stock boost does not take this spinner for a preempted lock
 * holder.  As KVM_HC_SCHED_YIELD (kvm_sched_yield(), arch/x86/kvm/x86.c),
 * a call with nothing else to run here does not yield: it cannot help.
 * The target's run count is sampled first, for pvple_yield_reached().
 */
static int pvple_yield(struct kvm_vcpu *me, struct pvple_vcpu *pv,
		       struct pvple_chain *c, unsigned int at, bool from_hc)
{
	unsigned long runs = 0;
	int r;

	if (from_hc && single_task_running())
		return 0;
	kvm_vcpu_set_in_spin_loop(me, true);
	if (c->pv[at])
		runs = READ_ONCE(c->pv[at]->runs);
	r = kvm_vcpu_yield_to(c->vcpu[at]);
	kvm_vcpu_set_in_spin_loop(me, false);
	kvm_vcpu_set_dy_eligible(me, false);
	if (r > 0) {
		pv->yielded_to = c->pv[at];
		pv->yielded_runs = runs;
	}
	return r;
}

/*
 * A PLE exit is acted on only inside the slow path the guest registered
 * (abi.rst): elsewhere the record may be that of a context an interrupt
 * handler interrupted.  The park call asks explicitly and is not judged
 * by where it was made.  A guest whose state is protected (SEV-ES,
 * SEV-SNP) has no RIP the host can read -- kvm_get_linear_rip() gives 0,
 * which a range starting at 0 would hold -- so its exits are outside.
 */
static enum pvple_rec pvple_ple_rec(struct kvm_vcpu *me, struct pvple_vcpu *pv,
				    enum pvple_rec rec)
{
	if ((rec == PVPLE_REC_OK || rec == PVPLE_REC_NO_HOLDER) &&
	    (me->arch.guest_state_protected ||
	     !pvple_in_slowpath(kvm_get_linear_rip(me), pv->text_start,
				pv->text_end)))
		return PVPLE_REC_OUTSIDE;
	return rec;
}

/*
 * @vm and the pvple_vcpus it holds stay valid here without RCU: they are
 * freed when the VM is destroyed, which cannot happen while one of its
 * vCPUs is in an exit, or at module exit, after every caller has left
 * (pvple_srcu).
 */
static long pvple_spin(struct kvm_vcpu *me, bool from_hc,
		       bool yield_to_kernel_mode)
{
	struct pvple_outcome o = { .from_hc = from_hc };
	struct pvple_spin_in *in = &o.in;
	struct pvple_chain *c = &o.c;
	struct kvm_vcpu *target = NULL;
	struct pvple_vcpu *pv;
	unsigned long ticket = 0;
	struct pvple_area rec;
	struct pvple_vm *vm;
	long ret;
	u32 id;

	vm = pvple_lookup(me, &pv);
	in->mode = pvple_vm_mode(vm);
	o.prev_reached = pvple_yield_reached(pv);

	in->rec = pvple_read_record(me, pv, &rec);
	if (!from_hc)
		in->rec = pvple_ple_rec(me, pv, in->rec);
	if (in->rec == PVPLE_REC_OK) {
		id = array_index_nospec(PVPLE_WAIT_TARGET(rec.wait),
					me->kvm->arch.max_vcpu_ids);
		target = pvple_vcpu_by_id(vm, me->kvm, id);
		if (!target)
			in->rec = PVPLE_REC_TARGET_ABSENT;
		in->head = PVPLE_WAIT_ROLE(rec.wait) == PVPLE_ROLE_HOLDER;
	}
	if (target) {
		c->vcpu[0] = target;
		c->pv[0] = pvple_vcpu_find(vm, target);
		/* Without state of its own, nothing wakes a park behind it. */
		in->no_park = !c->pv[0] || kvm_apicv_activated(me->kvm);
		if (c->pv[0])
			ticket = pvple_park_ticket(c->pv[0]);
		in->chain[0] = pvple_target_state(target, c->pv[0]);
		in->cycle = c->pv[0] && READ_ONCE(c->pv[0]->parked_on) == me;
		pvple_walk(me, vm, &rec, &o);
		if (in->end == PVPLE_CHAIN_HOLDER || in->end == PVPLE_CHAIN_STALE)
			pvple_slice_named(c->pv[in->len - 1],
					  in->chain[in->len - 1]);
		/* Only this vCPU's task touches its spin count. */
		in->spins = pv->spin_wait == rec.wait ? pv->spins : 0;
		/*
		 * What would end a park ends it before it starts (park.c).
		 * Only worth asking with a target: without one it is stock.
		 */
		in->event_pending = signal_pending(current) ||
				    pvple_event(me, pvple_vcpu_irq_on(me));
	}

	/* A holder spinning inside its section (a udelay() under it). */
	if (!from_hc && in->rec == PVPLE_REC_IDLE) {
		in->held = pvple_slice_held(me, pv);
		in->spins = pv->spin_wait == rec.wait ? pv->spins : 0;
	}
	o.decided = pvple_decide(in, &o.decided_at);
	o.act = o.decided;
	o.at = o.decided_at;
	if (pv)
		pv->spins = 0;
	/*
	 * The park hypercall has no PLE window to pace it: its yields and
	 * parks are rate-limited per vCPU (only this vCPU's task touches its
	 * timestamp).  Every record is still checked and answered.
	 */
	if (from_hc && (o.act == PVPLE_ACT_YIELD || o.act == PVPLE_ACT_PARK) &&
	    pvple_hc_park_throttled(ktime_get_ns(), &pv->last_hc_park_ns,
				    pvple_bound_ns(READ_ONCE(pvple_park_hc_gap_us)))) {
		o.throttled = true;
		ret = PVPLE_PARK_RUNNING;
		goto out;
	}
	if (o.act == PVPLE_ACT_YIELD) {
		o.yielded = true;
		o.yield_ret = pvple_yield(me, pv, c, o.at, from_hc);
		if (o.yield_ret > 0) {
			ret = PVPLE_PARK_RAN;
			goto out;
		}
		in->yield_failed = true;
		o.act = pvple_decide(in, &o.at);
	}
	/* Nor a park that would close a cycle, or join a crowd (park.c). */
	if (o.act == PVPLE_ACT_PARK) {
		switch (pvple_park_begin(vm, me, pv, target, c->pv[0])) {
		case PVPLE_START_CYCLE:
			in->cycle = true;
			o.act = PVPLE_ACT_STOCK;
			break;
		case PVPLE_START_CROWDED:
			in->crowded = true;
			o.act = PVPLE_ACT_STOCK;
			break;
		case PVPLE_START_OK:
			break;
		}
	}

	switch (o.act) {
	case PVPLE_ACT_SPIN:
		pv->spin_wait = rec.wait;
		pv->spins = in->spins + 1;
		ret = in->event_pending ? PVPLE_PARK_EVENT : PVPLE_PARK_RUNNING;
		break;
	case PVPLE_ACT_PARK:
		o.why = pvple_park(me, pv, target, c->pv[0], ticket,
				   &o.park_start_ns, &o.parked_ns);
		ret = pvple_wake_result[o.why];
		break;
	case PVPLE_ACT_YIELD:	/* not after a failed yield */
	case PVPLE_ACT_STOCK:
	default:
		o.act = PVPLE_ACT_STOCK;
		if (!from_hc)
			kvm_vcpu_on_spin(me, yield_to_kernel_mode);
		ret = pvple_stock_result(in);
		break;
	}
out:
	pvple_account(vm, me, &o);
	return ret;
}

/**
 * pvple_spin_wanted() - Does a PLE exit need pvple_on_spin()?
 * @me: the spinning vCPU, on entry to kvm_vcpu_on_spin().
 *
 * The hook asks before it redirects (hooks.c).  An exit whose outcome is
 * stock whatever pvple_on_spin() would find, and whose record can be read
 * without sleeping, is decided and counted here as pvple_spin() would
 * count it, and KVM's own kvm_vcpu_on_spin() runs: the call passes
 * through ftrace once, where the replacement makes it pass twice (into
 * pvple_on_spin(), then again into the original).  Those are the exits of
 * a vCPU without an area (every unpatched guest), of a record that names
 * no one to wait for (idle, malformed, the holder unknown) and of one
 * published outside the registered slow path.  Anything else -- a record
 * with a target, one that cannot be read without sleeping, an idle record
 * of a vCPU the slice extension may be keeping (pvple_slice_may_hold())
 * -- goes on to pvple_on_spin(), which reads the record again and decides
 * afresh: nothing here is counted for it.
 *
 * @vm and @pv stay valid here without pvple_srcu: the vCPU is in its
 * KVM_RUN, so its VM is not destroyed, and module exit's unregistering of
 * the hook waits for callbacks that run with preemption off.
 *
 * Context: the ftrace callback on entry to kvm_vcpu_on_spin(), preemption
 * off, in the vCPU's KVM_RUN with kvm->srcu held; must not sleep.
 *
 * Return: true if the exit must go to pvple_on_spin().
 */
bool pvple_spin_wanted(struct kvm_vcpu *me)
{
	struct pvple_outcome o = { };
	struct pvple_spin_in *in = &o.in;
	struct pvple_vcpu *pv;
	struct pvple_area rec;
	struct pvple_vm *vm;

	vm = pvple_lookup_loaded(me, &pv);
	in->mode = pvple_vm_mode(vm);
	in->rec = pvple_peek_record(me, pv, &rec);
	if (in->rec == PVPLE_REC_FAULT)
		return true;
	in->rec = pvple_ple_rec(me, pv, in->rec);
	if (in->rec == PVPLE_REC_OK)
		return true;
	/*
	 * An idle record may be a holder the slice extension keeps spinning;
	 * past this test it is not (pvple_slice_held() is false), so held and
	 * spins stay 0 and the decision is stock, as in pvple_spin().
	 */
	if (in->rec == PVPLE_REC_IDLE && pvple_slice_may_hold(pv))
		return true;
	o.decided = pvple_decide(in, &o.decided_at);
	if (o.decided != PVPLE_ACT_STOCK)
		return true;
	o.act = PVPLE_ACT_STOCK;
	o.prev_reached = pvple_yield_reached(pv);
	if (pv)
		pv->spins = 0;
	pvple_account(vm, me, &o);
	return false;
}

/**
 * pvple_on_spin() - Handle a PLE exit.
 * @me: the spinning vCPU.
 * @yield_to_kernel_mode: as for kvm_vcpu_on_spin(), passed on to it when
 *	the exit gets stock handling.
 *
 * The replacement for kvm_vcpu_on_spin().  Reads what the spinner
 * published, decides (policy.c), then goes back to the guest at once,
 * yields to the vCPU it waits behind, parks until that vCPU runs, or
 * leaves the exit to kvm_vcpu_on_spin().
 *
 * Context: the vCPU's task, in KVM_RUN, kvm->srcu held; may sleep (a yield
 * or a park).
 */
void pvple_on_spin(struct kvm_vcpu *me, bool yield_to_kernel_mode)
{
	pvple_spin(me, false, yield_to_kernel_mode);
}

/**
 * pvple_park_hypercall() - Handle the park hypercall (KVM_HC_PVPLE_PARK).
 * @me: the calling vCPU.
 *
 * The same decision as a PLE exit, on the record the vCPU published, but
 * where a PLE exit would get stock handling the call does nothing and only
 * answers.  Its yields and parks are rate-limited per vCPU
 * (park_hc_gap_us=), as no PLE window paces it.
 *
 * Context: the vCPU's task, in KVM_RUN, kvm->srcu held; may sleep (a yield
 * or a park).
 *
 * Return: an enum pvple_park_result, or a negated error: -KVM_EOPNOTSUPP
 * in mode off, -PVPLE_ENOTREG without a registered area, -KVM_EFAULT if the
 * record cannot be read, -KVM_EINVAL for any other unusable record, or
 * one that would close a cycle of parks.
 */
long pvple_park_hypercall(struct kvm_vcpu *me)
{
	return pvple_spin(me, true, false);
}
