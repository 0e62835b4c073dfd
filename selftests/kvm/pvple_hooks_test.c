// SPDX-License-Identifier: GPL-2.0
/*
 * The kvm-pvple hooks are live: PLE exits, pvple hypercalls and vCPU
 * schedule-in reach the module and are counted for the right VM, other
 * hypercalls keep stock behaviour, and the module can be unloaded (and
 * loaded again) under a running VM.
 *
 * PLE exits need a host that intercepts PAUSE.  Real PLE hardware is not
 * reachable from the pvple test host; there the pause-filter test fixture
 * makes TCG exit on every PAUSE, so the counts are exact.  On a real host
 * the PLE window decides how many exits a spin produces, and only bounds
 * are asserted.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/kvm_para.h>
#include <uapi/linux/kvm_pvple.h>

#include "kselftest_harness.h"
#include "kvm_util.h"
#include "processor.h"
#include "ucall_common.h"
#include "pvple_guest.h"
#include "pvple_util.h"

#define NR_VCPUS	2
/* Per wait for the vCPUs; the harness's limit for the whole test is above. */
#define TIMEOUT_S	60
#define HARNESS_TIMEOUT_S	300

/* No shared state: the fixture exists for the harness's per-test time-out. */
FIXTURE(pvple) {};
FIXTURE_SETUP(pvple) {}
FIXTURE_TEARDOWN(pvple) {}

static u64 guest_pauses[PVPLE_MAX_VCPUS];

static void guest_pause_loop(u32 id)
{
	u64 i;

	for (i = 0; i < guest_pauses[id]; i++)
		asm volatile("pause" ::: "memory");
	GUEST_DONE();
}

static struct kvm_vm *create_vm(struct kvm_vcpu **vcpus, int n, void *code,
				struct pvple_vcpu_thread *t)
{
	struct kvm_vm *vm = vm_create_with_vcpus(n, code, vcpus);
	int i;

	for (i = 0; i < n; i++) {
		vcpu_args_set(vcpus[i], 1, i);
		t[i] = (struct pvple_vcpu_thread){ .vcpu = vcpus[i], .cpu = -1 };
	}
	return vm;
}

/* Why a test of the PLE path cannot run here, or NULL. */
static const char *ple_unsupported(void)
{
	if (!pvple_module_loaded())
		return "kvm-pvple is not loaded";
	if (!pvple_ple_enabled())
		return "host does not intercept PAUSE (no PLE or pause filter)";
	return NULL;
}

/* Pauses per vCPU: exact under the fixture, enough to trip a real PLE window. */
static u64 pauses_for(int vcpu)
{
	return (pvple_fixture_loaded() ? 300 : 1ULL << 22) + 100 * vcpu;
}

static bool ple_exits_match(u64 exits, u64 pauses)
{
	ksft_print_msg("PLE exits %lu for %lu PAUSEs\n", exits, pauses);
	/* TCG under the fixture exits on every PAUSE. */
	if (pvple_fixture_loaded())
		return exits == pauses;
	return exits >= 1 && exits <= pauses;
}

/* Each vCPU alone: its PAUSEs, and no other vCPU's, show up for this VM. */
TEST_F_TIMEOUT(pvple, ple_exits_per_vcpu, HARNESS_TIMEOUT_S)
{
	struct kvm_vcpu *vcpus[NR_VCPUS];
	struct pvple_vcpu_thread t[NR_VCPUS];
	struct pvple_counts before, after;
	struct kvm_vm *vm;
	int i;

	if (ple_unsupported())
		SKIP(return, "%s", ple_unsupported());
	vm = create_vm(vcpus, NR_VCPUS, guest_pause_loop, t);
	for (i = 0; i < NR_VCPUS; i++)
		guest_pauses[i] = pauses_for(i);
	sync_global_to_guest(vm, guest_pauses);

	for (i = 0; i < NR_VCPUS; i++) {
		ASSERT_TRUE(pvple_vm_counts(vm, &before));
		pvple_run_vcpus(&t[i], 1, TIMEOUT_S);
		ASSERT_TRUE(pvple_vm_counts(vm, &after));
		ASSERT_TRUE(ple_exits_match(after.ple_exits - before.ple_exits,
					    guest_pauses[i]));
	}
	kvm_vm_free(vm);
}

