/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kvm-pvple lock tests share: the guest's state (one copy per VM,
 * shared with the host through its HVA), the guests that wait behind a
 * holder, and the host's helpers.  Included by one test file each; what
 * one of them does not use is __maybe_unused.
 */
#ifndef _PVPLE_LOCK_H
#define _PVPLE_LOCK_H

#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "apic.h"
#include "kvm_util.h"
#include "processor.h"
#include "ucall_common.h"
#include "pvple_guest.h"
#include "pvple_util.h"

#define TIMEOUT_S		120
#define HARNESS_TIMEOUT_S	600
#define MAX_EVENTS		65536

FIXTURE(pvple) {};
FIXTURE_SETUP(pvple) {}
/* What a test changed on the host is put back, even when it failed. */
FIXTURE_TEARDOWN(pvple)
{
	pvple_host_restore();
}

/* Guest state: one copy per VM, shared with the host through its HVA. */
static __maybe_unused struct pvple_area guest_areas[PVPLE_MAX_VCPUS] __aligned(PVPLE_AREA_ALIGN);
static __maybe_unused u64 guest_area_gpa[PVPLE_MAX_VCPUS];
static __maybe_unused struct pvple_ticket_lock guest_lock;
static __maybe_unused u64 guest_held, guest_release, guest_stop, guest_go[PVPLE_MAX_VCPUS];
static __maybe_unused u64 guest_kick_now, guest_loops[PVPLE_MAX_VCPUS];
static __maybe_unused u64 guest_res[PVPLE_MAX_VCPUS][32];

/* The guest's copy of a u64 global, seen from the host. */
static __maybe_unused u64 *host_ptr(struct kvm_vm *vm, u64 *g)
{
	return addr_gva2hva(vm, (vm_vaddr_t)g);
}

#define SET(vm, g, v)	WRITE_ONCE(*host_ptr(vm, &(g)), v)
#define GET(vm, g)	READ_ONCE(*host_ptr(vm, &(g)))

static __maybe_unused void guest_register(u32 id)
{
	GUEST_ASSERT_EQ(pvple_guest_register(&guest_areas[id], guest_area_gpa[id]), 0);
}

static __maybe_unused struct kvm_vm *
create_vm(int n, void *code, struct pvple_vcpu_thread *t, int pin)
{
	struct kvm_vcpu *vcpus[PVPLE_MAX_VCPUS];
	struct kvm_vm *vm = vm_create_with_vcpus(n, code, vcpus);
	int i;

	for (i = 0; i < n; i++) {
		vcpu_args_set(vcpus[i], 1, i);
		t[i] = (struct pvple_vcpu_thread){ .vcpu = vcpus[i], .cpu = pin };
		guest_area_gpa[i] = addr_gva2gpa(vm, (vm_vaddr_t)&guest_areas[i]);
	}
	sync_global_to_guest(vm, guest_area_gpa);
	return vm;
}

static __maybe_unused const char *unsupported(bool need_ple)
{
	if (!pvple_module_loaded())
		return "kvm-pvple is not loaded";
	if (need_ple && !pvple_ple_enabled())
		return "host does not intercept PAUSE (no PLE or pause filter)";
	return NULL;
}

static __maybe_unused void set_params(const char *mode, const char *park_max_us)
{
	pvple_param_set("mode", mode);
	pvple_param_set("time_scale", "1");
	pvple_param_set("park_max_us", park_max_us);
}

/* Polls the VM's counters until @pred holds or @secs pass. */
static __maybe_unused bool
wait_counts(struct kvm_vm *vm, struct pvple_counts *c,
	    bool (*pred)(struct pvple_counts *c), int secs)
{
	int ms;

	for (ms = 0; ms < secs * 1000; ms += 10) {
		if (pvple_vm_counts(vm, c) && pred(c))
			return true;
		usleep(10000);
	}
	return false;
}

