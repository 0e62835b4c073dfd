/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM kvm_pvple

#if !defined(_KVM_PVPLE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _KVM_PVPLE_TRACE_H

#include <linux/kvm_host.h>
#include <linux/tracepoint.h>

#include "pvple.h"

/*
 * Every event names the VM by the pid of the process that created it, as
 * KVM's debugfs directory "<pid>-<fd>" and the "vms" file do (a pointer
 * would print hashed), and prints enums by name.
 *
 * The symbol tables name the enums' own constants (as KVM's
 * arch/x86/kvm/trace.h does), each exported to user space with
 * TRACE_DEFINE_ENUM() for tools that parse the format files.  A constant
 * added to an enum without its entry here prints as a number: main.c
 * asserts at build time that each table ends at its enum's last constant.
 */
TRACE_DEFINE_ENUM(PVPLE_REC_OK);
TRACE_DEFINE_ENUM(PVPLE_REC_UNREGISTERED);
TRACE_DEFINE_ENUM(PVPLE_REC_FAULT);
TRACE_DEFINE_ENUM(PVPLE_REC_TARGET_ABSENT);
TRACE_DEFINE_ENUM(PVPLE_REC_IDLE);
TRACE_DEFINE_ENUM(PVPLE_REC_TORN);
TRACE_DEFINE_ENUM(PVPLE_REC_BAD);
TRACE_DEFINE_ENUM(PVPLE_REC_TARGET_RANGE);
TRACE_DEFINE_ENUM(PVPLE_REC_TARGET_SELF);
TRACE_DEFINE_ENUM(PVPLE_REC_NO_HOLDER);
TRACE_DEFINE_ENUM(PVPLE_REC_OUTSIDE);
TRACE_DEFINE_ENUM(PVPLE_CHAIN_HOLDER);
TRACE_DEFINE_ENUM(PVPLE_CHAIN_NO_HOLDER);
TRACE_DEFINE_ENUM(PVPLE_CHAIN_DEEP);
TRACE_DEFINE_ENUM(PVPLE_CHAIN_STALE);
TRACE_DEFINE_ENUM(PVPLE_CHAIN_CROSS);
TRACE_DEFINE_ENUM(PVPLE_CHAIN_CYCLE);
TRACE_DEFINE_ENUM(PVPLE_CHAIN_ABSENT);
TRACE_DEFINE_ENUM(PVPLE_CHAIN_HEAD);
TRACE_DEFINE_ENUM(PVPLE_TARGET_RUNNING);
TRACE_DEFINE_ENUM(PVPLE_TARGET_PREEMPTED);
TRACE_DEFINE_ENUM(PVPLE_TARGET_READY);
TRACE_DEFINE_ENUM(PVPLE_TARGET_PARKED);
TRACE_DEFINE_ENUM(PVPLE_TARGET_HALTED);
TRACE_DEFINE_ENUM(PVPLE_TARGET_OUT);
TRACE_DEFINE_ENUM(PVPLE_TARGET_SLEEPING);
TRACE_DEFINE_ENUM(PVPLE_ACT_STOCK);
TRACE_DEFINE_ENUM(PVPLE_ACT_SPIN);
TRACE_DEFINE_ENUM(PVPLE_ACT_YIELD);
TRACE_DEFINE_ENUM(PVPLE_ACT_PARK);
TRACE_DEFINE_ENUM(PVPLE_WAKE_SCHED_IN);
TRACE_DEFINE_ENUM(PVPLE_WAKE_TIMEOUT);
TRACE_DEFINE_ENUM(PVPLE_WAKE_EVENT);
TRACE_DEFINE_ENUM(PVPLE_WAKE_TEARDOWN);
TRACE_DEFINE_ENUM(PVPLE_L3_OFF);
TRACE_DEFINE_ENUM(PVPLE_L3_AUTO);
TRACE_DEFINE_ENUM(PVPLE_L3_ON);
TRACE_DEFINE_ENUM(PVPLE_L3_ADDED);
TRACE_DEFINE_ENUM(PVPLE_L3_RESHARED);
TRACE_DEFINE_ENUM(PVPLE_L3_KEPT);
TRACE_DEFINE_ENUM(PVPLE_L3_DISABLED);
TRACE_DEFINE_ENUM(PVPLE_L3_NO_VENDOR);
TRACE_DEFINE_ENUM(PVPLE_L3_NO_SLOT);
TRACE_DEFINE_ENUM(PVPLE_SLICE_NONE);
TRACE_DEFINE_ENUM(PVPLE_SLICE_GRANT);
TRACE_DEFINE_ENUM(PVPLE_SLICE_END);
TRACE_DEFINE_ENUM(PVPLE_SLICE_OFF);
TRACE_DEFINE_ENUM(PVPLE_SLICE_WAITING);
TRACE_DEFINE_ENUM(PVPLE_SLICE_FAULT);
TRACE_DEFINE_ENUM(PVPLE_SLICE_STEP);
TRACE_DEFINE_ENUM(PVPLE_SLICE_DONE);
TRACE_DEFINE_ENUM(PVPLE_SLICE_REFUSED);

