// SPDX-License-Identifier: GPL-2.0
/*
 * Per-VM state and its lifetime; the per-vCPU state within it is vcpu.c's.
 *
 * A VM is tracked from kvm_arch_post_init_vm() to kvm_arch_destroy_vm().
 * A VM created before the module loaded is adopted when one of its vCPUs
 * first registers; until then its events count in the global
 * "untracked_vm_events" (stats.c) and it gets stock KVM behaviour.
 */
#include <linux/slab.h>

#include "pvple.h"
#include "pvple_trace.h"

static atomic64_t pvple_vms_created, pvple_vms_destroyed, pvple_vm_alloc_failed;
static atomic64_t pvple_vms_stale;

/* pvple.h: pvple_vm_find(); pvple_vm_lock also guards the list. */
struct rhashtable pvple_vm_table;
static LIST_HEAD(pvple_vm_list);
static DEFINE_SPINLOCK(pvple_vm_lock);
/* Frees VMs after a grace period, in process context (xa_destroy()). */
static struct workqueue_struct *pvple_free_wq;

static void pvple_vm_name(struct pvple_vm *vm, struct kvm *kvm)
{
	/* Same name as KVM's per-VM debugfs directory, so tools can join. */
	if (!IS_ERR_OR_NULL(kvm->debugfs_dentry))
		strscpy(vm->name, kvm->debugfs_dentry->d_name.name,
			sizeof(vm->name));
	else
		strscpy(vm->name, kvm->stats_id, sizeof(vm->name));
}

static struct pvple_vm *pvple_vm_alloc(struct kvm *kvm, gfp_t gfp)
{
	struct pvple_vm *vm;

	vm = kzalloc(sizeof(*vm), gfp | __GFP_ACCOUNT);
	if (!vm) {
		atomic64_inc(&pvple_vm_alloc_failed);
		return NULL;
	}
	vm->stats = pvple_stats_alloc(gfp);
	vm->mode = -1;
	vm->kvm = kvm;
	xa_init(&vm->vcpus);
	xa_init(&vm->by_id);
	pvple_vm_name(vm, kvm);
	return vm;
}

static void pvple_vm_free(struct pvple_vm *vm)
{
	struct pvple_vcpu *pv;
	unsigned long i;

	xa_for_each(&vm->vcpus, i, pv)
		pvple_vcpu_free(vm, pv);
	xa_destroy(&vm->vcpus);
	xa_destroy(&vm->by_id);
	free_percpu(vm->stats);
	kfree(vm);
}

static void pvple_vm_unlink_free(struct pvple_vm *vm);

/*
 * Returns the tracked VM for @kvm: @vm if it went in, or the one before.
 * A new VM (@born) replaces whatever is tracked at its address: that can
 * only be the state of a destroyed VM whose end was not seen.
 */
static struct pvple_vm *pvple_vm_insert(struct pvple_vm *vm, bool born)
{
	struct pvple_vm *old = NULL;
	int ret;

	spin_lock(&pvple_vm_lock);
	rcu_read_lock();
	ret = rhashtable_lookup_insert_fast(&pvple_vm_table, &vm->hnode,
					    pvple_vm_params);
	if (ret == -EEXIST) {
		old = pvple_vm_find(vm->kvm);
		if (born && old) {
			pr_warn_ratelimited("VM %s: replacing the state of a destroyed VM at the same address\n",
					    vm->name);
			atomic64_inc(&pvple_vms_stale);
			pvple_vm_unlink_free(old);
			old = NULL;
			ret = rhashtable_lookup_insert_fast(&pvple_vm_table,
							    &vm->hnode,
							    pvple_vm_params);
		}
	}
	if (!ret)
		list_add_tail_rcu(&vm->lnode, &pvple_vm_list);
	rcu_read_unlock();
	spin_unlock(&pvple_vm_lock);
	if (ret) {
		if (!old)
			atomic64_inc(&pvple_vm_alloc_failed);
		pvple_vm_free(vm);
		return old;
	}
	atomic64_inc(&pvple_vms_created);
	trace_kvm_pvple_vm(vm->kvm, vm->name, true);
	return vm;
}

