// SPDX-License-Identifier: GPL-2.0
/*
 * Registration of the per-vCPU shared area, and the reads of a vCPU's
 * record: its own through its cached GPA translation, another's by GPA.
 */
#include <uapi/linux/kvm_para.h>

#include "pvple.h"
#include "pvple_trace.h"

static bool pvple_forget(struct kvm_vcpu *vcpu, struct pvple_vm **vmp);

/**
 * pvple_register() - Register a vCPU's shared area (KVM_HC_PVPLE_REGISTER).
 * @vcpu: the calling vCPU.
 * @gpa: the guest physical address of its struct pvple_area.
 * @version: the ABI version the guest speaks.
 *
 * Every attempt first forgets the area registered before, so that a
 * refused one leaves none (Documentation/abi.rst): a v2 kernel kexec'd on
 * a vCPU of a v3 guest must not have its memory read as v3 records.  The
 * checks then come in this order, each with its answer: the version
 * (-KVM_EOPNOTSUPP), the alignment (-KVM_EINVAL), host memory and the
 * memslot (-KVM_EFAULT), the registration fields read from the area --
 * the slow-path range and the preemption count's alignment (-KVM_EINVAL,
 * pvple_reg_check()) -- and the preemption count's memslot (-KVM_EFAULT).
 * Before them all, a VM that has no state and cannot get it (no memory)
 * answers -KVM_EFAULT too.  The registration fields are read once, here:
 * the guest changes them by registering again.  Once the vCPU's own
 * state exists, that of every vCPU of the VM is allocated (pvple_vcpus_get()).
 *
 * Context: runs in the vCPU's own task, in process context with kvm->srcu
 * held: it may allocate and may walk the memslots.
 *
 * Return: 0, or -KVM_EOPNOTSUPP, -KVM_EINVAL or -KVM_EFAULT as above.
 */
long pvple_register(struct kvm_vcpu *vcpu, gpa_t gpa, unsigned long version)
{
	struct gfn_to_hva_cache ghc, preempt_ghc = { };
	struct pvple_area area;
	struct pvple_vcpu *pv;
	struct pvple_vm *vm;
	bool had;

	had = pvple_forget(vcpu, &vm);
	vm = pvple_vm_adopt(vcpu->kvm);
	if (!vm)
		return -KVM_EFAULT;
	if (version != PVPLE_ABI_VERSION) {
		pvple_count(vm, PVPLE_STAT_REG_BAD_VERSION);
		return -KVM_EOPNOTSUPP;
	}
	/* Aligned to its size, the area can never cross a page. */
	if (!IS_ALIGNED(gpa, PVPLE_AREA_ALIGN)) {
		pvple_count(vm, PVPLE_STAT_REG_UNALIGNED);
		return -KVM_EINVAL;
	}
	pv = pvple_vcpu_get(vm, vcpu);
	if (!pv) {
		pvple_count(vm, PVPLE_STAT_REG_NOMEM);
		return -KVM_EFAULT;
	}
	pvple_vcpus_get(vm, vcpu->kvm);
	if (kvm_gfn_to_hva_cache_init(vcpu->kvm, &ghc, gpa,
				      sizeof(struct pvple_area))) {
		pvple_count(vm, PVPLE_STAT_REG_BAD_GPA);
		return -KVM_EFAULT;
	}
	if (kvm_read_guest_cached(vcpu->kvm, &ghc, &area, sizeof(area))) {
		pvple_count(vm, PVPLE_STAT_REG_BAD_GPA);
		return -KVM_EFAULT;
	}
	if (pvple_reg_check(&area) != PVPLE_REG_OK) {
		pvple_count(vm, PVPLE_STAT_REG_BAD_FIELDS);
		return -KVM_EINVAL;
	}
	if (area.preempt_gpa &&
	    kvm_gfn_to_hva_cache_init(vcpu->kvm, &preempt_ghc,
				      area.preempt_gpa, sizeof(u32))) {
		pvple_count(vm, PVPLE_STAT_REG_BAD_GPA);
		return -KVM_EFAULT;
	}
	/* Registering again (reboot, kexec, lost host state) replaces. */
	if (had)
		pvple_count(vm, PVPLE_STAT_REG_REPLACED);
	pv->ghc = ghc;
	/* Only this vCPU's own exits read these (pvple_spin()). */
	pv->text_start = area.text_start;
	pv->text_end = area.text_end;
	/* Read by the slice extension, in this vCPU's own task (slice.c). */
	pv->preempt_gpa = area.preempt_gpa;
	pv->preempt_ghc = preempt_ghc;
	/* A new area: its @slice is the guest's 0 (pvple_slice_flag()). */
	pv->slice_flag = false;
	WRITE_ONCE(pv->gpa, gpa);
	/* The GPA before the flag: pairs with pvple_read_other(). */
	smp_store_release(&pv->registered, true);
	pvple_count(vm, PVPLE_STAT_REG_OK);
	return 0;
}

