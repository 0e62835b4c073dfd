// SPDX-License-Identifier: GPL-2.0
#include <uapi/linux/kvm_pvple.h>

#include "policy.h"

enum pvple_hc_action pvple_hc_decode(unsigned long nr, int op_64_bit, int cpl)
{
	/* KVM truncates a 32-bit guest's registers; so must we, identically. */
	if (!op_64_bit)
		nr &= 0xffffffffUL;
	if (nr < KVM_HC_PVPLE_BASE || nr >= KVM_HC_PVPLE_END)
		return PVPLE_HC_NOT_OURS;
	/* Stock KVM refuses every hypercall from CPL > 0; do not be laxer. */
	if (cpl)
		return PVPLE_HC_EPERM;
	switch (nr) {
	case KVM_HC_PVPLE_PROBE:
		return PVPLE_HC_PROBE;
	case KVM_HC_PVPLE_REGISTER:
		return PVPLE_HC_REGISTER;
	case KVM_HC_PVPLE_UNREGISTER:
		return PVPLE_HC_UNREGISTER;
	case KVM_HC_PVPLE_PARK:
		return PVPLE_HC_PARK;
	default:
		return PVPLE_HC_UNKNOWN;
	}
}

/*
 * @a is the host's private copy of the guest's record, read once: every
 * field is checked here, on the copy, and never re-read from the guest.
 */
enum pvple_rec pvple_rec_check(const struct pvple_area *a, __u32 self_id,
			       __u32 max_id)
{
	unsigned int i;

	if (a->seq & 1)
		return PVPLE_REC_TORN;
	if (a->flags || a->pad)
		return PVPLE_REC_BAD;
	for (i = 0; i < PVPLE_AREA_RESERVED; i++)
		if (a->reserved[i])
			return PVPLE_REC_BAD;
	if (a->state == PVPLE_STATE_IDLE)
		return PVPLE_REC_IDLE;
	if (a->state != PVPLE_STATE_WAITING)
		return PVPLE_REC_BAD;
	if (a->role != PVPLE_ROLE_HOLDER && a->role != PVPLE_ROLE_PREDECESSOR)
		return PVPLE_REC_BAD;
	if (a->target >= max_id)
		return PVPLE_REC_TARGET_RANGE;
	if (a->target == self_id)
		return PVPLE_REC_TARGET_SELF;
	return PVPLE_REC_OK;
}

static bool mode_yields(enum pvple_mode mode)
{
	return mode == PVPLE_MODE_YIELD || mode == PVPLE_MODE_AUTO;
}

static bool mode_parks(enum pvple_mode mode)
{
	return mode == PVPLE_MODE_PARK || mode == PVPLE_MODE_AUTO;
}

enum pvple_action pvple_decide(const struct pvple_spin_in *in)
{
	/* Without a usable record, KVM's own guess is the best there is. */
	if (in->mode == PVPLE_MODE_OFF || in->mode >= PVPLE_NR_MODES ||
	    in->rec != PVPLE_REC_OK || in->cycle)
		return PVPLE_ACT_STOCK;
	/* The guest must take its interrupt; it will spin again if need be. */
	if (in->event_pending)
		return PVPLE_ACT_SPIN;

	switch (in->target) {
	case PVPLE_TARGET_RUNNING:
		/* The lock will move soon: spinning is productive. */
		return PVPLE_ACT_SPIN;
	case PVPLE_TARGET_PREEMPTED:
		/* Give it our CPU; if that cannot happen, wait for it to run. */
		if (mode_yields(in->mode) && !in->yield_failed)
			return PVPLE_ACT_YIELD;
		return mode_parks(in->mode) ? PVPLE_ACT_PARK : PVPLE_ACT_SPIN;
	case PVPLE_TARGET_BLOCKED:
	case PVPLE_TARGET_OUT:
		/* Nothing to yield to: it must be woken or come back first. */
		return mode_parks(in->mode) ? PVPLE_ACT_PARK : PVPLE_ACT_SPIN;
	default:
		return PVPLE_ACT_STOCK;
	}
}
