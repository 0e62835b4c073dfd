// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-pvple at its edges: a guest that publishes nothing, park-hypercall
 * storms and other VMs, the per-VM mode, INIT, ftrace, every kind of
 * hostile input, and a memslot deleted under the area.
 *
 * Preemption is made deterministic by pinning the vCPU threads that matter
 * to one host CPU.  PLE-path tests need a host that intercepts PAUSE; the
 * park hypercall path does not.  Tests that read the module's tracepoints
 * must run alone on the host.
 */
#include "pvple_lock.h"

static void guest_pause_only(u32 id)
{
	int i;

	for (i = 0; i < 200; i++)
		asm volatile("pause" ::: "memory");
	GUEST_DONE();
}

TEST_F_TIMEOUT(pvple, unregistered_guest_gets_stock, HARNESS_TIMEOUT_S)
{
	struct pvple_vcpu_thread t[2];
	struct pvple_counts c;
	struct kvm_vm *vm;

	if (unsupported(true))
		SKIP(return, "%s", unsupported(true));
	set_params("auto", "2000");
	vm = create_vm(2, guest_pause_only, t, -1);
	pvple_run_vcpus(t, 2, TIMEOUT_S);
	ASSERT_TRUE(pvple_vm_counts(vm, &c));
	ASSERT_GE(c.ple_exits, 1);
	ASSERT_EQ(c.stock, c.ple_exits);
	ASSERT_EQ(c.rec_unregistered, c.ple_exits);
	ASSERT_EQ(c.yield_tried + c.parks + c.spin, 0);
	kvm_vm_free(vm);
}

/*
 * A park-hypercall storm: vCPU 1 asks without pause, its target preempted
 * on the same CPU.  Every call is answered, but the yields and parks it
 * may cause are paced by the rate limit (PVPLE_HC_PARK_GAP_NS).
 */
static void guest_park_storm(u32 id)
{
	guest_register(id);
	if (id == 1) {
		guest_park_behind_0(id);
	} else {
		while (!READ_ONCE(guest_stop))
			asm volatile("" ::: "memory");
	}
	GUEST_DONE();
}

