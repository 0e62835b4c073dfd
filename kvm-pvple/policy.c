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
 * The hypercall hook's filter, before anything else is paid: true for every
 * number pvple_hc_decode() may call ours (a 32-bit guest's number is
 * truncated there), and for few others.
 */
bool pvple_hc_maybe_ours(unsigned long nr)
{
	unsigned long low = nr & 0xffffffffUL;

	return low >= KVM_HC_PVPLE_BASE && low < KVM_HC_PVPLE_END;
}

/*
 * The order matters: a preempted or kicked vCPU is also still "blocking"
 * until it runs, and one of our own parks is "blocking" too.
 */
enum pvple_target pvple_target_classify(const struct pvple_target_flags *f)
{
	if (f->preempted)
		return PVPLE_TARGET_PREEMPTED;
	if (f->parked)
		return PVPLE_TARGET_PARKED;
	/*
	 * ->ready is cleared only at the next schedule-in (kvm_main.c:6392):
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
		break;
	case PVPLE_TARGET_READY:
		/*
		 * Kicked out of a halt: give it our CPU.  Not a park: a kick
		 * that came before it scheduled out needs no schedule-in.
		 */
		if (mode_yields(in->mode) && !in->yield_failed)
			return PVPLE_ACT_YIELD;
		return PVPLE_ACT_STOCK;
	case PVPLE_TARGET_PARKED:
	case PVPLE_TARGET_OUT:
		/* Nothing to yield to: it must be woken or come back first. */
		break;
	default:
		/*
		 * Halted, or asleep in the host: no wake-up of ours is certain
		 * to follow, so a park could only end by its bound.
		 */
		return PVPLE_ACT_STOCK;
	}
	if (!mode_parks(in->mode))
		return PVPLE_ACT_SPIN;
	return in->no_park ? PVPLE_ACT_STOCK : PVPLE_ACT_PARK;
}

/* True if a park hypercall at @now_ns comes too soon after the last one. */
bool pvple_hc_park_throttled(__u64 now_ns, __u64 *last_ns, __u64 gap_ns)
{
	if (*last_ns && now_ns - *last_ns < gap_ns)
		return true;
	*last_ns = now_ns;
	return false;
}
