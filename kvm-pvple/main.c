// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-pvple: paravirtual pause-loop exits for KVM.
 *
 * Loads on a stock kernel next to kvm.ko and attaches to its PLE path,
 * hypercall path and vCPU schedule-in (see hooks.c).  Unloading restores
 * stock KVM behaviour for every VM, including VMs that are running.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include <uapi/linux/kvm_pvple.h>

#include "pvple.h"

#define CREATE_TRACE_POINTS
#include "pvple_trace.h"

/* pvple_trace.h's symbol tables end at these: a new last constant fails. */
static_assert(PVPLE_REC_OUTSIDE + 1 == PVPLE_NR_REC);
static_assert(PVPLE_CHAIN_HEAD + 1 == PVPLE_NR_CHAIN_ENDS);
static_assert(PVPLE_TARGET_SLEEPING + 1 == PVPLE_NR_TARGETS);
static_assert(PVPLE_ACT_PARK + 1 == PVPLE_NR_ACTIONS);
static_assert(PVPLE_L3_NO_SLOT + 1 == PVPLE_NR_L3_RESULTS);
static_assert(PVPLE_L3_ON + 1 == PVPLE_NR_L3_MODES);
static_assert(PVPLE_SLICE_REFUSED + 1 == PVPLE_NR_SLICES);
/* slice.c counts a refusal at PVPLE_STAT_SLICE_REFUSED_MODEL + gate - 1. */
static_assert(PVPLE_STAT_SLICE_REFUSED_REGRANT - PVPLE_STAT_SLICE_REFUSED_MODEL ==
	      PVPLE_GATE_REGRANT - PVPLE_GATE_MODEL);

/* A parameter that takes one of a few names and holds its index. */
struct pvple_enum_param {
	const char * const *names;
	int n;
	int *val;
};

static int pvple_enum_set(const char *val, const struct kernel_param *kp)
{
	const struct pvple_enum_param *p = kp->arg;
	int i = __sysfs_match_string(p->names, p->n, val);

	if (i < 0)
		return i;
	WRITE_ONCE(*p->val, i);
	return 0;
}

static int pvple_enum_get(char *buf, const struct kernel_param *kp)
{
	const struct pvple_enum_param *p = kp->arg;

	return sysfs_emit(buf, "%s\n", p->names[READ_ONCE(*p->val)]);
}

static const struct kernel_param_ops pvple_enum_ops = {
	.set = pvple_enum_set,
	.get = pvple_enum_get,
};

const char * const pvple_mode_names[PVPLE_NR_MODES] = {
	[PVPLE_MODE_OFF]	= "off",
	[PVPLE_MODE_YIELD]	= "yield",
	[PVPLE_MODE_PARK]	= "park",
	[PVPLE_MODE_AUTO]	= "auto",
};

int pvple_mode = PVPLE_MODE_AUTO;
static struct pvple_enum_param pvple_mode_param = {
	pvple_mode_names, PVPLE_NR_MODES, &pvple_mode
};
module_param_cb(mode, &pvple_enum_ops, &pvple_mode_param, 0644);
MODULE_PARM_DESC(mode, "off | yield | park | auto (default): what a PLE exit with a usable record does");

/* An unsigned parameter with a range: the value, its bounds. */
struct pvple_uint_param {
	unsigned int *val;
	unsigned int min, max;
};

static int pvple_uint_set(const char *val, const struct kernel_param *kp)
{
	const struct pvple_uint_param *p = kp->arg;
	unsigned int v;
	int ret = kstrtouint(val, 0, &v);

	if (ret)
		return ret;
	if (v < p->min || v > p->max)
		return -ERANGE;
	WRITE_ONCE(*p->val, v);
	return 0;
}

static int pvple_uint_get(char *buf, const struct kernel_param *kp)
{
	const struct pvple_uint_param *p = kp->arg;

	return sysfs_emit(buf, "%u\n", READ_ONCE(*p->val));
}

static const struct kernel_param_ops pvple_uint_ops = {
	.set = pvple_uint_set,
	.get = pvple_uint_get,
};

/*
 * The bound on one park.  A parked spinner normally wakes when the vCPU it
 * waits behind runs again (park.c); the bound only matters when that
 * never comes (a stale or hostile record), and then the spinner loses at
 * most this much before it returns to its guest and looks again.
 */
unsigned int pvple_park_max_us = 2000;
static struct pvple_uint_param pvple_park_max_param = {
	&pvple_park_max_us, 10, 100000
};
module_param_cb(park_max_us, &pvple_uint_ops, &pvple_park_max_param, 0644);
MODULE_PARM_DESC(park_max_us, "bound on one park, in microseconds (10-100000, default 2000)");

/*
 * The park hypercall's pace: a PLE exit comes at most once per PLE window,
 * but a guest may issue the hypercall back to back.  The yields and parks
 * it causes are limited to one per this many microseconds per vCPU (0: no
 * limit); a legitimate guest asks on long waits only (guest-pvlock/).
 */
unsigned int pvple_park_hc_gap_us = 25;
static struct pvple_uint_param pvple_hc_gap_param = {
	&pvple_park_hc_gap_us, 0, 1000000
};
module_param_cb(park_hc_gap_us, &pvple_uint_ops, &pvple_hc_gap_param, 0644);
MODULE_PARM_DESC(park_hc_gap_us, "at most one yield or park per this many us per vCPU from the park hypercall (0-1000000, default 25)");

