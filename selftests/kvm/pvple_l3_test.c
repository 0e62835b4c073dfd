// SPDX-License-Identifier: GPL-2.0
/*
 * l3_cache=: what a guest reads from its cache leaves.  A 1-socket VM of
 * NR_VCPUS vCPUs gets a CPUID table shaped like QEMU's (topology in 0xb and
 * 0x80000008, L1/L2 sub-leaves, a null sub-leaf, and with or without an L3
 * of its own), for an Intel and an AMD vendor string.  Guest code on every
 * vCPU enumerates the cache sub-leaves as Linux does and derives its LLC
 * id; the host asserts the L3 sub-leaf, its sharing count and that every
 * vCPU of the socket lands in one LLC, for off, auto and on.
 *
 * Then KVM's contract with VMMs: the same KVM_SET_CPUID2 after KVM_RUN is
 * still accepted, a VM created before the module loaded is left alone, and
 * unloading the module leaves running guests their CPUID.
 */
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "kvm_util.h"
#include "processor.h"
#include "ucall_common.h"
#include "pvple_util.h"

#define NR_VCPUS	4	/* one socket: APIC ids 0-3, package shift 2 */
#define PKG_SHIFT	2
#define HARNESS_TIMEOUT_S	300

FIXTURE(pvple) {};
FIXTURE_SETUP(pvple) {}
FIXTURE_TEARDOWN(pvple) {}

enum vendor { INTEL, AMD };

/* What guest code found, per vCPU. */
struct l3_seen {
	u32 apic;	/* x2APIC id from 0xb */
	u32 leaves;	/* cache sub-leaves up to the first null one */
	u32 sharing;	/* L3 sharing count; 0: the guest has no L3 */
	u32 llc;	/* apic >> order(sharing) */
	u32 l3_kb;	/* size from the L3 sub-leaf */
};

static bool guest_amd;
static struct l3_seen guest_seen[NR_VCPUS];

static u32 order(u32 n)
{
	u32 s = 0;

	while ((1u << s) < n)
		s++;
	return s;
}

/* As arch/x86/kernel/cpu/cacheinfo.c: find_num_cache_leaves(), llc id. */
static void guest_code(u32 id)
{
	u32 leaf = guest_amd ? 0x8000001d : 4, i, a, b, c, d;
	struct l3_seen *s = &guest_seen[id];

again:
	__cpuid(0xb, 0, &a, &b, &c, &d);
	s->apic = d;
	s->leaves = 0;
	s->sharing = 0;
	for (i = 0; i < 16; i++) {
		__cpuid(leaf, i, &a, &b, &c, &d);
		if (!(a & 0x1f))
			break;
		s->leaves++;
		if (((a >> 5) & 7) == 3) {
			s->sharing = ((a >> 14) & 0xfff) + 1;
			s->l3_kb = (((b >> 22) & 0x3ff) + 1) *
				   (((b >> 12) & 0x3ff) + 1) *
				   ((b & 0xfff) + 1) * (c + 1) / 1024;
		}
	}
	/* Linux's AMD path ignores the L3 while 0x80000006 EDX is zero. */
	if (guest_amd) {
		__cpuid(0x80000006, 0, &a, &b, &c, &d);
		if (!d)
			s->sharing = 0;
	}
	s->llc = s->sharing ? s->apic >> order(s->sharing) : s->apic;
	GUEST_SYNC(0);
	goto again;
}

static void put(struct kvm_cpuid2 *t, u32 fn, u32 idx, u32 flags, u32 a,
		u32 b, u32 c, u32 d)
{
	struct kvm_cpuid_entry2 *e = &t->entries[t->nent++];

	*e = (struct kvm_cpuid_entry2){ .function = fn, .index = idx,
		.flags = flags, .eax = a, .ebx = b, .ecx = c, .edx = d };
}

static u32 cache_eax(u32 type, u32 level, u32 sharing, bool amd)
{
	return type | level << 5 | 1 << 8 | (sharing - 1) << 14 |
	       (amd ? 0 : (NR_VCPUS - 1) << 26);
}

