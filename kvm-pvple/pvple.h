/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvm-pvple internal interfaces.
 *
 * The way of one PLE exit:  hooks.c -> pvple_spin_wanted() (spin.c): a
 *   stock outcome is settled there; else -> pvple_on_spin(): read the
 *   spinner's record (abi.c) -> pvple_decide() (policy.c) -> yield, or
 *   park (park.c) -> back to KVM.
 * The way of one hypercall: hooks.c -> pvple_hypercall() (hypercall.c) ->
 *   registration (abi.c) or the park (spin.c).
 * Counters: stats.c, read out by debugfs.c; VM lifetime: vm.c.
 * The way of one vCPU load:  hooks.c -> pvple_vcpu_loaded() (park.c).
 * The way of one reschedule on the way into the guest: hooks.c ->
 *   pvple_slice_resched() (slice.c) -> pvple_slice_decide() (policy.c).
 * The way of one KVM_SET_CPUID2: hooks.c -> pvple_cpuid_set() (cpuid.c) ->
 *   pvple_l3_apply() (l3.c) -> on into KVM.
 */
#ifndef _KVM_PVPLE_H
#define _KVM_PVPLE_H

#include <linux/hrtimer.h>
#include <linux/kvm_host.h>
#include <linux/percpu.h>
#include <linux/rhashtable.h>
#include <linux/swait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <uapi/linux/kvm_pvple.h>

#include "l3.h"
#include "policy.h"

/* Per-VM and global event counters, summed over CPUs when read. */
enum pvple_stat {
	PVPLE_STAT_PLE_EXITS,
	PVPLE_STAT_HYPERCALLS,
	PVPLE_STAT_HC_PROBE,
	PVPLE_STAT_HC_REGISTER,
	PVPLE_STAT_HC_UNREGISTER,
	PVPLE_STAT_HC_PARK,
	PVPLE_STAT_HC_FEATURES,
	PVPLE_STAT_HC_UNKNOWN,
	PVPLE_STAT_HC_EPERM,
	PVPLE_STAT_HC_THROTTLED,
	PVPLE_STAT_SCHED_IN,
	PVPLE_STAT_VCPU_LOAD,
	/* decisions */
	PVPLE_STAT_STOCK,
	PVPLE_STAT_SPIN,
	PVPLE_STAT_YIELD_TRIED,
	PVPLE_STAT_YIELD_OK,
	PVPLE_STAT_PARKS,
	PVPLE_STAT_WAKE_SCHED_IN,
	PVPLE_STAT_WAKE_TIMEOUT,
	PVPLE_STAT_WAKE_EVENT,
	PVPLE_STAT_WAKE_TEARDOWN,
	PVPLE_STAT_PARK_NS,
	/* records that could not be used, by reason */
	PVPLE_STAT_REC_UNREGISTERED,
	PVPLE_STAT_REC_FAULT,
	PVPLE_STAT_REC_IDLE,
	PVPLE_STAT_REC_TORN,
	PVPLE_STAT_REC_BAD,
	PVPLE_STAT_REC_TARGET_RANGE,
	PVPLE_STAT_REC_TARGET_SELF,
	PVPLE_STAT_REC_TARGET_ABSENT,
	PVPLE_STAT_REC_CYCLE,
	PVPLE_STAT_PARK_CROWDED,
	PVPLE_STAT_REC_NO_HOLDER,
	PVPLE_STAT_REC_OUTSIDE,
	PVPLE_STAT_CHAIN_HOPS,
	PVPLE_STAT_CHAIN_NO_HOLDER,
	PVPLE_STAT_CHAIN_DEEP,
	PVPLE_STAT_CHAIN_STALE,
	PVPLE_STAT_CHAIN_CROSS,
	PVPLE_STAT_CHAIN_CYCLE,
	PVPLE_STAT_CHAIN_ABSENT,
	PVPLE_STAT_CHAIN_HEAD,
	PVPLE_STAT_YIELD_BEYOND,
	PVPLE_STAT_YIELD_HOLDER,
	PVPLE_STAT_SPIN_LIMIT,
	PVPLE_STAT_YIELD_REACHED,
	PVPLE_STAT_YIELD_MISSED,
	PVPLE_STAT_HELD_SPIN,
	/* the slice extension (slice.c) */
	PVPLE_STAT_SLICE_REQUESTS,
	PVPLE_STAT_SLICE_IN_CS,
	PVPLE_STAT_SLICE_GRANTED,
	PVPLE_STAT_SLICE_EXPIRED,
	PVPLE_STAT_SLICE_CUT,
	PVPLE_STAT_SLICE_LEFT,
	PVPLE_STAT_SLICE_STILL_IN_CS,
	PVPLE_STAT_SLICE_WAITING,
	PVPLE_STAT_SLICE_FAULT,
	PVPLE_STAT_SLICE_DESCHED_CS,
	PVPLE_STAT_SLICE_STEPS,
	PVPLE_STAT_SLICE_DONE,
	PVPLE_STAT_SLICE_DONE_IDLE,
	PVPLE_STAT_SLICE_NS,
	PVPLE_STAT_SLICE_GIVEN_BACK,
	/* requests in a section a gate refused, in enum pvple_slice_gate order */
	PVPLE_STAT_SLICE_REFUSED_MODEL,
	PVPLE_STAT_SLICE_REFUSED_RT_TASK,
	PVPLE_STAT_SLICE_REFUSED_NESTED,
	PVPLE_STAT_SLICE_REFUSED_TIMER,
	PVPLE_STAT_SLICE_REFUSED_REGRANT,
	/* registrations refused or odd, by reason */
	PVPLE_STAT_REG_OK,
	PVPLE_STAT_REG_REPLACED,
	PVPLE_STAT_REG_BAD_VERSION,
	PVPLE_STAT_REG_UNALIGNED,
	PVPLE_STAT_REG_BAD_GPA,
	PVPLE_STAT_REG_BAD_FIELDS,
	PVPLE_STAT_REG_NOMEM,
	PVPLE_STAT_UNREG_UNKNOWN,
	PVPLE_STAT_UNREG_RESET,
	/* KVM_SET_CPUID{,2} under l3_cache=, by outcome */
	PVPLE_STAT_L3_ADDED,
	PVPLE_STAT_L3_RESHARED,
	PVPLE_STAT_L3_KEPT,
	PVPLE_STAT_L3_OFF,
	PVPLE_STAT_L3_NO_VENDOR,
	PVPLE_STAT_L3_NO_SLOT,
	PVPLE_STAT_L3_FOREIGN,
	PVPLE_STAT_L3_UNMATCHED,
	PVPLE_NR_STATS
};

