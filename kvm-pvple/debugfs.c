// SPDX-License-Identifier: GPL-2.0
/*
 * What an operator sees and sets, in debugfs:
 *
 *   /sys/kernel/debug/kvm-pvple/global  totals over every VM, ever
 *   /sys/kernel/debug/kvm-pvple/vms     one line per live VM, named as KVM
 *                                       names its debugfs directory
 *   /sys/kernel/debug/kvm-pvple/mode    "<vm> <mode>": a VM's own mode
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "pvple.h"

static struct dentry *pvple_debugfs;
/* Given by main.c once the hooks are in: no call back up into hooks.c. */
static bool pvple_debugfs_cpuid_hooked;

static int pvple_global_show(struct seq_file *m, void *unused)
{
	struct pvple_vm_lifetime l;
	u64 untracked, stats_failed;
	struct pvple_stats sum;

	pvple_stats_global(&sum, &untracked, &stats_failed);
	pvple_vm_lifetime(&l);
	pvple_stats_show(m, &sum, "\n");
	seq_printf(m, "untracked_vm_events %llu\n", untracked);
	seq_printf(m, "vms_created %llu\n", l.created);
	seq_printf(m, "vms_destroyed %llu\n", l.destroyed);
	seq_printf(m, "vms_stale_replaced %llu\n", l.stale_replaced);
	seq_printf(m, "vm_alloc_failed %llu\n", l.alloc_failed);
	seq_printf(m, "vm_stats_failed %llu\n", stats_failed);
	seq_printf(m, "cpuid_hooked %d\n", pvple_debugfs_cpuid_hooked);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pvple_global);

/* One line per VM: under RCU (pvple_vm_for_each()), so it must not sleep. */
static void pvple_vm_show(struct pvple_vm *vm, void *arg)
{
	struct pvple_stats __percpu *stats = READ_ONCE(vm->stats);
	int mode = READ_ONCE(vm->mode);
	struct seq_file *m = arg;
	struct pvple_stats sum;

	seq_printf(m, "%s mode=%s ", vm->name,
		   mode < 0 ? "default" : pvple_mode_names[mode]);
	if (!stats) {
		seq_puts(m, "counters=unavailable\n");
		return;
	}
	pvple_stats_sum(stats, &sum);
	pvple_stats_show(m, &sum, " ");
}

static int pvple_vms_show(struct seq_file *m, void *unused)
{
	pvple_vm_for_each(pvple_vm_show, m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pvple_vms);

struct pvple_mode_set {
	const char *name;
	int mode;
	bool found;
};

static void pvple_vm_set_mode(struct pvple_vm *vm, void *arg)
{
	struct pvple_mode_set *set = arg;

	if (!strcmp(vm->name, set->name)) {
		WRITE_ONCE(vm->mode, set->mode);
		set->found = true;
	}
}

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
	struct pvple_mode_set set = { };
	int mode;

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
	set.name = name;
	set.mode = mode;
	pvple_vm_for_each(pvple_vm_set_mode, &set);
	return set.found ? len : -ENOENT;
}

static const struct file_operations pvple_mode_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = pvple_mode_write,
	.llseek = noop_llseek,
};

/**
 * pvple_debugfs_init() - Create the kvm-pvple debugfs directory and files.
 * @cpuid_hooked: whether kvm_set_cpuid() is hooked, i.e. l3_cache= can do
 *	anything; shown as cpuid_hooked in "global".
 *
 * Creates "global", "vms" and "mode".  Given @cpuid_hooked by main.c once
 * the hooks are in, so that nothing here calls back up into hooks.c.
 *
 * Context: process context (module init).
 */
void pvple_debugfs_init(bool cpuid_hooked)
{
	pvple_debugfs_cpuid_hooked = cpuid_hooked;
	pvple_debugfs = debugfs_create_dir("kvm-pvple", NULL);
	debugfs_create_file("global", 0444, pvple_debugfs, NULL,
			    &pvple_global_fops);
	debugfs_create_file("vms", 0444, pvple_debugfs, NULL, &pvple_vms_fops);
	debugfs_create_file("mode", 0200, pvple_debugfs, NULL, &pvple_mode_fops);
}

/**
 * pvple_debugfs_exit() - Remove the kvm-pvple debugfs directory.
 *
 * Removes the directory and every file in it.
 *
 * Context: process context (module exit).
 */
void pvple_debugfs_exit(void)
{
	debugfs_remove(pvple_debugfs);
}