/*
 * The table a VMM like QEMU gives vCPU @apic: KVM's supported CPUID with
 * the vendor, topology and cache leaves rewritten.  @vmm_l3: the VMM
 * describes an L3 of its own, shared by no one (like a per-core pass-through).
 */
static struct kvm_cpuid2 *vmm_table(enum vendor v, u32 apic, bool vmm_l3)
{
	const struct kvm_cpuid2 *sup = kvm_get_supported_cpuid();
	struct kvm_cpuid2 *t = allocate_kvm_cpuid2(sup->nent + 16);
	u32 cf = v == AMD ? 0x8000001d : 4, sig = KVM_CPUID_FLAG_SIGNIFCANT_INDEX;
	bool amd = v == AMD, have6 = false;
	int i;

	t->nent = 0;
	for (i = 0; i < sup->nent; i++) {
		struct kvm_cpuid_entry2 e = sup->entries[i];

		switch (e.function) {
		case 4: case 0xb: case 0x1f: case 0x8000001d:
			continue;	/* written below */
		case 0:
			e.eax = e.eax < 0xb ? 0xb : e.eax;
			e.ebx = amd ? 0x68747541 : 0x756e6547;
			e.edx = amd ? 0x69746e65 : 0x49656e69;
			e.ecx = amd ? 0x444d4163 : 0x6c65746e;
			break;
		case 1:
			e.ebx = (e.ebx & 0xffff) | NR_VCPUS << 16 | apic << 24;
			e.edx |= 1u << 28;	/* HTT: EBX[23:16] is valid */
			break;
		case 0x80000000:
			e.eax = e.eax < 0x8000001d ? 0x8000001d : e.eax;
			break;
		case 0x80000001:
			if (amd)
				e.ecx |= 1u << 22;	/* TOPOEXT */
			break;
		case 0x80000006:
			have6 = true;
			e.edx = amd && vmm_l3 ? 0x00808140 : 0;
			break;
		case 0x80000008:
			e.ecx = amd ? PKG_SHIFT << 12 | (NR_VCPUS - 1) : 0;
			break;
		}
		t->entries[t->nent++] = e;
	}
	if (!have6)
		put(t, 0x80000006, 0, 0, 0, 0, 0x02006140,
		    amd && vmm_l3 ? 0x00808140 : 0);
	put(t, 0xb, 0, sig, 0, 1, 0x100, apic);
	put(t, 0xb, 1, sig, PKG_SHIFT, NR_VCPUS, 0x201, apic);
	put(t, 0xb, 2, sig, 0, 0, 2, apic);
	put(t, cf, 0, sig, cache_eax(1, 1, 1, amd), 7 << 22 | 63, 63, 0);
	put(t, cf, 1, sig, cache_eax(2, 1, 1, amd), 7 << 22 | 63, 63, 0);
	put(t, cf, 2, sig, cache_eax(3, 2, 1, amd), 7 << 22 | 63, 1023, 0);
	if (vmm_l3)	/* 8 MiB, 16-way: not pvple's 16 MiB */
		put(t, cf, 3, sig, cache_eax(3, 3, 1, amd), 15 << 22 | 63,
		    8191, 0);
	/* KVM and QEMU end the sub-leaves with a null one. */
	put(t, cf, 3 + vmm_l3, sig, 0, 0, 0, 0);
	return t;
}

static struct kvm_vm *create_vm(struct kvm_vcpu **vcpus, enum vendor v)
{
	struct kvm_vm *vm = vm_create_with_vcpus(NR_VCPUS, guest_code, vcpus);
	int i;

	guest_amd = v == AMD;
	sync_global_to_guest(vm, guest_amd);
	for (i = 0; i < NR_VCPUS; i++)
		vcpu_args_set(vcpus[i], 1, i);
	return vm;
}

static int set_table(struct kvm_vcpu *vcpu, enum vendor v, bool vmm_l3)
{
	struct kvm_cpuid2 *t = vmm_table(v, vcpu->id, vmm_l3);
	int r = __vcpu_ioctl(vcpu, KVM_SET_CPUID2, t);

	free(t);
	return r;
}

