// SPDX-License-Identifier: GPL-2.0
/*
 * pvple_demo: a small contended guest under stock KVM and under kvm-pvple.
 *
 * NR_VCPUS vCPUs, all on one host CPU, take a guest ticket lock in turn,
 * spinning with PAUSE and publishing the vCPU that owns the lock.  The
 * same guest runs twice, with the module unloaded and loaded (PVPLE_KO),
 * and one table shows both.  Not a test: "make demo" runs it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "kvm_util.h"
#include "processor.h"
#include "ucall_common.h"
#include "pvple_guest.h"
#include "pvple_util.h"

#define NR_VCPUS	4

static struct pvple_area guest_areas[NR_VCPUS] __aligned(PVPLE_AREA_ALIGN);
static u64 guest_area_gpa[NR_VCPUS];
static struct pvple_ticket_lock guest_lock;
static u64 guest_iters, guest_acquired;

static void guest_lock_loop(u32 id)
{
	struct pvple_area *a = &guest_areas[id];
	u64 i;
	int j;

	if (pvple_guest_register(a, guest_area_gpa[id]))
		a = NULL;	/* stock host: nothing to publish to */
	for (i = 0; i < guest_iters; i++) {
		pvple_ticket_lock(&guest_lock, id, a, false);
		guest_acquired++;
		for (j = 0; j < 2000; j++)
			asm volatile("" ::: "memory");
		pvple_ticket_unlock(&guest_lock);
		for (j = 0; j < 2000; j++)
			asm volatile("" ::: "memory");
	}
	GUEST_DONE();
}

struct demo_run {
	double secs, cpu_ms;
	u64 acquired;
	bool tracked;
	struct pvple_counts c;
};

static struct demo_run run_guest(void)
{
	struct kvm_vcpu *vcpus[NR_VCPUS];
	struct pvple_vcpu_thread t[NR_VCPUS];
	struct demo_run r = { 0 };
	struct timespec t0, t1;
	struct kvm_vm *vm;
	int i;

	vm = vm_create_with_vcpus(NR_VCPUS, guest_lock_loop, vcpus);
	for (i = 0; i < NR_VCPUS; i++) {
		vcpu_args_set(vcpus[i], 1, i);
		/* All on one host CPU: lock owners get preempted. */
		t[i] = (struct pvple_vcpu_thread){ .vcpu = vcpus[i], .cpu = 0 };
		guest_area_gpa[i] = addr_gva2gpa(vm, (vm_vaddr_t)&guest_areas[i]);
	}
	sync_global_to_guest(vm, guest_area_gpa);
	sync_global_to_guest(vm, guest_iters);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	pvple_run_vcpus(t, NR_VCPUS, 600);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r.secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	for (i = 0; i < NR_VCPUS; i++)
		r.cpu_ms += t[i].cpu_ns / 1e6;
	sync_global_from_guest(vm, guest_acquired);
	r.acquired = guest_acquired;
	r.tracked = pvple_vm_counts(vm, &r.c);
	kvm_vm_free(vm);
	return r;
}

/* One row of the table: a module counter, which stock KVM does not have. */
static void counter_row(const char *what, u64 value)
{
	printf("  %-36s %12s %12lu\n", what, "-", (unsigned long)value);
}

/* Why PLE exits were left to stock: the non-zero reasons only. */
static void stock_reasons(const struct pvple_counts *c)
{
	const struct { const char *what; u64 v; } r[] = {
		{ "    record idle", c->rec_idle },
		{ "    no record (unregistered)", c->rec_unregistered },
		{ "    record malformed", c->rec_bad },
		{ "    holder not known", c->rec_no_holder + c->chain_no_holder },
		{ "    cycle", c->chain_cycle + c->rec_cycle },
		{ "    holder runs, spun enough", c->spin_limit },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(r); i++)
		if (r[i].v)
			counter_row(r[i].what, r[i].v);
}

int main(int argc, char *argv[])
{
	const char *ko = getenv("PVPLE_KO");
	struct demo_run stock, pvple;

	TEST_REQUIRE(ko);
	guest_iters = argc > 1 ? strtoull(argv[1], NULL, 0) : 2000;

	pvple_module_set(ko, false, "");
	stock = run_guest();
	pvple_module_set(ko, true, "");
	pvple = run_guest();

	printf("pvple demo: %d vCPUs on one host CPU, guest ticket lock, %lu %s%s\n",
	       NR_VCPUS, (unsigned long)guest_iters, "acquisitions per vCPU",
	       pvple_fixture_loaded() ? " (test fixture: every PAUSE exits)" : "");
	printf("  %-36s %12s %12s\n", "", "stock KVM", "kvm-pvple");
	printf("  %-36s %12.2f %12.2f\n", "wall time, s", stock.secs, pvple.secs);
	printf("  %-36s %12.0f %12.0f\n", "lock acquisitions/s",
	       stock.acquired / stock.secs, pvple.acquired / pvple.secs);
	printf("  %-36s %12.1f %12.1f\n", "vCPU CPU ms per 1000 acquisitions",
	       stock.cpu_ms * 1000 / stock.acquired,
	       pvple.cpu_ms * 1000 / pvple.acquired);
	if (!pvple.tracked)
		return 0;
	counter_row("vCPUs registered", pvple.c.reg_ok);
	counter_row("PLE exits", pvple.c.ple_exits);
	counter_row("  directed yields to the lock owner", pvple.c.yield_ok);
	counter_row("    to one handed it, not yet run", pvple.c.chain_stale);
	counter_row("  parks", pvple.c.parks);
	counter_row("  back to the guest (holder runs)", pvple.c.spin);
	counter_row("  left to stock", pvple.c.stock);
	stock_reasons(&pvple.c);
	counter_row("vCPU schedule-ins", pvple.c.sched_in);
	return 0;
}
