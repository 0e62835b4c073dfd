// SPDX-License-Identifier: GPL-2.0
/*
 * The pvple hypercalls: decoded by pvple_hc_decode() (policy), counted,
 * and dispatched to registration (abi.c), the park (spin.c) or the slice
 * extension (slice.c).  Every number outside pvple's range goes to KVM
 * untouched.
 */
#include <uapi/linux/kvm_para.h>

#include "pvple.h"
#include "pvple_trace.h"

/*
 * One lookup of the VM for both counters; park is counted in spin.c,
 * the end of a slice in slice.c.
 */
static void pvple_hc_count(struct kvm *kvm, enum pvple_hc_action action)
{
	static const enum pvple_stat stat[] = {
		[PVPLE_HC_EPERM]	= PVPLE_STAT_HC_EPERM,
		[PVPLE_HC_PROBE]	= PVPLE_STAT_HC_PROBE,
		[PVPLE_HC_REGISTER]	= PVPLE_STAT_HC_REGISTER,
		[PVPLE_HC_UNREGISTER]	= PVPLE_STAT_HC_UNREGISTER,
		[PVPLE_HC_PARK]		= PVPLE_NR_STATS,
		[PVPLE_HC_SLICE_DONE]	= PVPLE_NR_STATS,
		[PVPLE_HC_FEATURES]	= PVPLE_STAT_HC_FEATURES,
		[PVPLE_HC_UNKNOWN]	= PVPLE_STAT_HC_UNKNOWN,
	};
	struct pvple_vm *vm;

	rcu_read_lock();
	vm = pvple_vm_find(kvm);
	pvple_count(vm, PVPLE_STAT_HYPERCALLS);
	if (stat[action] != PVPLE_NR_STATS)
		pvple_count(vm, stat[action]);
	rcu_read_unlock();
}

/**
 * pvple_hypercall() - Handle a hypercall: pvple's, or KVM's.
 * @vcpu: the calling vCPU.
 * @nr: the hypercall number.
 * @a0: the first argument.
 * @a1: the second argument.
 * @a2: the third argument; no pvple call has one.
 * @a3: the fourth argument; no pvple call has one.
 * @op_64_bit: whether the guest issued it in 64-bit mode.
 * @cpl: the guest's privilege level.
 *
 * The replacement for __kvm_emulate_hypercall(), with its arguments.  A
 * number outside pvple's range goes to KVM untouched.  One of pvple's is
 * counted, in KVM's per-vCPU statistic too, as stock KVM would, and
 * dispatched to registration (abi.c), the park (spin.c) or the slice
 * extension (slice.c: its end, and what the host offers).  A 32-bit
 * guest's @a0 and @a1 are truncated to 32 bits, as KVM does.
 *
 * Context: the vCPU's task, in KVM_RUN, kvm->srcu held; may sleep (a yield
 * or a park).
 *
 * Return: what KVM returns for a number outside pvple's range.  For one
 * of pvple's: -KVM_EPERM from guest user mode, PVPLE_ABI_VERSION for the
 * probe, pvple_register()'s, pvple_unregister()'s,
 * pvple_park_hypercall()'s, pvple_slice_done()'s or
 * pvple_slice_features()'s result, or
 * -KVM_ENOSYS for a number in the
 * range that names no call.
 */
unsigned long pvple_hypercall(struct kvm_vcpu *vcpu, unsigned long nr,
			      unsigned long a0, unsigned long a1,
			      unsigned long a2, unsigned long a3,
			      int op_64_bit, int cpl)
{
	enum pvple_hc_action action = pvple_hc_decode(nr, op_64_bit, cpl);
	long ret;

	if (action == PVPLE_HC_NOT_OURS)
		return __kvm_emulate_hypercall(vcpu, nr, a0, a1, a2, a3,
					       op_64_bit, cpl);

	/* As KVM does for a 32-bit guest: nothing above bit 31 is real. */
	if (!op_64_bit) {
		a0 &= 0xffffffffUL;
		a1 &= 0xffffffffUL;
	}
	pvple_hc_count(vcpu->kvm, action);
	/* Keep KVM's own per-vCPU statistic as stock KVM would. */
	++vcpu->stat.hypercalls;

	switch (action) {
	case PVPLE_HC_EPERM:
		ret = -KVM_EPERM;
		break;
	case PVPLE_HC_PROBE:
		ret = PVPLE_ABI_VERSION;
		break;
	case PVPLE_HC_REGISTER:
		ret = pvple_register(vcpu, a0, a1);
		break;
	case PVPLE_HC_UNREGISTER:
		ret = pvple_unregister(vcpu);
		break;
	case PVPLE_HC_PARK:
		ret = pvple_park_hypercall(vcpu);
		break;
	case PVPLE_HC_SLICE_DONE:
		ret = pvple_slice_done(vcpu);
		break;
	case PVPLE_HC_FEATURES:
		ret = pvple_slice_features(vcpu);
		break;
	default:
		ret = -KVM_ENOSYS;
		break;
	}
	trace_kvm_pvple_hypercall(vcpu->kvm, vcpu->vcpu_id, nr, ret);
	return ret;
}
