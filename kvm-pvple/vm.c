// SPDX-License-Identifier: GPL-2.0
/*
 * Per-VM state and counters.
 *
 * A VM is tracked from kvm_arch_post_init_vm() to kvm_arch_destroy_vm().
 * A VM created before the module loaded is adopted when one of its vCPUs
 * first registers; until then its events count in the global
 * "untracked_vm_events" and it gets stock KVM behaviour.
 *
 * Counters are per-CPU so that the PLE and schedule-in paths never share a
 * cache line between CPUs; readers sum them.  They are exposed in debugfs:
 *
 *   /sys/kernel/debug/kvm-pvple/global  totals over every VM, ever
 *   /sys/kernel/debug/kvm-pvple/vms     one line per live VM, named as KVM
 *                                       names its debugfs directory
 */
#include <linux/debugfs.h>
#include <linux/hashtable.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "pvple.h"
#include "pvple_trace.h"

static const char * const pvple_stat_names[PVPLE_NR_STATS] = {
	[PVPLE_STAT_PLE_EXITS]		= "ple_exits",
	[PVPLE_STAT_HYPERCALLS]		= "hypercalls",
	[PVPLE_STAT_HC_PROBE]		= "hc_probe",
	[PVPLE_STAT_HC_REGISTER]	= "hc_register",
	[PVPLE_STAT_HC_UNREGISTER]	= "hc_unregister",
	[PVPLE_STAT_HC_PARK]		= "hc_park",
	[PVPLE_STAT_HC_UNKNOWN]		= "hc_unknown",
	[PVPLE_STAT_HC_EPERM]		= "hc_eperm",
	[PVPLE_STAT_SCHED_IN]		= "sched_in",
	[PVPLE_STAT_VCPU_LOAD]		= "vcpu_load",
	[PVPLE_STAT_STOCK]		= "stock",
	[PVPLE_STAT_SPIN]		= "spin",
	[PVPLE_STAT_YIELD_TRIED]	= "yield_tried",
	[PVPLE_STAT_YIELD_OK]		= "yield_ok",
	[PVPLE_STAT_PARKS]		= "parks",
	[PVPLE_STAT_WAKE_SCHED_IN]	= "wake_sched_in",
	[PVPLE_STAT_WAKE_TIMEOUT]	= "wake_timeout",
	[PVPLE_STAT_WAKE_EVENT]		= "wake_event",
	[PVPLE_STAT_WAKE_TEARDOWN]	= "wake_teardown",
	[PVPLE_STAT_PARK_NS]		= "park_ns",
	[PVPLE_STAT_REC_UNREGISTERED]	= "rec_unregistered",
	[PVPLE_STAT_REC_FAULT]		= "rec_fault",
	[PVPLE_STAT_REC_IDLE]		= "rec_idle",
	[PVPLE_STAT_REC_TORN]		= "rec_torn",
	[PVPLE_STAT_REC_BAD]		= "rec_bad",
	[PVPLE_STAT_REC_TARGET_RANGE]	= "rec_target_range",
	[PVPLE_STAT_REC_TARGET_SELF]	= "rec_target_self",
	[PVPLE_STAT_REC_TARGET_ABSENT]	= "rec_target_absent",
	[PVPLE_STAT_REC_CYCLE]		= "rec_cycle",
	[PVPLE_STAT_REG_OK]		= "reg_ok",
	[PVPLE_STAT_REG_REPLACED]	= "reg_replaced",
	[PVPLE_STAT_REG_BAD_VERSION]	= "reg_bad_version",
	[PVPLE_STAT_REG_UNALIGNED]	= "reg_unaligned",
	[PVPLE_STAT_REG_BAD_GPA]	= "reg_bad_gpa",
	[PVPLE_STAT_REG_NOMEM]		= "reg_nomem",
	[PVPLE_STAT_UNREG_UNKNOWN]	= "unreg_unknown",
	[PVPLE_STAT_L3_ADDED]		= "l3_added",
	[PVPLE_STAT_L3_RESHARED]	= "l3_reshared",
	[PVPLE_STAT_L3_KEPT]		= "l3_kept",
	[PVPLE_STAT_L3_OFF]		= "l3_off",
	[PVPLE_STAT_L3_NO_VENDOR]	= "l3_no_vendor",
	[PVPLE_STAT_L3_NO_SLOT]		= "l3_no_slot",
	[PVPLE_STAT_L3_FOREIGN]		= "l3_foreign",
	[PVPLE_STAT_L3_UNMATCHED]	= "l3_unmatched",
};