TEST_F_TIMEOUT(pvple, park_hypercall_storm_is_paced, HARNESS_TIMEOUT_S)
{
	/* Wider than the default, so that an emulated host shows it too. */
	const u64 gap_ns = 20 * 1000 * 1000;
	struct pvple_vcpu_thread t[2];
	struct timespec a, b;
	struct pvple_counts c;
	struct kvm_vm *vm;
	u64 ns;

	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	set_params("auto", "2000");
	pvple_param_set("park_hc_gap_us", "20000");
	vm = create_vm(2, guest_park_storm, t, 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	pvple_start_vcpus(t, 2);
	sleep(3);
	SET(vm, guest_stop, 1);
	pvple_wait_vcpus(t, 2, TIMEOUT_S);
	clock_gettime(CLOCK_MONOTONIC, &b);
	pvple_param_set("park_hc_gap_us", "25");
	ns = (b.tv_sec - a.tv_sec) * 1000000000ULL + b.tv_nsec - a.tv_nsec;
	ASSERT_TRUE(pvple_vm_counts(vm, &c));
	ksft_print_msg("%lu park calls in %lu ms: %lu acted on (yields %lu, parks %lu), %s\n",
		       c.hc_park, ns / 1000000, c.yield_tried + c.parks,
		       c.yield_tried, c.parks, "throttled/answered otherwise");
	ksft_print_msg("%lu %lu\n", c.hc_throttled,
		       c.hc_park - c.yield_tried - c.parks - c.hc_throttled);
	ASSERT_GE(c.hc_park, 100);
	/* At most one action per gap, over the whole run. */
	ASSERT_LE(c.yield_tried + c.parks, ns / gap_ns + 1);
	ASSERT_GE(c.yield_tried + c.parks, 1);
	ASSERT_GE(c.hc_throttled, 1);
	kvm_vm_free(vm);
}

/*
 * Another VM's share of a CPU.  VM B counts as fast as it can on host CPU
 * 0; beside it, VM A's two vCPUs share the same CPU: either both simply
 * spin, or vCPU 1 storms park hypercalls behind vCPU 0.  The storm's
 * yields go to vCPU 0 of its own VM, its parks sleep vCPU 1 only, so VM
 * B must keep its share of the CPU in the storm, as beside plain
 * spinners.  The share is the CPU time of B's vCPU thread per second of
 * the window: B's count per second is also printed, but it moves with
 * the emulator's speed, which switches between two levels during a run
 * (one window's count at 77 and the next at 216 million per second, on
 * the debug L1), and a storm window that fell on the slow level made the
 * test fail.  Plain and storm windows alternate, plain at both ends, and
 * the mean shares are compared.
 */
#define STORM_WINDOWS	5

static void guest_count(u32 id)
{
	while (!READ_ONCE(guest_stop))
		WRITE_ONCE(guest_loops[0], guest_loops[0] + 1);
	GUEST_DONE();
}

static void guest_plain_spin(u32 id)
{
	guest_register(id);
	while (!READ_ONCE(guest_stop))
		asm volatile("" ::: "memory");
	GUEST_DONE();
}

/*
 * VM B's share of host CPU 0 (CPU time of its vCPU thread, whose clock is
 * @b_clock, per second) while VM A runs @code beside it; *@rate: B's count
 * per second.
 */
static double share_beside(struct __test_metadata *_metadata,
			   struct kvm_vm *b, clockid_t b_clock, void *code,
			   struct pvple_counts *c, double *rate)
{
	u64 loops, cpu, wall;
	struct pvple_vcpu_thread t[2];
	struct kvm_vm *a;

	a = create_vm(2, code, t, 0);
	pvple_start_vcpus(t, 2);
	sleep(1);
	loops = GET(b, guest_loops[0]);
	cpu = pvple_clock_ns(b_clock);
	wall = pvple_clock_ns(CLOCK_MONOTONIC);
	sleep(3);
	loops = GET(b, guest_loops[0]) - loops;
	cpu = pvple_clock_ns(b_clock) - cpu;
	wall = pvple_clock_ns(CLOCK_MONOTONIC) - wall;
	SET(a, guest_stop, 1);
	pvple_wait_vcpus(t, 2, TIMEOUT_S);
	ASSERT_TRUE(pvple_vm_counts(a, c));
	kvm_vm_free(a);
	*rate = loops * 1e9 / wall;
	return (double)cpu / wall;
}

TEST_F_TIMEOUT(pvple, park_hypercall_storm_spares_other_vms,
	       HARNESS_TIMEOUT_S)
{
	double share, rate, plain = 0, storm = 0;
	struct pvple_vcpu_thread tb;
	struct pvple_counts ca, cb;
	struct kvm_vcpu *vcpu;
	clockid_t b_clock;
	struct kvm_vm *b;
	int i;

	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	set_params("auto", "2000");
	b = vm_create_with_one_vcpu(&vcpu, guest_count);
	tb = (struct pvple_vcpu_thread){ .vcpu = vcpu, .cpu = 0 };
	pvple_start_vcpus(&tb, 1);
	ASSERT_EQ(pthread_getcpuclockid(tb.thread, &b_clock), 0);
	for (i = 0; i < STORM_WINDOWS; i++) {
		if (i % 2) {
			share = share_beside(_metadata, b, b_clock,
					     guest_park_storm, &ca, &rate);
			storm += share;
			ksft_print_msg("VM B: %.3f of CPU 0 (%.0f/s) beside the storm\n",
				       share, rate);
			ksft_print_msg("storm: %lu calls, %lu yields, %lu parks, %lu throttled\n",
				       ca.hc_park, ca.yield_tried, ca.parks,
				       ca.hc_throttled);
			ASSERT_GE(ca.hc_park, 100);
		} else {
			share = share_beside(_metadata, b, b_clock,
					     guest_plain_spin, &cb, &rate);
			plain += share;
			ksft_print_msg("VM B: %.3f of CPU 0 (%.0f/s) beside spinners\n",
				       share, rate);
		}
	}
	SET(b, guest_stop, 1);
	pvple_wait_vcpus(&tb, 1, TIMEOUT_S);
	plain /= (STORM_WINDOWS + 1) / 2;
	storm /= STORM_WINDOWS / 2;
	ksft_print_msg("VM B's mean share beside the storm: %.3f of that beside spinners\n",
		       storm / plain);
	ASSERT_GE(storm, 0.75 * plain);
	/* VM B was never chosen, parked or counted by the storm. */
	ASSERT_TRUE(pvple_vm_counts(b, &cb));
	ASSERT_EQ(cb.yield_tried + cb.parks + cb.hypercalls, 0);
	kvm_vm_free(b);
}

/*
 * Per-VM mode: VM A is set to "off" through debugfs, VM B follows the
 * module's "auto".  Both run the same guest, a park hypercall loop behind
 * a running vCPU: A's calls all get -KVM_EOPNOTSUPP (pvple off), none of
 * B's do.  Unknown VMs and modes are refused; "default" restores.
 */
#define MODE_CALLS	200

static void guest_mode_probe(u32 id)
{
	int i;

	guest_register(id);
	if (id == 1) {
		pvple_guest_publish(&guest_areas[1], 0, PVPLE_ROLE_HOLDER);
		for (i = 0; i < MODE_CALLS; i++)
			guest_res[1][pvple_guest_park() == -KVM_EOPNOTSUPP]++;
		WRITE_ONCE(guest_stop, 1);
	} else {
		while (!READ_ONCE(guest_stop))
			asm volatile("" ::: "memory");
	}
	GUEST_DONE();
}

TEST_F_TIMEOUT(pvple, mode_per_vm, HARNESS_TIMEOUT_S)
{
	struct pvple_vcpu_thread ta[2], tb[2];
	struct kvm_vm *a, *b;
	u64 ra[2], rb[2];

	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	set_params("auto", "2000");
	a = create_vm(2, guest_mode_probe, ta, -1);
	b = create_vm(2, guest_mode_probe, tb, -1);
	ASSERT_EQ(pvple_vm_set_mode(NULL, "0-0", "off"), -ENOENT);
	ASSERT_EQ(pvple_vm_set_mode(a, NULL, "sometimes"), -EINVAL);
	ASSERT_EQ(pvple_vm_set_mode(a, NULL, "off"), 0);
	ASSERT_TRUE(pvple_vm_mode_is(a, "off"));
	ASSERT_TRUE(pvple_vm_mode_is(b, "default"));
	pvple_run_vcpus(ta, 2, TIMEOUT_S);
	pvple_run_vcpus(tb, 2, TIMEOUT_S);
	memcpy(ra, host_ptr(a, &guest_res[1][0]), sizeof(ra));
	memcpy(rb, host_ptr(b, &guest_res[1][0]), sizeof(rb));
	ksft_print_msg("VM A (off): %lu of %d calls refused; VM B: %lu\n",
		       ra[1], MODE_CALLS, rb[1]);
	ASSERT_EQ(ra[1], MODE_CALLS);
	ASSERT_EQ(rb[1], 0);
	ASSERT_EQ(rb[0], MODE_CALLS);
	ASSERT_EQ(pvple_vm_set_mode(a, NULL, "default"), 0);
	ASSERT_TRUE(pvple_vm_mode_is(a, "default"));
	kvm_vm_free(a);
	kvm_vm_free(b);
}

/*
 * Lifecycle.  INIT forgets the area, as it forgets steal time: vCPU 1
 * registers, vCPU 0 sends it an INIT IPI, and KVM_GET_MP_STATE makes KVM
 * take the INIT (kvm_apic_accept_events() -> kvm_vcpu_reset()).
 */
static void guest_init_other(u32 id)
{
	guest_register(id);
	if (id == 0) {
		x2apic_enable();
		x2apic_write_reg(APIC_ICR, ((u64)1 << 32) | APIC_DEST_PHYSICAL |
				 APIC_DM_INIT | APIC_INT_ASSERT);
	}
	GUEST_DONE();
}

TEST_F_TIMEOUT(pvple, init_forgets_the_area, HARNESS_TIMEOUT_S)
{
	struct kvm_mp_state mp;
	struct pvple_vcpu_thread t[2];
	struct pvple_counts c;
	struct kvm_vm *vm;
	struct ucall uc;

	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	vm = create_vm(2, guest_init_other, t, -1);
	vcpu_run(t[1].vcpu);
	ASSERT_EQ(get_ucall(t[1].vcpu, &uc), UCALL_DONE);
	vcpu_run(t[0].vcpu);
	ASSERT_EQ(get_ucall(t[0].vcpu, &uc), UCALL_DONE);
	ASSERT_TRUE(pvple_vm_counts(vm, &c));
	ASSERT_EQ(c.reg_ok, 2);
	ASSERT_EQ(c.unreg_reset, 0);
	vcpu_mp_state_get(t[1].vcpu, &mp);
	ASSERT_EQ(mp.mp_state, KVM_MP_STATE_INIT_RECEIVED);
	ASSERT_TRUE(pvple_vm_counts(vm, &c));
	ASSERT_EQ(c.unreg_reset, 1);
	kvm_vm_free(vm);
}

/*
 * With the hooks in, "sysctl kernel.ftrace_enabled=0" is refused: it
 * would otherwise detach them silently under running VMs.
 */
TEST_F_TIMEOUT(pvple, ftrace_cannot_be_switched_off, HARNESS_TIMEOUT_S)
{
	int fd, r;

	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	fd = open("/proc/sys/kernel/ftrace_enabled", O_WRONLY);
	if (fd < 0)
		SKIP(return, "no /proc/sys/kernel/ftrace_enabled");
	r = write(fd, "0\n", 2);
	if (r == 2) {
		ASSERT_EQ(write(fd, "1\n", 2), 2);
		close(fd);
		ASSERT_TRUE(false) TH_LOG("ftrace_enabled=0 was accepted");
	}
	close(fd);
	ASSERT_EQ(errno, EBUSY);
}

/*
 * Every hostile or malformed input, from vCPU 0, in order; results go to
 * guest_res[0][] and are checked against both the ABI and the counters.
 */
#define ABSENT_ID	5

static void guest_hostile(u32 id)
{
	struct pvple_area *a = &guest_areas[id];
	u64 gpa = guest_area_gpa[id], *r = guest_res[id];
	int i, storm_failed = 0;

	if (id) {
		GUEST_DONE();
		return;
	}
	r[0] = pvple_guest_register(a, gpa | 8);
	r[1] = pvple_guest_register(a, 1ULL << 45);
	r[2] = kvm_hypercall(KVM_HC_PVPLE_REGISTER, gpa, PVPLE_ABI_VERSION + 1,
			     0, 0);
	r[3] = pvple_guest_park();
	r[4] = pvple_guest_register(a, gpa);
	r[5] = pvple_guest_register(a, gpa);
	r[6] = pvple_guest_park();
	pvple_guest_publish(a, 0xffffffff, PVPLE_ROLE_HOLDER);
	r[7] = pvple_guest_park();
	pvple_guest_publish(a, id, PVPLE_ROLE_HOLDER);
	r[8] = pvple_guest_park();
	pvple_guest_publish(a, ABSENT_ID, PVPLE_ROLE_HOLDER);
	r[9] = pvple_guest_park();
	pvple_guest_publish_on(a, 1, PVPLE_ROLE_HOLDER, 0);
	r[10] = pvple_guest_park();		/* waiting on lock 0 */
	pvple_guest_publish(a, 1, PVPLE_ROLE_HOLDER);
	a->reserved[PVPLE_AREA_RESERVED - 1] = 1;
	r[11] = pvple_guest_park();
	a->reserved[PVPLE_AREA_RESERVED - 1] = 0;
	pvple_guest_publish(a, 1, 7);
	r[12] = pvple_guest_park();
	pvple_guest_publish(a, 1, PVPLE_ROLE_HOLDER);
	r[13] = kvm_hypercall(KVM_HC_PVPLE_UNREGISTER, 0, 0, 0, 0);
	r[14] = kvm_hypercall(KVM_HC_PVPLE_UNREGISTER, 0, 0, 0, 0);
	for (i = 0; i < 1000; i++) {
		storm_failed += pvple_guest_register(a, gpa) != 0;
		storm_failed += kvm_hypercall(KVM_HC_PVPLE_UNREGISTER, 0, 0, 0,
					      0) != 0;
	}
	r[15] = storm_failed;
	r[16] = pvple_guest_park();
	/* A version 1 guest on this host. */
	r[17] = kvm_hypercall(KVM_HC_PVPLE_REGISTER, gpa, 1, 0, 0);
	r[18] = kvm_hypercall(KVM_HC_PVPLE_PROBE, 0, 0, 0, 0);
	/* A refused registration drops the area registered before it. */
	r[19] = pvple_guest_register(a, gpa);
	r[20] = kvm_hypercall(KVM_HC_PVPLE_REGISTER, gpa, 1, 0, 0);
	r[21] = pvple_guest_park();
	/* A v2 area on this host: refused, as a v1 one is. */
	r[22] = kvm_hypercall(KVM_HC_PVPLE_REGISTER, gpa, 2, 0, 0);
	/* ABI v3's registration fields. */
	r[23] = pvple_guest_register_text(a, gpa, 0x1000, 0x1000);
	r[24] = pvple_guest_register_text(a, gpa, 0x2000, 0x1000);
	WRITE_ONCE(a->text_start, (u64)__executable_start);
	WRITE_ONCE(a->text_end, (u64)etext);
	WRITE_ONCE(a->preempt_gpa, gpa + 2);
	r[25] = kvm_hypercall(KVM_HC_PVPLE_REGISTER, gpa, PVPLE_ABI_VERSION,
			      0, 0);
	WRITE_ONCE(a->preempt_gpa, 1ULL << 45);
	r[26] = kvm_hypercall(KVM_HC_PVPLE_REGISTER, gpa, PVPLE_ABI_VERSION,
			      0, 0);
	WRITE_ONCE(a->preempt_gpa, gpa + 8);
	r[27] = kvm_hypercall(KVM_HC_PVPLE_REGISTER, gpa, PVPLE_ABI_VERSION,
			      0, 0);
	/* ABI v4: the end of a section, with no grant running. */
	r[28] = kvm_hypercall(KVM_HC_PVPLE_SLICE_DONE, 0, 0, 0, 0);
	/* An area of the version before on this host: refused, the old gone. */
	r[29] = kvm_hypercall(KVM_HC_PVPLE_REGISTER, gpa,
			      PVPLE_ABI_VERSION - 1, 0, 0);
	r[30] = kvm_hypercall(KVM_HC_PVPLE_SLICE_DONE, 0, 0, 0, 0);
	GUEST_DONE();
}

TEST_F_TIMEOUT(pvple, hostile_input, HARNESS_TIMEOUT_S)
{
	struct kvm_vcpu *other_vcpus[ABSENT_ID + 1];
	struct pvple_vcpu_thread t[2];
	struct pvple_counts c, oc;
	struct kvm_vm *vm, *other;
	u64 *r;

	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	set_params("auto", "2000");
	/* Another VM that does have a vCPU with the absent id. */
	other = vm_create_with_vcpus(ABSENT_ID + 1, guest_pause_only,
				     other_vcpus);
	vm = create_vm(2, guest_hostile, t, -1);
	pvple_run_vcpus(t, 2, TIMEOUT_S);
	sync_global_from_guest(vm, guest_res);
	r = guest_res[0];

	ASSERT_EQ(r[0], (u64)-KVM_EINVAL);	/* unaligned */
	ASSERT_EQ(r[1], (u64)-KVM_EFAULT);	/* outside every memslot */
	ASSERT_EQ(r[2], (u64)-KVM_EOPNOTSUPP);	/* unknown ABI version */
	ASSERT_EQ(r[3], (u64)-PVPLE_ENOTREG);	/* park before registering */
	ASSERT_EQ(r[4], 0);
	ASSERT_EQ(r[5], 0);			/* registering again replaces */
	ASSERT_EQ(r[6], PVPLE_PARK_IDLE);
	ASSERT_EQ(r[7], (u64)-KVM_EINVAL);	/* target out of range */
	ASSERT_EQ(r[8], (u64)-KVM_EINVAL);	/* target is self */
	ASSERT_EQ(r[9], (u64)-KVM_EINVAL);	/* target in another VM only */
	ASSERT_EQ(r[10], (u64)-KVM_EINVAL);	/* waiting on lock 0 */
	ASSERT_EQ(r[11], (u64)-KVM_EINVAL);	/* non-zero reserved */
	ASSERT_EQ(r[12], (u64)-KVM_EINVAL);	/* unknown role */
	ASSERT_EQ(r[13], 0);
	ASSERT_EQ(r[14], 0);			/* unregister twice */
	ASSERT_EQ(r[15], 0);			/* register/unregister storm */
	ASSERT_EQ(r[16], (u64)-PVPLE_ENOTREG);	/* park after unregistering */
	ASSERT_EQ(r[17], (u64)-KVM_EOPNOTSUPP);	/* v1 area: refused */
	ASSERT_EQ(r[18], PVPLE_ABI_VERSION);	/* what an old guest probes */
	ASSERT_EQ(r[19], 0);
	ASSERT_EQ(r[20], (u64)-KVM_EOPNOTSUPP);
	ASSERT_EQ(r[21], (u64)-PVPLE_ENOTREG);	/* the old area is gone */
	ASSERT_EQ(r[22], (u64)-KVM_EOPNOTSUPP);	/* v2 area: refused */
	ASSERT_EQ(r[23], (u64)-KVM_EINVAL);	/* empty slow-path range */
	ASSERT_EQ(r[24], (u64)-KVM_EINVAL);	/* inverted range */
	ASSERT_EQ(r[25], (u64)-KVM_EINVAL);	/* preempt count unaligned */
	ASSERT_EQ(r[26], (u64)-KVM_EFAULT);	/* ... outside every memslot */
	ASSERT_EQ(r[27], 0);			/* ... in the area's page */
	ASSERT_EQ(r[28], 0);			/* no grant: nothing to end */
	ASSERT_EQ(r[29], (u64)-KVM_EOPNOTSUPP);	/* v4 area: refused */
	ASSERT_EQ(r[30], (u64)-PVPLE_ENOTREG);	/* ... and none left */

	ASSERT_TRUE(pvple_vm_counts(vm, &c));
	ASSERT_EQ(c.reg_unaligned, 1);
	ASSERT_EQ(c.reg_bad_gpa, 2);
	ASSERT_EQ(c.reg_bad_version, 5);
	ASSERT_EQ(c.slice_done_idle, 1);
	ASSERT_EQ(c.slice_done, 0);
	ASSERT_EQ(c.reg_bad_fields, 3);
	ASSERT_EQ(c.reg_ok, 4 + 1000);
	ASSERT_EQ(c.reg_replaced, 1);
	ASSERT_EQ(c.rec_unregistered, 3);
	ASSERT_EQ(c.rec_idle, 1);
	ASSERT_EQ(c.rec_target_range, 1);
	ASSERT_EQ(c.rec_target_self, 1);
	ASSERT_EQ(c.rec_target_absent, 1);
	ASSERT_EQ(c.rec_torn, 0);
	ASSERT_EQ(c.rec_bad, 3);
	ASSERT_EQ(c.unreg_unknown, 1);
	ASSERT_EQ(c.hc_park, 10);
	ASSERT_EQ(c.yield_tried + c.parks, 0);
	/*
	 * The other VM never ran: nothing was done to it.  Not its
	 * schedule-ins: kvm_arch_vcpu_create() loads its vCPU, and a creating
	 * thread preempted while it is loaded counts one (seen once in a
	 * debug L1 on a loaded machine).
	 */
	ASSERT_TRUE(pvple_vm_counts(other, &oc));
	ASSERT_EQ(oc.yield_tried + oc.parks + oc.hypercalls + oc.ple_exits, 0);
	kvm_vm_free(vm);
	kvm_vm_free(other);
}

/*
 * ABI v3: a PLE exit is acted on only inside the slow path the vCPU
 * registered.  vCPU 0 registers just the PAUSE loop of guest_spin_inside()
 * (its labels; one call site, never inlined, so they are defined once),
 * and spins on the same record first outside it, then inside it; the
 * vCPU its record names (1) has left KVM_RUN, so that inside, a park
 * behind it is what auto mode does (bounded by park_max_us, 50 us here).
 * 2^17 PAUSEs a phase: a few PLE exits where the pause filter counts (its
 * window grows to 65535), one per PAUSE where every PAUSE exits (about
 * 45 us each under TCG, plus the park inside).
 */
#define RANGE_PAUSES	BIT(17)

static noinline void guest_spin_inside(u64 n)
{
	asm volatile(".globl pvple_inside_start\n"
		     "pvple_inside_start:\n"
		     "1:	pause\n"
		     "	dec %0\n"
		     "	jnz 1b\n"
		     ".globl pvple_inside_end\n"
		     "pvple_inside_end:\n"
		     : "+r" (n) : : "memory");
}

static noinline void guest_spin_outside(u64 n)
{
	u64 i;

	for (i = 0; i < n; i++)
		asm volatile("pause" ::: "memory");
}

static void guest_slowpath_range(u32 id)
{
	struct pvple_area *a = &guest_areas[id];

	GUEST_ASSERT_EQ(pvple_guest_register_text(a, guest_area_gpa[id],
						  (u64)pvple_inside_start,
						  (u64)pvple_inside_end),
			0);
	if (id) {
		GUEST_DONE();
		return;
	}
	pvple_guest_publish(a, 1, PVPLE_ROLE_PREDECESSOR);
	guest_spin_outside(RANGE_PAUSES);
	GUEST_SYNC(1);
	guest_spin_inside(RANGE_PAUSES);
	pvple_guest_clear(a);
	GUEST_DONE();
}

TEST_F_TIMEOUT(pvple, ple_outside_slow_path_gets_stock, HARNESS_TIMEOUT_S)
{
	struct pvple_vcpu_thread t[2];
	struct pvple_counts out, in;
	struct kvm_vm *vm;
	struct ucall uc;

	if (unsupported(true))
		SKIP(return, "%s", unsupported(true));
	set_params("auto", "50");
	vm = create_vm(2, guest_slowpath_range, t, -1);
	pvple_run_vcpus(&t[1], 1, TIMEOUT_S);
	vcpu_run(t[0].vcpu);
	ASSERT_EQ(get_ucall(t[0].vcpu, &uc), UCALL_SYNC);
	ASSERT_TRUE(pvple_vm_counts(vm, &out));
	vcpu_run(t[0].vcpu);
	ASSERT_EQ(get_ucall(t[0].vcpu, &uc), UCALL_DONE);
	ASSERT_TRUE(pvple_vm_counts(vm, &in));
	ksft_print_msg("outside: %lu PLE exits, %lu outside; inside: %lu, %lu parks\n",
		       out.ple_exits, out.rec_outside,
		       in.ple_exits - out.ple_exits, in.parks);

	/* Outside the range: every PLE exit stock, counted as such. */
	ASSERT_GT(out.ple_exits, 0);
	ASSERT_EQ(out.rec_outside, out.ple_exits);
	ASSERT_EQ(out.stock, out.ple_exits);
	ASSERT_EQ(out.parks + out.yield_tried + out.spin, 0);
	/* Inside it, the same record is acted on. */
	ASSERT_GT(in.ple_exits, out.ple_exits);
	ASSERT_EQ(in.rec_outside, out.rec_outside);
	ASSERT_GT(in.parks, 0);
	kvm_vm_free(vm);
}

/* The area lives in its own memslot, which the host deletes under it. */
#define AREA_SLOT	10
#define AREA_GPA	(3ULL << 30)

static void guest_area_in_slot(u32 id)
{
	struct pvple_area *a = (struct pvple_area *)AREA_GPA;
	int i;

	if (id) {
		GUEST_DONE();
		return;
	}
	GUEST_ASSERT_EQ(pvple_guest_register(a, AREA_GPA), 0);
	pvple_guest_publish(a, 1, PVPLE_ROLE_HOLDER);
	GUEST_SYNC(1);
	/* The slot is gone: the record must not be read, nor anything else. */
	guest_res[0][0] = pvple_guest_park();
	for (i = 0; i < 20; i++)
		asm volatile("pause" ::: "memory");
	GUEST_DONE();
}

TEST_F_TIMEOUT(pvple, memslot_deleted_under_area, HARNESS_TIMEOUT_S)
{
	struct pvple_vcpu_thread t[2];
	struct pvple_counts c;
	struct kvm_vm *vm;
	struct ucall uc;

	if (unsupported(false))
		SKIP(return, "%s", unsupported(false));
	set_params("auto", "2000");
	vm = create_vm(2, guest_area_in_slot, t, -1);
	vm_userspace_mem_region_add(vm, VM_MEM_SRC_ANONYMOUS, AREA_GPA,
				    AREA_SLOT, 1, 0);
	virt_map(vm, AREA_GPA, AREA_GPA, 1);

	vcpu_run(t[0].vcpu);
	ASSERT_EQ(get_ucall(t[0].vcpu, &uc), UCALL_SYNC);
	vm_mem_region_delete(vm, AREA_SLOT);
	vcpu_run(t[0].vcpu);
	ASSERT_EQ(get_ucall(t[0].vcpu, &uc), UCALL_DONE);
	sync_global_from_guest(vm, guest_res);

	ASSERT_EQ(guest_res[0][0], (u64)-KVM_EFAULT);
	ASSERT_TRUE(pvple_vm_counts(vm, &c));
	ASSERT_EQ(c.rec_fault, 1 + c.ple_exits);
	ASSERT_EQ(c.stock, 1 + c.ple_exits);
	kvm_vm_free(vm);
}

TEST_HARNESS_MAIN
