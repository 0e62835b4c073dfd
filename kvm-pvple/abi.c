// SPDX-License-Identifier: GPL-2.0
/*
 * The pvple hypercalls.  Every number outside our range goes to KVM
 * untouched, so a guest sees stock behaviour for everything but pvple.
 */
#include <uapi/linux/kvm_para.h>
#include <uapi/linux/kvm_pvple.h>

#include "policy.h"
#include "pvple.h"
#include "pvple_trace.h"

unsigned long pvple_hypercall(struct kvm_vcpu *vcpu, unsigned long nr,
			      unsigned long a0, unsigned long a1,
			      unsigned long a2, unsigned long a3,
			      int op_64_bit, int cpl)
{
	enum pvple_hc_action action = pvple_hc_decode(nr, op_64_bit, cpl);
	unsigned long ret;

	if (action == PVPLE_HC_NOT_OURS)
		return __kvm_emulate_hypercall(vcpu, nr, a0, a1, a2, a3,
					       op_64_bit, cpl);

	pvple_vm_count(vcpu->kvm, PVPLE_STAT_HYPERCALLS);
	/* Keep KVM's own per-vCPU statistic as stock KVM would. */
	++vcpu->stat.hypercalls;

	switch (action) {
	case PVPLE_HC_EPERM:
		pvple_vm_count(vcpu->kvm, PVPLE_STAT_HC_EPERM);
		ret = -KVM_EPERM;
		break;
	case PVPLE_HC_PROBE:
		pvple_vm_count(vcpu->kvm, PVPLE_STAT_HC_PROBE);
		ret = PVPLE_ABI_VERSION;
		break;
	default:
		pvple_vm_count(vcpu->kvm, PVPLE_STAT_HC_UNKNOWN);
		ret = -KVM_ENOSYS;
		break;
	}
	trace_kvm_pvple_hypercall(vcpu->kvm, vcpu->vcpu_id, nr, ret);
	return ret;
}