struct pvple_stats {
	u64 v[PVPLE_NR_STATS];
};

/* Name of a VM as KVM's own debugfs names it: "<pid>-<fd>". */
#define PVPLE_VM_NAME_LEN	32

/*
 * One per vCPU of a VM in which a vCPU registered; lives as long as its
 * VM.  Only the vCPU's own task touches @ghc, @text_*,
 * @spin_wait, @spins and @yielded_* (registration, and reads of its own
 * record, happen in its own exits);
 * @gpa and @registered are written there too, and read by the other vCPUs
 * of the VM that walk a chain through this one (abi.c: release/acquire).
 * @parked_on and @runs are written under the vCPU's mutex (its KVM_RUN,
 * or an ioctl's vcpu_load()); other vCPUs of the VM read those two and
 * queue on @waiters (park.c).  @preempt_*, @slice_granted, @slice_owed,
 * @slice_flag, @slice_switches and @slice_*_ns are the own task's too;
 * @slice_task is read by @slice_timer's callback (on the CPU it was armed
 * on), which writes @slice_fired for the task on that CPU; @slice_task,
 * @slice_cpu and @slice_switches by pvple_slice_stop() too (slice.c); @named_runs is written by
 * the other vCPUs of the VM, a hint without ordering (slice.c).
 */
