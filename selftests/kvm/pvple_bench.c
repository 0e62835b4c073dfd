// SPDX-License-Identifier: GPL-2.0
/*
 * pvple_bench: stock KVM against kvm-pvple, side by side in one host.
 *
 * For each figure it runs the same guest with the module unloaded (stock)
 * and loaded in its default mode (pvple), alternating, and prints
 *   metric  pvple  stock  ratio
 * one row per figure.  It loads and unloads the module itself (PVPLE_KO)
 * and needs the host to itself.  Not a test: "make bench" runs it.
 *
 * Figures:
 *  - lock throughput of a guest ticket lock that publishes its owner, with
 *    more vCPUs than host CPUs (overcommitted) and with one vCPU per host
 *    CPU (undercommitted);
 *  - host CPU time the vCPU threads spend per 1000 acquisitions (what
 *    spinning wastes shows here: parked or yielding vCPUs burn none);
 *  - the round trip of one PLE exit whose target is running, and of one
 *    vcpu_load() (the hook that also runs on every schedule-in);
 *  - the round trip of a hypercall that is not pvple's (every pvqspinlock
 *    kick is one): it must not notice the module;
 *  - vcpu_load() with 200 idle VMs beside the measuring one: the
 *    schedule-in hook's cost must not grow with the number of VMs.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kvm_util.h"
#include "processor.h"
#include "ucall_common.h"
#include "pvple_guest.h"
#include "pvple_util.h"

static struct pvple_area guest_areas[PVPLE_MAX_VCPUS] __aligned(PVPLE_AREA_ALIGN);
static u64 guest_area_gpa[PVPLE_MAX_VCPUS];
static struct pvple_ticket_lock guest_lock;
static u64 guest_stop, guest_acq[PVPLE_MAX_VCPUS];
static u64 guest_pauses;
static u32 guest_work = 2000;

static void guest_work_loop(u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		asm volatile("" ::: "memory");
}

/* Lock, work, unlock, work: until the host says stop. */
static void guest_lock_bench(u32 id)
{
	struct pvple_area *a = &guest_areas[id];

	if (pvple_guest_register(a, guest_area_gpa[id]))
		a = NULL;	/* stock host: the lock publishes nothing */
	while (!READ_ONCE(guest_stop)) {
		pvple_ticket_lock(&guest_lock, id, a, false);
		guest_work_loop(guest_work);
		pvple_ticket_unlock(&guest_lock);
		WRITE_ONCE(guest_acq[id], guest_acq[id] + 1);
		guest_work_loop(guest_work);
	}
	GUEST_DONE();
}

/*
 * One registered vCPU, not waiting, PAUSEs: every exit reads its record,
 * finds it idle and goes to stock kvm_vcpu_on_spin(), which finds nobody.
 * That is the cost pvple adds to every PLE exit that is not a lock wait.
 */
static void guest_exit_cost(u32 id)
{
	u64 i;

	pvple_guest_register(&guest_areas[0], guest_area_gpa[0]);
	for (i = 0; i < guest_pauses; i++)
		asm volatile("pause" ::: "memory");
	GUEST_DONE();
}

/* A number no KVM knows: the whole hypercall path, then -KVM_ENOSYS. */
#define FOREIGN_HC	0x7fff0001UL

static void guest_foreign_hc(u32 id)
{
	u64 i;

	for (i = 0; i < guest_pauses; i++)
		kvm_hypercall(FOREIGN_HC, 0, 0, 0, 0);
	GUEST_DONE();
}

static const char *ko, *params = "";

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct lock_result {
	double acq_per_s, cpu_ms_per_kacq;
	u64 yields, parks;
};

static struct kvm_vm *bench_vm(int n, void *code, struct pvple_vcpu_thread *t)
{
	struct kvm_vcpu *vcpus[PVPLE_MAX_VCPUS];
	struct kvm_vm *vm = vm_create_with_vcpus(n, code, vcpus);
	int i;

	for (i = 0; i < n; i++) {
		vcpu_args_set(vcpus[i], 1, i);
		t[i] = (struct pvple_vcpu_thread){ .vcpu = vcpus[i], .cpu = -1 };
		guest_area_gpa[i] = addr_gva2gpa(vm, (vm_vaddr_t)&guest_areas[i]);
	}
	sync_global_to_guest(vm, guest_area_gpa);
	sync_global_to_guest(vm, guest_pauses);
	return vm;
}

