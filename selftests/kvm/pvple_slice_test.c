// SPDX-License-Identifier: GPL-2.0
/*
 * The slice extension (kvm-pvple/slice.c): a vCPU whose guest says it is
 * inside a critical section (its registered preemption count is not zero)
 * keeps its CPU for at most slice_ext_us past a reschedule request, once
 * per request; a guest that says so forever takes no more than that from
 * a neighbour; in steps (slice_step_us), to the same bound.  A holder
 * that spins inside its section keeps its CPU.
 *
 * The vCPU thread shares host CPU 0 with a busy host thread, so that the
 * scheduler asks it to reschedule at every tick.  Only the last test
 * needs PLE.
 */
#include <sys/utsname.h>

#include "pvple_lock.h"

/* The guest's preemption count: a 32-bit word, 4-aligned (ABI v3). */
static u32 guest_count __aligned(64);
static u64 guest_count_gpa;

/*
 * The tests want bounds of 200 and 1000 us of the emulated test host's
 * time, past the 50 us cap of slice_ext_us: time_scale makes them 8 and
 * 40 us times 25.  25 is the tests' own choice of bound, not the
 * emulator's measured factor.
 */
#define EXT_US		200
#define EXT_US_S	"8"

static void slice_set(const char *us)
{
	pvple_param_set("time_scale", "25");
	pvple_param_set("slice_ext_us", us);
}

/*
 * A bound longer than the emulated host's round trip from a PIO exit to
 * the next vCPU load (about 600 us): 50 us times 100.  Under it, the
 * timer of a grant the guest leaves never fires first, so the tests of a
 * grant that ends at a load see only what the load does with the request
 * the grant holds.  At 200 us the timer fired first, in user space, and
 * served the request itself: a load that dropped it went unseen.
 */
#define LONG_US		5000

static void slice_set_long(void)
{
	pvple_param_set("time_scale", "100");
	pvple_param_set("slice_ext_us", "50");
}

/* Registers vCPU @id's area with the count at guest_count; returns it. */
static struct pvple_area *guest_register_count(u32 id)
{
	struct pvple_area *a = &guest_areas[id];

	GUEST_ASSERT_EQ(pvple_guest_register_all(a, guest_area_gpa[id],
						 (u64)__executable_start,
						 (u64)etext, guest_count_gpa), 0);
	return a;
}

static void guest_in_section(u32 id)
{
	guest_register_count(id);
	while (!READ_ONCE(guest_stop))
		WRITE_ONCE(guest_loops[id], guest_loops[id] + 1);
	GUEST_DONE();
}

/*
 * A guest that ends its section as soon as the host says a grant runs
 * (ABI 4: the area's @slice, then KVM_HC_PVPLE_SLICE_DONE), as the guest
 * series does at its outermost unlock; with @always, one that calls at
 * every turn, grant or not.  Counts its calls in guest_calls.
 */
static u64 guest_calls, guest_always;

static void guest_ends_sections(u32 id)
{
	struct pvple_area *a = guest_register_count(id);

	while (!READ_ONCE(guest_stop)) {
		WRITE_ONCE(guest_loops[id], guest_loops[id] + 1);
		if (!READ_ONCE(guest_always) && !READ_ONCE(a->slice))
			continue;
		WRITE_ONCE(a->slice, 0);
		GUEST_ASSERT_EQ(kvm_hypercall(KVM_HC_PVPLE_SLICE_DONE, 0, 0, 0,
					      0), 0);
		WRITE_ONCE(guest_calls, guest_calls + 1);
	}
	GUEST_DONE();
}

/* A host thread that competes for CPU 0 and counts its own progress. */
struct busy {
	pthread_t thread;
	bool stop;
	u64 loops;
};

static void *busy_thread(void *arg)
{
	struct busy *b = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	while (!READ_ONCE(b->stop))
		WRITE_ONCE(b->loops, b->loops + 1);
	return NULL;
}

static struct kvm_vm *create_section_vm(struct pvple_vcpu_thread *t,
					u64 count, void *code)
{
	struct kvm_vm *vm = create_vm(1, code, t, 0);

	guest_count_gpa = addr_gva2gpa(vm, (vm_vaddr_t)&guest_count);
	sync_global_to_guest(vm, guest_count_gpa);
	/* Set before the vCPU first runs: no request sees another value. */
	*(u32 *)addr_gva2hva(vm, (vm_vaddr_t)&guest_count) = count;
	return vm;
}

/*
 * One vCPU running @code with @count as its preemption count beside a
 * busy thread; with guest_ends_sections(), @always as guest_always, and
 * the guest's calls in *@calls.
 */
static void run_code(struct __test_metadata *_metadata, const char *us,
		     u64 count, void *code, u64 always, u64 *calls,
		     struct pvple_counts *c)
{
	struct busy b = { };
	struct pvple_vcpu_thread t;
	struct kvm_vm *vm;