/* The VMM's table on vCPUs @from..NR_VCPUS-1: 0, or the first failure. */
static int set_tables(struct kvm_vcpu **vcpus, int from, enum vendor v,
		      bool vmm_l3)
{
	int i, r = 0;

	for (i = from; i < NR_VCPUS && !r; i++)
		r = set_table(vcpus[i], v, vmm_l3);
	return r;
}

static void run_all(struct kvm_vm *vm, struct kvm_vcpu **vcpus)
{
	struct ucall uc;
	int i;

	for (i = 0; i < NR_VCPUS; i++) {
		vcpu_run(vcpus[i]);
		TEST_ASSERT(get_ucall(vcpus[i], &uc) == UCALL_SYNC,
			    "vCPU %d: exit %d", i, vcpus[i]->run->exit_reason);
	}
	sync_global_from_guest(vm, guest_seen);
}

/* Every vCPU sees @sharing (0: no L3); a socket-wide L3 is one LLC. */
static bool seen_ok(u32 sharing, u32 kb)
{
	bool ok = true;
	int i;

	for (i = 0; i < NR_VCPUS; i++) {
		struct l3_seen *s = &guest_seen[i];

		ksft_print_msg("vCPU %d: apic %u leaves %u sharing %u llc %u L3 %u KiB\n",
			       i, s->apic, s->leaves, s->sharing, s->llc,
			       s->l3_kb);
		ok &= s->apic == (u32)i && s->sharing == sharing &&
		      s->leaves == 3 + !!sharing;
		if (sharing)
			ok &= s->l3_kb == kb;
		if (sharing == NR_VCPUS)
			ok &= s->llc == guest_seen[0].llc;
		else
			ok &= !i || s->llc != guest_seen[0].llc;
	}
	return ok;
}

static const char *why_skip(void)
{
	if (!pvple_module_loaded())
		return "kvm-pvple is not loaded";
	if (!getenv("PVPLE_KO"))
		return "PVPLE_KO (path of kvm-pvple.ko to reload) is not set";
	return NULL;
}

/* Load the module with @l3 (NULL: unloaded). */
static void module_l3(const char *l3)
{
	char params[32];

	pvple_module_set(getenv("PVPLE_KO"), false, "");
	if (!l3)
		return;
	snprintf(params, sizeof(params), "l3_cache=%s", l3);
	pvple_module_set(getenv("PVPLE_KO"), true, params);
}

static void check_mode(struct __test_metadata *_metadata, enum vendor v,
		       const char *mode, bool vmm_l3, u32 want_sharing,
		       u32 want_kb)
{
	struct kvm_vcpu *vcpus[NR_VCPUS];
	struct pvple_counts before, after;
	u64 got;
	struct kvm_vm *vm;

	pvple_param_set("l3_cache", mode);
	vm = create_vm(vcpus, v);
	ASSERT_TRUE(pvple_vm_counts(vm, &before));
	ASSERT_EQ(set_tables(vcpus, 0, v, vmm_l3), 0);
	ASSERT_TRUE(pvple_vm_counts(vm, &after));
	run_all(vm, vcpus);
	ksft_print_msg("%s l3_cache=%s, VMM L3 %s: added %lu reshared %lu kept %lu off %lu\n",
		       v == AMD ? "AMD" : "Intel", mode, vmm_l3 ? "yes" : "no",
		       after.l3_added - before.l3_added,
		       after.l3_reshared - before.l3_reshared,
		       after.l3_kept - before.l3_kept,
		       after.l3_off - before.l3_off);
	EXPECT_TRUE(seen_ok(want_sharing, want_kb));

	/* One outcome per KVM_SET_CPUID2, the one the mode promises. */
	if (!strcmp(mode, "off"))
		got = after.l3_off - before.l3_off;
	else if (!vmm_l3)
		got = after.l3_added - before.l3_added;
	else if (!strcmp(mode, "auto"))
		got = after.l3_kept - before.l3_kept;
	else
		got = after.l3_reshared - before.l3_reshared;
	EXPECT_EQ(got, NR_VCPUS);
	kvm_vm_free(vm);
	pvple_param_set("l3_cache", "auto");
}