struct pvple_vcpu {
	struct kvm_vcpu *vcpu;		/* whose state this is */
	struct gfn_to_hva_cache ghc;
	gpa_t gpa;
	u64 text_start, text_end;	/* the registered slow path */
	gpa_t preempt_gpa;		/* the guest's preemption count, or 0 */
	struct gfn_to_hva_cache preempt_ghc;
	bool registered;
	struct kvm_vcpu *parked_on;
	unsigned long runs;		/* loads and park exits, park.c */
	unsigned long named_runs;	/* taken for a holder in this run */
	u64 last_hc_park_ns;		/* pvple_hc_park_throttled() */
	u64 spin_wait;			/* the record last answered "spin" */
	unsigned int spins;		/* how many times in a row */
	struct pvple_vcpu *yielded_to;	/* the last yield's target, until */
	unsigned long yielded_runs;	/* the next exit; its ->runs then */
	struct swait_queue_head waiters;	/* parked behind this vCPU */
	atomic_t parkers;		/* how many, at most PVPLE_PARKERS_MAX */
	struct hrtimer slice_timer;	/* ends a slice extension */
	struct task_struct *slice_task;	/* granted to, for the timer */
	bool slice_granted;		/* since the last reschedule request */
	bool slice_fired;		/* the timer raised the request */
	bool slice_flag;		/* the area's @slice set by us */
	bool slice_owed;		/* a request given back: no grant */
	int slice_cpu;			/* the grant's CPU and its timer's */
	unsigned long slice_switches;	/* the task's switches at the grant */
	u64 slice_start_ns, slice_bound_ns;
	u64 slice_done_ns;		/* when the guest ended it, or 0 */
};

struct pvple_vm {
	struct rhash_head hnode;	/* pvple_vm_table, RCU-protected */
	struct list_head lnode;		/* pvple_vm_list, for the stats file */
	struct kvm *kvm;
	struct pvple_stats __percpu *stats;
	struct xarray vcpus;		/* vcpu_idx -> struct pvple_vcpu */
	struct xarray by_id;		/* vcpu_id (APIC ID) -> the same */
	char name[PVPLE_VM_NAME_LEN];
	bool born;			/* created while the module was loaded */
	int mode;			/* PVPLE_MODE_*, or -1: the mode= default */
	int l3_mode;			/* l3_cache= at creation */
	struct rcu_work free_work;
};

/* main.c: module parameters */
extern int pvple_mode;
extern const char * const pvple_mode_names[PVPLE_NR_MODES];
extern unsigned int pvple_park_max_us;
extern unsigned int pvple_park_hc_gap_us;
extern int pvple_l3_mode;
extern unsigned int pvple_slice_ext_us;
extern unsigned int pvple_slice_step_us;
extern unsigned int pvple_time_scale;

#define PVPLE_SLICE_MAX_US	50	/* slice_ext_us, slice_step_us */
#define PVPLE_TIME_SCALE_MAX	1000

/**
 * pvple_bound_ns() - A time bound of main.c's parameters, in the host's time.
 * @us: the bound, in microseconds.
 *
 * Return: @us in nanoseconds, times time_scale (1 but on an emulated host).
 */
static inline u64 pvple_bound_ns(unsigned int us)
{
	return (u64)us * NSEC_PER_USEC * READ_ONCE(pvple_time_scale);
}

/* stats.c */
struct seq_file;

DECLARE_PER_CPU(struct pvple_stats, pvple_global_stats);
DECLARE_PER_CPU(u64, pvple_untracked_events);

/**
 * pvple_count_n() - Add to an event counter.
 * @vm: the VM's state, or NULL for a VM that is not tracked.
 * @stat: the counter.
 * @n: how much to add.
 *
 * Adds to the global counter and to the VM's own.  A VM's counters may be
 * missing (their allocation failed at creation): then only the global ones
 * count, and untracked_vm_events says so.  Inline, as are the lookups
 * below: they are on every PLE exit and vCPU load ("Hot paths" in
 * Documentation/design.rst).
 *
 * Context: any.
 */
static inline void pvple_count_n(struct pvple_vm *vm, enum pvple_stat stat,
				 u64 n)
{
	struct pvple_stats __percpu *stats = vm ? READ_ONCE(vm->stats) : NULL;

	this_cpu_add(pvple_global_stats.v[stat], n);
	if (stats)
		this_cpu_add(stats->v[stat], n);
	else
		this_cpu_inc(pvple_untracked_events);
}