/*
 * The slice extension (slice.c): how long a vCPU whose guest is inside a
 * critical section may keep its CPU past a reschedule request; 0 turns
 * it off.  Capped where upstream's rseq slice extension caps its own, at
 * 50 us: a grant adds to the scheduling latency of everything else on
 * the CPU.  Why 10 by default: admin-guide.rst.
 */
unsigned int pvple_slice_ext_us = 10;
static struct pvple_uint_param pvple_slice_ext_param = {
	&pvple_slice_ext_us, 0, PVPLE_SLICE_MAX_US
};
module_param_cb(slice_ext_us, &pvple_uint_ops, &pvple_slice_ext_param, 0644);
MODULE_PARM_DESC(slice_ext_us, "longest delay of a reschedule of a vCPU inside a guest critical section, in microseconds (0: off; 0-50, default 10)");

/*
 * The slice extension in steps (slice.c): a grant's timer fires every
 * slice_step_us, and the grant goes on only while the guest is still
 * inside a section, up to slice_ext_us in all; 0 (or a step no shorter
 * than slice_ext_us) is one step, the whole bound.  Each step is one more
 * timer interrupt and VM exit.  Off by default: on the emulated test host
 * a fixed bound met a new section two times in three (results.rst, "A
 * longer slice extension, in one boot"); whether steps help is measured
 * there, not on hardware.
 */
unsigned int pvple_slice_step_us;
static struct pvple_uint_param pvple_slice_step_param = {
	&pvple_slice_step_us, 0, PVPLE_SLICE_MAX_US
};
module_param_cb(slice_step_us, &pvple_uint_ops, &pvple_slice_step_param, 0644);
MODULE_PARM_DESC(slice_step_us, "look again this often whether a vCPU granted a slice extension is still inside its section, in microseconds (0: only at the bound; 0-50, default 0)");

/*
 * time_scale: every time bound above is multiplied by it
 * (pvple_bound_ns()).  For an emulated host, whose time runs slower
 * than hardware's by a factor measured there (testhost.rst); above 1
 * only on a host that runs under a hypervisor itself
 * (X86_FEATURE_HYPERVISOR), so that a bare-metal host never stretches
 * a bound past its cap.
 */
unsigned int pvple_time_scale = 1;

static int pvple_scale_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int ret = kstrtouint(val, 0, &v);

	if (ret)
		return ret;
	if (v < 1 || v > PVPLE_TIME_SCALE_MAX)
		return -ERANGE;
	if (v > 1 && !boot_cpu_has(X86_FEATURE_HYPERVISOR))
		return -EPERM;
	WRITE_ONCE(pvple_time_scale, v);
	return 0;
}

static const struct kernel_param_ops pvple_scale_ops = {
	.set = pvple_scale_set,
	.get = param_get_uint,
};
module_param_cb(time_scale, &pvple_scale_ops, &pvple_time_scale, 0644);
MODULE_PARM_DESC(time_scale, "emulated hosts only: multiply every time bound by this (1-1000, default 1; above 1 only under a hypervisor)");

/*
 * l3_cache=: describe an L3 shared by each virtual socket (cpuid.c, l3.c).
 * auto is the default: it helps exactly the VMMs that describe no L3 and
 * never overrides one that does (QEMU's l3-cache=on, a passed-through host
 * cache), and it only reaches VMs created after it was set.
 */
static const char * const pvple_l3_names[PVPLE_NR_L3_MODES] = {
	[PVPLE_L3_OFF]	= "off",
	[PVPLE_L3_AUTO]	= "auto",
	[PVPLE_L3_ON]	= "on",
};

int pvple_l3_mode = PVPLE_L3_AUTO;
static struct pvple_enum_param pvple_l3_param = {
	pvple_l3_names, PVPLE_NR_L3_MODES, &pvple_l3_mode
};
module_param_cb(l3_cache, &pvple_enum_ops, &pvple_l3_param, 0644);
MODULE_PARM_DESC(l3_cache, "off | auto (default) | on: CPUID describes an L3 shared by each virtual socket of VMs created from now on");

static int __init pvple_init(void)
{
	int ret;

	/*
	 * Not on PREEMPT_RT: the ftrace callbacks allocate with GFP_ATOMIC
	 * (pvple_vm_created()) and take a spinlock_t with preemption off
	 * (pvple_vm_lock), both sleeping there; and a grant delays requests
	 * that RT kernels make for RT tasks.  dkms.conf does not build it
	 * for such kernels either.
	 */
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		pr_err("not for PREEMPT_RT kernels\n");
		return -EOPNOTSUPP;
	}

	ret = pvple_vm_init();
	if (ret)
		return ret;
	ret = pvple_hooks_init();
	if (ret) {
		pvple_vm_exit();
		return ret;
	}
	pvple_debugfs_init(pvple_cpuid_hooked());
	pr_info("loaded, ABI version %d\n", PVPLE_ABI_VERSION);
	return 0;
}

static void __exit pvple_exit(void)
{
	pvple_debugfs_exit();
	pvple_hooks_exit();
	pvple_vm_exit();
	pr_info("unloaded\n");
}

module_init(pvple_init);
module_exit(pvple_exit);

MODULE_DESCRIPTION("Paravirtual pause-loop exits for KVM");
MODULE_LICENSE("GPL");
MODULE_VERSION(PVPLE_VERSION);
