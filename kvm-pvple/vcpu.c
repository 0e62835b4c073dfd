// SPDX-License-Identifier: GPL-2.0
/*
 * Per-vCPU state within a VM's (vm.c): found by the vCPU's index, or by
 * the APIC ID a record names, allocated on first use, freed with its VM.
 */
#include <linux/sched.h>
#include <linux/slab.h>

#include "pvple.h"

/*
 * The slice extension's timer (slice.c) ends a grant: it asks the granted
 * task to reschedule, if that task still runs here (hard interrupt
 * context, on the CPU the timer was armed on; the pointer is compared,
 * never dereferenced).  It lives with the state it is part of.
 */
static enum hrtimer_restart pvple_slice_expired(struct hrtimer *t)
{
	struct pvple_vcpu *pv = container_of(t, struct pvple_vcpu, slice_timer);

	if (READ_ONCE(pv->slice_task) == current) {
		/* A step or the bound: the hook tells them apart (slice.c). */
		WRITE_ONCE(pv->slice_fired, true);
		set_tsk_need_resched(current);
		set_preempt_need_resched();
	}
	return HRTIMER_NORESTART;
}

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
	hrtimer_init(&pv->slice_timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_REL_PINNED_HARD);
	pv->slice_timer.function = pvple_slice_expired;
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
 * @pv: the state.
 *
 * Stops its slice-extension timer for good first, waiting for a callback
 * that runs now.
 *
 * Context: process context.
 */
void pvple_vcpu_free(struct pvple_vcpu *pv)
{
	hrtimer_cancel(&pv->slice_timer);
	kfree(pv);
}