/**
 * pvple_count() - Count one event.
 * @vm: the VM's state, or NULL for a VM that is not tracked.
 * @stat: the counter.
 *
 * pvple_count_n() by one.
 *
 * Context: any.
 */
static inline void pvple_count(struct pvple_vm *vm, enum pvple_stat stat)
{
	pvple_count_n(vm, stat, 1);
}

struct pvple_stats __percpu *pvple_stats_alloc(gfp_t gfp);
void pvple_stats_sum(struct pvple_stats __percpu *pcpu,
		     struct pvple_stats *sum);
void pvple_stats_show(struct seq_file *m, struct pvple_stats *sum,
		      const char *sep);
void pvple_stats_global(struct pvple_stats *sum, u64 *untracked,
			u64 *stats_failed);

/* vm.c */
struct pvple_vm_lifetime {
	u64 created, destroyed, stale_replaced, alloc_failed;
};

/*
 * struct kvm -> struct pvple_vm.  A resizable hash table: the lookup on
 * every vCPU load stays O(1) however many VMs the host runs.  Writers hold
 * vm.c's lock; the hot paths read under RCU.
 */
extern struct rhashtable pvple_vm_table;

static const struct rhashtable_params pvple_vm_params __maybe_unused = {
	.key_len = sizeof(struct kvm *),
	.key_offset = offsetof(struct pvple_vm, kvm),
	.head_offset = offsetof(struct pvple_vm, hnode),
	.automatic_shrinking = true,
};

/**
 * pvple_vm_find() - Look up the tracked state of a VM.
 * @kvm: the VM.
 *
 * One lookup in the hash table of tracked VMs.
 *
 * Context: under rcu_read_lock(); the result is valid until
 * rcu_read_unlock(), unless the caller keeps the VM alive otherwise.
 *
 * Return: the VM's state, or NULL if it is not tracked.
 */
static inline struct pvple_vm *pvple_vm_find(struct kvm *kvm)
{
	return rhashtable_lookup(&pvple_vm_table, &kvm, pvple_vm_params);
}

/**
 * pvple_vm_mode() - The mode a VM's PLE exits and park calls get.
 * @vm: the VM's state, or NULL for a VM that is not tracked.
 *
 * Its own, set through debugfs "mode", or the module's mode= for all
 * others.  One load of a field of the VM's own state, on the PLE path.
 *
 * Context: any.
 *
 * Return: a PVPLE_MODE_* value.
 */
static inline int pvple_vm_mode(struct pvple_vm *vm)
{
	int mode = vm ? READ_ONCE(vm->mode) : -1;

	return mode >= 0 ? mode : READ_ONCE(pvple_mode);
}

struct pvple_vm *pvple_vm_adopt(struct kvm *kvm);
void pvple_vm_created(struct kvm *kvm);
void pvple_vm_destroyed(struct kvm *kvm);
void pvple_vm_wake_all(void);
void pvple_vm_lifetime(struct pvple_vm_lifetime *l);
void pvple_vm_for_each(void (*fn)(struct pvple_vm *vm, void *arg), void *arg);
int pvple_vm_init(void);
void pvple_vm_exit(void);

/* vcpu.c */
/**
 * pvple_vcpu_find() - Look up a vCPU's own state, without allocating it.
 * @vm: the VM's state.
 * @vcpu: the vCPU.
 *
 * A vCPU being created is loaded and reset before KVM gives it its index
 * (kvm_vm_ioctl_create_vcpu() calls kvm_arch_vcpu_create(), which does
 * vcpu_load() and kvm_vcpu_reset(), before it sets ->vcpu_idx): until
 * then its ->vcpu_idx reads 0, and it must not be taken for vCPU 0.  The
 * state found at the index is returned only if it belongs to @vcpu.
 *
 * Context: any; @vm stays alive (under RCU, or a vCPU of the VM is in an
 * exit).
 *
 * Return: @vcpu's state, or NULL if it has none.
 */
static inline struct pvple_vcpu *pvple_vcpu_find(struct pvple_vm *vm,
						 struct kvm_vcpu *vcpu)
{
	struct pvple_vcpu *pv = xa_load(&vm->vcpus, vcpu->vcpu_idx);

	return pv && pv->vcpu == vcpu ? pv : NULL;
}

