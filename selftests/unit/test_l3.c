// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of pvple_l3_apply(): the CPUID edit behind l3_cache=.  Tables
 * are shaped like the ones KVM_GET_SUPPORTED_CPUID and QEMU hand to
 * KVM_SET_CPUID2; a guest-side check computes what Linux would (cache
 * leaves enumerated up to the first null sub-leaf, LLC id = APIC id >>
 * order(sharing count)).
 */
#include <stdio.h>
#include <string.h>

#include "kselftest.h"
#include "l3.h"

#define SIG	KVM_CPUID_FLAG_SIGNIFCANT_INDEX
#define MAXE	64

struct table {
	int n;
	struct kvm_cpuid_entry2 e[MAXE];
};

static void put(struct table *t, __u32 fn, __u32 idx, __u32 flags, __u32 a,
		__u32 b, __u32 c, __u32 d)
{
	struct kvm_cpuid_entry2 *x = &t->e[t->n++];

	memset(x, 0, sizeof(*x));
	x->function = fn;
	x->index = idx;
	x->flags = flags;
	x->eax = a;
	x->ebx = b;
	x->ecx = c;
	x->edx = d;
}

/* What the table options below mean. */
#define T_AMD		0x01
#define T_VMM_L3	0x02	/* the VMM describes an L3 already */
#define T_NO_NULL	0x04	/* no null cache sub-leaf entry */
#define T_NO_0B		0x08	/* no leaf 0xb: older topology leaves */
#define T_NO_SIG	0x10	/* cache sub-leaves without the flag */
#define T_ODD_VENDOR	0x20
#define T_NO_6		0x40	/* AMD: no 0x80000006 entry */
#define T_NR_OPTS	7

/* A cache sub-leaf: type, level, sharing count. */
static __u32 cache_eax(__u32 type, __u32 level, __u32 sharing, __u32 cores)
{
	return type | level << 5 | 1 << 8 | (sharing - 1) << 14 |
	       (cores - 1) << 26;
}

/* 1 socket (or more) of 1 << @shift vCPUs, SMT off. */
static void build(struct table *t, unsigned int opts, unsigned int shift)
{
	bool amd = opts & T_AMD;
	__u32 cf = amd ? 0x8000001d : 4;
	__u32 sig = opts & T_NO_SIG ? 0 : SIG;
	__u32 cores = amd ? 1 : 1u << shift;
	__u32 nc = (1u << shift) - 1;

	t->n = 0;
	if (opts & T_ODD_VENDOR)
		put(t, 0, 0, 0, 0xd, 0x746e6543, 0x736c7561, 0x48727561);
	else if (amd)
		put(t, 0, 0, 0, 0xd, 0x68747541, 0x444d4163, 0x69746e65);
	else
		put(t, 0, 0, 0, 0xd, 0x756e6547, 0x6c65746e, 0x49656e69);
	put(t, 1, 0, 0, 0x800f12, (1u << shift) << 16, 0, 1u << 28);
	if (amd)
		put(t, 4, 0, SIG, 0, 0, 0, 0);
	if (!(opts & T_NO_0B)) {
		put(t, 0xb, 0, SIG, 0, 1, 0x100, 0);
		put(t, 0xb, 1, SIG, shift, 1u << shift, 0x201, 0);
		put(t, 0xb, 2, SIG, 0, 0, 2, 0);
	}
	put(t, 0x80000000, 0, 0, 0x8000001f, 0, 0, 0);
	put(t, 0x80000001, 0, 0, 0, 0, amd ? 1u << 22 : 0, 0);
	if (!(amd && (opts & T_NO_6)))
		put(t, 0x80000006, 0, 0, 0, 0, 0x02006140,
		    amd && (opts & T_VMM_L3) ? 0x00808140 : 0);
	put(t, 0x80000008, 0, 0, 0x3030, 0, amd ? (shift << 12 | nc) : 0, 0);
	/* L1d, L1i, L2 per core, then the VMM's L3 if any, then a null one */
	put(t, cf, 0, sig, cache_eax(1, 1, 1, cores), 0, 0, 0);
	put(t, cf, 1, sig, cache_eax(2, 1, 1, cores), 0, 0, 0);
	put(t, cf, 2, sig, cache_eax(3, 2, 1, cores), 0, 0, 0);
	if (opts & T_VMM_L3)
		put(t, cf, 3, sig, cache_eax(3, 3, 1, cores), 15 << 22 | 63,
		    16383, 0);
	if (!(opts & T_NO_NULL))
		put(t, cf, 3 + !!(opts & T_VMM_L3), sig, 0, 0, 0, 0);
}

