/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure decisions of kvm-pvple: no locks, no KVM state, no side effects.
 * They build both into the module and into the userspace unit tests
 * (selftests/unit/), which is where they are tested: KUnit is not enabled
 * in the distro kernels pvple targets.
 */
#ifndef _KVM_PVPLE_POLICY_H
#define _KVM_PVPLE_POLICY_H

#include <linux/types.h>

struct pvple_area;

enum pvple_hc_action {
	PVPLE_HC_NOT_OURS,	/* hand to KVM unchanged */
	PVPLE_HC_EPERM,		/* ours, but issued from guest user mode */
	PVPLE_HC_PROBE,
	PVPLE_HC_REGISTER,
	PVPLE_HC_UNREGISTER,
	PVPLE_HC_PARK,
	PVPLE_HC_SLICE_DONE,
	PVPLE_HC_FEATURES,
	PVPLE_HC_UNKNOWN,	/* in our range, no such call: -KVM_ENOSYS */
};

enum pvple_hc_action pvple_hc_decode(unsigned long nr, int op_64_bit, int cpl);
bool pvple_hc_maybe_ours(unsigned long nr);

/* What a vCPU's record says, once checked. */
enum pvple_rec {
	PVPLE_REC_OK,		/* waiting behind a valid, other vCPU */
	PVPLE_REC_UNREGISTERED,	/* no area registered (set by the caller) */
	PVPLE_REC_FAULT,	/* area not readable (set by the caller) */
	PVPLE_REC_TARGET_ABSENT,/* no such vCPU in the VM (set by the caller) */
	PVPLE_REC_IDLE,		/* registered, but not waiting */
	PVPLE_REC_TORN,		/* changed while read (set by the caller) */
	PVPLE_REC_BAD,		/* unknown state or role, non-zero reserved */
	PVPLE_REC_TARGET_RANGE,	/* target id outside the VM's id space */
	PVPLE_REC_TARGET_SELF,	/* waits behind itself */
	PVPLE_REC_NO_HOLDER,	/* waiting on a lock, holder not known */
	PVPLE_REC_OUTSIDE,	/* PLE exit outside the registered slow path */
	PVPLE_NR_REC
};

enum pvple_rec pvple_rec_check(const struct pvple_area *a, __u32 self_id,
			       __u32 max_id);
bool pvple_in_slowpath(__u64 rip, __u64 text_start, __u64 text_end);

/* What registration finds in the area's registration fields (ABI v3). */
enum pvple_reg {
	PVPLE_REG_OK,
	PVPLE_REG_BAD_TEXT,	/* an empty or inverted slow-path range */
	PVPLE_REG_BAD_PREEMPT,	/* a preemption count not 4-aligned */
};

enum pvple_reg pvple_reg_check(const struct pvple_area *a);

/*
 * The chain.  A spinner's record names a vCPU (the lock holder, or the
 * waiter queued just ahead); that vCPU's own record may name the next one,
 * and so on to the holder.  spin.c reads the records one vCPU at a time;
 * pvple_chain_hop() says, for each, whether the walk goes on.
 *
 * A link is how the walk reached a vCPU: the role and the lock of the
 * record that named it.
 */
#define PVPLE_CHAIN_MAX		4	/* vCPUs looked at beyond the spinner */

struct pvple_link {
	__u32 role;
	__u64 lock;
};

enum pvple_hop {
	PVPLE_HOP_END,		/* not a waiter of this chain: the holder */
	PVPLE_HOP_NEXT,		/* waits behind another vCPU: follow it */
	PVPLE_HOP_NO_HOLDER,	/* waits, and does not know the holder */
	PVPLE_HOP_STALE,	/* named as holder, but waits for that lock */
	PVPLE_HOP_CROSS,	/* named as predecessor, but on another lock */
};

enum pvple_hop pvple_chain_hop(const struct pvple_link *via,
			       enum pvple_rec rec, const struct pvple_area *a,
			       struct pvple_link *next);

/* How the walk along the chain ended. */
enum pvple_chain_end {
	PVPLE_CHAIN_HOLDER,	/* at the vCPU taken for the holder */
	PVPLE_CHAIN_NO_HOLDER,	/* at a waiter that does not know it */
	PVPLE_CHAIN_DEEP,	/* PVPLE_CHAIN_MAX vCPUs, all waiting */
	/*
	 * The spinner's own hint names a vCPU that waits for that very lock:
	 * with a handoff lock (a ticket lock) the one it was handed to, which
	 * has not run to see it -- the de facto holder; with qspinlock one
	 * that released and queued again.  Acted on as the holder for a
	 * yield or a spin, never for a park.
	 */
	PVPLE_CHAIN_STALE,
	PVPLE_CHAIN_CROSS,	/* a predecessor waiting on another lock */
	PVPLE_CHAIN_CYCLE,	/* a vCPU named twice, or the spinner */
	PVPLE_CHAIN_ABSENT,	/* a hop named no vCPU of this VM */
	PVPLE_CHAIN_HEAD,	/* at a queue head whose holder has released */
	PVPLE_NR_CHAIN_ENDS,
	/* pvple_chain_step() only: not ended, the walk goes on. */
	PVPLE_CHAIN_FOLLOW = PVPLE_NR_CHAIN_ENDS,
};

