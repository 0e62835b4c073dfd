/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the pvple selftests: the module's counters for one VM,
 * what the host can do (PLE on or off), and vCPU threads with a deadline
 * that say where a stuck vCPU was before they fail.
 */
#ifndef SELFTEST_PVPLE_UTIL_H
#define SELFTEST_PVPLE_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "kvm_util.h"

#define PVPLE_MAX_VCPUS	8

/* Field names as printed in /sys/kernel/debug/kvm-pvple/vms. */
struct pvple_counts {
	u64 ple_exits;
	u64 hypercalls;
	u64 hc_probe;
	u64 hc_unknown;
	u64 hc_eperm;
	u64 sched_in;
	u64 vcpu_load;
};

bool pvple_module_loaded(void);
/* True when the pause-filter test fixture made every PAUSE exit. */
bool pvple_fixture_loaded(void);
/* True when the host intercepts PAUSE at all (PLE / pause filter on). */
bool pvple_ple_enabled(void);

/* Reads this VM's line; false when the module does not track the VM. */
bool pvple_vm_counts(struct kvm_vm *vm, struct pvple_counts *c);

/*
 * Each vCPU runs in its own thread until the guest reports UCALL_DONE
 * (UCALL_SYNC is ignored).  pvple_wait_vcpus() fails the test if any vCPU
 * is not done within @timeout_s; before failing it prints the kernel stacks
 * of the test's threads and each stuck vCPU's registers, so that a report
 * says which case was hit (guest loop, host sleep, emulator).
 */
struct pvple_vcpu_thread {
	struct kvm_vcpu *vcpu;
	pthread_t thread;
	int cpu;		/* pin to this host CPU, or -1 */
	int done;
	pid_t tid;
	u64 nivcsw;	/* involuntary switches, read when done */
};

void pvple_start_vcpus(struct pvple_vcpu_thread *t, int n);
void pvple_wait_vcpus(struct pvple_vcpu_thread *t, int n, int timeout_s);

static inline void pvple_run_vcpus(struct pvple_vcpu_thread *t, int n,
				   int timeout_s)
{
	pvple_start_vcpus(t, n);
	pvple_wait_vcpus(t, n, timeout_s);
}

/* Involuntary context switches of a thread so far, from /proc. */
u64 pvple_thread_nivcsw(pid_t tid);

#endif