static const struct kvm_cpuid_entry2 *get(const struct table *t, __u32 fn,
					  __u32 idx)
{
	for (int i = 0; i < t->n; i++)
		if (t->e[i].function == fn &&
		    (!(t->e[i].flags & SIG) || t->e[i].index == idx))
			return &t->e[i];
	return NULL;
}

/*
 * What a Linux guest makes of the table: the LLC's sharing count (0: no
 * L3), from the L3 it finds by enumerating sub-leaves like
 * find_num_cache_leaves(); AMD also needs 0x80000006 EDX.
 */
static unsigned int guest_l3_sharing(const struct table *t, bool amd)
{
	const struct kvm_cpuid_entry2 *x;
	unsigned int i, sharing = 0;

	for (i = 0; i < 16; i++) {
		x = get(t, amd ? 0x8000001d : 4, i);
		if (!x || !(x->eax & 0x1f))
			break;
		if (((x->eax >> 5) & 7) == 3)
			sharing = ((x->eax >> 14) & 0xfff) + 1;
	}
	if (amd) {
		x = get(t, 0x80000006, 0);
		if (!x || !x->edx)
			return 0;
	}
	return sharing;
}

static unsigned int order(unsigned int n)
{
	unsigned int s = 0;

	while ((1u << s) < n)
		s++;
	return s;
}

static bool same(const struct table *a, const struct table *b)
{
	return a->n == b->n && !memcmp(a->e, b->e, sizeof(a->e[0]) * a->n);
}

static int differing(const struct table *a, const struct table *b)
{
	int n = 0;

	for (int i = 0; i < a->n; i++)
		n += !!memcmp(&a->e[i], &b->e[i], sizeof(a->e[0]));
	return n;
}

static void test_shift(void)
{
	struct table t;
	unsigned int s, bad = 0;

	for (s = 0; s <= 6; s++) {
		build(&t, 0, s);
		bad += pvple_l3_pkg_shift(t.e, t.n) != s;
		build(&t, T_NO_0B, s);
		bad += pvple_l3_pkg_shift(t.e, t.n) != s;
		build(&t, T_AMD | T_NO_0B, s);
		bad += pvple_l3_pkg_shift(t.e, t.n) != s;
	}
	ksft_test_result(!bad,
			 "pkg_shift: from 0xb, leaf 1 (Intel), 0x80000008 (AMD), 1-64 vCPUs\n");

	/* 0x1f, when present, outranks 0xb: it can add a die level. */
	build(&t, 0, 2);
	t.e[0].eax = 0x1f;
	put(&t, 0x1f, 0, SIG, 0, 1, 0x100, 0);
	put(&t, 0x1f, 1, SIG, 2, 4, 0x201, 0);
	put(&t, 0x1f, 2, SIG, 3, 8, 0x502, 0);
	put(&t, 0x1f, 3, SIG, 0, 0, 3, 0);
	ksft_test_result(pvple_l3_pkg_shift(t.e, t.n) == 3,
			 "pkg_shift: 0x1f's last level wins over 0xb\n");

	build(&t, T_NO_0B, 0);
	t.e[1].edx = 0;
	ksft_test_result(pvple_l3_pkg_shift(t.e, t.n) == 0,
			 "pkg_shift: no topology leaf means one vCPU per socket\n");

	build(&t, 0, 2);
	t.e[get(&t, 0xb, 1) - t.e].eax = 31;
	ksft_test_result(pvple_l3_pkg_shift(t.e, t.n) == 12,
			 "pkg_shift: a hostile shift is clamped to the 12-bit sharing field\n");
}

