// SPDX-License-Identifier: GPL-2.0
/*
 * Per-vCPU state within a VM's (vm.c): found by the vCPU's index, or by
 * the APIC ID a record names, allocated on first use, freed with its VM.
 */
#include <linux/sched.h>
#include <linux/slab.h>

#include "pvple.h"

/**
 * pvple_vcpu_get() - Find or allocate a vCPU's own state.
 * @vm: the VM's state.
 * @vcpu: the vCPU.
 *
 * The vCPU's own state, allocated on first use.  Of two tasks that race to
 * allocate it, the first store wins and the other frees its copy.  The
 * state also goes into the VM's map by APIC ID; if that fails (no memory),
 * pvple_vcpu_by_id() asks KVM instead.
 *
 * Context: process context only; may sleep.
 *
 * Return: @vcpu's state, or NULL if there is no memory for it or its index
 * holds another vCPU's state (a vCPU being created, see pvple_vcpu_find()).
 */
struct pvple_vcpu *pvple_vcpu_get(struct pvple_vm *vm, struct kvm_vcpu *vcpu)
{
	struct pvple_vcpu *pv = xa_load(&vm->vcpus, vcpu->vcpu_idx), *old;

	if (pv)
		return pv->vcpu == vcpu ? pv : NULL;
	pv = kzalloc(sizeof(*pv), GFP_KERNEL_ACCOUNT);
	if (!pv)
		return NULL;
	pv->vcpu = vcpu;
	/* Taken for a holder in no run yet (pvple_slice_held()). */
	pv->named_runs = ULONG_MAX;
	init_swait_queue_head(&pv->waiters);
	pvple_slice_init(pv);
	old = xa_cmpxchg(&vm->vcpus, vcpu->vcpu_idx, NULL, pv,
			 GFP_KERNEL_ACCOUNT);
	if (old || xa_is_err(old)) {
		kfree(pv);
		return xa_is_err(old) ? NULL : old;
	}
	/* Without it (no memory), pvple_vcpu_by_id() asks KVM instead. */
	xa_store(&vm->by_id, vcpu->vcpu_id, pv, GFP_KERNEL_ACCOUNT);
	return pv;
}

/**
 * pvple_vcpu_by_id() - The vCPU a record names, by its APIC ID.
 * @vm: the VM's state, or NULL for a VM that is not tracked.
 * @kvm: the VM.
 * @id: the APIC ID (KVM's vcpu_id).
 *
 * The vCPU a record names, by its APIC ID (KVM's vcpu_id).  KVM's own
 * kvm_get_vcpu_by_id() walks every vCPU of the VM whenever vcpu_id is not
 * vcpu_idx, which sparse APIC IDs (QEMU topologies whose core or thread
 * counts are not powers of two) make the usual case; pvple keeps its own
 * map of the vCPUs it has state for (all of them, once one registered:
 * pvple_vcpus_get()), and asks KVM only for the others.  @id is below
 * max_vcpu_ids (the caller clamps it).
 *
 * Return: the vCPU, or NULL if the VM has none with that APIC ID.
 */
struct kvm_vcpu *pvple_vcpu_by_id(struct pvple_vm *vm, struct kvm *kvm, u32 id)
{
	struct pvple_vcpu *pv = vm ? xa_load(&vm->by_id, id) : NULL;

	return pv ? pv->vcpu : kvm_get_vcpu_by_id(kvm, id);
}

/**
 * pvple_vcpus_get() - Allocate the state of every vCPU of a VM.
 * @vm: the VM's state.
 * @kvm: the VM.
 *
 * State for every vCPU the VM has now, so that any of them can be waited
 * behind (a park needs the target's queue, park.c) before it registers,
 * or if it never does.  A vCPU whose state cannot be allocated is left
 * without.  Called at registration: rare.
 *
 * Context: process context; may sleep.
 */
void pvple_vcpus_get(struct pvple_vm *vm, struct kvm *kvm)
{
	struct kvm_vcpu *v;
	unsigned long i;

	kvm_for_each_vcpu(i, v, kvm)
		pvple_vcpu_get(vm, v);
}

/**
 * pvple_vcpu_free() - Free a vCPU's state, with its VM's.
 * @vm: the VM's state.
 * @pv: the state.
 *
 * Ends a grant it has first, giving its request back to the vCPU task
 * if that still runs where the grant was made (module unload, with VMs
 * running), and stops its slice-extension timer for good.
 *
 * Context: process context, interrupts on.
 */
void pvple_vcpu_free(struct pvple_vm *vm, struct pvple_vcpu *pv)
{
	pvple_slice_stop(vm, pv);
	hrtimer_cancel(&pv->slice_timer);
	kfree(pv);
}