/* One VM per variant; sharing NR_VCPUS is the socket, 1 the VMM's own L3. */
FIXTURE(l3) {};
FIXTURE_VARIANT(l3) {
	enum vendor v;
	const char *mode;
	bool vmm_l3;
	u32 sharing;
	u32 kb;
};

FIXTURE_SETUP(l3) {}
FIXTURE_TEARDOWN(l3) {}

FIXTURE_VARIANT_ADD(l3, intel_off) { INTEL, "off", false, 0, 0 };
FIXTURE_VARIANT_ADD(l3, intel_auto) { INTEL, "auto", false, NR_VCPUS, 16384 };
FIXTURE_VARIANT_ADD(l3, intel_on) { INTEL, "on", false, NR_VCPUS, 16384 };
FIXTURE_VARIANT_ADD(l3, intel_auto_vmm_l3) { INTEL, "auto", true, 1, 8192 };
FIXTURE_VARIANT_ADD(l3, intel_on_vmm_l3) { INTEL, "on", true, NR_VCPUS, 8192 };
FIXTURE_VARIANT_ADD(l3, amd_off) { AMD, "off", false, 0, 0 };
FIXTURE_VARIANT_ADD(l3, amd_auto) { AMD, "auto", false, NR_VCPUS, 16384 };
FIXTURE_VARIANT_ADD(l3, amd_on) { AMD, "on", false, NR_VCPUS, 16384 };
FIXTURE_VARIANT_ADD(l3, amd_auto_vmm_l3) { AMD, "auto", true, 1, 8192 };
FIXTURE_VARIANT_ADD(l3, amd_on_vmm_l3) { AMD, "on", true, NR_VCPUS, 8192 };

TEST_F_TIMEOUT(l3, guest_sees, HARNESS_TIMEOUT_S)
{
	if (!pvple_module_loaded())
		SKIP(return, "kvm-pvple is not loaded");
	check_mode(_metadata, variant->v, variant->mode, variant->vmm_l3,
		   variant->sharing, variant->kb);
}

/* A VM keeps the l3_cache= of its creation, for every vCPU. */
TEST_F_TIMEOUT(pvple, mode_latched_at_creation, HARNESS_TIMEOUT_S)
{
	struct kvm_vcpu *vcpus[NR_VCPUS];
	struct kvm_vm *vm;

	if (!pvple_module_loaded())
		SKIP(return, "kvm-pvple is not loaded");
	pvple_param_set("l3_cache", "auto");
	vm = create_vm(vcpus, INTEL);
	pvple_param_set("l3_cache", "off");
	ASSERT_EQ(set_tables(vcpus, 0, INTEL, false), 0);
	pvple_param_set("l3_cache", "auto");
	run_all(vm, vcpus);
	EXPECT_TRUE(seen_ok(NR_VCPUS, 16384));
	kvm_vm_free(vm);
}

/*
 * QEMU re-issues KVM_SET_CPUID2 on a vCPU it re-plugs; after KVM_RUN, KVM
 * accepts only the table it holds.  The VMM's own table must still pass,
 * and a table that differs must fail as it does without pvple.
 */