#define pvple_show_rec(v)						\
	__print_symbolic(v, { PVPLE_REC_OK, "ok" },			\
			 { PVPLE_REC_UNREGISTERED, "unregistered" },	\
			 { PVPLE_REC_FAULT, "fault" },			\
			 { PVPLE_REC_TARGET_ABSENT, "target_absent" },	\
			 { PVPLE_REC_IDLE, "idle" },			\
			 { PVPLE_REC_TORN, "torn" },			\
			 { PVPLE_REC_BAD, "bad" },			\
			 { PVPLE_REC_TARGET_RANGE, "target_range" },	\
			 { PVPLE_REC_TARGET_SELF, "target_self" },	\
			 { PVPLE_REC_NO_HOLDER, "no_holder" },		\
			 { PVPLE_REC_OUTSIDE, "outside" })
#define pvple_show_end(v)						\
	__print_symbolic(v, { PVPLE_CHAIN_HOLDER, "holder" },		\
			 { PVPLE_CHAIN_NO_HOLDER, "no_holder" },	\
			 { PVPLE_CHAIN_DEEP, "deep" },			\
			 { PVPLE_CHAIN_STALE, "stale" },		\
			 { PVPLE_CHAIN_CROSS, "cross" },		\
			 { PVPLE_CHAIN_CYCLE, "cycle" },		\
			 { PVPLE_CHAIN_ABSENT, "absent" },		\
			 { PVPLE_CHAIN_HEAD, "head" })
#define pvple_show_target(v)						\
	__print_symbolic(v, { -1, "-" },				\
			 { PVPLE_TARGET_RUNNING, "running" },		\
			 { PVPLE_TARGET_PREEMPTED, "preempted" },	\
			 { PVPLE_TARGET_READY, "ready" },		\
			 { PVPLE_TARGET_PARKED, "parked" },		\
			 { PVPLE_TARGET_HALTED, "halted" },		\
			 { PVPLE_TARGET_OUT, "out" },			\
			 { PVPLE_TARGET_SLEEPING, "sleeping" })
#define pvple_show_action(v)						\
	__print_symbolic(v, { PVPLE_ACT_STOCK, "stock" },		\
			 { PVPLE_ACT_SPIN, "spin" },			\
			 { PVPLE_ACT_YIELD, "yield" },			\
			 { PVPLE_ACT_PARK, "park" })
#define pvple_show_wake(v)						\
	__print_symbolic(v, { PVPLE_WAKE_SCHED_IN, "sched_in" },	\
			 { PVPLE_WAKE_TIMEOUT, "timeout" },		\
			 { PVPLE_WAKE_EVENT, "event" },			\
			 { PVPLE_WAKE_TEARDOWN, "teardown" })
#define pvple_show_l3_mode(v)						\
	__print_symbolic(v, { PVPLE_L3_OFF, "off" },			\
			 { PVPLE_L3_AUTO, "auto" },			\
			 { PVPLE_L3_ON, "on" })
#define pvple_show_l3_result(v)						\
	__print_symbolic(v, { PVPLE_L3_ADDED, "added" },		\
			 { PVPLE_L3_RESHARED, "reshared" },		\
			 { PVPLE_L3_KEPT, "kept" },			\
			 { PVPLE_L3_DISABLED, "off" },			\
			 { PVPLE_L3_NO_VENDOR, "no_vendor" },		\
			 { PVPLE_L3_NO_SLOT, "no_slot" })
