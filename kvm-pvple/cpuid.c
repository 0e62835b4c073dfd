// SPDX-License-Identifier: GPL-2.0
/*
 * l3_cache=: the virtual L3 of l3.c, applied to the table userspace hands
 * to KVM_SET_CPUID{,2}, on its way into KVM (hooks.c calls us on entry to
 * kvm_set_cpuid(), under the vCPU's mutex, with KVM's own copy of it).
 *
 * Three rules keep KVM's contract with VMMs:
 *  - A VM takes the l3_cache= in force when it was created, for all of its
 *    vCPUs: changing the parameter never gives one VM two topologies.
 *  - A VM created before the module loaded is left as its VMM made it.
 *  - After KVM_RUN, KVM accepts only the table it already holds.  The edit
 *    is kept only if it reproduces exactly what KVM stored (the VMM
 *    repeating itself, possibly to a reloaded module); otherwise the VMM's
 *    table goes to KVM unchanged and KVM judges it as it always does.
 */
#include "pvple.h"
#include "pvple_trace.h"

static const enum pvple_stat pvple_l3_stat[PVPLE_NR_L3_RESULTS] = {
	[PVPLE_L3_ADDED]	= PVPLE_STAT_L3_ADDED,
	[PVPLE_L3_RESHARED]	= PVPLE_STAT_L3_RESHARED,
	[PVPLE_L3_KEPT]		= PVPLE_STAT_L3_KEPT,
	[PVPLE_L3_DISABLED]	= PVPLE_STAT_L3_OFF,
	[PVPLE_L3_NO_VENDOR]	= PVPLE_STAT_L3_NO_VENDOR,
	[PVPLE_L3_NO_SLOT]	= PVPLE_STAT_L3_NO_SLOT,
};

/**
 * pvple_cpuid_set() - Apply l3_cache= to a table on its way into KVM.
 * @vcpu: the vCPU whose CPUID is being set.
 * @e2: KVM's own copy of the VMM's table; edited in place.
 * @nent: the number of entries in @e2.
 *
 * A VM created while the module was loaded takes the l3_cache= it was
 * created with.  Another VM is left as its VMM made it (l3_foreign), unless
 * the vCPU has run: then the l3_cache= in force now is applied, for a VMM
 * that repeats its table to a reloaded module.  Once the vCPU has run, the
 * edit is undone unless every entry it changed is exactly what KVM already
 * stores for it (l3_unmatched).  Each outcome is counted and traced.
 *
 * Context: on entry to kvm_set_cpuid(), from an ftrace callback (must not
 * sleep), under the vCPU's mutex.
 */
void pvple_cpuid_set(struct kvm_vcpu *vcpu, struct kvm_cpuid_entry2 *e2,
		     int nent)
{
	bool has_run = vcpu->arch.last_vmentry_cpu != -1;
	struct pvple_l3_undo undo;
	enum pvple_l3_result r;
	enum pvple_stat stat;
	struct pvple_vm *vm;
	int mode;

	rcu_read_lock();
	vm = pvple_vm_find(vcpu->kvm);
	if (vm && vm->born) {
		mode = vm->l3_mode;
	} else if (has_run) {
		mode = READ_ONCE(pvple_l3_mode);
	} else {
		pvple_count(vm, PVPLE_STAT_L3_FOREIGN);
		goto out;
	}

	r = pvple_l3_apply(e2, nent, mode, &undo);
	stat = pvple_l3_stat[r];
	if (has_run && !pvple_l3_matches(e2, &undo, vcpu->arch.cpuid_entries,
					 vcpu->arch.cpuid_nent)) {
		pvple_l3_revert(e2, &undo);
		stat = PVPLE_STAT_L3_UNMATCHED;
	}
	pvple_count(vm, stat);
	trace_kvm_pvple_cpuid(vcpu->kvm, vcpu->vcpu_id, mode, r,
			      stat != PVPLE_STAT_L3_UNMATCHED ? undo.n : 0);
out:
	rcu_read_unlock();
}
