/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One PLE exit or park call as spin.c saw it, for account.c to count and
 * trace.
 */
#ifndef _KVM_PVPLE_OUTCOME_H
#define _KVM_PVPLE_OUTCOME_H

#include "pvple.h"

/* The vCPUs on a spinner's chain: [0] is the one its record names. */
struct pvple_chain {
	struct kvm_vcpu *vcpu[PVPLE_CHAIN_MAX];
	struct pvple_vcpu *pv[PVPLE_CHAIN_MAX];
};

/*
 * What one PLE exit or park call found and did.  pvple_spin() fills it,
 * and pvple_account() alone turns it into counters and trace events, once
 * all is done (a park is counted when it has ended).
 */
struct pvple_outcome {
	struct pvple_spin_in in;	/* what pvple_decide() was given */
	struct pvple_chain c;
	bool from_hc;			/* the park hypercall, not a PLE exit */
	int prev_reached;		/* the previous yield's target ran: */
					/* 1, 0, or -1: no yield to check */
	unsigned int torn;		/* records that changed while read */
	enum pvple_action decided;	/* the first decision, and on whom */
	unsigned int decided_at;
	bool throttled;			/* park-hc rate limit: nothing done */
	bool yielded;			/* a yield was tried ... */
	int yield_ret;			/* ... and kvm_vcpu_yield_to() said */
	enum pvple_action act;		/* what was done in the end */
	unsigned int at;
	enum pvple_wake why;		/* a park: how it ended, */
	u64 park_start_ns;		/* when it began (ktime_get()), */
	u64 parked_ns;			/* and how long it lasted */
};

void pvple_account(struct pvple_vm *vm, struct kvm_vcpu *me,
		   const struct pvple_outcome *o);

#endif /* _KVM_PVPLE_OUTCOME_H */