/**
 * pvple_lookup() - Look up a vCPU's VM state and its own.
 * @vcpu: the vCPU.
 * @pvp: where to store the vCPU's own state, or NULL if it has none.
 *
 * pvple_vm_find(), then pvple_vcpu_find().  The results stay valid after
 * the RCU section: a VM's state is freed only when the VM is destroyed,
 * which cannot happen while a vCPU of it is in an exit or under its mutex.
 *
 * Context: the vCPU's task, in an exit or under the vCPU's mutex.
 *
 * Return: the VM's state, or NULL if the VM is not tracked.
 */
static inline struct pvple_vm *pvple_lookup(struct kvm_vcpu *vcpu,
					    struct pvple_vcpu **pvp)
{
	struct pvple_vcpu *pv = NULL;
	struct pvple_vm *vm;

	rcu_read_lock();
	vm = pvple_vm_find(vcpu->kvm);
	if (vm)
		pv = pvple_vcpu_find(vm, vcpu);
	rcu_read_unlock();
	*pvp = pv;
	return vm;
}

/*
 * The vCPU each CPU loaded last, and its state, written by
 * pvple_vcpu_loaded() on that CPU: a vCPU in an exit on its own CPU finds
 * itself here without a lookup.  @vm and @pv were current at that load;
 * pvple_loaded_forget() clears @vcpu on every CPU before a VM's state is
 * freed.
 */
struct pvple_loaded {
	struct kvm_vcpu *vcpu;
	struct pvple_vm *vm;		/* NULL: not tracked at the load */
	struct pvple_vcpu *pv;		/* NULL: none at the load */
};

DECLARE_PER_CPU(struct pvple_loaded, pvple_loaded);

/**
 * pvple_lookup_loaded() - pvple_lookup() for a vCPU in an exit, on its CPU.
 * @vcpu: the vCPU.
 * @pvp: where to store the vCPU's own state, or NULL if it has none.
 *
 * The PLE exit's lookup.  A vCPU in an exit was loaded on this CPU after
 * any other vCPU was (KVM loads it in vcpu_load() and at every schedule-in,
 * kvm_sched_in(), and any other vCPU loaded here since took the CPU from
 * it), so this CPU's struct pvple_loaded names it, with its VM's state,
 * unless its load was not seen (the module came later; the hook's
 * recursion guard turned the call away) or its VM was not tracked then:
 * those take pvple_lookup().  A vCPU that registered after the load finds
 * its own state in the VM's array.
 *
 * Each field is read once.  An entry can name @vcpu's address for another
 * vCPU that was freed (kvm_vm_ioctl_create_vcpu()'s error paths free a
 * loaded vCPU and keep its VM) if @vcpu's own loads were not seen: the
 * VM's state must then be @vcpu's VM's, or the entry is not used.  It is
 * never freed under this caller: pvple_loaded_forget() clears every entry
 * naming a VM's state before the state is unlinked, and it is freed only
 * after an RCU grace period, which this caller (preemption off) holds up.
 *
 * Context: preemption off, @vcpu in an exit on this CPU.
 *
 * Return: the VM's state, or NULL if the VM is not tracked.
 */
static inline struct pvple_vm *pvple_lookup_loaded(struct kvm_vcpu *vcpu,
						   struct pvple_vcpu **pvp)
{
	struct pvple_loaded *l = this_cpu_ptr(&pvple_loaded);
	struct pvple_vm *vm = READ_ONCE(l->vm);
	struct pvple_vcpu *pv = READ_ONCE(l->pv);

	if (READ_ONCE(l->vcpu) != vcpu || !vm || vm->kvm != vcpu->kvm)
		return pvple_lookup(vcpu, pvp);
	*pvp = pv ?: pvple_vcpu_find(vm, vcpu);
	return vm;
}

void pvple_loaded_forget(struct pvple_vm *vm);
struct pvple_vcpu *pvple_vcpu_get(struct pvple_vm *vm, struct kvm_vcpu *vcpu);
struct kvm_vcpu *pvple_vcpu_by_id(struct pvple_vm *vm, struct kvm *kvm, u32 id);
void pvple_vcpus_get(struct pvple_vm *vm, struct kvm *kvm);
void pvple_vcpu_free(struct pvple_vm *vm, struct pvple_vcpu *pv);