/**
 * pvple_vm_created() - Start tracking a VM that KVM has just created.
 * @kvm: the new VM.
 *
 * Allocates the VM's state, with the l3_cache= mode in force now, and
 * inserts it; it replaces any state left at the same address by a VM whose
 * destruction was not seen.  If the allocation fails the VM goes untracked
 * (vm_alloc_failed), like one created before the module loaded.
 *
 * Context: called from an ftrace callback, on entry to
 * kvm_arch_post_init_vm(): must not sleep.
 */
void pvple_vm_created(struct kvm *kvm)
{
	struct pvple_vm *vm = pvple_vm_alloc(kvm, GFP_ATOMIC);

	if (!vm)
		return;
	vm->born = true;
	vm->l3_mode = READ_ONCE(pvple_l3_mode);
	pvple_vm_insert(vm, true);
}

/**
 * pvple_vm_adopt() - Find a VM's state, or start tracking the VM now.
 * @kvm: the VM.
 *
 * A VM that existed before the module loaded, found by its first pvple
 * registration.  A VM already tracked is returned as it is, after a second
 * try at the counters if they could not be allocated at its creation.
 *
 * Context: process context, kvm->srcu held, the VM alive; may sleep.
 *
 * Return: the VM's state, or NULL if there is no memory for it.
 */
struct pvple_vm *pvple_vm_adopt(struct kvm *kvm)
{
	struct pvple_stats __percpu *stats;
	struct pvple_vm *vm;

	rcu_read_lock();
	vm = pvple_vm_find(kvm);
	rcu_read_unlock();
	if (vm) {
		/*
		 * Counters that failed at creation: a second chance.  Only
		 * vCPU tasks of this VM get here, and they may race: the
		 * first store wins, the others free theirs.  Readers take the
		 * pointer once (READ_ONCE) and see all-zero memory or none.
		 */
		if (!READ_ONCE(vm->stats)) {
			stats = pvple_stats_alloc(GFP_KERNEL);
			if (stats && cmpxchg(&vm->stats, NULL, stats))
				free_percpu(stats);
		}
		return vm;
	}
	vm = pvple_vm_alloc(kvm, GFP_KERNEL);
	return vm ? pvple_vm_insert(vm, false) : NULL;
}

static void pvple_vm_free_work(struct work_struct *work)
{
	pvple_vm_free(container_of(to_rcu_work(work), struct pvple_vm,
				   free_work));
}

DEFINE_PER_CPU(struct pvple_loaded, pvple_loaded);

/**
 * pvple_loaded_forget() - Forget the loads of a VM's vCPUs.
 * @vm: a VM's state, about to be unlinked.
 *
 * Clears every CPU's struct pvple_loaded that names @vm, so that no later
 * pvple_lookup_loaded() finds it through a vCPU allocated where one of its
 * vCPUs was.  None of @vm's vCPUs is loaded anew where the hooks see it:
 * its VM is being destroyed (what kvm_arch_destroy_vm() loads from now on
 * finds no tracked VM), was destroyed unseen, or the hooks are gone
 * (module exit).  So no CPU names @vm after this; a CPU that loads another
 * vCPU meanwhile may have that entry cleared too, which costs its next
 * PLE exit one pvple_lookup().
 *
 * Context: under pvple_vm_lock; O(CPUs), once per VM.
 */
void pvple_loaded_forget(struct pvple_vm *vm)
{
	struct pvple_loaded *l;
	int cpu;

	for_each_possible_cpu(cpu) {
		l = per_cpu_ptr(&pvple_loaded, cpu);
		if (READ_ONCE(l->vm) == vm)
			WRITE_ONCE(l->vcpu, NULL);
	}
}

/* Unlinked under pvple_vm_lock; freed once no RCU reader can see it. */
static void pvple_vm_unlink_free(struct pvple_vm *vm)
{
	pvple_loaded_forget(vm);
	rhashtable_remove_fast(&pvple_vm_table, &vm->hnode, pvple_vm_params);
	list_del_rcu(&vm->lnode);
	INIT_RCU_WORK(&vm->free_work, pvple_vm_free_work);
	queue_rcu_work(pvple_free_wq, &vm->free_work);
}