#define pvple_show_slice(v)						\
	__print_symbolic(v, { PVPLE_SLICE_NONE, "none" },		\
			 { PVPLE_SLICE_GRANT, "grant" },		\
			 { PVPLE_SLICE_END, "end" },			\
			 { PVPLE_SLICE_OFF, "off" },			\
			 { PVPLE_SLICE_WAITING, "waiting" },		\
			 { PVPLE_SLICE_FAULT, "fault" },		\
			 { PVPLE_SLICE_STEP, "step" },			\
			 { PVPLE_SLICE_DONE, "done" },			\
			 { PVPLE_SLICE_REFUSED, "refused" })

/*
 * @target_id: the vCPU the spinner's record names; @len vCPUs were looked
 * at along the chain, which ended as @end at @end_id in state @end_state;
 * @action is taken on @at_id (a yield), or behind @target_id (a park).
 */
TRACE_EVENT(kvm_pvple_decide,
	    TP_PROTO(struct kvm *kvm, int vcpu_id, bool hypercall, int rec,
		     int target_id, int len, int end, int end_id,
		     int end_state, int action, int at_id),
	    TP_ARGS(kvm, vcpu_id, hypercall, rec, target_id, len, end, end_id,
		    end_state, action, at_id),
	    TP_STRUCT__entry(__field(pid_t, pid)
			     __field(int, vcpu_id)
			     __field(bool, hypercall)
			     __field(int, rec)
			     __field(int, target_id)
			     __field(int, len)
			     __field(int, end)
			     __field(int, end_id)
			     __field(int, end_state)
			     __field(int, action)
			     __field(int, at_id)),
	    TP_fast_assign(__entry->pid = kvm->userspace_pid;
			   __entry->vcpu_id = vcpu_id;
			   __entry->hypercall = hypercall;
			   __entry->rec = rec;
			   __entry->target_id = target_id;
			   __entry->len = len;
			   __entry->end = end;
			   __entry->end_id = end_id;
			   __entry->end_state = end_state;
			   __entry->action = action;
			   __entry->at_id = at_id),
	    TP_printk("kvm %d vcpu %d %s rec %s target %d chain %d %s at %d state %s action %s on %d",
		      __entry->pid, __entry->vcpu_id,
		      __entry->hypercall ? "park-hc" : "ple",
		      pvple_show_rec(__entry->rec), __entry->target_id,
		      __entry->len, pvple_show_end(__entry->end),
		      __entry->end_id, pvple_show_target(__entry->end_state),
		      pvple_show_action(__entry->action), __entry->at_id)
);

TRACE_EVENT(kvm_pvple_yield,
	    TP_PROTO(struct kvm *kvm, int vcpu_id, int target_id, int ret),
	    TP_ARGS(kvm, vcpu_id, target_id, ret),
	    TP_STRUCT__entry(__field(pid_t, pid)
			     __field(int, vcpu_id)
			     __field(int, target_id)
			     __field(int, ret)),
	    TP_fast_assign(__entry->pid = kvm->userspace_pid;
			   __entry->vcpu_id = vcpu_id;
			   __entry->target_id = target_id;
			   __entry->ret = ret),
	    TP_printk("kvm %d vcpu %d target %d ret %d", __entry->pid,
		      __entry->vcpu_id, __entry->target_id, __entry->ret)
);

/*
 * A park has ended.  The event is written after the park, perhaps after a
 * preemption; start_ns is when the park began, by ktime_get(), which is the
 * trace clock "mono": with that clock it lines up with the trace's own
 * timestamps (sched_switch, for one).
 */
TRACE_EVENT(kvm_pvple_wake,
	    TP_PROTO(struct kvm *kvm, int vcpu_id, int target_id, int why,
		     u64 parked_ns, u64 start_ns),
	    TP_ARGS(kvm, vcpu_id, target_id, why, parked_ns, start_ns),
	    TP_STRUCT__entry(__field(pid_t, pid)
			     __field(int, vcpu_id)
			     __field(int, target_id)
			     __field(int, why)
			     __field(u64, parked_ns)
			     __field(u64, start_ns)),
	    TP_fast_assign(__entry->pid = kvm->userspace_pid;
			   __entry->vcpu_id = vcpu_id;
			   __entry->target_id = target_id;
			   __entry->why = why;
			   __entry->parked_ns = parked_ns;
			   __entry->start_ns = start_ns),
	    TP_printk("kvm %d vcpu %d target %d why %s parked_ns %llu start_ns %llu",
		      __entry->pid, __entry->vcpu_id, __entry->target_id,
		      pvple_show_wake(__entry->why),
		      __entry->parked_ns, __entry->start_ns)
);

