// SPDX-License-Identifier: GPL-2.0
/*
 * What one PLE exit or park call counts and traces: the outcome spin.c
 * fills in (struct pvple_outcome, pvple.h), mapped to counters (stats.c)
 * and trace events by one function.
 */
#include "outcome.h"
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
	[PVPLE_REC_NO_HOLDER]		= PVPLE_STAT_REC_NO_HOLDER,
	[PVPLE_REC_OUTSIDE]		= PVPLE_STAT_REC_OUTSIDE,
};

static const enum pvple_stat pvple_end_stat[PVPLE_NR_CHAIN_ENDS] = {
	[PVPLE_CHAIN_HOLDER]	= PVPLE_NR_STATS,
	[PVPLE_CHAIN_NO_HOLDER]	= PVPLE_STAT_CHAIN_NO_HOLDER,
	[PVPLE_CHAIN_DEEP]	= PVPLE_STAT_CHAIN_DEEP,
	[PVPLE_CHAIN_STALE]	= PVPLE_NR_STATS,
	[PVPLE_CHAIN_CROSS]	= PVPLE_STAT_CHAIN_CROSS,
	[PVPLE_CHAIN_CYCLE]	= PVPLE_STAT_CHAIN_CYCLE,
	[PVPLE_CHAIN_ABSENT]	= PVPLE_STAT_CHAIN_ABSENT,
	[PVPLE_CHAIN_HEAD]	= PVPLE_NR_STATS,
};

static const enum pvple_stat pvple_wake_stat[] = {
	[PVPLE_WAKE_SCHED_IN]	= PVPLE_STAT_WAKE_SCHED_IN,
	[PVPLE_WAKE_TIMEOUT]	= PVPLE_STAT_WAKE_TIMEOUT,
	[PVPLE_WAKE_EVENT]	= PVPLE_STAT_WAKE_EVENT,
	[PVPLE_WAKE_TEARDOWN]	= PVPLE_STAT_WAKE_TEARDOWN,
};

/* Why a spinner got stock handling: one counter per reason. */
static void pvple_count_stock(struct pvple_vm *vm,
			      const struct pvple_spin_in *in)
{
	if (in->cycle)
		pvple_count(vm, PVPLE_STAT_REC_CYCLE);
	else if (in->crowded)
		pvple_count(vm, PVPLE_STAT_PARK_CROWDED);
	else if (in->rec != PVPLE_REC_OK)
		pvple_count(vm, pvple_rec_stat[in->rec]);
	else if (pvple_end_stat[in->end] != PVPLE_NR_STATS)
		pvple_count(vm, pvple_end_stat[in->end]);
	else if (in->spins >= PVPLE_SPIN_MAX)
		pvple_count(vm, PVPLE_STAT_SPIN_LIMIT);
}

/**
 * pvple_account() - Count and trace one PLE exit or park call.
 * @vm: the spinner's VM state, or NULL for a VM that is not tracked.
 * @me: the spinning vCPU.
 * @o: what the exit or call found and did.
 *
 * Every counter and trace event of one exit or call, once all is done (a
 * park is counted when it has ended): spin.c fills @o, and this alone
 * turns it into counters.
 *
 * Context: the vCPU's task, in the exit; any (does not sleep).
 */
void pvple_account(struct pvple_vm *vm, struct kvm_vcpu *me,
		   const struct pvple_outcome *o)
{
	const struct pvple_spin_in *in = &o->in;
	const struct pvple_chain *c = &o->c;
	struct kvm_vcpu *target = c->vcpu[0];

	pvple_count(vm, o->from_hc ? PVPLE_STAT_HC_PARK : PVPLE_STAT_PLE_EXITS);
	if (o->prev_reached >= 0)
		pvple_count(vm, o->prev_reached ? PVPLE_STAT_YIELD_REACHED :
						  PVPLE_STAT_YIELD_MISSED);
	if (o->torn)
		pvple_count_n(vm, PVPLE_STAT_REC_TORN, o->torn);
	if (target) {
		pvple_count_n(vm, PVPLE_STAT_CHAIN_HOPS, in->len - 1);
		/* Counted whatever is done: these chains are acted on. */
		if (in->end == PVPLE_CHAIN_STALE)
			pvple_count(vm, PVPLE_STAT_CHAIN_STALE);
		else if (in->end == PVPLE_CHAIN_HEAD)
			pvple_count(vm, PVPLE_STAT_CHAIN_HEAD);
	}
	trace_kvm_pvple_decide(me->kvm, me->vcpu_id, o->from_hc, in->rec,
			       target ? target->vcpu_id : -1, in->len, in->end,
			       in->len ? c->vcpu[in->len - 1]->vcpu_id : -1,
			       in->len ? in->chain[in->len - 1] : -1,
			       o->decided,
			       target ? c->vcpu[o->decided_at]->vcpu_id : -1);
	if (o->throttled) {
		pvple_count(vm, PVPLE_STAT_HC_THROTTLED);
		return;
	}
	if (o->yielded) {
		pvple_count(vm, PVPLE_STAT_YIELD_TRIED);
		trace_kvm_pvple_yield(me->kvm, me->vcpu_id,
				      c->vcpu[o->decided_at]->vcpu_id,
				      o->yield_ret);
		if (o->yield_ret > 0) {
			pvple_count(vm, PVPLE_STAT_YIELD_OK);
			if ((in->end == PVPLE_CHAIN_HOLDER ||
			     in->end == PVPLE_CHAIN_STALE) &&
			    o->decided_at == in->len - 1)
				pvple_count(vm, PVPLE_STAT_YIELD_HOLDER);
			if (o->decided_at)
				pvple_count(vm, PVPLE_STAT_YIELD_BEYOND);
			return;
		}
	}
	switch (o->act) {
	case PVPLE_ACT_SPIN:
		pvple_count(vm, in->rec == PVPLE_REC_IDLE ?
			    PVPLE_STAT_HELD_SPIN : PVPLE_STAT_SPIN);
		break;
	case PVPLE_ACT_PARK:
		pvple_count(vm, PVPLE_STAT_PARKS);
		pvple_count(vm, pvple_wake_stat[o->why]);
		pvple_count_n(vm, PVPLE_STAT_PARK_NS, o->parked_ns);
		trace_kvm_pvple_wake(me->kvm, me->vcpu_id, target->vcpu_id,
				     o->why, o->parked_ns, o->park_start_ns);
		break;
	default:
		pvple_count(vm, PVPLE_STAT_STOCK);
		pvple_count_stock(vm, in);
		break;
	}
}