static struct lock_result lock_run(int nvcpus, double secs)
{
	struct pvple_vcpu_thread t[PVPLE_MAX_VCPUS];
	struct lock_result r = { 0 };
	double cpu = 0, t0, t1;
	struct pvple_counts c;
	u64 acq = 0;
	struct kvm_vm *vm;
	int i;

	vm = bench_vm(nvcpus, guest_lock_bench, t);
	pvple_start_vcpus(t, nvcpus);
	t0 = now();
	usleep(secs * 1e6);
	*(u64 *)addr_gva2hva(vm, (vm_vaddr_t)&guest_stop) = 1;
	t1 = now();
	pvple_wait_vcpus(t, nvcpus, 600);
	for (i = 0; i < nvcpus; i++)
		cpu += t[i].cpu_ns / 1e9;
	sync_global_from_guest(vm, guest_acq);
	for (i = 0; i < nvcpus; i++)
		acq += guest_acq[i];
	r.acq_per_s = acq / (t1 - t0);
	r.cpu_ms_per_kacq = acq ? cpu * 1e6 / acq : 0;
	if (pvple_vm_counts(vm, &c)) {
		r.yields = c.yield_ok;
		r.parks = c.parks;
		printf("# %d vCPUs: %lu acq, PLE exits %lu: spin %lu stock %lu ",
		       nvcpus, acq, c.ple_exits, c.spin, c.stock);
		printf("yield %lu/%lu park %lu (sched_in %lu timeout %lu event %lu) ",
		       c.yield_ok, c.yield_tried, c.parks, c.wake_sched_in,
		       c.wake_timeout, c.wake_event);
		printf("rec unregistered %lu idle %lu self %lu cycle %lu\n",
		       c.rec_unregistered, c.rec_idle, c.rec_target_self,
		       c.rec_cycle);
	}
	kvm_vm_free(vm);
	return r;
}

static double exit_cost_ns(u64 pauses)
{
	struct pvple_vcpu_thread t[1];
	struct kvm_vm *vm;
	double t0, best = 1e30;
	int rep;

	guest_pauses = pauses;
	for (rep = 0; rep < 3; rep++) {
		vm = bench_vm(1, guest_exit_cost, t);
		t0 = now();
		pvple_run_vcpus(t, 1, 600);
		best = (now() - t0) < best ? now() - t0 : best;
		kvm_vm_free(vm);
	}
	return best * 1e9 / pauses;
}

static double foreign_hc_ns(u64 calls)
{
	struct pvple_vcpu_thread t[1];
	double t0, best = 1e30;
	struct kvm_vm *vm;
	int rep;

	guest_pauses = calls;
	for (rep = 0; rep < 3; rep++) {
		vm = bench_vm(1, guest_foreign_hc, t);
		t0 = now();
		pvple_run_vcpus(t, 1, 600);
		best = (now() - t0) < best ? now() - t0 : best;
		kvm_vm_free(vm);
	}
	return best * 1e9 / calls;
}

/* vcpu_load() round trip with @idle other VMs alive (one vCPU each). */
static double vcpu_load_ns(int loops, int idle)
{
	struct kvm_vm *others[200];
	struct kvm_vcpu *vcpu;
	struct kvm_regs regs;
	struct kvm_vm *vm;
	double t0, best = 1e30;
	int rep, i;

	TEST_ASSERT(idle <= 200, "at most 200 idle VMs");
	for (i = 0; i < idle; i++) {
		others[i] = vm_create_barebones();
		__vm_vcpu_add(others[i], 0);
	}
	vm = vm_create_with_one_vcpu(&vcpu, guest_exit_cost);

	for (rep = 0; rep < 5; rep++) {
		t0 = now();
		for (i = 0; i < loops; i++)
			vcpu_regs_get(vcpu, &regs);
		best = (now() - t0) < best ? now() - t0 : best;
	}
	kvm_vm_free(vm);
	for (i = 0; i < idle; i++)
		kvm_vm_free(others[i]);
	return best * 1e9 / loops;
}

/* One row of the table; a figure with no stock counterpart has "-". */
static void row(const char *metric, double pvple, double stock)
{
	if (stock)
		printf("%-40s %12.2f %12.2f %8.3f\n", metric, pvple, stock,
		       pvple / stock);
	else
		printf("%-40s %12.2f %12s %8s\n", metric, pvple, "-", "-");
	fflush(stdout);
}