static __maybe_unused bool three_yields(struct pvple_counts *c) { return c->yield_ok >= 3; }
static __maybe_unused bool three_parks(struct pvple_counts *c) { return c->parks >= 3; }
static __maybe_unused bool one_park(struct pvple_counts *c) { return c->parks >= 1; }
static __maybe_unused bool five_timeouts(struct pvple_counts *c) { return c->wake_timeout >= 5; }
static __maybe_unused bool one_event(struct pvple_counts *c) { return c->wake_event >= 1; }

/*
 * vCPU 0 takes the lock and keeps it until the host says; vCPUs 1 to
 * guest_waiters queue for it in that order (vCPU 1, the head, publishes
 * vCPU 0 as the holder, each one after it its predecessor); the others are
 * bystanders: runnable, preempted as often as the holder, and never worth
 * a yield.
 */
static __maybe_unused u64 guest_waiters = 1;

static __maybe_unused void guest_holder_waiter(u32 id, bool use_hc)
{
	guest_register(id);
	if (id == 0) {
		pvple_ticket_lock(&guest_lock, 0, &guest_areas[0], false);
		WRITE_ONCE(guest_held, 1);
		while (!READ_ONCE(guest_release))
			;
		pvple_ticket_unlock(&guest_lock);
	} else if (id <= READ_ONCE(guest_waiters)) {
		/* Queue in id order, behind a predecessor that says who it is. */
		while (!READ_ONCE(guest_held) ||
		       READ_ONCE(guest_lock.next) < id ||
		       READ_ONCE(guest_lock.vcpu_of[id - 1]) != id - 1)
			;
		pvple_ticket_lock(&guest_lock, id, &guest_areas[id], use_hc);
		pvple_ticket_unlock(&guest_lock);
	} else {
		while (!READ_ONCE(guest_stop))
			;
	}
	GUEST_DONE();
}

static __maybe_unused void guest_pause_waiter(u32 id)
{
	guest_holder_waiter(id, false);
}

static __maybe_unused void guest_hc_waiter(u32 id)
{
	guest_holder_waiter(id, true);
}

static __maybe_unused void
release_and_wait(struct kvm_vm *vm, struct pvple_vcpu_thread *t, int n)
{
	SET(vm, guest_release, 1);
	SET(vm, guest_stop, 1);
	pvple_wait_vcpus(t, n, TIMEOUT_S);
}

static __maybe_unused const char *need_two_cpus(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN) < 2 ? "needs two host CPUs" :
	       NULL;
}

#define LOCK_2	(PVPLE_TEST_LOCK + 64)

static __maybe_unused void set_rec(u32 id, u32 target, u32 role, u64 lock)
{
	pvple_guest_publish_on(&guest_areas[id], target, role, lock);
}

/*
 * Crafted records: vCPUs 1 to @n - 1 register and leave KVM_RUN (each is
 * then a vCPU a park would wait for); then vCPU 0 runs @code's cases, in
 * mode @mode with a 2 ms bound on a park.  vCPU 0's results come back in
 * guest_res[0], the VM's counters in @c; the caller frees *@vmp.
 */
static __maybe_unused void
run_crafted(struct __test_metadata *_metadata, int n, void *code,
	    const char *mode, struct pvple_counts *c, struct kvm_vm **vmp)
{
	struct pvple_vcpu_thread t[PVPLE_MAX_VCPUS];

	set_params(mode, "2000");
	*vmp = create_vm(n, code, t, -1);
	pvple_run_vcpus(&t[1], n - 1, TIMEOUT_S);
	pvple_run_vcpus(t, 1, TIMEOUT_S);
	sync_global_from_guest(*vmp, guest_res);
	ASSERT_TRUE(pvple_vm_counts(*vmp, c));
}

/* Waits behind vCPU 0 with the park hypercall until the host says stop. */
static __maybe_unused void guest_park_behind_0(u32 id)
{
	pvple_guest_publish(&guest_areas[id], 0, PVPLE_ROLE_PREDECESSOR);
	while (!READ_ONCE(guest_stop))
		pvple_guest_park();
	pvple_guest_clear(&guest_areas[id]);
}

#endif