	slice_set(us);
	vm = create_section_vm(&t, count, code);
	SET(vm, guest_always, always);
	pthread_create(&b.thread, NULL, busy_thread, &b);
	pvple_start_vcpus(&t, 1);
	sleep(3);
	SET(vm, guest_stop, 1);
	pvple_wait_vcpus(&t, 1, TIMEOUT_S);
	WRITE_ONCE(b.stop, true);
	pthread_join(b.thread, NULL);
	ASSERT_TRUE(pvple_vm_counts(vm, c));
	if (calls)
		*calls = GET(vm, guest_calls);
	kvm_vm_free(vm);
	ksft_print_msg("slice_ext_us=%s count=0x%lx: %lu requests, %lu in a section\n",
		       us, count, c->slice_requests, c->slice_in_cs);
	ksft_print_msg("  %lu granted (%lu expired, %lu cut, %lu left, %lu still in)\n",
		       c->slice_granted, c->slice_expired, c->slice_cut,
		       c->slice_left, c->slice_still_in_cs);
	ksft_print_msg("  %lu descheduled in a section, %lu us granted\n",
		       c->slice_desched_cs, c->slice_ns / 1000);
	ksft_print_msg("  %lu ended by the guest, %lu calls without a grant\n",
		       c->slice_done, c->slice_done_idle);
}

/* One vCPU with @count as its preemption count beside a busy thread. */
static void run_section(struct __test_metadata *_metadata, const char *us,
			u64 count, struct pvple_counts *c)
{
	run_code(_metadata, us, count, guest_in_section, 0, NULL, c);
}

/*
 * Does the host preempt fully?  Then the reschedule happens at the
 * preempt_enable() after the VM exit, before any hook (design.rst, "Keeping
 * the holder running"), and the extension cannot act: the tests that need
 * it skip, saying so.  A PREEMPT_DYNAMIC kernel tells its mode in debugfs
 * ("none voluntary (full)"); another says PREEMPT or PREEMPT_RT in uname.
 */
static const char *preempt_full(void)
{
	char buf[128] = "";
	struct utsname u;
	FILE *f = fopen("/sys/kernel/debug/sched/preempt", "r");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
		return strstr(buf, "(full)") ? "preempt=full" : NULL;
	}
	if (uname(&u) || strstr(u.version, "PREEMPT_DYNAMIC"))
		return NULL;
	if (strstr(u.version, "PREEMPT_RT"))
		return "PREEMPT_RT";
	return strstr(u.version, "PREEMPT ") ? "CONFIG_PREEMPT" : NULL;
}

/* Is this host a guest itself (the emulated test host is)? */
static bool under_hypervisor(void)
{
	char line[4096];
	bool found = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && !found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "flags", 5) && strstr(line, " hypervisor");
	if (f)
		fclose(f);
	return found;
}

/*
 * Why the extension cannot act on this host, or NULL.  The tests scale
 * their bounds with time_scale, which only a host under a hypervisor
 * takes (slice_bound_capped_and_scaled checks the refusal elsewhere).
 */
static const char *cannot_extend(void)
{
	static char why[96];

	if (unsupported(false))
		return unsupported(false);
	if (!under_hypervisor())
		return "not under a hypervisor: time_scale, which the tests use, stays 1";
	if (!preempt_full())
		return NULL;
	snprintf(why, sizeof(why),
		 "host kernel is %s: no reschedule reaches the hook",
		 preempt_full());
	return why;
}

/*
 * A guest that never leaves its section, bound @us: grant, end, grant,
 * end.  A request while a grant runs always ends it, so never more grants
 * than every other request -- but for a grant that ended with the vCPU
 * leaving its CPU (the timer's request honoured at another point, a
 * cond_resched()) -- and the guest is still in its section each time.
 * The timer ends most grants, none before the bound, and on average
 * within five times it (the emulated host's timer interrupts come late:
 * about 1.8 times, measured).
 */
static void assert_grant_cycle(struct __test_metadata *_metadata,
			       const struct pvple_counts *c, u64 us)
{
	u64 ended = c->slice_expired + c->slice_cut + c->slice_left;

	ASSERT_GE(c->slice_requests, 20);
	ASSERT_EQ(c->slice_in_cs, c->slice_requests);
	ASSERT_EQ(c->slice_fault + c->slice_waiting, 0);
	ASSERT_GE(c->slice_granted, c->slice_requests / 3);
	ASSERT_LE(c->slice_granted,
		  (c->slice_requests + 1) / 2 + c->slice_left);
	ASSERT_GE(ended + 1, c->slice_granted);
	ASSERT_LE(ended, c->slice_granted);
	ASSERT_EQ(c->slice_still_in_cs, c->slice_expired + c->slice_cut);
	ASSERT_EQ(c->slice_desched_cs, c->slice_requests - c->slice_granted);
	ASSERT_GE(c->slice_expired, c->slice_granted / 2);
	ASSERT_GE(c->slice_ns, c->slice_expired * us * 1000);
	ASSERT_LE(c->slice_ns, ended * 5 * us * 1000);
}

TEST_F_TIMEOUT(pvple, slice_extended_in_a_section, HARNESS_TIMEOUT_S)
{
	struct pvple_counts c;

	if (cannot_extend())
		SKIP(return, "%s", cannot_extend());
	set_params("auto", "2000");
	run_section(_metadata, EXT_US_S, 1, &c);
	assert_grant_cycle(_metadata, &c, EXT_US);
}

/*
 * In steps: a guest that stays inside its section is looked at every
 * slice_ext_us / 4 and kept at each look, to the same bound and no
 * further; the steps are not reschedule requests of the scheduler's.
 * The bound is the parameter's largest, so that the emulated host's late
 * timer interrupts (100-160 us late, slice_extended_in_a_section) leave
 * room for steps.
 */
#define STEP_EXT_US	1000
#define STEP_EXT_US_S	"40"
#define STEP_US_S	"10"

