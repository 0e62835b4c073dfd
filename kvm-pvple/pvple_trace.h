/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM kvm_pvple

#if !defined(_KVM_PVPLE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _KVM_PVPLE_TRACE_H

#include <linux/tracepoint.h>

struct kvm;

/* Every event names the VM by its struct kvm, as KVM's own events do. */
TRACE_EVENT(kvm_pvple_ple_exit,
	    TP_PROTO(struct kvm *kvm, int vcpu_id, bool yield_to_kernel_mode),
	    TP_ARGS(kvm, vcpu_id, yield_to_kernel_mode),
	    TP_STRUCT__entry(__field(void *, kvm)
			     __field(int, vcpu_id)
			     __field(bool, yield_to_kernel_mode)),
	    TP_fast_assign(__entry->kvm = kvm;
			   __entry->vcpu_id = vcpu_id;
			   __entry->yield_to_kernel_mode = yield_to_kernel_mode),
	    TP_printk("kvm %p vcpu %d kernel_only %d", __entry->kvm,
		      __entry->vcpu_id, __entry->yield_to_kernel_mode)
);

TRACE_EVENT(kvm_pvple_hypercall,
	    TP_PROTO(struct kvm *kvm, int vcpu_id, unsigned long nr,
		     unsigned long ret),
	    TP_ARGS(kvm, vcpu_id, nr, ret),
	    TP_STRUCT__entry(__field(void *, kvm)
			     __field(int, vcpu_id)
			     __field(unsigned long, nr)
			     __field(long, ret)),
	    TP_fast_assign(__entry->kvm = kvm;
			   __entry->vcpu_id = vcpu_id;
			   __entry->nr = nr;
			   __entry->ret = ret),
	    TP_printk("kvm %p vcpu %d nr 0x%lx ret %ld", __entry->kvm,
		      __entry->vcpu_id, __entry->nr, __entry->ret)
);

TRACE_EVENT(kvm_pvple_vcpu_load,
	    TP_PROTO(struct kvm *kvm, int vcpu_id, bool sched_in),
	    TP_ARGS(kvm, vcpu_id, sched_in),
	    TP_STRUCT__entry(__field(void *, kvm)
			     __field(int, vcpu_id)
			     __field(bool, sched_in)),
	    TP_fast_assign(__entry->kvm = kvm;
			   __entry->vcpu_id = vcpu_id;
			   __entry->sched_in = sched_in),
	    TP_printk("kvm %p vcpu %d %s", __entry->kvm, __entry->vcpu_id,
		      __entry->sched_in ? "sched_in" : "ioctl")
);

TRACE_EVENT(kvm_pvple_vm,
	    TP_PROTO(struct kvm *kvm, const char *name, bool created),
	    TP_ARGS(kvm, name, created),
	    TP_STRUCT__entry(__field(void *, kvm)
			     __string(name, name)
			     __field(bool, created)),
	    TP_fast_assign(__entry->kvm = kvm;
			   __assign_str(name);
			   __entry->created = created),
	    TP_printk("kvm %p %s %s", __entry->kvm, __get_str(name),
		      __entry->created ? "created" : "destroyed")
);

#endif /* _KVM_PVPLE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE pvple_trace
#include <trace/define_trace.h>
