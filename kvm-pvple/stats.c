// SPDX-License-Identifier: GPL-2.0
/*
 * Event counters, per VM and global.
 *
 * Counters are per-CPU so that the PLE and schedule-in paths never share a
 * cache line between CPUs; readers sum them (debugfs.c).  A VM whose
 * counters could not be allocated counts only in the global ones, and in
 * untracked_vm_events.
 */
#include <linux/seq_file.h>

#include "pvple.h"

static const char * const pvple_stat_names[PVPLE_NR_STATS] = {
	[PVPLE_STAT_PLE_EXITS]		= "ple_exits",
	[PVPLE_STAT_HYPERCALLS]		= "hypercalls",
	[PVPLE_STAT_HC_PROBE]		= "hc_probe",
	[PVPLE_STAT_HC_REGISTER]	= "hc_register",
	[PVPLE_STAT_HC_UNREGISTER]	= "hc_unregister",
	[PVPLE_STAT_HC_PARK]		= "hc_park",
	[PVPLE_STAT_HC_FEATURES]	= "hc_features",
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
	[PVPLE_STAT_PARK_CROWDED]	= "park_crowded",
	[PVPLE_STAT_REC_NO_HOLDER]	= "rec_no_holder",
	[PVPLE_STAT_REC_OUTSIDE]	= "rec_outside",
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
	[PVPLE_STAT_HELD_SPIN]		= "held_spin",
	[PVPLE_STAT_SLICE_REQUESTS]	= "slice_requests",
	[PVPLE_STAT_SLICE_IN_CS]	= "slice_in_cs",
	[PVPLE_STAT_SLICE_GRANTED]	= "slice_granted",
	[PVPLE_STAT_SLICE_EXPIRED]	= "slice_expired",
	[PVPLE_STAT_SLICE_CUT]		= "slice_cut",
	[PVPLE_STAT_SLICE_LEFT]		= "slice_left",
	[PVPLE_STAT_SLICE_STILL_IN_CS]	= "slice_still_in_cs",
	[PVPLE_STAT_SLICE_WAITING]	= "slice_waiting",
	[PVPLE_STAT_SLICE_FAULT]	= "slice_fault",
	[PVPLE_STAT_SLICE_DESCHED_CS]	= "slice_desched_cs",
	[PVPLE_STAT_SLICE_STEPS]	= "slice_steps",
	[PVPLE_STAT_SLICE_DONE]		= "slice_done",
	[PVPLE_STAT_SLICE_DONE_IDLE]	= "slice_done_idle",
	[PVPLE_STAT_SLICE_NS]		= "slice_ns",
	[PVPLE_STAT_SLICE_GIVEN_BACK]	= "slice_given_back",
	[PVPLE_STAT_SLICE_REFUSED_MODEL] = "slice_refused_model",
	[PVPLE_STAT_SLICE_REFUSED_RT_TASK] = "slice_refused_rt_task",
	[PVPLE_STAT_SLICE_REFUSED_NESTED] = "slice_refused_nested",
	[PVPLE_STAT_SLICE_REFUSED_TIMER] = "slice_refused_timer",
	[PVPLE_STAT_SLICE_REFUSED_REGRANT] = "slice_refused_regrant",
	[PVPLE_STAT_REG_OK]		= "reg_ok",
	[PVPLE_STAT_REG_REPLACED]	= "reg_replaced",
	[PVPLE_STAT_REG_BAD_VERSION]	= "reg_bad_version",
	[PVPLE_STAT_REG_UNALIGNED]	= "reg_unaligned",
	[PVPLE_STAT_REG_BAD_GPA]	= "reg_bad_gpa",
	[PVPLE_STAT_REG_BAD_FIELDS]	= "reg_bad_fields",
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

/* Added to by pvple_count_n() (pvple.h). */
DEFINE_PER_CPU(struct pvple_stats, pvple_global_stats);
DEFINE_PER_CPU(u64, pvple_untracked_events);
static atomic64_t pvple_vm_stats_failed;

/**
 * pvple_stats_alloc() - Allocate a VM's counters.
 * @gfp: the allocation flags.
 *
 * The VM's own state is small; its counters are one struct pvple_stats per
 * possible CPU (PVPLE_NR_STATS u64s each), so on a large host they are
 * the bulk, and at creation (an ftrace callback: atomic) they are the
 * allocation most likely to fail.  A VM never goes untracked for them --
 * its l3_cache mode and its parks do not depend on counters -- it is
 * tracked without, counted in vm_stats_failed, and gets them at its first
 * registration (process context) if memory allows then.
 *
 * Context: as @gfp allows.
 *
 * Return: the zeroed per-CPU counters, or NULL.
 */
struct pvple_stats __percpu *pvple_stats_alloc(gfp_t gfp)
{
	struct pvple_stats __percpu *stats;

	stats = alloc_percpu_gfp(struct pvple_stats,
				 gfp | __GFP_ACCOUNT | __GFP_NOWARN);
	if (!stats)
		atomic64_inc(&pvple_vm_stats_failed);
	return stats;
}

/**
 * pvple_stats_sum() - Sum per-CPU counters over every possible CPU.
 * @pcpu: the per-CPU counters.
 * @sum: where to store the totals; overwritten.
 */
void pvple_stats_sum(struct pvple_stats __percpu *pcpu,
		     struct pvple_stats *sum)
{
	int cpu, i;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu)
		for (i = 0; i < PVPLE_NR_STATS; i++)
			sum->v[i] += per_cpu_ptr(pcpu, cpu)->v[i];
}

/**
 * pvple_stats_show() - Print summed counters, one per name.
 * @m: the seq_file to print to.
 * @sum: the totals.
 * @sep: what goes between counters.
 *
 * With @sep "\n", one "<name> <value>" line per counter; otherwise
 * "<name>=<value>" fields separated by @sep.  Ends with a newline.
 */
void pvple_stats_show(struct seq_file *m, struct pvple_stats *sum,
		      const char *sep)
{
	int i;

	for (i = 0; i < PVPLE_NR_STATS; i++)
		seq_printf(m, "%s%s%s%llu", i ? sep : "", pvple_stat_names[i],
			   *sep == '\n' ? " " : "=", sum->v[i]);
	seq_putc(m, '\n');
}

/**
 * pvple_stats_global() - Read the global counters.
 * @sum: where to store the global counters' totals.
 * @untracked: where to store the events counted for no VM's own counters
 *	(untracked VMs, and VMs whose counters are missing).
 * @stats_failed: where to store how many VMs' counters failed to allocate.
 *
 * The global counters, untracked events and failed allocations.
 */
void pvple_stats_global(struct pvple_stats *sum, u64 *untracked,
			u64 *stats_failed)
{
	u64 n = 0;
	int cpu;

	pvple_stats_sum(&pvple_global_stats, sum);
	for_each_possible_cpu(cpu)
		n += per_cpu(pvple_untracked_events, cpu);
	*untracked = n;
	*stats_failed = atomic64_read(&pvple_vm_stats_failed);
}
