// SPDX-License-Identifier: GPL-2.0
/*
 * Per-VM state and counters.
 *
 * A VM is tracked from kvm_arch_post_init_vm() to kvm_arch_destroy_vm().
 * VMs created before the module loaded are not tracked: their events count
 * in the global "untracked" counter and they get stock KVM behaviour.
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
	[PVPLE_STAT_PLE_EXITS]	= "ple_exits",
	[PVPLE_STAT_HYPERCALLS]	= "hypercalls",
	[PVPLE_STAT_HC_PROBE]	= "hc_probe",
	[PVPLE_STAT_HC_UNKNOWN]	= "hc_unknown",
	[PVPLE_STAT_HC_EPERM]	= "hc_eperm",
	[PVPLE_STAT_SCHED_IN]	= "sched_in",
	[PVPLE_STAT_VCPU_LOAD]	= "vcpu_load",
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

void pvple_vm_count(struct kvm *kvm, enum pvple_stat stat)
{
	struct pvple_vm *vm;

	this_cpu_inc(pvple_global_stats.v[stat]);
	rcu_read_lock();
	vm = pvple_vm_find(kvm);
	if (vm)
		this_cpu_inc(vm->stats->v[stat]);
	else
		this_cpu_inc(pvple_untracked_events);
	rcu_read_unlock();
}

void pvple_vcpu_loaded(struct kvm_vcpu *vcpu)
{
	/*
	 * KVM's sched-in notifier loads the vCPU while ->scheduled_out is still
	 * set; an ioctl's vcpu_load() does not.
	 */
	bool sched_in = READ_ONCE(vcpu->scheduled_out);

	trace_kvm_pvple_vcpu_load(vcpu->kvm, vcpu->vcpu_id, sched_in);
	pvple_vm_count(vcpu->kvm, sched_in ? PVPLE_STAT_SCHED_IN :
			PVPLE_STAT_VCPU_LOAD);
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

/* Called on entry to ftrace callbacks: must not sleep. */
void pvple_vm_created(struct kvm *kvm)
{
	struct pvple_vm *vm;

	vm = kzalloc(sizeof(*vm), GFP_ATOMIC | __GFP_ACCOUNT);
	if (vm)
		vm->stats = alloc_percpu_gfp(struct pvple_stats,
					     GFP_ATOMIC | __GFP_ACCOUNT);
	if (!vm || !vm->stats) {
		kfree(vm);
		atomic64_inc(&pvple_vm_alloc_failed);
		return;
	}
	vm->kvm = kvm;
	pvple_vm_name(vm, kvm);

	spin_lock(&pvple_vm_lock);
	hash_add_rcu(pvple_vm_hash, &vm->hnode, (unsigned long)kvm);
	list_add_tail(&vm->lnode, &pvple_vm_list);
	spin_unlock(&pvple_vm_lock);
	atomic64_inc(&pvple_vms_created);
	trace_kvm_pvple_vm(kvm, vm->name, true);
}

static void pvple_vm_free_rcu(struct rcu_head *head)
{
	struct pvple_vm *vm = container_of(head, struct pvple_vm, rcu);

	free_percpu(vm->stats);
	kfree(vm);
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
