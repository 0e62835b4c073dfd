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
bool pvple_hc_maybe_ours(unsigned long nr);

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

/*
 * Run state of the vCPU a spinner waits behind.  A park is only ever taken
 * behind a target whose next step is certain to run kvm-pvple's load hook
 * or its park exit, which wake the parked spinner (park.c): PREEMPTED,
 * PARKED and OUT.  Behind a HALTED vCPU no wake-up is certain (a kick that
 * lands before it schedules out runs no hook), nor behind one asleep in
 * the host for another reason, or in the window where KVM has loaded it
 * but not yet cleared ->scheduled_out (virt/kvm/kvm_main.c:6387-6398).
 */
enum pvple_target {
	PVPLE_TARGET_RUNNING,	/* its task runs (in the guest or in KVM) */
	PVPLE_TARGET_PREEMPTED,	/* runnable, but another task has its CPU */
	PVPLE_TARGET_READY,	/* kicked out of a halt, not yet running */
	PVPLE_TARGET_PARKED,	/* itself parked by kvm-pvple */
	PVPLE_TARGET_HALTED,	/* blocked in KVM (HLT, or pvqspinlock's wait) */
	PVPLE_TARGET_OUT,	/* not in KVM_RUN */
	PVPLE_TARGET_SLEEPING,	/* in KVM_RUN, scheduled out, not preempted */
	PVPLE_NR_TARGETS
};

/* What KVM says of the target, each flag read once. */
struct pvple_target_flags {
	bool preempted;		/* ->preempted */
	bool parked;		/* kvm-pvple's own: in pvple_park() */
	bool ready;		/* ->ready */
	bool blocking;		/* kvm_vcpu_is_blocking() */
	bool wants_to_run;	/* ->wants_to_run */
	bool scheduled_out;	/* ->scheduled_out */
};

enum pvple_target pvple_target_classify(const struct pvple_target_flags *f);

struct pvple_spin_in {
	enum pvple_mode mode;
	enum pvple_rec rec;
	enum pvple_target target;
	bool event_pending;	/* an interrupt/request waits for the spinner */
	bool cycle;		/* the target is parked behind the spinner */
	bool yield_failed;	/* a directed yield to the target just failed */
	bool no_park;		/* parking is off for this VM (APICv/AVIC) */
};

enum pvple_action {
	PVPLE_ACT_STOCK,	/* no usable record: kvm_vcpu_on_spin() */
	PVPLE_ACT_SPIN,		/* back to the guest at once */
	PVPLE_ACT_YIELD,	/* kvm_vcpu_yield_to(target) */
	PVPLE_ACT_PARK,		/* sleep until the target is scheduled in */
	PVPLE_NR_ACTIONS
};

enum pvple_action pvple_decide(const struct pvple_spin_in *in);

/*
 * The park hypercall is not throttled by a PLE window: at most one yield
 * or park per @gap_ns per vCPU (park_hc_gap_us=); the others answer
 * "running".  A zero gap throttles nothing.
 */
bool pvple_hc_park_throttled(__u64 now_ns, __u64 *last_ns, __u64 gap_ns);

#endif /* _KVM_PVPLE_POLICY_H */