/* What the walk found of the vCPU a record names (PVPLE_HOP_NEXT). */
enum pvple_next {
	PVPLE_NEXT_FOUND,	/* a vCPU of the VM, new to the chain */
	PVPLE_NEXT_ABSENT,	/* no vCPU of the VM has that id */
	PVPLE_NEXT_SEEN,	/* the spinner, or a vCPU already on it */
};

enum pvple_chain_end pvple_chain_step(enum pvple_hop hop, unsigned int i,
				      __u32 role, enum pvple_next next,
				      unsigned int *len);

enum pvple_mode {
	PVPLE_MODE_OFF,		/* observe only: stock KVM behaviour */
	PVPLE_MODE_YIELD,	/* directed yield, never park */
	PVPLE_MODE_PARK,	/* park, never yield */
	PVPLE_MODE_AUTO,	/* yield; park when the yield cannot happen */
	PVPLE_NR_MODES
};

/*
 * Run state of the vCPU a spinner waits behind.  A park is only ever taken
 * behind a target whose next step is certain to run kvm-pvple's load hook
 * or its park exit, which wake the parked spinner (park.c): PREEMPTED,
 * PARKED and OUT.  Behind a HALTED vCPU no wake-up is certain (a kick that
 * lands before it schedules out runs no hook), nor behind one asleep in
 * the host for another reason, or in the window where KVM has loaded it
 * but not yet cleared ->scheduled_out (kvm_sched_in(), virt/kvm/kvm_main.c).
 */
enum pvple_target {
	PVPLE_TARGET_RUNNING,	/* its task runs (in the guest or in KVM) */
	PVPLE_TARGET_PREEMPTED,	/* runnable, but another task has its CPU */
	PVPLE_TARGET_READY,	/* kicked out of a halt, not yet running */
	PVPLE_TARGET_PARKED,	/* itself parked by kvm-pvple */
	PVPLE_TARGET_HALTED,	/* blocked in KVM (HLT, or pvqspinlock's wait) */
	PVPLE_TARGET_OUT,	/* not in KVM_RUN */
	PVPLE_TARGET_SLEEPING,	/* in KVM_RUN, scheduled out, not preempted */
	PVPLE_NR_TARGETS
};

/* What KVM says of the target, each flag read once. */
struct pvple_target_flags {
	bool preempted;		/* ->preempted */
	bool parked;		/* kvm-pvple's own: in pvple_park() */
	bool ready;		/* ->ready */
	bool blocking;		/* kvm_vcpu_is_blocking() */
	bool wants_to_run;	/* ->wants_to_run */
	bool scheduled_out;	/* ->scheduled_out */
};

enum pvple_target pvple_target_classify(const struct pvple_target_flags *f);

/*
 * Answers "spin" to one record at most this many times in a row before
 * stock handling: a holder that runs will release soon, one that keeps
 * running without releasing is not worth more exits.
 */
#define PVPLE_SPIN_MAX		8

struct pvple_spin_in {
	enum pvple_mode mode;
	enum pvple_rec rec;	/* the spinner's own record */
	enum pvple_chain_end end;
	unsigned int len;	/* vCPUs on the chain, 1..PVPLE_CHAIN_MAX */
	/* [0]: the vCPU the record names ... [len - 1]: where the walk ended */
	enum pvple_target chain[PVPLE_CHAIN_MAX];
	unsigned int spins;	/* "spin" answers in a row to this record */
	bool event_pending;	/* an interrupt/request waits for the spinner */
	bool cycle;		/* chain[0] is parked behind the spinner */
	bool crowded;		/* PVPLE_PARKERS_MAX parked behind chain[0] */
	bool yield_failed;	/* a directed yield just failed */
	bool no_park;		/* parking is off for this VM (APICv/AVIC) */
	/*
	 * The spinner's record names the holder: it is the queue head.  With
	 * qspinlock the head spins with the pending bit set, and while it is
	 * set nobody else can take the lock (pv_hybrid_queued_unfair_trylock()
	 * and the fast path both fail), so a head that sleeps stalls every
	 * waiter and stealer of its lock.  A head never parks.
	 */
	bool head;
	/*
	 * The spinner's record is idle, yet another vCPU's walk took it for
	 * a lock holder during this run of it, and its guest is inside a
	 * critical section: a holder spinning on something else (a udelay()
	 * under the lock).  A yield would give its CPU to those who wait.
	 */
	bool held;
};

