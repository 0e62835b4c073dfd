// SPDX-License-Identifier: GPL-2.0
/*
 * The hypercall's pure rules: which numbers are pvple's, and the park
 * call's pace.  Like policy.c: no locks, no KVM state, no side effects,
 * built into the module and into the userspace unit tests.
 */
#include <linux/kvm_para.h>
#include <uapi/linux/kvm_pvple.h>

#include "policy.h"

/**
 * pvple_hc_decode() - Which pvple hypercall a number is, if any.
 * @nr: the hypercall number, as the guest passed it.
 * @op_64_bit: whether the guest issued it in 64-bit mode.
 * @cpl: the guest's privilege level.
 *
 * Return: PVPLE_HC_NOT_OURS for a number outside pvple's range,
 * PVPLE_HC_EPERM for one of pvple's from CPL > 0, PVPLE_HC_UNKNOWN for a
 * number in the range that names no call, else the call.
 */
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
	case KVM_HC_PVPLE_SLICE_DONE:
		return PVPLE_HC_SLICE_DONE;
	case KVM_HC_PVPLE_FEATURES:
		return PVPLE_HC_FEATURES;
	default:
		return PVPLE_HC_UNKNOWN;
	}
}

/**
 * pvple_hc_maybe_ours() - May a hypercall number be one of pvple's?
 * @nr: the hypercall number, as the guest passed it.
 *
 * The hypercall hook's filter, before anything else is paid.
 *
 * Return: true for every number pvple_hc_decode() may call ours (a 32-bit
 * guest's number is truncated there), and for few others.
 */
bool pvple_hc_maybe_ours(unsigned long nr)
{
	unsigned long low = nr & 0xffffffffUL;

	return low >= KVM_HC_PVPLE_BASE && low < KVM_HC_PVPLE_END;
}

/**
 * pvple_hc_park_throttled() - Is a park hypercall too soon after the last?
 * @now_ns: the time of this call, in nanoseconds.
 * @last_ns: when the vCPU's last yield or park from the hypercall was let
 *	through; 0 for never.  Set to @now_ns when this one is let through.
 * @gap_ns: the least time between two of them (park_hc_gap_us=).
 *
 * At most one yield or park per @gap_ns per vCPU; the others answer
 * "running" (policy.h).  A zero gap throttles nothing.
 *
 * Return: true if a park hypercall at @now_ns comes too soon after the last
 * one.
 */
bool pvple_hc_park_throttled(__u64 now_ns, __u64 *last_ns, __u64 gap_ns)
{
	if (*last_ns && now_ns - *last_ns < gap_ns)
		return true;
	*last_ns = now_ns;
	return false;
}

/**
 * pvple_hc_features() - What KVM_HC_PVPLE_FEATURES answers (ABI 5).
 * @on: the extension is on for the vCPU: slice_ext_us non-zero, the VM's
 *	mode not off, the vCPU's return to the guest hooked, its thread
 *	without a core-scheduling cookie.
 * @counted: the vCPU registered a preemption count for the host to read.
 * @gate: pvple_slice_gate() for a fresh request of the vCPU now.
 *
 * The guest turns its end-of-section test on only for PVPLE_F_SLICE, so
 * that it runs no code on its unlock path for a host that never grants.
 *
 * Return: PVPLE_F_SLICE if a request of the vCPU inside a section would
 * be extended now, else 0.
 */
__u64 pvple_hc_features(bool on, bool counted, enum pvple_slice_gate gate)
{
	if (on && counted && gate == PVPLE_GATE_OPEN)
		return PVPLE_F_SLICE;
	return 0;
}