/**
 * pvple_vm_destroyed() - Stop tracking a VM that KVM is destroying.
 * @kvm: the VM.
 *
 * Unlinks the VM's state, if it is tracked, and frees it once no RCU
 * reader can see it.
 *
 * Context: called from an ftrace callback, on entry to
 * kvm_arch_destroy_vm(): must not sleep.  Takes pvple_vm_lock.
 */
void pvple_vm_destroyed(struct kvm *kvm)
{
	struct pvple_vm *vm;

	spin_lock(&pvple_vm_lock);
	rcu_read_lock();
	vm = pvple_vm_find(kvm);
	if (vm) {
		atomic64_inc(&pvple_vms_destroyed);
		trace_kvm_pvple_vm(kvm, vm->name, false);
		pvple_vm_unlink_free(vm);
	}
	rcu_read_unlock();
	spin_unlock(&pvple_vm_lock);
}

/**
 * pvple_vm_wake_all() - Wake every vCPU parked in any tracked VM.
 *
 * Module unload: end every park (park.c has set its flag).
 *
 * Context: takes pvple_vm_lock.
 */
void pvple_vm_wake_all(void)
{
	struct pvple_vcpu *pv;
	struct pvple_vm *vm;
	unsigned long i;

	spin_lock(&pvple_vm_lock);
	list_for_each_entry(vm, &pvple_vm_list, lnode)
		xa_for_each(&vm->vcpus, i, pv)
			swake_up_all(&pv->waiters);
	spin_unlock(&pvple_vm_lock);
}

/**
 * pvple_vm_lifetime() - Read the VMs' lifetime counters.
 * @l: where to store them.
 *
 * The VMs' lifetime counters, for debugfs "global".
 */
void pvple_vm_lifetime(struct pvple_vm_lifetime *l)
{
	l->created = atomic64_read(&pvple_vms_created);
	l->destroyed = atomic64_read(&pvple_vms_destroyed);
	l->stale_replaced = atomic64_read(&pvple_vms_stale);
	l->alloc_failed = atomic64_read(&pvple_vm_alloc_failed);
}

/**
 * pvple_vm_for_each() - Call a function on every tracked VM.
 * @fn: the function; its first argument is the VM's state.
 * @arg: passed to @fn as its second argument.
 *
 * Calls @fn on every tracked VM, under RCU, not pvple_vm_lock: a slow
 * reader never delays a VM's creation or end.  @fn must not sleep.
 */
void pvple_vm_for_each(void (*fn)(struct pvple_vm *vm, void *arg), void *arg)
{
	struct pvple_vm *vm;

	rcu_read_lock();
	list_for_each_entry_rcu(vm, &pvple_vm_list, lnode)
		fn(vm, arg);
	rcu_read_unlock();
}

/**
 * pvple_vm_init() - Set up the table of tracked VMs.
 *
 * Sets up the table and the workqueue that frees VMs' state after a grace
 * period.
 *
 * Context: process context (module init); may sleep.
 *
 * Return: 0, or a negative errno.
 */
int pvple_vm_init(void)
{
	int ret = rhashtable_init(&pvple_vm_table, &pvple_vm_params);

	if (ret)
		return ret;
	pvple_free_wq = alloc_workqueue("kvm_pvple_free", 0, 0);
	if (!pvple_free_wq) {
		rhashtable_destroy(&pvple_vm_table);
		return -ENOMEM;
	}
	return 0;
}

/**
 * pvple_vm_exit() - Free the state of every tracked VM, and the table.
 *
 * Called once the hooks are gone: nothing else touches the table.
 *
 * Context: process context (module exit); sleeps until every VM's state
 * is freed.
 */
void pvple_vm_exit(void)
{
	struct pvple_vm *vm, *tmp;

	spin_lock(&pvple_vm_lock);
	list_for_each_entry_safe(vm, tmp, &pvple_vm_list, lnode)
		pvple_vm_unlink_free(vm);
	spin_unlock(&pvple_vm_lock);
	/* queue_rcu_work() queues after a grace period: wait for both. */
	rcu_barrier();
	destroy_workqueue(pvple_free_wq);
	rhashtable_destroy(&pvple_vm_table);
}
