/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure decisions of kvm-pvple: no locks, no KVM state, no side effects.
 * They build both into the module and into the userspace unit tests
 * (selftests/unit/), which is where they are tested: KUnit is not enabled
 * in the distro kernels pvple targets.
 */
#ifndef _KVM_PVPLE_POLICY_H
#define _KVM_PVPLE_POLICY_H

#include <linux/types.h>

struct pvple_area;

enum pvple_hc_action {
	PVPLE_HC_NOT_OURS,	/* hand to KVM unchanged */
	PVPLE_HC_EPERM,		/* ours, but issued from guest user mode */
	PVPLE_HC_PROBE,
	PVPLE_HC_REGISTER,
	PVPLE_HC_UNREGISTER,
	PVPLE_HC_PARK,
	PVPLE_HC_UNKNOWN,	/* in our range, no such call: -KVM_ENOSYS */
};

enum pvple_hc_action pvple_hc_decode(unsigned long nr, int op_64_bit, int cpl);

/* What a spinner's record says, once checked. */
enum pvple_rec {
	PVPLE_REC_OK,		/* waiting behind a valid, other vCPU */
	PVPLE_REC_UNREGISTERED,	/* no area registered (set by the caller) */
	PVPLE_REC_FAULT,	/* area not readable (set by the caller) */
	PVPLE_REC_TARGET_ABSENT,/* no such vCPU in the VM (set by the caller) */
	PVPLE_REC_IDLE,		/* registered, but not waiting */
	PVPLE_REC_TORN,		/* odd sequence count: caught mid-update */
	PVPLE_REC_BAD,		/* unknown state or role, non-zero reserved */
	PVPLE_REC_TARGET_RANGE,	/* target id outside the VM's id space */
	PVPLE_REC_TARGET_SELF,	/* waits behind itself */
	PVPLE_NR_REC
};

enum pvple_rec pvple_rec_check(const struct pvple_area *a, __u32 self_id,
			       __u32 max_id);

enum pvple_mode {
	PVPLE_MODE_OFF,		/* observe only: stock KVM behaviour */
	PVPLE_MODE_YIELD,	/* directed yield, never park */
	PVPLE_MODE_PARK,	/* park, never yield */
	PVPLE_MODE_AUTO,	/* yield; park when the yield cannot happen */
	PVPLE_NR_MODES
};

/* Run state of the vCPU a spinner waits behind. */
enum pvple_target {
	PVPLE_TARGET_RUNNING,	/* its task runs (in the guest or in KVM) */
	PVPLE_TARGET_PREEMPTED,	/* runnable, but another task has its CPU */
	PVPLE_TARGET_BLOCKED,	/* halted, or itself parked */
	PVPLE_TARGET_OUT,	/* not in KVM_RUN, or asleep in the host */
	PVPLE_NR_TARGETS
};

struct pvple_spin_in {
	enum pvple_mode mode;
	enum pvple_rec rec;
	enum pvple_target target;
	bool event_pending;	/* an interrupt/request waits for the spinner */
	bool cycle;		/* the target is parked behind the spinner */
	bool yield_failed;	/* a directed yield to the target just failed */
};

enum pvple_action {
	PVPLE_ACT_STOCK,	/* no usable record: kvm_vcpu_on_spin() */
	PVPLE_ACT_SPIN,		/* back to the guest at once */
	PVPLE_ACT_YIELD,	/* kvm_vcpu_yield_to(target) */
	PVPLE_ACT_PARK,		/* sleep until the target is scheduled in */
	PVPLE_NR_ACTIONS
};

enum pvple_action pvple_decide(const struct pvple_spin_in *in);

#endif /* _KVM_PVPLE_POLICY_H */