TEST_F_TIMEOUT(pvple, slice_steps_keep_the_bound, HARNESS_TIMEOUT_S)
{
	struct pvple_counts c;

	if (cannot_extend())
		SKIP(return, "%s", cannot_extend());
	set_params("auto", "2000");
	pvple_param_set("slice_step_us", STEP_US_S);
	run_section(_metadata, STEP_EXT_US_S, 1, &c);
	pvple_param_set("slice_step_us", "0");
	slice_set(EXT_US_S);
	ksft_print_msg("  %lu steps\n", c.slice_steps);
	assert_grant_cycle(_metadata, &c, STEP_EXT_US);
	/*
	 * A grant the timer ends has passed up to three steps, at least one
	 * on average (a late timer interrupt may use up the bound in fewer),
	 * never more: each step but the last waits a whole step, and a
	 * request that finds the bound reached ends the grant.
	 */
	ASSERT_GE(c.slice_steps, c.slice_expired);
	ASSERT_LE(c.slice_steps, 3 * c.slice_granted);
}

/*
 * A guest that ends its section at once when told a grant runs (ABI 4):
 * every call it makes is counted once, as done or as without a grant;
 * the grants it ends, most of them, end as done, and well before the
 * bound on average; the guest is inside its section when the request
 * comes, so every request is in one, and a reschedule after its end is
 * not a deschedule inside one.  A guest that calls at every turn with no
 * grant (outside a section) changes nothing but the counter: no grant,
 * no reschedule of its own.
 */
TEST_F_TIMEOUT(pvple, slice_ended_by_the_guest, HARNESS_TIMEOUT_S)
{
	struct pvple_counts c;
	u64 ended, calls;

	if (cannot_extend())
		SKIP(return, "%s", cannot_extend());
	set_params("auto", "2000");
	run_code(_metadata, STEP_EXT_US_S, 1, guest_ends_sections, 0, &calls,
		 &c);
	ksft_print_msg("  the guest called %lu times\n", calls);
	ended = c.slice_expired + c.slice_cut + c.slice_left + c.slice_done;
	ASSERT_GE(c.slice_requests, 20);
	ASSERT_EQ(c.slice_in_cs, c.slice_requests);
	ASSERT_EQ(calls, c.slice_done + c.slice_done_idle);
	ASSERT_GE(c.slice_done, c.slice_granted / 2);
	ASSERT_GE(ended + 1, c.slice_granted);
	ASSERT_LE(ended, c.slice_granted);
	ASSERT_EQ(c.slice_still_in_cs, c.slice_expired + c.slice_cut);
	ASSERT_EQ(c.slice_desched_cs, c.slice_requests - c.slice_granted);
	ASSERT_LT(c.slice_ns, ended * STEP_EXT_US * 1000 / 2);

	run_code(_metadata, EXT_US_S, 0, guest_ends_sections, 1, &calls, &c);
	ksft_print_msg("  the guest called %lu times\n", calls);
	ASSERT_GE(calls, 1000);
	ASSERT_EQ(c.slice_done_idle, calls);
	ASSERT_EQ(c.slice_done + c.slice_granted + c.slice_in_cs, 0);
	slice_set(EXT_US_S);
}

/*
 * The bound's cap and scale (main.c): slice_ext_us and slice_step_us take
 * 0-50 and nothing above (upstream rseq's cap); time_scale takes 1-1000,
 * and above 1 only on a host under a hypervisor -- which the emulated
 * test host is, so there 2 is accepted, and refused on bare metal.
 */