static DEFINE_PER_CPU(struct pvple_stats, pvple_global_stats);
static DEFINE_PER_CPU(u64, pvple_untracked_events);
static atomic64_t pvple_vms_created, pvple_vms_destroyed, pvple_vm_alloc_failed;

/* Writers hold pvple_vm_lock; the hot paths read the hash under RCU. */
static DEFINE_HASHTABLE(pvple_vm_hash, 6);
static LIST_HEAD(pvple_vm_list);
static DEFINE_SPINLOCK(pvple_vm_lock);

static struct dentry *pvple_debugfs;

struct pvple_vm *pvple_vm_find(struct kvm *kvm)
{
	struct pvple_vm *vm;

	hash_for_each_possible_rcu(pvple_vm_hash, vm, hnode, (unsigned long)kvm)
		if (vm->kvm == kvm)
			return vm;
	return NULL;
}

void pvple_count_n(struct pvple_vm *vm, enum pvple_stat stat, u64 n)
{
	this_cpu_add(pvple_global_stats.v[stat], n);
	if (vm)
		this_cpu_add(vm->stats->v[stat], n);
	else
		this_cpu_inc(pvple_untracked_events);
}

void pvple_count(struct pvple_vm *vm, enum pvple_stat stat)
{
	pvple_count_n(vm, stat, 1);
}

void pvple_vm_count(struct kvm *kvm, enum pvple_stat stat)
{
	rcu_read_lock();
	pvple_count(pvple_vm_find(kvm), stat);
	rcu_read_unlock();
}

struct pvple_vcpu *pvple_vcpu_find(struct pvple_vm *vm, struct kvm_vcpu *vcpu)
{
	return xa_load(&vm->vcpus, vcpu->vcpu_idx);
}

/* The vCPU's own state, allocated on first use; process context only. */
struct pvple_vcpu *pvple_vcpu_get(struct pvple_vm *vm, struct kvm_vcpu *vcpu)
{
	struct pvple_vcpu *pv = xa_load(&vm->vcpus, vcpu->vcpu_idx), *old;

	if (pv)
		return pv;
	pv = kzalloc(sizeof(*pv), GFP_KERNEL_ACCOUNT);
	if (!pv)
		return NULL;
	old = xa_cmpxchg(&vm->vcpus, vcpu->vcpu_idx, NULL, pv,
			 GFP_KERNEL_ACCOUNT);
	if (old || xa_is_err(old)) {
		kfree(pv);
		return xa_is_err(old) ? NULL : old;
	}
	return pv;
}

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
	if (vm)
		vm->stats = alloc_percpu_gfp(struct pvple_stats,
					     gfp | __GFP_ACCOUNT);
	if (!vm || !vm->stats) {
		kfree(vm);
		atomic64_inc(&pvple_vm_alloc_failed);
		return NULL;
	}
	vm->kvm = kvm;
	xa_init(&vm->vcpus);
	pvple_vm_name(vm, kvm);
	return vm;
}

static void pvple_vm_free(struct pvple_vm *vm)
{
	struct pvple_vcpu *pv;
	unsigned long i;

	xa_for_each(&vm->vcpus, i, pv)
		kfree(pv);
	xa_destroy(&vm->vcpus);
	free_percpu(vm->stats);
	kfree(vm);
}

/* Returns the tracked VM for @kvm: @vm if it went in, or the one before. */
static struct pvple_vm *pvple_vm_insert(struct pvple_vm *vm)
{
	struct pvple_vm *old;

	spin_lock(&pvple_vm_lock);
	old = pvple_vm_find(vm->kvm);
	if (!old) {
		hash_add_rcu(pvple_vm_hash, &vm->hnode, (unsigned long)vm->kvm);
		list_add_tail(&vm->lnode, &pvple_vm_list);
	}
	spin_unlock(&pvple_vm_lock);
	if (old) {
		pvple_vm_free(vm);
		return old;
	}
	atomic64_inc(&pvple_vms_created);
	trace_kvm_pvple_vm(vm->kvm, vm->name, true);
	return vm;
}

/* Called on entry to ftrace callbacks: must not sleep. */
void pvple_vm_created(struct kvm *kvm)
{
	struct pvple_vm *vm = pvple_vm_alloc(kvm, GFP_ATOMIC);

	if (!vm)
		return;
	vm->born = true;
	vm->l3_mode = READ_ONCE(pvple_l3_mode);
	pvple_vm_insert(vm);
}

