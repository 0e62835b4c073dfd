// SPDX-License-Identifier: GPL-2.0
/*
 * A hostile guest against kvm-pvple: four vCPUs issue random and boundary
 * pvple hypercalls, scribble random records (torn, malformed, naming any
 * id), spin on PAUSE and ask to park, while the VMM deletes and re-adds a
 * memslot that registrations point into and the module is reloaded once.
 *
 * The guest checks every return value against the documented set
 * (Documentation/abi.rst); the host checks that no park outlived
 * park_max_us by more than scheduling slack.  Any WARN, BUG or splat in
 * the host kernel fails the boot that runs this (scripts/testhost/
 * classify.sh).  PVPLE_FUZZ_OPS (default 1000000) is the number of
 * hypercalls plus records to reach; PVPLE_FUZZ_SECS caps the time.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "kvm_util.h"
#include "processor.h"
#include "pvple_guest.h"
#include "pvple_util.h"

#define NR_VCPUS	4
#define FLAP_SLOT	11
#define FLAP_GPA	(3ULL << 30)
#define PARK_MAX_US	2000
/* Scheduling slack for the emulated test host; a lost park is 100x this. */
#define PARK_SLACK_US	250000

static struct pvple_area guest_areas[NR_VCPUS] __aligned(PVPLE_AREA_ALIGN);
static u64 guest_area_gpa[NR_VCPUS];
static u64 guest_stop, guest_ops[NR_VCPUS], guest_bad[NR_VCPUS];
static u64 guest_first_bad[NR_VCPUS][2];