TRACE_EVENT(kvm_pvple_hypercall,
	    TP_PROTO(struct kvm *kvm, int vcpu_id, unsigned long nr,
		     unsigned long ret),
	    TP_ARGS(kvm, vcpu_id, nr, ret),
	    TP_STRUCT__entry(__field(pid_t, pid)
			     __field(int, vcpu_id)
			     __field(unsigned long, nr)
			     __field(long, ret)),
	    TP_fast_assign(__entry->pid = kvm->userspace_pid;
			   __entry->vcpu_id = vcpu_id;
			   __entry->nr = nr;
			   __entry->ret = ret),
	    TP_printk("kvm %d vcpu %d nr 0x%lx ret %ld", __entry->pid,
		      __entry->vcpu_id, __entry->nr, __entry->ret)
);

TRACE_EVENT(kvm_pvple_vcpu_load,
	    TP_PROTO(struct kvm *kvm, int vcpu_id, bool sched_in),
	    TP_ARGS(kvm, vcpu_id, sched_in),
	    TP_STRUCT__entry(__field(pid_t, pid)
			     __field(int, vcpu_id)
			     __field(bool, sched_in)),
	    TP_fast_assign(__entry->pid = kvm->userspace_pid;
			   __entry->vcpu_id = vcpu_id;
			   __entry->sched_in = sched_in),
	    TP_printk("kvm %d vcpu %d %s", __entry->pid, __entry->vcpu_id,
		      __entry->sched_in ? "sched_in" : "ioctl")
);

/*
 * A reschedule request met on the way into the guest (slice.c): the
 * guest's preemption count @count as read, and what was decided.
 */
TRACE_EVENT(kvm_pvple_slice,
	    TP_PROTO(struct kvm *kvm, int vcpu_id, enum pvple_slice d,
		     u32 count),
	    TP_ARGS(kvm, vcpu_id, d, count),
	    TP_STRUCT__entry(__field(pid_t, pid)
			     __field(int, vcpu_id)
			     __field(int, d)
			     __field(u32, count)),
	    TP_fast_assign(__entry->pid = kvm->userspace_pid;
			   __entry->vcpu_id = vcpu_id;
			   __entry->d = d;
			   __entry->count = count),
	    TP_printk("kvm %d vcpu %d count 0x%x %s", __entry->pid,
		      __entry->vcpu_id, __entry->count,
		      pvple_show_slice(__entry->d))
);

TRACE_EVENT(kvm_pvple_vm,
	    TP_PROTO(struct kvm *kvm, const char *name, bool created),
	    TP_ARGS(kvm, name, created),
	    TP_STRUCT__entry(__field(pid_t, pid)
			     __string(name, name)
			     __field(bool, created)),
	    TP_fast_assign(/* Not yet set while KVM creates the VM. */
			   __entry->pid = kvm->userspace_pid ?:
					  task_pid_nr(current);
			   __assign_str(name);
			   __entry->created = created),
	    TP_printk("kvm %d %s %s", __entry->pid, __get_str(name),
		      __entry->created ? "created" : "destroyed")
);

/* One KVM_SET_CPUID{,2} under l3_cache=: what was done, how many entries. */
TRACE_EVENT(kvm_pvple_cpuid,
	    TP_PROTO(struct kvm *kvm, int vcpu_id, int mode, int result,
		     int edits),
	    TP_ARGS(kvm, vcpu_id, mode, result, edits),
	    TP_STRUCT__entry(__field(pid_t, pid)
			     __field(int, vcpu_id)
			     __field(int, mode)
			     __field(int, result)
			     __field(int, edits)),
	    TP_fast_assign(__entry->pid = kvm->userspace_pid;
			   __entry->vcpu_id = vcpu_id;
			   __entry->mode = mode;
			   __entry->result = result;
			   __entry->edits = edits),
	    TP_printk("kvm %d vcpu %d l3_cache %s result %s edits %d",
		      __entry->pid, __entry->vcpu_id,
		      pvple_show_l3_mode(__entry->mode),
		      pvple_show_l3_result(__entry->result),
		      __entry->edits)
);

#endif /* _KVM_PVPLE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE pvple_trace
#include <trace/define_trace.h>