static int param_write(const char *name, const char *val)
{
	char path[128];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "/sys/module/kvm_pvple/parameters/%s",
		 name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	ret = fputs(val, f) < 0 ? -errno : 0;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

TEST_F(pvple, slice_bound_capped_and_scaled)
{
	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	ASSERT_EQ(param_write("slice_ext_us", "50"), 0);
	ASSERT_EQ(param_write("slice_ext_us", "51"), -ERANGE);
	ASSERT_EQ(param_write("slice_ext_us", "1000"), -ERANGE);
	ASSERT_EQ(param_write("slice_step_us", "51"), -ERANGE);
	ASSERT_EQ(param_write("slice_step_us", "0"), 0);
	ASSERT_EQ(param_write("time_scale", "0"), -ERANGE);
	ASSERT_EQ(param_write("time_scale", "1001"), -ERANGE);
	ASSERT_EQ(param_write("time_scale", "2"),
		  under_hypervisor() ? 0 : -EPERM);
	ASSERT_EQ(param_write("time_scale", "1"), 0);
	ASSERT_EQ(param_write("slice_ext_us", EXT_US_S), 0);
}

TEST_F_TIMEOUT(pvple, slice_not_extended_outside_a_section,
	       HARNESS_TIMEOUT_S)
{
	struct pvple_counts c;

	if (cannot_extend())
		SKIP(return, "%s", cannot_extend());
	set_params("auto", "2000");
	/* A zero count, and the folded need-resched bit alone. */
	run_section(_metadata, EXT_US_S, 0, &c);
	ASSERT_GE(c.slice_requests, 20);
	ASSERT_EQ(c.slice_in_cs + c.slice_granted + c.slice_desched_cs, 0);
	run_section(_metadata, EXT_US_S, 0x80000000, &c);
	ASSERT_GE(c.slice_requests, 20);
	ASSERT_EQ(c.slice_in_cs + c.slice_granted + c.slice_desched_cs, 0);
	/* In a section with the extension off: counted, not extended. */
	run_section(_metadata, "0", 1, &c);
	ASSERT_GE(c.slice_requests, 20);
	ASSERT_EQ(c.slice_granted, 0);
	ASSERT_EQ(c.slice_desched_cs, c.slice_requests);
	slice_set(EXT_US_S);
}

/*
 * A hostile guest: a count that never goes back to zero.  VM B counts on
 * host CPU 0 beside VM A's one vCPU, first a plain one (count 0), then a
 * hostile one, then a plain one again; B keeps at least 0.95 of its share
 * of CPU 0: the extension gives A at most slice_ext_us per request, and
 * update_curr() charges that time to A's vruntime like any other.
 *
 * The share is B's vCPU thread's CPU time over the wall time of a window,
 * not B's count per second: the emulated host's speed follows the load
 * of the machine under it, and in one CI run B's rate beside a plain VM
 * moved 3 % from one window to the next; the share, split by the L1
 * scheduler, does not depend on that speed.
 */
static double share_beside(struct __test_metadata *_metadata,
			   struct kvm_vm *b, clockid_t b_clock, u64 count,
			   struct pvple_counts *c, double *rate)
{
	struct pvple_vcpu_thread t;
	u64 loops, cpu, wall;
	struct kvm_vm *a;

	a = create_section_vm(&t, count, guest_in_section);
	pvple_start_vcpus(&t, 1);
	sleep(1);
	loops = GET(b, guest_loops[0]);
	cpu = pvple_clock_ns(b_clock);
	wall = pvple_clock_ns(CLOCK_MONOTONIC);
	sleep(4);
	loops = GET(b, guest_loops[0]) - loops;
	cpu = pvple_clock_ns(b_clock) - cpu;
	wall = pvple_clock_ns(CLOCK_MONOTONIC) - wall;
	SET(a, guest_stop, 1);
	pvple_wait_vcpus(&t, 1, TIMEOUT_S);
	ASSERT_TRUE(pvple_vm_counts(a, c));
	kvm_vm_free(a);
	*rate = loops * 1e9 / wall;
	return (double)cpu / wall;
}

static void guest_count_loops(u32 id)
{
	while (!READ_ONCE(guest_stop))
		WRITE_ONCE(guest_loops[0], guest_loops[0] + 1);
	GUEST_DONE();
}

TEST_F_TIMEOUT(pvple, slice_hostile_guest_spares_other_vms,
	       HARNESS_TIMEOUT_S)
{
	double plain, hostile, plain2, rate[3], least;
	struct pvple_counts ca, cp;
	struct pvple_vcpu_thread tb;
	struct kvm_vcpu *vcpu;
	clockid_t b_clock;
	struct kvm_vm *b;

	if (cannot_extend())
		SKIP(return, "%s", cannot_extend());
	set_params("auto", "2000");
	slice_set(EXT_US_S);
	b = vm_create_with_one_vcpu(&vcpu, guest_count_loops);
	tb = (struct pvple_vcpu_thread){ .vcpu = vcpu, .cpu = 0 };
	pvple_start_vcpus(&tb, 1);
	ASSERT_EQ(pthread_getcpuclockid(tb.thread, &b_clock), 0);
	plain = share_beside(_metadata, b, b_clock, 0, &cp, &rate[0]);
	hostile = share_beside(_metadata, b, b_clock, 1, &ca, &rate[1]);
	plain2 = share_beside(_metadata, b, b_clock, 0, &cp, &rate[2]);
	SET(b, guest_stop, 1);
	pvple_wait_vcpus(&tb, 1, TIMEOUT_S);
	kvm_vm_free(b);
	least = plain < plain2 ? plain : plain2;
	ksft_print_msg("VM B: %.3f of CPU 0 (%.0f/s) beside a plain VM\n",
		       plain, rate[0]);
	ksft_print_msg("  %.3f (%.0f/s) beside the hostile one (%.3f)\n",
		       hostile, rate[1], hostile / least);
	ksft_print_msg("  %.3f (%.0f/s) beside a plain VM again\n",
		       plain2, rate[2]);
	ksft_print_msg("the hostile VM: %lu requests, %lu granted, %lu us granted\n",
		       ca.slice_requests, ca.slice_granted, ca.slice_ns / 1000);
	ASSERT_GE(ca.slice_granted, 10);
	ASSERT_EQ(cp.slice_granted, 0);
	ASSERT_GE(hostile, 0.95 * least);
}

/*
 * A hostile guest that goes out to its VMM whenever a grant runs: its
 * count never goes back to zero, and at @slice = 1 it makes a PIO exit
 * (a ucall, which this program answers at once) and comes straight back.
 * The grant cleared the reschedule request; the vCPU load on its return
 * must give it back, and the hook must not extend it a second time
 * (slice.c, "Given back"), or the vCPU keeps its CPU from everyone.
 * This one exits for as long as it reads 1, which the host leaves there
 * after a grant that ended at a load: the return to user space is then
 * a reschedule point of its own, where a new request is served, but a
 * request asked once (an RT or stopper task's wake-up) and lost at the
 * load is never asked again.  With @guest_once, it exits once a grant
 * and then writes 0 and calls KVM_HC_PVPLE_SLICE_DONE (answered "no
 * grant", but it makes the host write 1 at the next grant): between
 * grants it never leaves the guest, so that a request lost at the load
 * is one the scheduler asks again only a slice later, every time.
 */
static u64 guest_once;

static void guest_leaves_when_granted(u32 id)
{
	struct pvple_area *a = guest_register_count(id);

	while (!READ_ONCE(guest_stop)) {
		WRITE_ONCE(guest_loops[id], guest_loops[id] + 1);
		if (!READ_ONCE(a->slice))
			continue;
		GUEST_SYNC(0);
		if (!READ_ONCE(guest_once))
			continue;
		WRITE_ONCE(a->slice, 0);
		kvm_hypercall(KVM_HC_PVPLE_SLICE_DONE, 0, 0, 0, 0);
	}
	GUEST_DONE();
}

/* The VM of guest_leaves_when_granted() on CPU 0, @count as its count. */
static struct kvm_vm *start_leaver(struct pvple_vcpu_thread *t, u64 count,
				   u64 once)
{
	struct kvm_vm *vm = create_section_vm(t, count,
					      guest_leaves_when_granted);

	SET(vm, guest_once, once);
	pvple_start_vcpus(t, 1);
	return vm;
}

static void stop_leaver(struct __test_metadata *_metadata, struct kvm_vm *vm,
			struct pvple_vcpu_thread *t, struct pvple_counts *c)
{
	SET(vm, guest_stop, 1);
	pvple_wait_vcpus(t, 1, TIMEOUT_S);
	ASSERT_TRUE(pvple_vm_counts(vm, c));
	kvm_vm_free(vm);
	ksft_print_msg("  the VM: %lu requests, %lu granted, %lu us granted\n",
		       c->slice_requests, c->slice_granted, c->slice_ns / 1000);
	ksft_print_msg("  %lu given back, %lu refused again\n",
		       c->slice_given_back, c->slice_refused_regrant);
}

/*
 * (a) A normal thread pinned to the VM's CPU keeps at least 0.95 of the
 * CPU share it has beside a plain VM (the same guest with a zero count),
 * beside the guest that exits once a grant (@guest_once).
 */
static double thread_share_beside(struct __test_metadata *_metadata, u64 count,
				  struct pvple_counts *c)
{
	struct pvple_vcpu_thread t;
	struct busy b = { };
	u64 cpu, wall;
	clockid_t clk;
	struct kvm_vm *vm;

	vm = start_leaver(&t, count, 1);
	pthread_create(&b.thread, NULL, busy_thread, &b);
	ASSERT_EQ(pthread_getcpuclockid(b.thread, &clk), 0);
	sleep(1);
	cpu = pvple_clock_ns(clk);
	wall = pvple_clock_ns(CLOCK_MONOTONIC);
	sleep(4);
	cpu = pvple_clock_ns(clk) - cpu;
	wall = pvple_clock_ns(CLOCK_MONOTONIC) - wall;
	WRITE_ONCE(b.stop, true);
	pthread_join(b.thread, NULL);
	stop_leaver(_metadata, vm, &t, c);
	return (double)cpu / wall;
}

TEST_F_TIMEOUT(pvple, slice_given_back_spares_a_thread, HARNESS_TIMEOUT_S)
{
	double plain, hostile, plain2, least;
	struct pvple_counts cp, ch;

	if (cannot_extend())
		SKIP(return, "%s", cannot_extend());
	set_params("auto", "2000");
	slice_set_long();
	plain = thread_share_beside(_metadata, 0, &cp);
	hostile = thread_share_beside(_metadata, 1, &ch);
	plain2 = thread_share_beside(_metadata, 0, &cp);
	least = plain < plain2 ? plain : plain2;
	ksft_print_msg("a thread on CPU 0: %.3f beside a plain VM\n", plain);
	ksft_print_msg("  %.3f beside the leaver (%.3f)\n", hostile,
		       hostile / least);
	ksft_print_msg("  %.3f beside a plain VM again\n", plain2);
	ASSERT_GE(ch.slice_granted, 10);
	ASSERT_EQ(cp.slice_granted, 0);
	ASSERT_GE(hostile, 0.95 * least);
	/*
	 * Each grant ended at a load with its request given back, and no
	 * request given back was extended again: at least half of them met
	 * the hook, where a second grant would be (the others were served
	 * at a reschedule point before it).
	 */
	ASSERT_GE(ch.slice_given_back, ch.slice_granted / 2);
	ASSERT_GE(2 * ch.slice_refused_regrant, ch.slice_given_back);
}

/*
 * (b) A SCHED_FIFO thread woken on the VM's CPU every 3 ms: from the time
 * it was due to the time it runs, over 60 s beside the leaver, no more
 * than the bound and 1 ms above what it is beside a plain VM in the same
 * boot.  Its wake-up is a reschedule request of the vCPU task that the
 * extension may delay once, by the bound.  Not against the bound and
 * 1 ms alone: the emulated test host's own wake-up latency, beside a
 * plain VM, was 2.2 ms at p99 and 27 ms at most in 10 s.  Nor its
 * maximum: one sample of the emulator's stalls.  The 99th and 99.9th
 * percentiles are asserted, the maxima printed.  Without the give-back
 * the waker does not run again until the guest stops: a few wake-ups in
 * 60 s, and this fails on their count.
 */
#define RT_PERIOD_NS	3000000ULL
#define RT_MAX_SAMPLES	30000

struct rt_waker {
	pthread_t thread;
	int seconds;
	int n;
	int err;	/* pthread_setschedparam()'s */
	u64 lat_ns[RT_MAX_SAMPLES];
};

static void *rt_waker_thread(void *arg)
{
	struct sched_param sp = { .sched_priority = 50 };
	struct rt_waker *w = arg;
	struct timespec next;
	cpu_set_t set;
	u64 due, end;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	w->err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	if (w->err)
		return NULL;
	due = pvple_clock_ns(CLOCK_MONOTONIC) + RT_PERIOD_NS;
	end = due + w->seconds * 1000000000ULL;
	while (due < end && w->n < RT_MAX_SAMPLES) {
		next.tv_sec = due / 1000000000ULL;
		next.tv_nsec = due % 1000000000ULL;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		w->lat_ns[w->n++] = pvple_clock_ns(CLOCK_MONOTONIC) - due;
		due += RT_PERIOD_NS;
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The waker beside the leaver with @count for @seconds: p99, p99.9.
 * Returns pthread_setschedparam()'s error, or 0.
 */
static int rt_latency_beside(struct __test_metadata *_metadata, u64 count,
			     int seconds, u64 *p99, u64 *p999,
			     struct pvple_counts *c)
{
	struct rt_waker *w = calloc(1, sizeof(*w));
	struct pvple_vcpu_thread t;
	struct timespec deadline;
	struct kvm_vm *vm;
	bool late;

	ASSERT_NE(w, NULL);
	w->seconds = seconds;
	vm = start_leaver(&t, count, 0);
	sleep(1);
	pthread_create(&w->thread, NULL, rt_waker_thread, w);
	/* A waker kept off its CPU ends with the guest, not the harness. */
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += seconds + 30;
	late = pthread_timedjoin_np(w->thread, NULL, &deadline);
	stop_leaver(_metadata, vm, &t, c);
	if (late)
		pthread_join(w->thread, NULL);
	if (w->err) {
		int err = w->err;

		free(w);
		return err;
	}
	ASSERT_FALSE(late);
	ASSERT_GE(w->n, seconds * 100);
	qsort(w->lat_ns, w->n, sizeof(w->lat_ns[0]), cmp_u64);
	*p99 = w->lat_ns[w->n * 99 / 100];
	*p999 = w->lat_ns[w->n * 999 / 1000];
	ksft_print_msg("  SCHED_FIFO, %d wake-ups: p50 %lu, p99 %lu, p99.9 %lu, max %lu us\n",
		       w->n, w->lat_ns[w->n / 2] / 1000, *p99 / 1000,
		       *p999 / 1000, w->lat_ns[w->n - 1] / 1000);
	free(w);
	return 0;
}

TEST_F_TIMEOUT(pvple, slice_given_back_rt_wakeup_bounded, HARNESS_TIMEOUT_S)
{
	u64 p99, p999, pp99, pp999, slack = LONG_US * 1000ULL + 1000000;
	struct pvple_counts c;

	if (cannot_extend())
		SKIP(return, "%s", cannot_extend());
	set_params("auto", "2000");
	slice_set_long();
	ksft_print_msg("beside a plain VM, 20 s:\n");
	if (rt_latency_beside(_metadata, 0, 20, &pp99, &pp999, &c))
		SKIP(return, "SCHED_FIFO refused to this test");
	ASSERT_EQ(c.slice_granted, 0);
	ksft_print_msg("beside the leaver, 60 s:\n");
	ASSERT_EQ(rt_latency_beside(_metadata, 1, 60, &p99, &p999, &c), 0);
	ASSERT_GE(c.slice_granted, 10);
	ASSERT_LE(p99, pp99 + slack);
	ASSERT_LE(p999, pp999 + slack);
}

/*
 * (c) CPU 1 goes offline and comes back while the leaver runs on CPU 0
 * beside a busy thread: the hotplug's stopper work on CPU 0
 * (stop_machine()) is a reschedule request of the vCPU task like any
 * other, delayed by the bound at most.  Each step within 30 s.
 */
struct hotplug {
	pthread_t thread;
	const char *val;
	int ret;
	u64 ns;
};

static void *hotplug_thread(void *arg)
{
	struct hotplug *h = arg;
	u64 t0 = pvple_clock_ns(CLOCK_MONOTONIC);
	int fd = open("/sys/devices/system/cpu/cpu1/online", O_WRONLY);

	h->ret = fd < 0 ? -errno : 0;
	if (fd >= 0) {
		if (write(fd, h->val, 1) != 1)
			h->ret = -errno;
		close(fd);
	}
	h->ns = pvple_clock_ns(CLOCK_MONOTONIC) - t0;
	__atomic_store_n(&h->val, NULL, __ATOMIC_RELEASE);
	return NULL;
}

/* Write @val to CPU 1's online file; wait for it at most @secs. */
static bool hotplug_cpu1(const char *val, int secs, struct hotplug *h)
{
	int i;

	*h = (struct hotplug){ .val = val };
	pthread_create(&h->thread, NULL, hotplug_thread, h);
	for (i = 0; i < secs * 10; i++) {
		if (!__atomic_load_n(&h->val, __ATOMIC_ACQUIRE))
			return true;
		usleep(100000);
	}
	return false;
}

TEST_F_TIMEOUT(pvple, slice_given_back_cpu_hotplug, HARNESS_TIMEOUT_S)
{
	struct hotplug off, on;
	struct pvple_vcpu_thread t;
	struct pvple_counts c;
	struct busy b = { };
	bool off_ok, on_ok = false;
	struct kvm_vm *vm;

	if (cannot_extend())
		SKIP(return, "%s", cannot_extend());
	if (access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "CPU 1 cannot go offline here (no hotplug file)");
	set_params("auto", "2000");
	slice_set_long();
	vm = start_leaver(&t, 1, 0);
	pthread_create(&b.thread, NULL, busy_thread, &b);
	sleep(1);
	off_ok = hotplug_cpu1("0", 30, &off);
	if (off_ok)
		on_ok = hotplug_cpu1("1", 30, &on);
	/* Whatever happened: stop the guest, which frees a stuck CPU 0. */
	WRITE_ONCE(b.stop, true);
	stop_leaver(_metadata, vm, &t, &c);
	pthread_join(b.thread, NULL);
	pthread_join(off.thread, NULL);
	if (off_ok)
		pthread_join(on.thread, NULL);
	else
		hotplug_cpu1("1", 30, &on);
	ksft_print_msg("CPU 1 offline: %s in %lu ms (%d); online: %s in %lu ms (%d)\n",
		       off_ok ? "done" : "NOT done", off.ns / 1000000, off.ret,
		       on_ok ? "done" : "NOT done", on.ns / 1000000, on.ret);
	ASSERT_TRUE(off_ok);
	ASSERT_TRUE(on_ok);
	ASSERT_EQ(off.ret, 0);
	ASSERT_EQ(on.ret, 0);
	ASSERT_GE(c.slice_granted, 10);
}

/*
 * The preemption model gate: with the host at preempt=full (switched at
 * run time on a PREEMPT_DYNAMIC host; the debug test host's kernel is
 * CONFIG_PREEMPT) every request that reaches the hook inside a section
 * is refused, and none granted.  Under full few requests reach the hook
 * at all (the preempt_enable() after the VM exit honours them first;
 * none did in the first runs), so on a host that can switch, the same
 * guest runs again under preempt=none, which must grant: the guest and
 * the load make grants wherever the model allows them.
 */
TEST_F_TIMEOUT(pvple, slice_refused_under_full_preemption, HARNESS_TIMEOUT_S)
{
	bool switched = !preempt_full();
	struct pvple_counts c, cn;

	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	if (switched && !pvple_preempt_set("full"))
		SKIP(return, "not preempt=full, and no debugfs file to switch");
	set_params("auto", "2000");
	run_section(_metadata, EXT_US_S, 1, &c);
	/* The same guest under preempt=none: granted, nothing refused. */
	if (switched) {
		ASSERT_TRUE(pvple_preempt_set("none"));
		run_section(_metadata, EXT_US_S, 1, &cn);
	}
	pvple_host_restore();
	ksft_print_msg("preempt=full%s: %lu requests at the hook, %lu refused, %lu granted\n",
		       switched ? " (switched at run time)" : "",
		       c.slice_requests, c.slice_refused_model, c.slice_granted);
	ASSERT_EQ(c.slice_granted, 0);
	ASSERT_EQ(c.slice_refused_model, c.slice_in_cs);
	ASSERT_EQ(c.slice_in_cs, c.slice_requests);
	if (!switched)
		return;
	ksft_print_msg("preempt=none: %lu requests at the hook, %lu refused, %lu granted\n",
		       cn.slice_requests, cn.slice_refused_model, cn.slice_granted);
	ASSERT_GE(cn.slice_granted, 10);
	ASSERT_EQ(cn.slice_refused_model, 0);
}

/*
 * A holder that spins inside its section (PAUSE, as udelay() does) while
 * vCPU 1 waits for its lock: vCPU 1's PLE exits take vCPU 0 for the
 * holder, and vCPU 0's own exits, with an idle record, go back to the
 * guest instead of yielding its CPU away, PVPLE_SPIN_MAX (8) in a row at
 * most.  With a zero count it is not in a section: stock.
 */
static void guest_held_pause(u32 id)
{
	guest_register_count(id);
	if (id == 0) {
		pvple_ticket_lock(&guest_lock, 0, &guest_areas[0], false);
		WRITE_ONCE(guest_held, 1);
		while (!READ_ONCE(guest_release))
			asm volatile("pause" ::: "memory");
		pvple_ticket_unlock(&guest_lock);
	} else {
		while (!READ_ONCE(guest_held))
			asm volatile("" ::: "memory");
		pvple_ticket_lock(&guest_lock, 1, &guest_areas[1], false);
		pvple_ticket_unlock(&guest_lock);
	}
	GUEST_DONE();
}

static void run_held(struct __test_metadata *_metadata, u64 count,
		     struct pvple_counts *c)
{
	struct pvple_vcpu_thread t[2];
	struct kvm_vm *vm = create_vm(2, guest_held_pause, t, -1);

	guest_count_gpa = addr_gva2gpa(vm, (vm_vaddr_t)&guest_count);
	sync_global_to_guest(vm, guest_count_gpa);
	*(u32 *)addr_gva2hva(vm, (vm_vaddr_t)&guest_count) = count;
	pvple_start_vcpus(t, 2);
	sleep(2);
	release_and_wait(vm, t, 2);
	ASSERT_TRUE(pvple_vm_counts(vm, c));
	kvm_vm_free(vm);
	ksft_print_msg("count=0x%lx: %lu PLE exits, %lu spin, %lu held, %lu stock (%lu idle)\n",
		       count, c->ple_exits, c->spin, c->held_spin, c->stock,
		       c->rec_idle);
}

TEST_F_TIMEOUT(pvple, held_holder_keeps_its_cpu, HARNESS_TIMEOUT_S)
{
	struct pvple_counts c;

	if (unsupported(true))
		SKIP(return, "%s", unsupported(true));
	if (need_two_cpus())
		SKIP(return, "%s", need_two_cpus());
	set_params("auto", "2000");
	run_held(_metadata, 1, &c);
	ASSERT_GE(c.held_spin, 1);
	ASSERT_LE(c.held_spin, 8 * (c.rec_idle + 1));
	run_held(_metadata, 0, &c);
	ASSERT_GE(c.rec_idle, 1);
	ASSERT_EQ(c.held_spin, 0);
}

/*
 * ABI 5: what KVM_HC_PVPLE_FEATURES answers vCPU 0 before it registers,
 * registered without a preemption count, with one, and after an ABI 4
 * registration was refused.
 */
static void guest_features(u32 id)
{
	struct pvple_area *a = &guest_areas[id];
	u64 gpa = guest_area_gpa[id], *r = guest_res[id];

	r[0] = kvm_hypercall(KVM_HC_PVPLE_FEATURES, 0, 0, 0, 0);
	r[1] = pvple_guest_register(a, gpa);
	r[2] = kvm_hypercall(KVM_HC_PVPLE_FEATURES, 0, 0, 0, 0);
	r[3] = pvple_guest_register_all(a, gpa, (u64)__executable_start,
					(u64)etext, guest_count_gpa);
	r[4] = kvm_hypercall(KVM_HC_PVPLE_FEATURES, 0, 0, 0, 0);
	r[5] = kvm_hypercall(KVM_HC_PVPLE_REGISTER, gpa, 4, 0, 0);
	r[6] = kvm_hypercall(KVM_HC_PVPLE_FEATURES, 0, 0, 0, 0);
	GUEST_DONE();
}

/*
 * guest_features() in mode @mode with slice_ext_us=@us, its vCPU thread
 * SCHED_FIFO if @rt; returns what the registered vCPU with a count was
 * answered, after checking the other answers, which no setting changes.
 */
static u64 features_with(struct __test_metadata *_metadata, const char *mode,
			 const char *us, bool rt)
{
	struct sched_param sp = { .sched_priority = rt };
	struct pvple_vcpu_thread t[1];
	struct pvple_counts c;
	struct kvm_vm *vm;

	set_params(mode, "2000");
	pvple_param_set("slice_ext_us", us);
	memset(guest_res, 0, sizeof(guest_res));
	vm = create_section_vm(t, 1, guest_features);
	/* The vCPU thread, created next, inherits the policy. */
	ASSERT_EQ(pthread_setschedparam(pthread_self(),
					rt ? SCHED_FIFO : SCHED_OTHER, &sp), 0);
	pvple_run_vcpus(t, 1, TIMEOUT_S);
	sp.sched_priority = 0;
	ASSERT_EQ(pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp), 0);
	sync_global_from_guest(vm, guest_res);
	ASSERT_TRUE(pvple_vm_counts(vm, &c));
	kvm_vm_free(vm);
	ASSERT_EQ(guest_res[0][0], (u64)-PVPLE_ENOTREG);
	ASSERT_EQ(guest_res[0][1], 0);
	ASSERT_EQ(guest_res[0][2], 0);		/* no count: nothing to grant */
	ASSERT_EQ(guest_res[0][3], 0);
	ASSERT_EQ(guest_res[0][5], (u64)-KVM_EOPNOTSUPP);	/* ABI 4 */
	ASSERT_EQ(guest_res[0][6], (u64)-PVPLE_ENOTREG);
	ASSERT_EQ(c.hc_features, 4);
	return guest_res[0][4];
}

/*
 * The guest series turns its end-of-section test on only for a host that
 * answers PVPLE_F_SLICE: it must be set exactly where a request inside a
 * section would be extended -- the extension on, mode not off, a fair
 * vCPU thread, a preemption model of none or voluntary.
 */
TEST_F_TIMEOUT(pvple, slice_features_say_whether_it_grants, HARNESS_TIMEOUT_S)
{
	u64 on, zero, off, rt, full = 0;
	bool switched;

	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	on = features_with(_metadata, "auto", EXT_US_S, false);
	zero = features_with(_metadata, "auto", "0", false);
	off = features_with(_metadata, "off", EXT_US_S, false);
	rt = features_with(_metadata, "auto", EXT_US_S, true);
	switched = !preempt_full() && pvple_preempt_set("full");
	if (switched)
		full = features_with(_metadata, "auto", EXT_US_S, false);
	pvple_host_restore();
	ksft_print_msg("features: on %lu, slice_ext_us=0 %lu, mode=off %lu, SCHED_FIFO %lu\n",
		       on, zero, off, rt);
	ksft_print_msg("features: preempt=full %s\n",
		       switched ? (full ? "1" : "0") : "not switched");
	ASSERT_EQ(on, preempt_full() ? 0 : PVPLE_F_SLICE);
	ASSERT_EQ(zero, 0);
	ASSERT_EQ(off, 0);
	ASSERT_EQ(rt, 0);
	ASSERT_EQ(full, 0);
}

TEST_HARNESS_MAIN