#define OFF		PVPLE_L3_OFF
#define AUTO		PVPLE_L3_AUTO
#define ON		PVPLE_L3_ON
#define ADDED		PVPLE_L3_ADDED
#define RESHARED	PVPLE_L3_RESHARED
#define KEPT		PVPLE_L3_KEPT
#define DISABLED	PVPLE_L3_DISABLED
#define NO_VENDOR	PVPLE_L3_NO_VENDOR
#define NO_SLOT		PVPLE_L3_NO_SLOT

static void test_cases(void)
{
	static const struct {
		const char *what;
		unsigned int opts;
		enum pvple_l3_mode mode;
		enum pvple_l3_result want;
		bool l3_after;	/* guest sees an L3 shared by the socket */
	} cases[] = {
		{ "Intel, no L3, auto: added", 0, AUTO, ADDED, true },
		{ "Intel, no L3, on: added", 0, ON, ADDED, true },
		{ "Intel, no L3, off: untouched", 0, OFF, DISABLED, false },
		{ "Intel, VMM L3, auto: kept", T_VMM_L3, AUTO, KEPT, false },
		{ "Intel, VMM L3, on: reshared", T_VMM_L3, ON, RESHARED, true },
		{ "Intel, no null sub-leaf: no slot", T_NO_NULL, ON, NO_SLOT,
		  false },
		{ "Intel, sub-leaves without index flag: no slot", T_NO_SIG, ON,
		  NO_SLOT, false },
		{ "Intel, leaf 1 topology only: added", T_NO_0B, AUTO, ADDED,
		  true },
		{ "other vendor: untouched", T_ODD_VENDOR, ON, NO_VENDOR, false },
		{ "AMD, no L3, auto: added", T_AMD, AUTO, ADDED, true },
		{ "AMD, no L3, off: untouched", T_AMD, OFF, DISABLED, false },
		{ "AMD, VMM L3, auto: kept", T_AMD | T_VMM_L3, AUTO, KEPT, false },
		{ "AMD, VMM L3, on: reshared", T_AMD | T_VMM_L3, ON, RESHARED,
		  true },
		{ "AMD, no 0x80000006 entry: no usable L3", T_AMD | T_NO_6, AUTO,
		  ADDED, false },
		{ "AMD, 0x80000008 topology: added", T_AMD | T_NO_0B, ON, ADDED,
		  true },
		{ "AMD, no null sub-leaf, 0x80000006 only", T_AMD | T_NO_NULL,
		  AUTO, ADDED, false },
	};
	const unsigned int shift = 2;	/* a 4-vCPU socket */
	struct pvple_l3_undo undo;
	struct table t, orig;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		bool amd = cases[i].opts & T_AMD, ok;
		enum pvple_l3_result got;
		unsigned int sharing;

		build(&t, cases[i].opts, shift);
		orig = t;
		got = pvple_l3_apply(t.e, t.n, cases[i].mode, &undo);
		sharing = guest_l3_sharing(&t, amd);
		ok = got == cases[i].want;
		if (cases[i].l3_after)
			ok &= sharing && order(sharing) == shift;
		else if (got != PVPLE_L3_ADDED)
			ok &= same(&t, &orig);
		ok &= t.n == orig.n && differing(&t, &orig) == undo.n;
		pvple_l3_revert(t.e, &undo);
		ok &= same(&t, &orig);
		ksft_test_result(ok, "apply: %s (got %d, sharing %u)\n",
				 cases[i].what, got, sharing);
	}
}

