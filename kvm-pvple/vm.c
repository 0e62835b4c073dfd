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
	[PVPLE_STAT_HC_THROTTLED]	= "hc_throttled",
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
	[PVPLE_STAT_REC_NO_HOLDER]	= "rec_no_holder",
	[PVPLE_STAT_CHAIN_HOPS]		= "chain_hops",
	[PVPLE_STAT_CHAIN_NO_HOLDER]	= "chain_no_holder",
	[PVPLE_STAT_CHAIN_DEEP]		= "chain_deep",
	[PVPLE_STAT_CHAIN_STALE]	= "chain_stale",
	[PVPLE_STAT_CHAIN_CROSS]	= "chain_cross",
	[PVPLE_STAT_CHAIN_CYCLE]	= "chain_cycle",
	[PVPLE_STAT_CHAIN_ABSENT]	= "chain_absent",
	[PVPLE_STAT_CHAIN_HEAD]		= "chain_head",
	[PVPLE_STAT_YIELD_BEYOND]	= "yield_beyond",
	[PVPLE_STAT_YIELD_HOLDER]	= "yield_holder",
	[PVPLE_STAT_SPIN_LIMIT]		= "spin_limit",
	[PVPLE_STAT_YIELD_REACHED]	= "yield_reached",
	[PVPLE_STAT_YIELD_MISSED]	= "yield_missed",
	[PVPLE_STAT_REG_OK]		= "reg_ok",
	[PVPLE_STAT_REG_REPLACED]	= "reg_replaced",
	[PVPLE_STAT_REG_BAD_VERSION]	= "reg_bad_version",
	[PVPLE_STAT_REG_UNALIGNED]	= "reg_unaligned",
	[PVPLE_STAT_REG_BAD_GPA]	= "reg_bad_gpa",
	[PVPLE_STAT_REG_NOMEM]		= "reg_nomem",
	[PVPLE_STAT_UNREG_UNKNOWN]	= "unreg_unknown",
	[PVPLE_STAT_UNREG_RESET]	= "unreg_reset",
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
static atomic64_t pvple_vms_stale, pvple_vm_stats_failed;

/*
 * struct kvm -> struct pvple_vm.  A resizable hash table: the lookup on
 * every vCPU load stays O(1) however many VMs the host runs.  Writers hold
 * pvple_vm_lock (which also guards the list); the hot paths read under RCU.
 */
static const struct rhashtable_params pvple_vm_params = {
	.key_len = sizeof(struct kvm *),
	.key_offset = offsetof(struct pvple_vm, kvm),
	.head_offset = offsetof(struct pvple_vm, hnode),
	.automatic_shrinking = true,
};

static struct rhashtable pvple_vm_table;
static LIST_HEAD(pvple_vm_list);
static DEFINE_SPINLOCK(pvple_vm_lock);
/* Frees VMs after a grace period, in process context (xa_destroy()). */
static struct workqueue_struct *pvple_free_wq;

static struct dentry *pvple_debugfs;

/* Under rcu_read_lock(). */
struct pvple_vm *pvple_vm_find(struct kvm *kvm)
{
	return rhashtable_lookup(&pvple_vm_table, &kvm, pvple_vm_params);
}

/*
 * The mode this VM's PLE exits and park calls get: its own, set through
 * debugfs "mode", or the module's mode= for all others.  One load of a
 * field of the VM's own state, on the PLE path.
 */
int pvple_vm_mode(struct pvple_vm *vm)
{
	int mode = vm ? READ_ONCE(vm->mode) : -1;

	return mode >= 0 ? mode : READ_ONCE(pvple_mode);
}

/*
 * A VM's counters may be missing (their allocation failed at creation):
 * then only the global ones count, and untracked_vm_events says so.
 */