/* debugfs.c */
void pvple_debugfs_init(bool cpuid_hooked);
void pvple_debugfs_exit(void);

/* hypercall.c */
unsigned long pvple_hypercall(struct kvm_vcpu *vcpu, unsigned long nr,
			      unsigned long a0, unsigned long a1,
			      unsigned long a2, unsigned long a3,
			      int op_64_bit, int cpl);

/* abi.c */
long pvple_register(struct kvm_vcpu *vcpu, gpa_t gpa, unsigned long version);
long pvple_unregister(struct kvm_vcpu *vcpu);
void pvple_vcpu_reset(struct kvm_vcpu *vcpu);
enum pvple_rec pvple_peek_record(struct kvm_vcpu *vcpu, struct pvple_vcpu *pv,
				 struct pvple_area *rec);
enum pvple_rec pvple_read_record(struct kvm_vcpu *vcpu, struct pvple_vcpu *pv,
				 struct pvple_area *rec);
enum pvple_rec pvple_read_other(struct kvm_vcpu *t, struct pvple_vcpu *tpv,
				struct pvple_area *rec);

/* spin.c */
bool pvple_spin_wanted(struct kvm_vcpu *me);
void pvple_on_spin(struct kvm_vcpu *me, bool yield_to_kernel_mode);
long pvple_park_hypercall(struct kvm_vcpu *me);

/* park.c */
enum pvple_wake {
	PVPLE_WAKE_SCHED_IN,
	PVPLE_WAKE_TIMEOUT,
	PVPLE_WAKE_EVENT,
	PVPLE_WAKE_TEARDOWN,
};

unsigned long pvple_park_ticket(struct pvple_vcpu *tpv);
int pvple_yield_reached(struct pvple_vcpu *pv);
bool pvple_vcpu_irq_on(struct kvm_vcpu *me);
/* At most this many spinners park behind one vCPU at a time (park.c). */
#define PVPLE_PARKERS_MAX	4

enum pvple_park_start {
	PVPLE_START_OK,
	PVPLE_START_CYCLE,	/* it would close a cycle of parks */
	PVPLE_START_CROWDED,	/* PVPLE_PARKERS_MAX already wait there */
};

enum pvple_park_start pvple_park_begin(struct pvple_vm *vm,
				       struct kvm_vcpu *me,
				       struct pvple_vcpu *pv,
				       struct kvm_vcpu *target,
				       struct pvple_vcpu *tpv);
enum pvple_wake pvple_park(struct kvm_vcpu *me, struct pvple_vcpu *pv,
			   struct kvm_vcpu *target, struct pvple_vcpu *tpv,
			   unsigned long ticket, u64 *start_ns, u64 *parked_ns);
void pvple_vcpu_loaded(struct kvm_vcpu *vcpu);
bool pvple_event(struct kvm_vcpu *me, bool irq_on);
void pvple_park_shutdown(void);

/* slice.c */
void pvple_slice_left(struct pvple_vm *vm, struct pvple_vcpu *pv,
		      bool sched_in);
void pvple_slice_stop(struct pvple_vm *vm, struct pvple_vcpu *pv);
void pvple_slice_init(struct pvple_vcpu *pv);
void pvple_slice_resched(struct kvm_vcpu *vcpu);
long pvple_slice_done(struct kvm_vcpu *vcpu);
long pvple_slice_features(struct kvm_vcpu *vcpu);
void pvple_slice_named(struct pvple_vcpu *tpv, enum pvple_target state);
bool pvple_slice_may_hold(struct pvple_vcpu *pv);
bool pvple_slice_held(struct kvm_vcpu *vcpu, struct pvple_vcpu *pv);

/* cpuid.c */
void pvple_cpuid_set(struct kvm_vcpu *vcpu, struct kvm_cpuid_entry2 *e2,
		     int nent);

/* hooks.c */
int pvple_hooks_init(void);
void pvple_hooks_exit(void);
bool pvple_cpuid_hooked(void);
bool pvple_slice_hooked(void);

#endif /* _KVM_PVPLE_H */