/* All vCPUs at once, a second VM idle beside them: nothing leaks across. */
TEST_F_TIMEOUT(pvple, ple_exits_concurrent, HARNESS_TIMEOUT_S)
{
	struct kvm_vcpu *vcpus[NR_VCPUS], *idle_vcpu;
	struct pvple_vcpu_thread t[NR_VCPUS];
	struct pvple_counts c, idle;
	struct kvm_vm *vm, *idle_vm;
	u64 total = 0;
	int i;

	if (ple_unsupported())
		SKIP(return, "%s", ple_unsupported());
	idle_vm = vm_create_with_one_vcpu(&idle_vcpu, guest_pause_loop);
	vm = create_vm(vcpus, NR_VCPUS, guest_pause_loop, t);
	for (i = 0; i < NR_VCPUS; i++)
		total += guest_pauses[i] = pauses_for(i);
	sync_global_to_guest(vm, guest_pauses);

	pvple_run_vcpus(t, NR_VCPUS, TIMEOUT_S);
	ASSERT_TRUE(pvple_vm_counts(vm, &c));
	ASSERT_TRUE(ple_exits_match(c.ple_exits, total));
	ASSERT_TRUE(pvple_vm_counts(idle_vm, &idle));
	ASSERT_EQ(idle.ple_exits, 0);
	kvm_vm_free(vm);
	kvm_vm_free(idle_vm);
}

static struct pvple_area guest_area __aligned(PVPLE_AREA_ALIGN);
static u64 guest_area_gpa;

/* An area whose record stays idle: pvple_peek_record() reads it. */
static void guest_idle_pause_loop(u32 id)
{
	GUEST_ASSERT_EQ(pvple_guest_register(&guest_area, guest_area_gpa), 0);
	guest_pause_loop(id);
}

/*
 * A PLE exit whose outcome is stock whatever pvple would find -- a vCPU
 * with no area, or one whose record is idle -- is decided in the hook's
 * ftrace callback and goes on in KVM: pvple_on_spin(), the replacement,
 * is never entered, and the exits are counted as stock all the same (the
 * idle ones as rec_idle).  The function tracer on pvple_on_spin() says
 * whether it was.
 */
TEST_F_TIMEOUT(pvple, stock_exits_not_redirected, HARNESS_TIMEOUT_S)
{
	void *code[] = { guest_pause_loop, guest_idle_pause_loop };
	struct kvm_vcpu *vcpus[1];
	struct pvple_vcpu_thread t[1];
	struct pvple_counts c;
	struct kvm_vm *vm;
	int calls, i;

	if (ple_unsupported())
		SKIP(return, "%s", ple_unsupported());
	for (i = 0; i < 2; i++) {
		vm = create_vm(vcpus, 1, code[i], t);
		guest_pauses[0] = pauses_for(0);
		sync_global_to_guest(vm, guest_pauses);
		guest_area_gpa = addr_gva2gpa(vm, (vm_vaddr_t)&guest_area);
		sync_global_to_guest(vm, guest_area_gpa);

		pvple_trace_function("pvple_on_spin", true);
		pvple_run_vcpus(t, 1, TIMEOUT_S);
		calls = pvple_trace_count("pvple_on_spin");
		pvple_trace_function("pvple_on_spin", false);
		ASSERT_TRUE(pvple_vm_counts(vm, &c));
		ksft_print_msg("%s: PLE exits %lu, stock %lu, rec_idle %lu, pvple_on_spin() %d\n",
			       i ? "idle record" : "no area", c.ple_exits,
			       c.stock, c.rec_idle, calls);
		ASSERT_TRUE(ple_exits_match(c.ple_exits, guest_pauses[0]));
		ASSERT_EQ(c.stock, c.ple_exits);
		ASSERT_EQ(c.rec_idle, i ? c.ple_exits : 0);
		ASSERT_EQ(calls, 0);
		kvm_vm_free(vm);
	}
}

#define HC_UNKNOWN_OURS		(KVM_HC_PVPLE_BASE + 0x7f)
#define HC_BELOW_OURS		(KVM_HC_PVPLE_BASE - 1)
#define HC_OURS_HIGH_BITS	(KVM_HC_PVPLE_PROBE | (1ULL << 32))