/* What Linux derives per vCPU: vCPUs of one socket share, others not. */
static void test_llc_ids(void)
{
	struct pvple_l3_undo undo;
	unsigned int bad = 0, amd, apic, sharing;
	struct table t;

	for (amd = 0; amd <= 1; amd++) {
		/* sockets of 4 vCPUs; APIC ids 0-7 span two of them */
		build(&t, amd ? T_AMD : 0, 2);
		pvple_l3_apply(t.e, t.n, PVPLE_L3_AUTO, &undo);
		sharing = guest_l3_sharing(&t, amd);
		for (apic = 0; apic < 8; apic++)
			bad += (apic >> order(sharing)) != apic / 4;
	}
	ksft_test_result(!bad, "llc id: APIC ids 0-3 share one L3, 4-7 another (Intel, AMD)\n");

	build(&t, 0, 0);
	pvple_l3_apply(t.e, t.n, PVPLE_L3_AUTO, &undo);
	ksft_test_result(guest_l3_sharing(&t, false) == 1,
			 "llc id: a 1-vCPU socket gets an L3 of its own\n");

	build(&t, 0, 3);
	pvple_l3_apply(t.e, t.n, PVPLE_L3_AUTO, &undo);
	ksft_test_result(((get(&t, 4, 3)->eax >> 26) + 1) == 8 &&
			 ((get(&t, 4, 3)->eax >> 26) == (get(&t, 4, 0)->eax >> 26)),
			 "leaf 4: the L3 sub-leaf keeps the VMM's core count\n");
}

/* KVM_SET_CPUID2 again after KVM_RUN: KVM wants the very same table. */
static void test_repeat(void)
{
	struct pvple_l3_undo u1, u2;
	struct table a, b, stock;

	build(&a, 0, 2);
	stock = a;
	b = a;
	pvple_l3_apply(a.e, a.n, PVPLE_L3_AUTO, &u1);
	pvple_l3_apply(b.e, b.n, PVPLE_L3_AUTO, &u2);
	ksft_test_result(same(&a, &b), "repeat: the same input gives the same table\n");
	ksft_test_result(pvple_l3_matches(b.e, &u2, a.e, a.n),
			 "repeat: matches what an earlier set stored\n");
	ksft_test_result(!pvple_l3_matches(b.e, &u2, stock.e, stock.n),
			 "repeat: does not match a table stored without pvple\n");
	pvple_l3_apply(a.e, a.n, PVPLE_L3_AUTO, &u1);
	ksft_test_result(u1.n == 0, "repeat: applying to an edited table changes nothing (auto)\n");
}

/* Every table shape, mode and size: the edit's invariants. */
static void test_properties(void)
{
	unsigned int opts, mode, shift, n = 0, bad[4] = { 0 };
	struct pvple_l3_undo undo;
	struct table t, orig;

	for (opts = 0; opts < (1u << T_NR_OPTS); opts++)
		for (mode = 0; mode <= PVPLE_NR_L3_MODES; mode++)
			for (shift = 0; shift <= 7; shift++) {
				enum pvple_l3_result r;
				bool amd = opts & T_AMD;

				build(&t, opts, shift);
				orig = t;
				r = pvple_l3_apply(t.e, t.n, mode, &undo);
				n++;
				/* only cache leaves and 0x80000006 change */
				for (int i = 0; i < undo.n; i++) {
					__u32 fn = t.e[undo.idx[i]].function;

					bad[0] += fn != 4 && fn != 0x8000001d &&
						  fn != 0x80000006;
				}
				bad[0] += differing(&t, &orig) > undo.n ||
					  t.n != orig.n;
				/* left alone means left alone */
				if (r != PVPLE_L3_ADDED && r != PVPLE_L3_RESHARED)
					bad[1] += !same(&t, &orig);
				/* any L3 the guest sees is the socket's */
				if ((r == PVPLE_L3_ADDED || r == PVPLE_L3_RESHARED) &&
				    guest_l3_sharing(&t, amd))
					bad[2] += order(guest_l3_sharing(&t, amd)) !=
						  pvple_l3_pkg_shift(orig.e, orig.n);
				pvple_l3_revert(t.e, &undo);
				bad[3] += !same(&t, &orig);
			}
	ksft_test_result(!bad[0], "property: edits only cache leaves, in place (%u tables)\n", n);
	ksft_test_result(!bad[1],
			 "property: off, kept, no vendor, no slot leave the table alone\n");
	ksft_test_result(!bad[2], "property: the L3's sharing count is the socket's\n");
	ksft_test_result(!bad[3], "property: revert restores the VMM's table exactly\n");
}

int main(void)
{
	ksft_print_header();
	ksft_set_plan(4 + 16 + 3 + 4 + 4);
	test_shift();
	test_cases();
	test_llc_ids();
	test_repeat();
	test_properties();
	ksft_finished();
}