enum pvple_action {
	PVPLE_ACT_STOCK,	/* no usable record: kvm_vcpu_on_spin() */
	PVPLE_ACT_SPIN,		/* back to the guest at once */
	PVPLE_ACT_YIELD,	/* kvm_vcpu_yield_to(chain[*at]) */
	PVPLE_ACT_PARK,		/* sleep until chain[0] is scheduled in */
	PVPLE_NR_ACTIONS
};

enum pvple_action pvple_decide(const struct pvple_spin_in *in,
			       unsigned int *at);
long pvple_stock_result(const struct pvple_spin_in *in);

/*
 * May the guest take an interrupt now?  RFLAGS.IF, as kvm_get_rflags()
 * reads it, unless the guest's state is protected (SEV-ES, SEV-SNP): KVM
 * keeps no trustworthy RFLAGS for those (svm_get_if_flag() reads the
 * VMCB's interrupt shadow state instead, through a static call a module
 * cannot make), so such a guest counts as always interruptible: a pending
 * interrupt then ends or forbids a park rather than being slept through.
 */
bool pvple_irq_on(bool state_protected, unsigned long rflags);

/*
 * The park hypercall is not throttled by a PLE window: at most one yield
 * or park per @gap_ns per vCPU (park_hc_gap_us=); the others answer
 * "running".  A zero gap throttles nothing.
 */
bool pvple_hc_park_throttled(__u64 now_ns, __u64 *last_ns, __u64 gap_ns);

/*
 * The slice extension (slice.c).  A vCPU task about to be rescheduled on
 * its way back into the guest (xfer_to_guest_mode_handle_work()) may keep
 * its CPU a little longer if its guest is inside a critical section: its
 * preemption count, which the guest registered (ABI v3, @preempt_gpa), is
 * not zero.  x86 keeps the count in bits 0-30 and an inverted "need
 * resched" in bit 31 (PREEMPT_NEED_RESCHED, arch/x86/include/asm/preempt.h),
 * which says nothing about a critical section and is ignored.
 */
#define PVPLE_PREEMPT_COUNT_MASK	0x7fffffffU

enum pvple_slice {
	PVPLE_SLICE_NONE,	/* not in a critical section: reschedule */
	PVPLE_SLICE_GRANT,	/* keep the CPU for up to slice_ext_us */
	PVPLE_SLICE_END,	/* a grant is running out: reschedule now */
	PVPLE_SLICE_OFF,	/* in one, but the extension is off */
	PVPLE_SLICE_WAITING,	/* in one, but waiting for a lock itself */
	PVPLE_SLICE_FAULT,	/* the count cannot be read */
	PVPLE_SLICE_STEP,	/* a grant's step: still in one, keep going */
	PVPLE_SLICE_DONE,	/* the guest ended the granted section */
	PVPLE_SLICE_REFUSED,	/* in one, but a gate refuses: @gate says */
	PVPLE_NR_SLICES
};

/*
 * Where a grant is not safe, whatever the guest says (slice.c,
 * pvple_slice_gate()): the reason a request inside a section was refused.
 */
enum pvple_slice_gate {
	PVPLE_GATE_OPEN,	/* nothing refuses */
	PVPLE_GATE_MODEL,	/* the host's preemption model is not */
				/* none or voluntary */
	PVPLE_GATE_RT_TASK,	/* the vCPU thread is RT or deadline */
	PVPLE_GATE_NESTED,	/* the vCPU runs a nested guest */
	PVPLE_GATE_TIMER,	/* hrtimers coarser than the bound */
	PVPLE_GATE_REGRANT,	/* this request was extended once already */
	PVPLE_NR_GATES
};

struct pvple_slice_env {
	bool model_ok;		/* preempt_model_none() or _voluntary() */
	bool rt_task;		/* rt_or_dl_task(current) */
	bool nested;		/* is_guest_mode(vcpu) */
	bool owed;		/* the request was given back by a grant */
	__u64 resolution_ns;	/* hrtimer_resolution */
	__u64 bound_ns;		/* the grant's bound */
};

struct pvple_slice_in {
	bool on;		/* slice_ext_us > 0, and pvple on for the VM */
	bool granted;		/* a grant is running since the last request */
	bool step;		/* ... and its own step timer made this one, */
				/* with time left before its bound */
	bool done;		/* ... and the guest said its section ended */
	bool read_ok;		/* @count was read from the guest */
	__u32 count;		/* the guest's preemption count */
	bool waiting;		/* its record says it waits for a lock */
	bool head;		/* ... as the head of its queue */
	enum pvple_slice_gate gate;	/* pvple_slice_gate() */
};

void pvple_slice_rec(struct pvple_slice_in *in, enum pvple_rec r, __u64 wait);
enum pvple_slice pvple_slice_decide(const struct pvple_slice_in *in);
enum pvple_slice_gate pvple_slice_gate(const struct pvple_slice_env *e);
__u64 pvple_hc_features(bool on, bool counted, enum pvple_slice_gate gate);
bool pvple_slice_in_cs(const struct pvple_slice_in *in);

#endif /* _KVM_PVPLE_POLICY_H */