static u64 hc_ret[PVPLE_MAX_VCPUS][5];

static void guest_hypercalls(u32 id)
{
	hc_ret[id][0] = kvm_hypercall(KVM_HC_PVPLE_PROBE, 0, 0, 0, 0);
	hc_ret[id][1] = kvm_hypercall(HC_UNKNOWN_OURS, 0, 0, 0, 0);
	hc_ret[id][2] = kvm_hypercall(HC_BELOW_OURS, 0, 0, 0, 0);
	hc_ret[id][3] = kvm_hypercall(HC_OURS_HIGH_BITS, 0, 0, 0, 0);
	/* Stock KVM's own call keeps working: yield to a vCPU that is us. */
	hc_ret[id][4] = kvm_hypercall(KVM_HC_SCHED_YIELD, id, 0, 0, 0);
	GUEST_DONE();
}

TEST_F_TIMEOUT(pvple, hypercall_routing, HARNESS_TIMEOUT_S)
{
	struct kvm_vcpu *vcpus[NR_VCPUS];
	struct pvple_vcpu_thread t[NR_VCPUS];
	bool loaded = pvple_module_loaded();
	struct pvple_counts c;
	struct kvm_vm *vm;
	int i;

	vm = create_vm(vcpus, NR_VCPUS, guest_hypercalls, t);
	pvple_run_vcpus(t, NR_VCPUS, TIMEOUT_S);
	sync_global_from_guest(vm, hc_ret);

	for (i = 0; i < NR_VCPUS; i++) {
		/* Without the module, the probe must look like any unknown call. */
		ASSERT_EQ(hc_ret[i][0], loaded ? PVPLE_ABI_VERSION :
			  (u64)-KVM_ENOSYS);
		ASSERT_EQ(hc_ret[i][1], (u64)-KVM_ENOSYS);
		ASSERT_EQ(hc_ret[i][2], (u64)-KVM_ENOSYS);
		ASSERT_EQ(hc_ret[i][3], (u64)-KVM_ENOSYS);
		ASSERT_EQ(hc_ret[i][4], 0);
	}
	if (loaded) {
		ASSERT_TRUE(pvple_vm_counts(vm, &c));
		ASSERT_EQ(c.hypercalls, 2 * NR_VCPUS);
		ASSERT_EQ(c.hc_probe, NR_VCPUS);
		ASSERT_EQ(c.hc_unknown, NR_VCPUS);
		ASSERT_EQ(c.hc_eperm, 0);
	}
	kvm_vm_free(vm);
}

static u64 guest_stop;

static void guest_busy(u32 id)
{
	while (!READ_ONCE(guest_stop))
		;
	GUEST_DONE();
}

struct stopper {
	struct kvm_vm *vm;
	int ms;
};

static void *stop_later(void *arg)
{
	struct stopper *s = arg;

	usleep(s->ms * 1000);
	WRITE_ONCE(*(u64 *)addr_gva2hva(s->vm, (vm_vaddr_t)&guest_stop), 1);
	return NULL;
}

/*
 * Two busy vCPUs pinned to one host CPU preempt each other; every time one
 * comes back while inside KVM_RUN, KVM's sched-in notifier loads it, and
 * the module must have seen that.
 */
