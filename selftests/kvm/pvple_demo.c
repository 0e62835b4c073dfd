// SPDX-License-Identifier: GPL-2.0
/*
 * pvple_demo: a small contended guest, and what kvm-pvple observed of it.
 *
 * NR_VCPUS vCPUs take a guest ticket lock in turn, spinning with PAUSE, on
 * fewer host CPUs than vCPUs, so lock holders get preempted.  Prints one
 * table of the guest's progress and the module's counters for the VM.
 * Not a test: "make demo" runs it, "make check" does not.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <uapi/linux/kvm_pvple.h>

#include "kvm_util.h"
#include "processor.h"
#include "ucall_common.h"
#include "pvple_util.h"

#define NR_VCPUS	4

struct ticket_lock {
	u32 next;
	u32 owner;
};

static struct ticket_lock guest_lock;
static u64 guest_iters, guest_acquired, guest_probe;

static void guest_lock_loop(u32 id)
{
	u64 i;
	int j;

	if (!id)
		guest_probe = kvm_hypercall(KVM_HC_PVPLE_PROBE, 0, 0, 0, 0);
	for (i = 0; i < guest_iters; i++) {
		u32 me = __atomic_fetch_add(&guest_lock.next, 1,
						 __ATOMIC_ACQUIRE);

		while (__atomic_load_n(&guest_lock.owner, __ATOMIC_ACQUIRE) != me)
			asm volatile("pause" ::: "memory");
		guest_acquired++;
		for (j = 0; j < 200; j++)
			asm volatile("" ::: "memory");
		__atomic_store_n(&guest_lock.owner, me + 1, __ATOMIC_RELEASE);
	}
	GUEST_DONE();
}

int main(int argc, char *argv[])
{
	struct kvm_vcpu *vcpus[NR_VCPUS];
	struct pvple_vcpu_thread t[NR_VCPUS];
	int ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct timespec t0, t1;
	struct pvple_counts c;
	bool tracked;
	struct kvm_vm *vm;
	double secs;
	int i;

	guest_iters = argc > 1 ? strtoull(argv[1], NULL, 0) : 2000;
	vm = vm_create_with_vcpus(NR_VCPUS, guest_lock_loop, vcpus);
	for (i = 0; i < NR_VCPUS; i++) {
		vcpu_args_set(vcpus[i], 1, i);
		/* Two vCPUs per host CPU at least: lock holders get preempted. */
		t[i] = (struct pvple_vcpu_thread){
			.vcpu = vcpus[i],
			.cpu = i % (ncpus > NR_VCPUS / 2 ? NR_VCPUS / 2 : ncpus),
		};
	}
	sync_global_to_guest(vm, guest_iters);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	pvple_run_vcpus(t, NR_VCPUS, 600);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	sync_global_from_guest(vm, guest_acquired);
	sync_global_from_guest(vm, guest_probe);
	tracked = pvple_vm_counts(vm, &c);

	printf("pvple demo: %d vCPUs on %d host CPUs, guest ticket lock, %lu %s\n",
	       NR_VCPUS, ncpus < NR_VCPUS / 2 ? ncpus : NR_VCPUS / 2,
	       (unsigned long)guest_iters, "acquisitions per vCPU");
	printf("  %-34s %12.2f s\n", "wall time", secs);
	printf("  %-34s %12.0f\n", "lock acquisitions/s", guest_acquired / secs);
	printf("  %-34s %12s\n", "guest probe hypercall",
	       guest_probe == PVPLE_ABI_VERSION ? "pvple v1" : "no pvple");
	if (!tracked) {
		printf("  kvm-pvple does not track this VM (module not loaded)\n");
		return 0;
	}
	printf("  %-34s %12lu%s\n", "PLE exits seen by kvm-pvple",
	       (unsigned long)c.ple_exits,
	       pvple_fixture_loaded() ? "  (test fixture: every PAUSE exits)" : "");
	printf("  %-34s %12.1f\n", "PLE exits per acquisition",
	       (double)c.ple_exits / guest_acquired);
	printf("  %-34s %12lu\n", "pvple hypercalls", (unsigned long)c.hypercalls);
	printf("  %-34s %12lu\n", "vCPU schedule-ins", (unsigned long)c.sched_in);
	printf("  %-34s %12lu\n", "vCPU loads by ioctl", (unsigned long)c.vcpu_load);
	kvm_vm_free(vm);
	return 0;
}
