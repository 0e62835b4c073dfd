// SPDX-License-Identifier: GPL-2.0
/*
 * The PLE path: every Intel PAUSE-loop exit and AMD pause-filter exit
 * arrives here in place of kvm_vcpu_on_spin().
 */
#include "pvple.h"
#include "pvple_trace.h"

void pvple_on_spin(struct kvm_vcpu *me, bool yield_to_kernel_mode)
{
	trace_kvm_pvple_ple_exit(me->kvm, me->vcpu_id, yield_to_kernel_mode);
	pvple_vm_count(me->kvm, PVPLE_STAT_PLE_EXITS);
	kvm_vcpu_on_spin(me, yield_to_kernel_mode);
}
