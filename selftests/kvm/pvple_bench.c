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
 *
 * With PVPLE_BENCH_TRIPS=N it measures only the three round trips, in N
 * paired blocks: trip_blocks() below.  With PVPLE_BENCH_EXIT=stock|pvple
 * it only runs PLE exits with no target, PVPLE_BENCH_EXIT_N of them, on
 * that side, for a profiler ("PVPLE_BENCH_ONLY=profile make bench").
 */
#include <math.h>
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

/* Best of @reps runs of the guest: the host's interruptions only add. */
static double exit_cost_ns(u64 pauses, int reps)
{
	struct pvple_vcpu_thread t[1];
	struct kvm_vm *vm;
	double t0, best = 1e30;
	int rep;

	guest_pauses = pauses;
	for (rep = 0; rep < reps; rep++) {
		vm = bench_vm(1, guest_exit_cost, t);
		t0 = now();
		pvple_run_vcpus(t, 1, 600);
		best = (now() - t0) < best ? now() - t0 : best;
		kvm_vm_free(vm);
	}
	return best * 1e9 / pauses;
}

static double foreign_hc_ns(u64 calls, int reps)
{
	struct pvple_vcpu_thread t[1];
	double t0, best = 1e30;
	struct kvm_vm *vm;
	int rep;

	guest_pauses = calls;
	for (rep = 0; rep < reps; rep++) {
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

/*
 * What ftrace calls at each hooked function (its "enabled_functions":
 * the callback, through ftrace_ops_assist_func() or not, and for a
 * redirect the ops' flags): which of them are in, and how.
 */
static void print_hooked(void)
{
	FILE *f = fopen("/sys/kernel/tracing/enabled_functions", "r");
	char line[512];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("# enabled_functions: %s", line);
	fclose(f);
}

/* Student's t quantile 0.975 for @df degrees of freedom (1.96 past 30). */
static double t975(int df)
{
	static const double t[] = {
		12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
		2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
		2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
		2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
	};

	return df < 1 ? 0 : df <= 30 ? t[df - 1] : 1.96;
}

/*
 * One row of paired ratios: the geometric mean of @n ratios (given as
 * logarithms) with its 95 % confidence interval (t on the logs).
 */
static void paired_row(const char *metric, const char *what,
		       const double *lr, int n, int dropped)
{
	double m = 0, ss = 0, h;
	int i, up = 0;

	if (n < 1) {
		printf("%-40s %-12s no block left (left out: %d)\n", metric,
		       what, dropped);
		return;
	}

	for (i = 0; i < n; i++) {
		m += lr[i] / n;
		up += lr[i] > 0;
	}
	for (i = 0; i < n; i++)
		ss += (lr[i] - m) * (lr[i] - m);
	h = n > 1 ? t975(n - 1) * sqrt(ss / (n - 1) / n) : 0;
	printf("%-40s %-12s %8.3f [%.3f, %.3f] n=%d above 1: %d left out: %d\n",
	       metric, what, exp(m), exp(m - h), exp(m + h), n, up, dropped);
	fflush(stdout);
}

enum { TRIP_EXIT, TRIP_LOAD, TRIP_HC, NR_TRIPS };

static const char * const trip_names[NR_TRIPS] = {
	"PLE exit round trip (no target)",
	"vcpu_load ioctl round trip",
	"foreign hypercall round trip",
};

/* Each the best of a few short runs: an interruption only ever adds. */
static void trips(double *ns)
{
	ns[TRIP_EXIT] = exit_cost_ns(10000, 3);
	ns[TRIP_LOAD] = vcpu_load_ns(20000, 0);
	ns[TRIP_HC] = foreign_hc_ns(10000, 3);
}

/*
 * The round trips alone, in @blocks paired blocks: the module unloaded
 * (stock, A) and loaded (B) in the order ABBA, or BAAB every other block
 * of its kind, so that neither side is always first; the block's ratio is
 * sqrt(B1 B2 / A1 A2), which a linear drift within the block does not
 * move.  Every other block is an A/A block, stock against stock in the
 * same pattern: its ratios are the instrument's own noise, the row to
 * read the pvple/stock row against.
 *
 * L0 (the machine under the test host) runs at two speeds, a round trip
 * taking 45-50 us in one and 75-80 us in the other, and switches every
 * few minutes (results.rst, "The hot paths"): a block that straddles a
 * switch is not paired any more.  So a block whose two A figures, or two
 * B figures, differ by more than TRIP_SPREAD is left out of that metric's
 * row, in both kinds of block alike, and counted there.
 */
#define TRIP_SPREAD	0.10

static void trip_blocks(int blocks)
{
	static const bool abba[4] = { false, true, true, false };
	double *lr[2][NR_TRIPS], ns[NR_TRIPS], sum[2][NR_TRIPS];
	double lo[2][NR_TRIPS], hi[2][NR_TRIPS];
	int b, h, k, kind, nb[2] = { 0 }, n[2][NR_TRIPS] = { 0 };

	for (kind = 0; kind < 2; kind++)
		for (k = 0; k < NR_TRIPS; k++) {
			lr[kind][k] = calloc(blocks, sizeof(double));
			TEST_ASSERT(lr[kind][k], "no memory");
		}
	for (b = 0; b < 2 * blocks; b++) {
		kind = b % 2;	/* 0: pvple against stock, 1: A/A */
		memset(sum, 0, sizeof(sum));
		for (h = 0; h < 4; h++) {
			bool second = abba[h] ^ (nb[kind] % 2);

			pvple_module_set(ko, kind == 0 && second, params);
			trips(ns);
			printf("# block %d %s half %d %s: %.0f %.0f %.0f ns\n",
			       nb[kind], kind ? "A/A" : "A/B", h,
			       second ? "B" : "A", ns[TRIP_EXIT],
			       ns[TRIP_LOAD], ns[TRIP_HC]);
			for (k = 0; k < NR_TRIPS; k++) {
				double l = log(ns[k]);

				sum[second][k] += l;
				/* Halves 0 and 1 are one of each side. */
				if (h < 2) {
					lo[second][k] = l;
					hi[second][k] = l;
				} else {
					lo[second][k] = fmin(lo[second][k], l);
					hi[second][k] = fmax(hi[second][k], l);
				}
			}
		}
		for (k = 0; k < NR_TRIPS; k++) {
			if (hi[0][k] - lo[0][k] > log1p(TRIP_SPREAD) ||
			    hi[1][k] - lo[1][k] > log1p(TRIP_SPREAD))
				continue;
			lr[kind][k][n[kind][k]++] = (sum[1][k] - sum[0][k]) / 2;
		}
		nb[kind]++;
	}
	pvple_module_set(ko, true, params);

	printf("pvple bench: round trips in %d paired blocks of each kind, ",
	       blocks);
	printf("module params '%s', PLE %s\n", params, pvple_fixture_loaded() ?
	       "from the TEST FIXTURE (every PAUSE exits)" : "as the host has it");
	printf("PVPLE-BENCH-TABLE\n");
	printf("%-40s %-12s %8s %s\n", "metric", "pair", "ratio",
	       "[95 % CI] n");
	for (k = 0; k < NR_TRIPS; k++) {
		paired_row(trip_names[k], "pvple/stock", lr[0][k], n[0][k],
			   nb[0] - n[0][k]);
		paired_row(trip_names[k], "stock/stock", lr[1][k], n[1][k],
			   nb[1] - n[1][k]);
	}
	for (kind = 0; kind < 2; kind++)
		for (k = 0; k < NR_TRIPS; k++)
			free(lr[kind][k]);
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
	if (getenv("PVPLE_BENCH_EXIT")) {
		on = !strcmp(getenv("PVPLE_BENCH_EXIT"), "pvple");
		pvple_module_set(ko, on, params);
		i = getenv("PVPLE_BENCH_EXIT_N") ?
			atoi(getenv("PVPLE_BENCH_EXIT_N")) : 100000;
		printf("# %s: %.0f ns per PLE exit with no target\n",
		       on ? "pvple" : "stock", exit_cost_ns(i, 1));
		return 0;
	}
	if (getenv("PVPLE_BENCH_TRIPS")) {
		trip_blocks(atoi(getenv("PVPLE_BENCH_TRIPS")));
		return 0;
	}

	/* Alternate stock and pvple so that drift hits both alike. */
	for (i = 0; i < 2 * rounds; i++) {
		on = i % 2;
		pvple_module_set(ko, on, params);
		lock_add(&x4[on], lock_run(4 * ncpus, secs), rounds);
		lock_add(&x2[on], lock_run(2 * ncpus, secs), rounds);
		lock_add(&x1[on], lock_run(ncpus, secs), rounds);
		exit_ns[on] += exit_cost_ns(20000, 3) / rounds;
		load_ns[on] += vcpu_load_ns(20000, 0) / rounds;
		hc_ns[on] += foreign_hc_ns(20000, 3) / rounds;
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
	print_hooked();

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