TEST_F_TIMEOUT(pvple, sched_in_observed, HARNESS_TIMEOUT_S)
{
	struct kvm_vcpu *vcpus[NR_VCPUS];
	struct pvple_vcpu_thread t[NR_VCPUS];
	struct pvple_counts c;
	struct stopper s;
	pthread_t stopper;
	u64 nivcsw = 0, runs = 0;
	struct kvm_vm *vm;
	int i;

	if (!pvple_module_loaded())
		SKIP(return, "kvm-pvple is not loaded");
	vm = create_vm(vcpus, NR_VCPUS, guest_busy, t);
	for (i = 0; i < NR_VCPUS; i++)
		t[i].cpu = 0;
	s = (struct stopper){ .vm = vm, .ms = 1500 };
	pthread_create(&stopper, NULL, stop_later, &s);
	pvple_run_vcpus(t, NR_VCPUS, TIMEOUT_S);
	pthread_join(stopper, NULL);

	/* The threads have exited; their counts stay readable until reaped. */
	for (i = 0; i < NR_VCPUS; i++) {
		nivcsw += t[i].nivcsw;
		runs += t[i].runs;
	}
	ASSERT_TRUE(pvple_vm_counts(vm, &c));
	ksft_print_msg("sched_in %lu, vcpu_load %lu, involuntary switches %lu in %lu KVM_RUNs\n",
		       c.sched_in, c.vcpu_load, nivcsw, runs);
	ASSERT_GE(nivcsw, 2) TH_LOG("pinned vCPUs were never preempted");
	/*
	 * A preemption inside vcpu_load()..vcpu_put() is a schedule-in; one
	 * in the few instructions of KVM_RUN outside that window is not.
	 */
	ASSERT_GE(c.sched_in + 2 * runs, nivcsw);
	/* Every KVM_RUN loads the vCPU once through vcpu_load(). */
	ASSERT_GE(c.vcpu_load, runs);
	kvm_vm_free(vm);
}

static u64 guest_probe_last, guest_loops[NR_VCPUS];

static void guest_probe_forever(u32 id)
{
	while (!READ_ONCE(guest_stop)) {
		if (!id)
			WRITE_ONCE(guest_probe_last,
				   kvm_hypercall(KVM_HC_PVPLE_PROBE, 0, 0, 0, 0));
		WRITE_ONCE(guest_loops[id], guest_loops[id] + 1);
		asm volatile("pause" ::: "memory");
	}
	GUEST_DONE();
}

/*
 * The result of a probe that vCPU 0 issued after this call began: vCPU 0
 * bumps its loop count after each probe, so two more loops mean one whole
 * probe since now.
 */
static u64 fresh_probe(struct kvm_vm *vm)
{
	u64 *probe = addr_gva2hva(vm, (vm_vaddr_t)&guest_probe_last);
	u64 *loops = addr_gva2hva(vm, (vm_vaddr_t)&guest_loops[0]);
	u64 want = READ_ONCE(*loops) + 2;
	int ms;

	for (ms = 0; ms < TIMEOUT_S * 1000 && READ_ONCE(*loops) < want; ms++)
		usleep(1000);
	TEST_ASSERT(READ_ONCE(*loops) >= want, "vCPU 0 made no progress in %d s",
		    TIMEOUT_S);
	return READ_ONCE(*probe);
}

/*
 * rmmod under a running VM: the vCPUs keep running and see stock KVM (the
 * probe fails); loading the module again brings pvple back for the same VM.
 */
TEST_F_TIMEOUT(pvple, unload_while_running, HARNESS_TIMEOUT_S)
{
	const char *ko = getenv("PVPLE_KO");
	struct kvm_vcpu *vcpus[NR_VCPUS];
	struct pvple_vcpu_thread t[NR_VCPUS];
	struct kvm_vm *vm;
	int fd;

	if (!pvple_module_loaded())
		SKIP(return, "kvm-pvple is not loaded");
	if (!ko)
		SKIP(return, "PVPLE_KO (path of kvm-pvple.ko to reload) is not set");

	vm = create_vm(vcpus, NR_VCPUS, guest_probe_forever, t);
	pvple_start_vcpus(t, NR_VCPUS);
	ASSERT_EQ(fresh_probe(vm), PVPLE_ABI_VERSION);

	ASSERT_EQ(syscall(__NR_delete_module, "kvm_pvple", O_NONBLOCK), 0);
	ASSERT_FALSE(pvple_module_loaded());
	ASSERT_EQ(fresh_probe(vm), (u64)-KVM_ENOSYS);

	fd = open(ko, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(syscall(__NR_finit_module, fd, "", 0), 0);
	close(fd);
	ASSERT_EQ(fresh_probe(vm), PVPLE_ABI_VERSION);

	WRITE_ONCE(*(u64 *)addr_gva2hva(vm, (vm_vaddr_t)&guest_stop), 1);
	pvple_wait_vcpus(t, NR_VCPUS, TIMEOUT_S);
	kvm_vm_free(vm);
}

TEST_HARNESS_MAIN