/*
 * Forgets @vcpu's area; returns whether it had one, and its VM in *@vmp.
 * The VM lives on: the vCPU is in an exit, or under its mutex.  A grant
 * of the slice extension ends with it, its request given back
 * (pvple_slice_stop()): the count it was granted on is no longer read.
 */
static bool pvple_forget(struct kvm_vcpu *vcpu, struct pvple_vm **vmp)
{
	struct pvple_vcpu *pv;
	struct pvple_vm *vm;

	vm = pvple_lookup(vcpu, &pv);
	*vmp = vm;
	if (!pv || !READ_ONCE(pv->registered))
		return false;
	WRITE_ONCE(pv->registered, false);
	pvple_slice_stop(vm, pv);
	return true;
}

/**
 * pvple_unregister() - Forget a vCPU's area (KVM_HC_PVPLE_UNREGISTER).
 * @vcpu: the calling vCPU.
 *
 * A vCPU that had no area is counted (unreg_unknown), and answered the
 * same.
 *
 * Context: the vCPU's own task, in its exit.
 *
 * Return: 0.
 */
long pvple_unregister(struct kvm_vcpu *vcpu)
{
	struct pvple_vm *vm;

	if (!pvple_forget(vcpu, &vm))
		pvple_count(vm, PVPLE_STAT_UNREG_UNKNOWN);
	return 0;
}

/**
 * pvple_vcpu_reset() - Forget a vCPU's area at its INIT or RESET.
 * @vcpu: the vCPU.
 *
 * INIT or RESET of the vCPU (hooks.c): its area is forgotten, as KVM
 * forgets steal time; the guest registers again when it brings the CPU
 * up.
 *
 * Context: under the vCPU's mutex: its KVM_RUN, or its VMM's ioctl.  From
 * an ftrace callback: must not sleep.
 */
void pvple_vcpu_reset(struct kvm_vcpu *vcpu)
{
	struct pvple_vm *vm;

	if (pvple_forget(vcpu, &vm))
		pvple_count(vm, PVPLE_STAT_UNREG_RESET);
}

/**
 * pvple_peek_record() - Read and check a vCPU's own record, without sleeping.
 * @vcpu: the vCPU, in an exit.
 * @pv: its state, or NULL if it has none.
 * @rec: where to copy the record.
 *
 * pvple_read_record() for a caller that must not sleep: the words are read
 * with page faults off, from the translation cached at registration, and
 * only while that translation is current (the memslots' generation it was
 * made in, as kvm_read_guest_offset_cached() checks).  Whatever cannot be
 * read so -- a page not present, memslots changed, a cache KVM would
 * refresh -- answers PVPLE_REC_FAULT, and the caller reads again the
 * ordinary way.  The area is aligned to PVPLE_AREA_ALIGN, so it lies in
 * one page and the cache maps it whole.
 *
 * Context: the vCPU's own task, kvm->srcu held; does not sleep (an ftrace
 * callback, preemption off, may call it).
 *
 * Return: as pvple_read_record().
 */
enum pvple_rec pvple_peek_record(struct kvm_vcpu *vcpu, struct pvple_vcpu *pv,
				 struct pvple_area *rec)
{
	struct pvple_area __user *area;
	struct gfn_to_hva_cache *ghc;
	unsigned int i;

	if (!pv || !READ_ONCE(pv->registered))
		return PVPLE_REC_UNREGISTERED;
	ghc = &pv->ghc;
	if (ghc->generation != kvm_memslots(vcpu->kvm)->generation ||
	    !ghc->memslot || kvm_is_error_hva(ghc->hva))
		return PVPLE_REC_FAULT;
	area = (struct pvple_area __user *)ghc->hva;
	/*
	 * The words pvple_rec_check() reads, one load each: the fields read
	 * only at registration stay 0 in the copy.  Not one copy of the
	 * whole area: copy_user_generic() makes that a "rep movsb" on a CPU
	 * with FSRM, which an emulator may run a byte at a time.
	 */
	memset(rec, 0, sizeof(*rec));
	pagefault_disable();
	if (!user_access_begin(area, sizeof(*area)))
		goto fault;
	unsafe_get_user(rec->wait, &area->wait, fault_end);
	unsafe_get_user(rec->lock, &area->lock, fault_end);
	for (i = 0; i < PVPLE_AREA_RESERVED; i++)
		unsafe_get_user(rec->reserved[i], &area->reserved[i], fault_end);
	user_access_end();
	pagefault_enable();
	return pvple_rec_check(rec, vcpu->vcpu_id,
			       vcpu->kvm->arch.max_vcpu_ids);
fault_end:
	user_access_end();
fault:
	pagefault_enable();
	return PVPLE_REC_FAULT;
}

