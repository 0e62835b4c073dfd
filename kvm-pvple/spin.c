// SPDX-License-Identifier: GPL-2.0
/*
 * The PLE path and the park hypercall: read what the spinning vCPU
 * published, decide (policy.c), then yield to the vCPU it waits behind or
 * park until that vCPU runs.  Both entry points share one decision.
 */
#include <linux/nospec.h>
#include <linux/sched/signal.h>

#include "pvple.h"
#include "pvple_trace.h"

static const enum pvple_stat pvple_rec_stat[PVPLE_NR_REC] = {
	[PVPLE_REC_UNREGISTERED]	= PVPLE_STAT_REC_UNREGISTERED,
	[PVPLE_REC_FAULT]		= PVPLE_STAT_REC_FAULT,
	[PVPLE_REC_TARGET_ABSENT]	= PVPLE_STAT_REC_TARGET_ABSENT,
	[PVPLE_REC_IDLE]		= PVPLE_STAT_REC_IDLE,
	[PVPLE_REC_TORN]		= PVPLE_STAT_REC_TORN,
	[PVPLE_REC_BAD]			= PVPLE_STAT_REC_BAD,
	[PVPLE_REC_TARGET_RANGE]	= PVPLE_STAT_REC_TARGET_RANGE,
	[PVPLE_REC_TARGET_SELF]		= PVPLE_STAT_REC_TARGET_SELF,
};

static const enum pvple_stat pvple_wake_stat[] = {
	[PVPLE_WAKE_SCHED_IN]	= PVPLE_STAT_WAKE_SCHED_IN,
	[PVPLE_WAKE_TIMEOUT]	= PVPLE_STAT_WAKE_TIMEOUT,
	[PVPLE_WAKE_EVENT]	= PVPLE_STAT_WAKE_EVENT,
	[PVPLE_WAKE_TEARDOWN]	= PVPLE_STAT_WAKE_TEARDOWN,
};

static const long pvple_wake_result[] = {
	[PVPLE_WAKE_SCHED_IN]	= PVPLE_PARK_RAN,
	[PVPLE_WAKE_TIMEOUT]	= PVPLE_PARK_TIMEOUT,
	[PVPLE_WAKE_EVENT]	= PVPLE_PARK_EVENT,
	[PVPLE_WAKE_TEARDOWN]	= PVPLE_PARK_EVENT,
};

static enum pvple_target pvple_target_state(struct kvm_vcpu *t)
{
	if (READ_ONCE(t->preempted))
		return PVPLE_TARGET_PREEMPTED;
	if (kvm_vcpu_is_blocking(t))
		return PVPLE_TARGET_BLOCKED;
	if (!READ_ONCE(t->wants_to_run) || READ_ONCE(t->scheduled_out))
		return PVPLE_TARGET_OUT;
	return PVPLE_TARGET_RUNNING;
}

/* What the park hypercall answers when pvple will not act on the record. */
static long pvple_stock_result(enum pvple_rec rec, int mode)
{
	if (mode == PVPLE_MODE_OFF)
		return -KVM_EOPNOTSUPP;
	switch (rec) {
	case PVPLE_REC_UNREGISTERED:
		return -PVPLE_ENOTREG;
	case PVPLE_REC_IDLE:
		return PVPLE_PARK_IDLE;
	case PVPLE_REC_FAULT:
		return -KVM_EFAULT;
	default:
		return -KVM_EINVAL;
	}
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
	struct pvple_spin_in in = { .mode = READ_ONCE(pvple_mode) };
	struct pvple_vcpu *pv = NULL, *tpv;
	struct kvm_vcpu *target = NULL;
	unsigned long ticket = 0;
	enum pvple_action act;
	struct pvple_area rec;
	enum pvple_wake why;
	struct pvple_vm *vm;
	u64 parked_ns;
	u32 id;
	int r;

	rcu_read_lock();
	vm = pvple_vm_find(me->kvm);
	if (vm)
		pv = pvple_vcpu_find(vm, me);
	rcu_read_unlock();
	pvple_count(vm, from_hc ? PVPLE_STAT_HC_PARK : PVPLE_STAT_PLE_EXITS);

	in.rec = pvple_read_record(me, pv, &rec);
	if (in.rec == PVPLE_REC_OK) {
		id = array_index_nospec(rec.target, me->kvm->arch.max_vcpu_ids);
		target = kvm_get_vcpu_by_id(me->kvm, id);
		if (!target)
			in.rec = PVPLE_REC_TARGET_ABSENT;
	}
	if (target) {
		ticket = pvple_park_ticket(target);
		in.target = pvple_target_state(target);
		rcu_read_lock();
		tpv = pvple_vcpu_find(vm, target);
		in.cycle = tpv && READ_ONCE(tpv->parked_on) == me;
		rcu_read_unlock();
	}
	in.event_pending = kvm_request_pending(me) || signal_pending(current);

	act = pvple_decide(&in);
	trace_kvm_pvple_decide(me->kvm, me->vcpu_id, from_hc, in.rec,
			       target ? target->vcpu_id : -1, in.target, act);
	if (act == PVPLE_ACT_YIELD) {
		pvple_count(vm, PVPLE_STAT_YIELD_TRIED);
		r = kvm_vcpu_yield_to(target);
		trace_kvm_pvple_yield(me->kvm, me->vcpu_id, target->vcpu_id, r);
		if (r > 0) {
			pvple_count(vm, PVPLE_STAT_YIELD_OK);
			return PVPLE_PARK_RAN;
		}
		in.yield_failed = true;
		in.target = pvple_target_state(target);
		act = pvple_decide(&in);
	}

	switch (act) {
	case PVPLE_ACT_SPIN:
		pvple_count(vm, PVPLE_STAT_SPIN);
		return in.event_pending ? PVPLE_PARK_EVENT : PVPLE_PARK_RUNNING;
	case PVPLE_ACT_PARK:
		pvple_count(vm, PVPLE_STAT_PARKS);
		why = pvple_park(me, pv, target, ticket, &parked_ns);
		pvple_count(vm, pvple_wake_stat[why]);
		pvple_count_n(vm, PVPLE_STAT_PARK_NS, parked_ns);
		trace_kvm_pvple_wake(me->kvm, me->vcpu_id, target->vcpu_id, why,
				     parked_ns);
		return pvple_wake_result[why];
	case PVPLE_ACT_YIELD:	/* not after a failed yield */
	case PVPLE_ACT_STOCK:
	default:
		pvple_count(vm, PVPLE_STAT_STOCK);
		if (in.cycle)
			pvple_count(vm, PVPLE_STAT_REC_CYCLE);
		else if (in.rec != PVPLE_REC_OK)
			pvple_count(vm, pvple_rec_stat[in.rec]);
		if (!from_hc)
			kvm_vcpu_on_spin(me, yield_to_kernel_mode);
		return pvple_stock_result(in.rec, in.mode);
	}
}

void pvple_on_spin(struct kvm_vcpu *me, bool yield_to_kernel_mode)
{
	pvple_spin(me, false, yield_to_kernel_mode);
}

long pvple_park_hypercall(struct kvm_vcpu *me)
{
	return pvple_spin(me, true, false);
}