/*
 * A VM that existed before the module loaded, found by its first pvple
 * registration (process context, kvm->srcu held, the VM alive).
 */
struct pvple_vm *pvple_vm_adopt(struct kvm *kvm)
{
	struct pvple_vm *vm;

	rcu_read_lock();
	vm = pvple_vm_find(kvm);
	rcu_read_unlock();
	if (vm)
		return vm;
	vm = pvple_vm_alloc(kvm, GFP_KERNEL);
	return vm ? pvple_vm_insert(vm) : NULL;
}

static void pvple_vm_free_rcu(struct rcu_head *head)
{
	pvple_vm_free(container_of(head, struct pvple_vm, rcu));
}

static void pvple_vm_unlink(struct pvple_vm *vm)
{
	hash_del_rcu(&vm->hnode);
	list_del(&vm->lnode);
}

void pvple_vm_destroyed(struct kvm *kvm)
{
	struct pvple_vm *vm;

	spin_lock(&pvple_vm_lock);
	vm = pvple_vm_find(kvm);
	if (vm)
		pvple_vm_unlink(vm);
	spin_unlock(&pvple_vm_lock);
	if (!vm)
		return;
	atomic64_inc(&pvple_vms_destroyed);
	trace_kvm_pvple_vm(kvm, vm->name, false);
	call_rcu(&vm->rcu, pvple_vm_free_rcu);
}

static void pvple_stats_sum(struct pvple_stats __percpu *pcpu,
			    struct pvple_stats *sum)
{
	int cpu, i;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu)
		for (i = 0; i < PVPLE_NR_STATS; i++)
			sum->v[i] += per_cpu_ptr(pcpu, cpu)->v[i];
}

static void pvple_stats_show(struct seq_file *m, struct pvple_stats *sum,
			     const char *sep)
{
	int i;

	for (i = 0; i < PVPLE_NR_STATS; i++)
		seq_printf(m, "%s%s%s%llu", i ? sep : "", pvple_stat_names[i],
			   *sep == '\n' ? " " : "=", sum->v[i]);
	seq_putc(m, '\n');
}

static int pvple_global_show(struct seq_file *m, void *unused)
{
	struct pvple_stats sum;
	u64 untracked = 0;
	int cpu;

	pvple_stats_sum(&pvple_global_stats, &sum);
	pvple_stats_show(m, &sum, "\n");
	for_each_possible_cpu(cpu)
		untracked += per_cpu(pvple_untracked_events, cpu);
	seq_printf(m, "untracked_vm_events %llu\n", untracked);
	seq_printf(m, "vms_created %lld\n", atomic64_read(&pvple_vms_created));
	seq_printf(m, "vms_destroyed %lld\n",
		   atomic64_read(&pvple_vms_destroyed));
	seq_printf(m, "vm_alloc_failed %lld\n",
		   atomic64_read(&pvple_vm_alloc_failed));
	seq_printf(m, "cpuid_hooked %d\n", pvple_cpuid_hooked());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pvple_global);

static int pvple_vms_show(struct seq_file *m, void *unused)
{
	struct pvple_stats sum;
	struct pvple_vm *vm;

	spin_lock(&pvple_vm_lock);
	list_for_each_entry(vm, &pvple_vm_list, lnode) {
		pvple_stats_sum(vm->stats, &sum);
		seq_printf(m, "%s ", vm->name);
		pvple_stats_show(m, &sum, " ");
	}
	spin_unlock(&pvple_vm_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pvple_vms);

int pvple_vm_init(void)
{
	pvple_debugfs = debugfs_create_dir("kvm-pvple", NULL);
	debugfs_create_file("global", 0444, pvple_debugfs, NULL,
			    &pvple_global_fops);
	debugfs_create_file("vms", 0444, pvple_debugfs, NULL, &pvple_vms_fops);
	return 0;
}

/* Called once the hooks are gone: nothing else touches the table. */
void pvple_vm_exit(void)
{
	struct pvple_vm *vm, *tmp;

	debugfs_remove(pvple_debugfs);
	spin_lock(&pvple_vm_lock);
	list_for_each_entry_safe(vm, tmp, &pvple_vm_list, lnode) {
		pvple_vm_unlink(vm);
		call_rcu(&vm->rcu, pvple_vm_free_rcu);
	}
	spin_unlock(&pvple_vm_lock);
	rcu_barrier();
}
