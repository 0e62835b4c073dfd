/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvm-pvple internal interfaces.
 *
 * The way of one PLE exit:  hooks.c -> pvple_on_spin() -> back to KVM.
 * The way of one hypercall: hooks.c -> pvple_hypercall() (abi.c).
 * The way of one vCPU load: hooks.c -> pvple_vcpu_loaded() (vm.c).
 */
#ifndef _KVM_PVPLE_H
#define _KVM_PVPLE_H

#include <linux/kvm_host.h>
#include <linux/percpu.h>
#include <linux/srcu.h>

/* Per-VM and global event counters, summed over CPUs when read. */
enum pvple_stat {
	PVPLE_STAT_PLE_EXITS,
	PVPLE_STAT_HYPERCALLS,
	PVPLE_STAT_HC_PROBE,
	PVPLE_STAT_HC_UNKNOWN,
	PVPLE_STAT_HC_EPERM,
	PVPLE_STAT_SCHED_IN,
	PVPLE_STAT_VCPU_LOAD,
	PVPLE_NR_STATS
};

struct pvple_stats {
	u64 v[PVPLE_NR_STATS];
};

/* Name of a VM as KVM's own debugfs names it: "<pid>-<fd>". */
#define PVPLE_VM_NAME_LEN	32

struct pvple_vm {
	struct hlist_node hnode;	/* pvple_vm_hash, RCU-protected */
	struct list_head lnode;		/* pvple_vm_list, for the stats file */
	struct kvm *kvm;
	struct pvple_stats __percpu *stats;
	char name[PVPLE_VM_NAME_LEN];
	struct rcu_head rcu;
};

/* vm.c */
struct pvple_vm *pvple_vm_find(struct kvm *kvm);
void pvple_vm_created(struct kvm *kvm);
void pvple_vm_destroyed(struct kvm *kvm);
void pvple_vm_count(struct kvm *kvm, enum pvple_stat stat);
void pvple_vcpu_loaded(struct kvm_vcpu *vcpu);
int pvple_vm_init(void);
void pvple_vm_exit(void);

/* abi.c */
unsigned long pvple_hypercall(struct kvm_vcpu *vcpu, unsigned long nr,
			      unsigned long a0, unsigned long a1,
			      unsigned long a2, unsigned long a3,
			      int op_64_bit, int cpl);

/* spin.c */
void pvple_on_spin(struct kvm_vcpu *me, bool yield_to_kernel_mode);

/* hooks.c */
int pvple_hooks_init(void);
void pvple_hooks_exit(void);

#endif /* _KVM_PVPLE_H */