TEST_F_TIMEOUT(pvple, same_table_after_run, HARNESS_TIMEOUT_S)
{
	struct kvm_vcpu *vcpus[NR_VCPUS];
	struct pvple_counts c;
	struct kvm_cpuid2 *t;
	struct kvm_vm *vm;
	int i;

	if (!pvple_module_loaded())
		SKIP(return, "kvm-pvple is not loaded");
	pvple_param_set("l3_cache", "auto");
	vm = create_vm(vcpus, AMD);
	ASSERT_EQ(set_tables(vcpus, 0, AMD, false), 0);
	run_all(vm, vcpus);
	ASSERT_TRUE(seen_ok(NR_VCPUS, 16384));

	EXPECT_EQ(set_tables(vcpus, 0, AMD, false), 0);

	/* A different topology: KVM refuses it, as it would without us. */
	t = vmm_table(AMD, 0, false);
	for (i = 0; i < t->nent; i++)
		if (t->entries[i].function == 0xb && t->entries[i].index == 1)
			t->entries[i].eax = PKG_SHIFT + 1;
	EXPECT_EQ(__vcpu_ioctl(vcpus[0], KVM_SET_CPUID2, t), -1);
	EXPECT_EQ(errno, EINVAL);
	free(t);
	ASSERT_TRUE(pvple_vm_counts(vm, &c));
	EXPECT_EQ(c.l3_unmatched, 1);

	run_all(vm, vcpus);
	EXPECT_TRUE(seen_ok(NR_VCPUS, 16384));
	kvm_vm_free(vm);
}

/*
 * A VM created before the module loaded keeps the CPUID its VMM gives it,
 * also for vCPUs whose CPUID is set after the load, and still accepts its
 * own table again after KVM_RUN.
 */
TEST_F_TIMEOUT(pvple, vm_older_than_module, HARNESS_TIMEOUT_S)
{
	struct kvm_vcpu *vcpus[NR_VCPUS];
	struct pvple_counts c;
	struct kvm_vm *vm;

	if (why_skip())
		SKIP(return, "%s", why_skip());
	module_l3(NULL);
	vm = create_vm(vcpus, INTEL);
	ASSERT_EQ(set_table(vcpus[0], INTEL, false), 0);
	module_l3("on");
	ASSERT_EQ(set_tables(vcpus, 1, INTEL, false), 0);
	run_all(vm, vcpus);
	EXPECT_TRUE(seen_ok(0, 0));
	EXPECT_EQ(set_tables(vcpus, 0, INTEL, false), 0);
	/* Untracked until it registers a pvple area: nothing counted for it. */
	EXPECT_FALSE(pvple_vm_counts(vm, &c));
	kvm_vm_free(vm);
	module_l3("auto");
}

/*
 * rmmod leaves running guests the CPUID they booted with.  Afterwards KVM
 * alone judges a repeated KVM_SET_CPUID2: the table KVM holds (as
 * KVM_GET_CPUID2 returns it) passes, the VMM's own table does not -- the
 * documented limit of unloading (Documentation/admin-guide.rst) -- and
 * loading the module again with the same l3_cache= makes it pass again.
 */
TEST_F_TIMEOUT(pvple, unload_keeps_cpuid, HARNESS_TIMEOUT_S)
{
	struct kvm_vcpu *vcpus[NR_VCPUS];
	struct kvm_cpuid2 *held;
	struct kvm_vm *vm;

	if (why_skip())
		SKIP(return, "%s", why_skip());
	module_l3("auto");
	vm = create_vm(vcpus, AMD);
	ASSERT_EQ(set_tables(vcpus, 0, AMD, false), 0);
	run_all(vm, vcpus);
	ASSERT_TRUE(seen_ok(NR_VCPUS, 16384));

	module_l3(NULL);
	run_all(vm, vcpus);
	EXPECT_TRUE(seen_ok(NR_VCPUS, 16384));

	held = allocate_kvm_cpuid2(256);
	vcpu_ioctl(vcpus[1], KVM_GET_CPUID2, held);
	EXPECT_EQ(__vcpu_ioctl(vcpus[1], KVM_SET_CPUID2, held), 0);
	free(held);
	EXPECT_EQ(set_table(vcpus[1], AMD, false), -1);
	EXPECT_EQ(errno, EINVAL);

	module_l3("auto");
	EXPECT_EQ(set_tables(vcpus, 0, AMD, false), 0);
	run_all(vm, vcpus);
	EXPECT_TRUE(seen_ok(NR_VCPUS, 16384));
	kvm_vm_free(vm);
}

TEST_HARNESS_MAIN