static void lock_rows(const char *what, struct lock_result *r)
{
	char name[64];

	snprintf(name, sizeof(name), "%s acquisitions/s", what);
	row(name, r[1].acq_per_s, r[0].acq_per_s);
	snprintf(name, sizeof(name), "%s vCPU CPU ms/1000 acq", what);
	row(name, r[1].cpu_ms_per_kacq, r[0].cpu_ms_per_kacq);
	if (r[1].yields + r[1].parks) {
		snprintf(name, sizeof(name), "%s yields+parks (pvple)", what);
		row(name, r[1].yields + r[1].parks, 0);
	}
}

static void lock_add(struct lock_result *sum, struct lock_result r, int rounds)
{
	sum->acq_per_s += r.acq_per_s / rounds;
	sum->cpu_ms_per_kacq += r.cpu_ms_per_kacq / rounds;
	sum->yields += r.yields;
	sum->parks += r.parks;
}

int main(int argc, char *argv[])
{
	int ncpus = sysconf(_SC_NPROCESSORS_ONLN), rounds = 2, i, on;
	double secs = argc > 1 ? atof(argv[1]) : 3;
	struct lock_result x4[2] = { 0 }, x2[2] = { 0 }, x1[2] = { 0 };
	double exit_ns[2] = { 0 }, load_ns[2] = { 0 }, hc_ns[2] = { 0 };
	double load200_ns[2] = { 0 }, load1_ns[2] = { 0 };

	ko = getenv("PVPLE_KO");
	TEST_REQUIRE(ko);
	/* e.g. "mode=park": compare a non-default mode against stock */
	if (getenv("PVPLE_BENCH_PARAMS"))
		params = getenv("PVPLE_BENCH_PARAMS");
	TEST_REQUIRE(4 * ncpus <= PVPLE_MAX_VCPUS);

	/* Alternate stock and pvple so that drift hits both alike. */
	for (i = 0; i < 2 * rounds; i++) {
		on = i % 2;
		pvple_module_set(ko, on, params);
		lock_add(&x4[on], lock_run(4 * ncpus, secs), rounds);
		lock_add(&x2[on], lock_run(2 * ncpus, secs), rounds);
		lock_add(&x1[on], lock_run(ncpus, secs), rounds);
		exit_ns[on] += exit_cost_ns(20000) / rounds;
		load_ns[on] += vcpu_load_ns(20000, 0) / rounds;
		hc_ns[on] += foreign_hc_ns(20000) / rounds;
	}
	/*
	 * Apart, and last: 200 VMs come and go here, which must not age the
	 * host under the figures above for one side only.
	 */
	for (i = 0; i < 2 * rounds; i++) {
		on = i % 2;
		pvple_module_set(ko, on, params);
		load200_ns[on] += vcpu_load_ns(20000, 200) / rounds;
		load1_ns[on] += vcpu_load_ns(20000, 0) / rounds;
	}
	pvple_module_set(ko, true, params);

	printf("pvple bench: %d host CPUs, %.1f s per lock run, %d rounds, ",
	       ncpus, secs, rounds);
	printf("module params '%s', PLE %s\n", params, pvple_fixture_loaded() ?
	       "from the TEST FIXTURE (every PAUSE exits)" : "as the host has it");
	printf("PVPLE-BENCH-TABLE\n");
	printf("%-40s %12s %12s %8s\n", "metric", "pvple", "stock", "ratio");
	lock_rows("4 vCPUs/CPU", x4);
	lock_rows("2 vCPUs/CPU", x2);
	lock_rows("1 vCPU/CPU", x1);
	row("PLE exit round trip ns (no target)", exit_ns[1], exit_ns[0]);
	row("vcpu_load ioctl round trip ns", load_ns[1], load_ns[0]);
	row("vcpu_load ns, 200 idle VMs", load200_ns[1], load200_ns[0]);
	row("vcpu_load ns, 200 idle VMs / 1 VM (pvple)", load200_ns[1],
	    load1_ns[1]);
	row("foreign hypercall round trip ns", hc_ns[1], hc_ns[0]);
	row("added ns per PLE exit", exit_ns[1] - exit_ns[0], 0);
	row("added ns per vcpu_load/schedule-in", load_ns[1] - load_ns[0], 0);
	return 0;
}