static u64 next(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The features' answers (0, PVPLE_F_SLICE) are among the park's below. */
static_assert(PVPLE_F_SLICE <= PVPLE_PARK_IDLE);

/* Every answer the ABI documents, for any call in pvple's range. */
static bool documented(long ret)
{
	if (ret == PVPLE_ABI_VERSION)		/* the probe */
		return true;
	switch (ret) {
	case PVPLE_PARK_RAN ... PVPLE_PARK_IDLE:	/* and the features */
	case -KVM_ENOSYS:
	case -KVM_EFAULT:
	case -KVM_EINVAL:
	case -KVM_EOPNOTSUPP:
	case -KVM_EPERM:
	case -PVPLE_ENOTREG:
		return true;
	default:
		return false;
	}
}

/* A number near pvple's range, a boundary, or one of its calls. */
static u64 pick_nr(u64 r)
{
	static const u64 special[] = {
		KVM_HC_PVPLE_PROBE, KVM_HC_PVPLE_REGISTER,
		KVM_HC_PVPLE_UNREGISTER, KVM_HC_PVPLE_PARK,
		KVM_HC_PVPLE_SLICE_DONE, KVM_HC_PVPLE_FEATURES,
		KVM_HC_PVPLE_END - 1, KVM_HC_PVPLE_FEATURES + 1,
		KVM_HC_PVPLE_PARK | (1ULL << 32),
	};

	if (r & 1)
		return special[(r >> 1) % ARRAY_SIZE(special)];
	return KVM_HC_PVPLE_BASE + (r >> 1) % (KVM_HC_PVPLE_END -
					       KVM_HC_PVPLE_BASE);
}

static u64 pick_u32(u64 r)
{
	static const u64 edge[] = { 0, 1, 2, 3, NR_VCPUS, 0x7fffffff,
				    0x80000000, 0xfffffffe, 0xffffffff };

	return r & 1 ? edge[(r >> 1) % ARRAY_SIZE(edge)] : (u32)(r >> 1);
}

static void note(u32 id, u64 nr, long ret)
{
	if (documented(ret))
		return;
	if (!guest_bad[id]) {
		guest_first_bad[id][0] = nr;
		guest_first_bad[id][1] = ret;
	}
	guest_bad[id]++;
}

static void guest_fuzz(u32 id)
{
	struct pvple_area *a = &guest_areas[id];
	u64 s = 0x9e3779b97f4a7c15ULL * (id + 1), r, nr, gpa;
	long ret;
	int i;

	while (!READ_ONCE(guest_stop)) {
		r = next(&s);
		switch (r % 8) {
		case 0:		/* any call, any arguments */
			nr = pick_nr(next(&s));
			ret = kvm_hypercall(nr, next(&s), pick_u32(next(&s)),
					    next(&s), next(&s));
			note(id, nr, ret);
			break;
		case 1:		/* register: own area, the flapping slot, junk */
			gpa = (r >> 3) % 4 == 0 ? FLAP_GPA + 64 * id :
			      (r >> 3) % 4 == 1 ? next(&s) :
			      guest_area_gpa[id];
			/* Own area: mostly a good range, now and then junk. */
			a->text_start = (r >> 9) % 8 ? (u64)__executable_start :
					next(&s);
			a->text_end = (r >> 12) % 8 ? (u64)etext : next(&s);
			a->preempt_gpa = (r >> 15) % 4 ? 0 :
					 (r >> 17) % 2 ? guest_area_gpa[id] + 8 :
					 next(&s);
			ret = kvm_hypercall(KVM_HC_PVPLE_REGISTER, gpa,
					    (r >> 5) % 8 ? PVPLE_ABI_VERSION :
					    pick_u32(next(&s)), 0, 0);
			note(id, KVM_HC_PVPLE_REGISTER, ret);
			break;
		case 2:		/* a random record */
			a->wait = PVPLE_WAIT(next(&s) % 3, next(&s) % 4,
					     pick_u32(next(&s)) %
					     ((r >> 3) % 2 ? NR_VCPUS + 2 : ~0u),
					     next(&s));
			a->reserved[(r >> 8) % PVPLE_AREA_RESERVED] =
				(r >> 5) % 16 ? 0 : next(&s);
			a->lock = (r >> 4) % 16 ? next(&s) : 0;
			break;
		case 3:		/* a well-formed wait on another vCPU */
			for (i = 0; i < PVPLE_AREA_RESERVED; i++)
				a->reserved[i] = 0;
			pvple_guest_publish_on(a, (id + 1 + (r >> 3) % 3) %
					       NR_VCPUS, (r >> 5) % 3,
					       (r >> 7) % 2 ? PVPLE_TEST_LOCK :
					       PVPLE_TEST_LOCK + 64);
			break;
		case 4:
		case 5:		/* ask to park */
			note(id, KVM_HC_PVPLE_PARK, pvple_guest_park());
			break;
		case 6:		/* spin: PLE exits where PAUSE exits */
			for (i = 0; i < 4; i++)
				asm volatile("pause" ::: "memory");
			break;
		default:
			note(id, KVM_HC_PVPLE_UNREGISTER,
			     kvm_hypercall(KVM_HC_PVPLE_UNREGISTER, 0, 0, 0, 0));
			break;
		}
		WRITE_ONCE(guest_ops[id], guest_ops[id] + 1);
	}
	GUEST_DONE();
}

/*
 * The flapping slot, with registration fields (ABI v3) the host accepts in
 * each vCPU's 64 bytes of it, so that registering there can succeed.
 */
static void flap_add(struct kvm_vm *vm)
{
	struct pvple_area *fa;
	int i;

	vm_userspace_mem_region_add(vm, VM_MEM_SRC_ANONYMOUS, FLAP_GPA,
				    FLAP_SLOT, 1, 0);
	for (i = 0; i < NR_VCPUS; i++) {
		fa = addr_gpa2hva(vm, FLAP_GPA + PVPLE_AREA_ALIGN * i);
		fa->text_start = (u64)__executable_start;
		fa->text_end = (u64)etext;
	}
}

FIXTURE(fuzz) {};
FIXTURE_SETUP(fuzz) {}
FIXTURE_TEARDOWN(fuzz) {}

static u64 ops_done(struct kvm_vm *vm)
{
	u64 n = 0;
	int i;

	for (i = 0; i < NR_VCPUS; i++)
		n += READ_ONCE(*(u64 *)addr_gva2hva(vm, (vm_vaddr_t)&guest_ops[i]));
	return n;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void reload(struct __test_metadata *_metadata, const char *ko)
{
	char params[64];
	int fd;

	ASSERT_EQ(syscall(__NR_delete_module, "kvm_pvple", O_NONBLOCK), 0);
	fd = open(ko, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	snprintf(params, sizeof(params), "park_max_us=%d", PARK_MAX_US);
	ASSERT_EQ(syscall(__NR_finit_module, fd, params, 0), 0);
	close(fd);
}

TEST_F_TIMEOUT(fuzz, hostile_guest, 900)
{
	const char *ko = getenv("PVPLE_KO");
	u64 want = getenv("PVPLE_FUZZ_OPS") ?
		   strtoull(getenv("PVPLE_FUZZ_OPS"), NULL, 0) : 1000000;
	double secs = getenv("PVPLE_FUZZ_SECS") ?
		      atof(getenv("PVPLE_FUZZ_SECS")) : 600;
	struct pvple_event *ev = calloc(65536, sizeof(*ev));
	struct kvm_vcpu *vcpus[NR_VCPUS];
	struct pvple_vcpu_thread t[NR_VCPUS];
	u64 ops, flaps = 0, max_ns = 0, bad = 0;
	bool reloaded = false, present = true;
	char buf[16];
	double t0;
	struct kvm_vm *vm;
	int i, n, parks = 0;

	if (!pvple_module_loaded())
		SKIP(return, "kvm-pvple is not loaded");
	if (!ko)
		SKIP(return, "PVPLE_KO (path of kvm-pvple.ko to reload) is not set");
	pvple_param_set("mode", "auto");
	snprintf(buf, sizeof(buf), "%d", PARK_MAX_US);
	pvple_param_set("park_max_us", buf);

	vm = vm_create_with_vcpus(NR_VCPUS, guest_fuzz, vcpus);
	for (i = 0; i < NR_VCPUS; i++) {
		vcpu_args_set(vcpus[i], 1, i);
		t[i] = (struct pvple_vcpu_thread){ .vcpu = vcpus[i], .cpu = -1 };
		guest_area_gpa[i] = addr_gva2gpa(vm, (vm_vaddr_t)&guest_areas[i]);
	}
	sync_global_to_guest(vm, guest_area_gpa);
	/* Never touched by the guest: only named in registrations. */
	flap_add(vm);

	pvple_start_vcpus(t, NR_VCPUS);
	t0 = now_s();
	while ((ops = ops_done(vm)) < want && now_s() - t0 < secs) {
		usleep(20000);
		if (present)
			vm_mem_region_delete(vm, FLAP_SLOT);
		else
			flap_add(vm);
		present = !present;
		flaps++;
		if (!reloaded && ops >= want / 2) {
			reload(_metadata, ko);
			reloaded = true;
			/* The parks of the reloaded module are traced. */
			pvple_trace_begin();
		}
	}
	*(u64 *)addr_gva2hva(vm, (vm_vaddr_t)&guest_stop) = 1;
	pvple_wait_vcpus(t, NR_VCPUS, 120);
	n = reloaded ? pvple_trace_end(ev, 65536) : 0;
	sync_global_from_guest(vm, guest_bad);
	sync_global_from_guest(vm, guest_first_bad);

	for (i = 0; i < n; i++) {
		if (ev[i].type != PVPLE_EV_WAKE)
			continue;
		parks++;
		max_ns = ev[i].parked_ns > max_ns ? ev[i].parked_ns : max_ns;
	}
	for (i = 0; i < NR_VCPUS; i++) {
		if (guest_bad[i])
			ksft_print_msg("vCPU %d: %lu undocumented answers, %s 0x%lx -> %ld\n",
				       i, guest_bad[i], "first: nr",
				       guest_first_bad[i][0],
				       (long)guest_first_bad[i][1]);
		bad += guest_bad[i];
	}
	ksft_print_msg("%lu hypercalls and records in %.0f s, %lu memslot flaps, reloaded %d\n",
		       ops, now_s() - t0, flaps, reloaded);
	ksft_print_msg("%d parks traced after the reload, the longest %lu us\n",
		       parks, max_ns / 1000);
	ASSERT_GE(ops, want) TH_LOG("only %lu of %lu in %.0f s", ops, want, secs);
	ASSERT_TRUE(reloaded);
	ASSERT_EQ(bad, 0);
	ASSERT_LE(max_ns, (PARK_MAX_US + PARK_SLACK_US) * 1000ULL);
	pvple_param_set("park_max_us", "2000");
	kvm_vm_free(vm);
	free(ev);
}

TEST_HARNESS_MAIN