/**
 * pvple_read_record() - Read and check a vCPU's own record.
 * @vcpu: the vCPU, in an exit.
 * @pv: its state, or NULL if it has none.
 * @rec: where to copy the record.
 *
 * One copy of the record into host memory; everything after works on the
 * copy.  No mapping: the translation was cached at registration, and
 * KVM revalidates it when the memslots change (a deleted slot faults).
 * pvple_peek_record() is tried first; only what it cannot read without
 * sleeping goes through kvm_read_guest_offset_cached(), which refreshes
 * the cache or faults the page in.
 *
 * Context: the vCPU's own task, kvm->srcu held; may sleep (a fault).
 *
 * Return: PVPLE_REC_UNREGISTERED if there is no area, PVPLE_REC_FAULT if it
 * cannot be read, else what pvple_rec_check() says of the copy.
 */
enum pvple_rec pvple_read_record(struct kvm_vcpu *vcpu, struct pvple_vcpu *pv,
				 struct pvple_area *rec)
{
	enum pvple_rec r = pvple_peek_record(vcpu, pv, rec);

	if (r != PVPLE_REC_FAULT)
		return r;
	if (kvm_read_guest_offset_cached(vcpu->kvm, &pv->ghc, rec, 0,
					 sizeof(*rec)))
		return PVPLE_REC_FAULT;
	return pvple_rec_check(rec, vcpu->vcpu_id,
			       vcpu->kvm->arch.max_vcpu_ids);
}

/**
 * pvple_read_other() - Read and check the record of another vCPU.
 * @t: the other vCPU, of the spinner's VM.
 * @tpv: its state, or NULL if it has none.
 * @rec: where to copy the record.
 *
 * The record of another vCPU of the VM, @t, read by a spinner that walks a
 * chain through it (spin.c).  @t may run and rewrite its record meanwhile,
 * and its @ghc is its own task's (a memslot change makes the owner refresh
 * it), so this goes by GPA instead.  Ordering::
 *
 *   guest, on @t (x86: TSO)           host, spinner's task
 *   WRITE_ONCE(area->lock, L)         w1 = area->wait    (get_user: one
 *   barrier()                         smp_rmb()            8-byte load)
 *   WRITE_ONCE(area->wait, W)         l = area->lock     (get_user)
 *                                     smp_rmb()
 *                                     w2 = area->wait    (get_user)
 *
 * If w1 == w2, no store of @wait landed between the two loads -- modulo
 * 2^16 stores, @gen's range, which a get_user() that faults and sleeps
 * could in principle span: state, role and target are those of one
 * record, each load of @wait being one aligned 8-byte load.  Without the
 * comparison a spinner could take the state of one record with the target
 * of another.  @lock is paired with @wait only up to a window of a few
 * guest instructions: the @lock read between the loads may already be
 * that of the next record, whose @wait is not stored yet (and an
 * interrupt that publishes between the guest's two stores leaves the
 * outer @wait with its own @lock until it restores).  A hop judged with
 * such a lock is at worst refused (stale, cross: stock) or followed to a
 * vCPU that a moment later no longer waits; every action is re-checked
 * against KVM's run state, a yield is one-shot and a park bounded.
 * @reserved is copied after the window; its order does not matter.
 * Whatever is read is checked like any guest value, so a record torn by a
 * hostile guest costs what stock does.
 *
 * Context: the spinner's task.  kvm->srcu is held: every caller is in
 * KVM_RUN, under the read lock kvm_arch_vcpu_ioctl_run() takes.  May sleep
 * (get_user() may fault).
 *
 * Return: PVPLE_REC_UNREGISTERED if @t has no area, PVPLE_REC_FAULT if it
 * cannot be read, PVPLE_REC_TORN if @wait changed between its two loads,
 * else what pvple_rec_check() says of the copy.
 */
enum pvple_rec pvple_read_other(struct kvm_vcpu *t, struct pvple_vcpu *tpv,
				struct pvple_area *rec)
{
	struct pvple_area __user *area;
	unsigned long hva;
	u64 w2;
	gpa_t gpa;

	/* Pairs with the release in pvple_register(): its GPA is valid. */
	if (!tpv || !smp_load_acquire(&tpv->registered))
		return PVPLE_REC_UNREGISTERED;
	gpa = READ_ONCE(tpv->gpa);
	hva = gfn_to_hva(t->kvm, gpa_to_gfn(gpa));
	if (kvm_is_error_hva(hva))
		return PVPLE_REC_FAULT;
	/* Aligned to PVPLE_AREA_ALIGN, the area lies in that one page. */
	area = (struct pvple_area __user *)(hva + offset_in_page(gpa));
	if (get_user(rec->wait, &area->wait))
		return PVPLE_REC_FAULT;
	/* w1 before l: a @lock stored after w1's @wait goes with a new w2. */
	smp_rmb();
	if (get_user(rec->lock, &area->lock))
		return PVPLE_REC_FAULT;
	/* l before w2: a @wait stored after l shows in w2. */
	smp_rmb();
	if (get_user(w2, &area->wait))
		return PVPLE_REC_FAULT;
	if (w2 != rec->wait)
		return PVPLE_REC_TORN;
	if (copy_from_user(rec->reserved, area->reserved,
			   sizeof(rec->reserved)))
		return PVPLE_REC_FAULT;
	return pvple_rec_check(rec, t->vcpu_id, t->kvm->arch.max_vcpu_ids);
}