void pvple_count_n(struct pvple_vm *vm, enum pvple_stat stat, u64 n)
{
	struct pvple_stats __percpu *stats = vm ? READ_ONCE(vm->stats) : NULL;

	this_cpu_add(pvple_global_stats.v[stat], n);
	if (stats)
		this_cpu_add(stats->v[stat], n);
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

/*
 * A vCPU being created is loaded and reset before KVM gives it its index
 * (kvm_vm_ioctl_create_vcpu() calls kvm_arch_vcpu_create(), which does
 * vcpu_load() and kvm_vcpu_reset(), before it sets ->vcpu_idx): until
 * then its ->vcpu_idx reads 0, and it must not be taken for vCPU 0.
 */
struct pvple_vcpu *pvple_vcpu_find(struct pvple_vm *vm, struct kvm_vcpu *vcpu)
{
	struct pvple_vcpu *pv = xa_load(&vm->vcpus, vcpu->vcpu_idx);

	return pv && pv->vcpu == vcpu ? pv : NULL;
}

/* The vCPU's own state, allocated on first use; process context only. */
struct pvple_vcpu *pvple_vcpu_get(struct pvple_vm *vm, struct kvm_vcpu *vcpu)
{
	struct pvple_vcpu *pv = xa_load(&vm->vcpus, vcpu->vcpu_idx), *old;

	if (pv)
		return pv->vcpu == vcpu ? pv : NULL;
	pv = kzalloc(sizeof(*pv), GFP_KERNEL_ACCOUNT);
	if (!pv)
		return NULL;
	pv->vcpu = vcpu;
	init_swait_queue_head(&pv->waiters);
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

/*
 * The vCPU a record names, by its APIC ID (KVM's vcpu_id).  KVM's own
 * kvm_get_vcpu_by_id() walks every vCPU of the VM whenever vcpu_id is not
 * vcpu_idx, which sparse APIC IDs (QEMU topologies whose core or thread
 * counts are not powers of two) make the usual case; pvple keeps its own
 * map of the vCPUs it has state for (all of them, once one registered:
 * pvple_vcpus_get()), and asks KVM only for the others.  @id is below
 * max_vcpu_ids (the caller clamps it).
 */
struct kvm_vcpu *pvple_vcpu_by_id(struct pvple_vm *vm, struct kvm *kvm, u32 id)
{
	struct pvple_vcpu *pv = vm ? xa_load(&vm->by_id, id) : NULL;

	return pv ? pv->vcpu : kvm_get_vcpu_by_id(kvm, id);
}

/*
 * State for every vCPU the VM has now, so that any of them can be waited
 * behind (a park needs the target's queue, park.c) before it registers,
 * or if it never does.  At registration: rare, process context.
 */
void pvple_vcpus_get(struct pvple_vm *vm, struct kvm *kvm)
{
	struct kvm_vcpu *v;
	unsigned long i;

	kvm_for_each_vcpu(i, v, kvm)
		pvple_vcpu_get(vm, v);
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

/*
 * The VM's own state is small; its counters are one struct pvple_stats per
 * possible CPU (PVPLE_NR_STATS u64s each), so on a large host they are
 * the bulk, and at creation (an ftrace callback: atomic) they are the
 * allocation most likely to fail.  A VM never goes untracked for them --
 * its l3_cache mode and its parks do not depend on counters -- it is
 * tracked without, counted in vm_stats_failed, and gets them at its first
 * registration (process context) if memory allows then.
 */
static struct pvple_stats __percpu *pvple_stats_alloc(gfp_t gfp)
{
	struct pvple_stats __percpu *stats;

	stats = alloc_percpu_gfp(struct pvple_stats,
				 gfp | __GFP_ACCOUNT | __GFP_NOWARN);
	if (!stats)
		atomic64_inc(&pvple_vm_stats_failed);
	return stats;
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
		kfree(pv);
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

/* Called on entry to ftrace callbacks: must not sleep. */
void pvple_vm_created(struct kvm *kvm)
{
	struct pvple_vm *vm = pvple_vm_alloc(kvm, GFP_ATOMIC);

	if (!vm)
		return;
	vm->born = true;
	vm->l3_mode = READ_ONCE(pvple_l3_mode);
	pvple_vm_insert(vm, true);
}

/*
 * A VM that existed before the module loaded, found by its first pvple
 * registration (process context, kvm->srcu held, the VM alive).
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

/* Unlinked under pvple_vm_lock; freed once no RCU reader can see it. */
static void pvple_vm_unlink_free(struct pvple_vm *vm)
{
	rhashtable_remove_fast(&pvple_vm_table, &vm->hnode, pvple_vm_params);
	list_del_rcu(&vm->lnode);
	INIT_RCU_WORK(&vm->free_work, pvple_vm_free_work);
	queue_rcu_work(pvple_free_wq, &vm->free_work);
}

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

/* Module unload: end every park (park.c has set its flag). */
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
	seq_printf(m, "vms_stale_replaced %lld\n",
		   atomic64_read(&pvple_vms_stale));
	seq_printf(m, "vm_alloc_failed %lld\n",
		   atomic64_read(&pvple_vm_alloc_failed));
	seq_printf(m, "vm_stats_failed %lld\n",
		   atomic64_read(&pvple_vm_stats_failed));
	seq_printf(m, "cpuid_hooked %d\n", pvple_cpuid_hooked());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pvple_global);

static int pvple_vms_show(struct seq_file *m, void *unused)
{
	struct pvple_stats sum;
	struct pvple_vm *vm;
	int mode;

	/* Under RCU, not pvple_vm_lock: a slow reader never delays a VM. */
	rcu_read_lock();
	list_for_each_entry_rcu(vm, &pvple_vm_list, lnode) {
		struct pvple_stats __percpu *stats = READ_ONCE(vm->stats);

		mode = READ_ONCE(vm->mode);
		seq_printf(m, "%s mode=%s ", vm->name,
			   mode < 0 ? "default" : pvple_mode_names[mode]);
		if (!stats) {
			seq_puts(m, "counters=unavailable\n");
			continue;
		}
		pvple_stats_sum(stats, &sum);
		pvple_stats_show(m, &sum, " ");
	}
	rcu_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pvple_vms);

/*
 * Per-VM mode, for operators: "<vm> <mode>" written to debugfs "mode",
 * <vm> as the vms file names it (<pid>-<fd>), <mode> one of off, yield,
 * park, auto, or "default" to follow mode= again.  Takes effect at the
 * VM's next PLE exit; lives as long as the VM.  -ENOENT for no such VM.
 */
static ssize_t pvple_mode_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	char buf[PVPLE_VM_NAME_LEN + 16], *name, *word;
	struct pvple_vm *vm;
	int mode, ret = -ENOENT;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	word = strim(buf);
	name = strsep(&word, " \t");
	if (!word || !*name)
		return -EINVAL;
	word = strim(word);
	mode = sysfs_match_string(pvple_mode_names, word);
	if (mode < 0) {
		if (!sysfs_streq(word, "default"))
			return -EINVAL;
		mode = -1;
	}
	rcu_read_lock();
	list_for_each_entry_rcu(vm, &pvple_vm_list, lnode) {
		if (!strcmp(vm->name, name)) {
			WRITE_ONCE(vm->mode, mode);
			ret = 0;
		}
	}
	rcu_read_unlock();
	return ret ? ret : len;
}

static const struct file_operations pvple_mode_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = pvple_mode_write,
	.llseek = noop_llseek,
};

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
	pvple_debugfs = debugfs_create_dir("kvm-pvple", NULL);
	debugfs_create_file("global", 0444, pvple_debugfs, NULL,
			    &pvple_global_fops);
	debugfs_create_file("vms", 0444, pvple_debugfs, NULL, &pvple_vms_fops);
	debugfs_create_file("mode", 0200, pvple_debugfs, NULL, &pvple_mode_fops);
	return 0;
}

/* Called once the hooks are gone: nothing else touches the table. */
void pvple_vm_exit(void)
{
	struct pvple_vm *vm, *tmp;

	debugfs_remove(pvple_debugfs);
	spin_lock(&pvple_vm_lock);
	list_for_each_entry_safe(vm, tmp, &pvple_vm_list, lnode)
		pvple_vm_unlink_free(vm);
	spin_unlock(&pvple_vm_lock);
	/* queue_rcu_work() queues after a grace period: wait for both. */
	rcu_barrier();
	destroy_workqueue(pvple_free_wq);
	rhashtable_destroy(&pvple_vm_table);
}
