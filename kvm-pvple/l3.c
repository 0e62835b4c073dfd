// SPDX-License-Identifier: GPL-2.0
/*
 * Describe an L3 shared by a virtual socket in a VMM's CPUID table.
 *
 * The socket is what the VMM's own topology leaves say it is (0x1f or 0xb,
 * else AMD's 0x80000008, else leaf 1), so the L3's sharing count always
 * agrees with the APIC-ID layout the guest derives its packages from: a
 * Linux guest computes the LLC id as apicid >> order(sharing count).
 *
 * Only entries the VMM supplied are edited, in place: the first null cache
 * sub-leaf (KVM and QEMU both end the sub-leaf list with one) and AMD's
 * 0x80000006.  The table keeps its size, so an undo is a copy of at most
 * two entries.
 */
#include "l3.h"

#define L3_INTEL	1
#define L3_AMD		2

/* Cache sub-leaf layout, shared by leaf 4 and AMD's 0x8000001d. */
#define CACHE_TYPE(eax)		((eax) & 0x1f)
#define CACHE_LEVEL(eax)	(((eax) >> 5) & 0x7)
#define CACHE_SELF_INIT		0x100u
#define CACHE_SHARING_SHIFT	14
#define CACHE_SHARING_MASK	(0xfffu << CACHE_SHARING_SHIFT)
#define CACHE_CORES_MASK	(0x3fu << 26)	/* leaf 4 only; 0 on AMD */
#define CACHE_UNIFIED		3

/* A sharing count fits 12 bits: at most 1 << 12 APIC ids. */
#define L3_MAX_SHIFT		12

static int l3_find(const struct kvm_cpuid_entry2 *e, int nent, __u32 fn,
		   __u32 idx)
{
	int i;

	/* The same lookup KVM does when the guest executes CPUID. */
	for (i = 0; i < nent; i++)
		if (e[i].function == fn &&
		    (!(e[i].flags & KVM_CPUID_FLAG_SIGNIFCANT_INDEX) ||
		     e[i].index == idx))
			return i;
	return -1;
}

static __u32 l3_max_leaf(const struct kvm_cpuid_entry2 *e, int nent, __u32 fn)
{
	int k = l3_find(e, nent, fn, 0);

	return k < 0 ? 0 : e[k].eax;
}

static int l3_vendor(const struct kvm_cpuid_entry2 *e, int nent)
{
	int k = l3_find(e, nent, 0, 0);

	if (k < 0)
		return 0;
	/* "GenuineIntel" */
	if (e[k].ebx == 0x756e6547 && e[k].edx == 0x49656e69 &&
	    e[k].ecx == 0x6c65746e)
		return L3_INTEL;
	/* "AuthenticAMD" and "HygonGenuine": the same cache leaves */
	if ((e[k].ebx == 0x68747541 && e[k].edx == 0x69746e65 &&
	     e[k].ecx == 0x444d4163) ||
	    (e[k].ebx == 0x6f677948 && e[k].edx == 0x6e65476e &&
	     e[k].ecx == 0x656e6975))
		return L3_AMD;
	return 0;
}

static unsigned int l3_order(unsigned int n)
{
	unsigned int s = 0;

	while (s < 31 && (1u << s) < n)
		s++;
	return s;
}

/* The x2APIC shift of the last valid level of 0x1f or 0xb, or -1. */
static int l3_ext_topo_shift(const struct kvm_cpuid_entry2 *e, int nent,
			     __u32 fn)
{
	int i, k, shift = -1;

	if (l3_max_leaf(e, nent, 0) < fn)
		return -1;
	for (i = 0; i < 8; i++) {
		k = l3_find(e, nent, fn, i);
		if (k < 0 || !((e[k].ecx >> 8) & 0xff))
			break;
		shift = e[k].eax & 0x1f;
	}
	return shift;
}

/* How many low APIC-id bits number the vCPUs within one socket. */
static unsigned int l3_pkg_shift(const struct kvm_cpuid_entry2 *e, int nent,
				 int vendor)
{
	int k, shift = l3_ext_topo_shift(e, nent, 0x1f);

	if (shift < 0)
		shift = l3_ext_topo_shift(e, nent, 0xb);
	if (shift < 0 && vendor == L3_AMD &&
	    l3_max_leaf(e, nent, 0x80000000) >= 0x80000008) {
		k = l3_find(e, nent, 0x80000008, 0);
		if (k >= 0) {
			shift = (e[k].ecx >> 12) & 0xf;
			if (!shift)
				shift = l3_order((e[k].ecx & 0xff) + 1);
		}
	}
	if (shift < 0 && l3_max_leaf(e, nent, 0) >= 1) {
		k = l3_find(e, nent, 1, 0);
		/* HTT: EBX[23:16] counts the package's logical processors. */
		if (k >= 0 && (e[k].edx & (1u << 28)))
			shift = l3_order((e[k].ebx >> 16) & 0xff);
	}
	if (shift < 0)
		shift = 0;
	return shift > L3_MAX_SHIFT ? L3_MAX_SHIFT : shift;
}

/**
 * pvple_l3_pkg_shift() - How many APIC-id bits number a socket's vCPUs.
 * @e: the VMM's CPUID table.
 * @nent: the number of entries in @e.
 *
 * The socket as the table's topology leaves describe it: 0x1f or 0xb, else
 * AMD's 0x80000008, else leaf 1's HTT count, else one vCPU per socket.
 *
 * Return: how many low APIC-id bits number the vCPUs within one socket, at
 * most 12 (a sharing count fits 12 bits).
 */
unsigned int pvple_l3_pkg_shift(const struct kvm_cpuid_entry2 *e, int nent)
{
	return l3_pkg_shift(e, nent, l3_vendor(e, nent));
}

/* Where the L3 sub-leaf of @fn is, or the null sub-leaf that can carry it. */
static void l3_scan(const struct kvm_cpuid_entry2 *e, int nent, __u32 fn,
		    int *l3, int *slot)
{
	int i, k;

	*l3 = -1;
	*slot = -1;
	if (l3_max_leaf(e, nent, fn & 0x80000000) < fn)
		return;
	/* A guest enumerates sub-leaves up to the first null one. */
	for (i = 0; i < 16; i++) {
		k = l3_find(e, nent, fn, i);
		if (k < 0 || !(e[k].flags & KVM_CPUID_FLAG_SIGNIFCANT_INDEX))
			return;
		if (!CACHE_TYPE(e[k].eax)) {
			*slot = k;
			return;
		}
		if (CACHE_LEVEL(e[k].eax) == 3)
			*l3 = k;
	}
}

static void l3_save(struct pvple_l3_undo *undo, struct kvm_cpuid_entry2 *e,
		    int k)
{
	undo->idx[undo->n] = k;
	undo->old[undo->n] = e[k];
	undo->n++;
}

static void l3_write_subleaf(struct kvm_cpuid_entry2 *e, int nent, int k,
			     __u32 sharing)
{
	int k0 = l3_find(e, nent, e[k].function, 0);
	__u32 sets = PVPLE_L3_SIZE_KB * 1024 / (PVPLE_L3_WAYS * PVPLE_L3_LINE);

	/* Leaf 4's core count must agree with the VMM's other sub-leaves. */
	e[k].eax = CACHE_UNIFIED | (3 << 5) | CACHE_SELF_INIT |
		   ((sharing - 1) << CACHE_SHARING_SHIFT) |
		   (k0 >= 0 && k0 != k ? e[k0].eax & CACHE_CORES_MASK : 0);
	e[k].ebx = ((PVPLE_L3_WAYS - 1) << 22) | (PVPLE_L3_LINE - 1);
	e[k].ecx = sets - 1;
	e[k].edx = 0;
}

/**
 * pvple_l3_apply() - Describe an L3 shared by each socket, in place.
 * @e: the VMM's CPUID table; edited in place.
 * @nent: the number of entries in @e.
 * @mode: the l3_cache= mode.
 * @undo: filled with the entries changed, as they were, for
 *	pvple_l3_revert(); empty when nothing changed.
 *
 * The cache leaf is 4 on Intel, 0x8000001d on AMD and Hygon.  A VMM that
 * describes an L3 (a level-3 sub-leaf there, or on AMD a non-zero
 * 0x80000006 EDX) is left alone in mode auto; in mode on, its L3 sub-leaf
 * gets the socket's sharing count.  Without an L3 sub-leaf, the first null
 * sub-leaf becomes a unified L3 of the PVPLE_L3_* shape, shared by the
 * socket.  On AMD, a zero 0x80000006 EDX is filled in too.
 *
 * Return: what was done: PVPLE_L3_ADDED or PVPLE_L3_RESHARED if the table
 * was edited, else why not.
 */
enum pvple_l3_result pvple_l3_apply(struct kvm_cpuid_entry2 *e, int nent,
				    enum pvple_l3_mode mode,
				    struct pvple_l3_undo *undo)
{
	int vendor, l3, slot, k6 = -1;
	bool had;
	__u32 sharing;

	undo->n = 0;
	if (mode != PVPLE_L3_AUTO && mode != PVPLE_L3_ON)
		return PVPLE_L3_DISABLED;
	vendor = l3_vendor(e, nent);
	if (!vendor)
		return PVPLE_L3_NO_VENDOR;

	sharing = 1u << l3_pkg_shift(e, nent, vendor);
	l3_scan(e, nent, vendor == L3_INTEL ? 4 : 0x8000001d, &l3, &slot);
	/*
	 * Linux's AMD path ignores every L3 while 0x80000006 EDX is zero;
	 * Intel's 0x80000006 EDX is reserved, so it stays as it is.
	 */
	if (vendor == L3_AMD &&
	    l3_max_leaf(e, nent, 0x80000000) >= 0x80000006)
		k6 = l3_find(e, nent, 0x80000006, 0);
	had = l3 >= 0 || (k6 >= 0 && e[k6].edx);

	if (had && mode == PVPLE_L3_AUTO)
		return PVPLE_L3_KEPT;
	if (l3 < 0 && slot < 0 && (k6 < 0 || e[k6].edx))
		return PVPLE_L3_NO_SLOT;

	if (l3 >= 0) {
		l3_save(undo, e, l3);
		e[l3].eax = (e[l3].eax & ~CACHE_SHARING_MASK) |
			    ((sharing - 1) << CACHE_SHARING_SHIFT);
	} else if (slot >= 0) {
		l3_save(undo, e, slot);
		l3_write_subleaf(e, nent, slot, sharing);
	}
	if (k6 >= 0 && !e[k6].edx) {
		l3_save(undo, e, k6);
		/* size in 512 KiB units, 16-way (encoded 8), 1 line per tag */
		e[k6].edx = (PVPLE_L3_SIZE_KB / 512) << 18 | 0x8 << 12 |
			    1 << 8 | PVPLE_L3_LINE;
	}
	return had ? PVPLE_L3_RESHARED : PVPLE_L3_ADDED;
}

/**
 * pvple_l3_revert() - Undo pvple_l3_apply().
 * @e: the table pvple_l3_apply() edited.
 * @undo: what it filled in.
 *
 * Puts back the entries the edit changed, last first.
 */
void pvple_l3_revert(struct kvm_cpuid_entry2 *e,
		     const struct pvple_l3_undo *undo)
{
	int i;

	for (i = undo->n - 1; i >= 0; i--)
		e[undo->idx[i]] = undo->old[i];
}

/**
 * pvple_l3_matches() - Does an edit reproduce what KVM already stores?
 * @e: the table pvple_l3_apply() edited.
 * @undo: what it filled in.
 * @stored: the table KVM holds for the vCPU.
 * @nstored: the number of entries in @stored.
 *
 * Are the entries the edit changed exactly what @stored holds for them?
 * Each is looked up in @stored as the guest's CPUID would find it.
 *
 * Return: true if every changed entry is in @stored, identical; true also
 * when nothing was changed.
 */
bool pvple_l3_matches(const struct kvm_cpuid_entry2 *e,
		      const struct pvple_l3_undo *undo,
		      const struct kvm_cpuid_entry2 *stored, int nstored)
{
	const struct kvm_cpuid_entry2 *a, *b;
	int i, k;

	for (i = 0; i < undo->n; i++) {
		a = &e[undo->idx[i]];
		k = l3_find(stored, nstored, a->function, a->index);
		if (k < 0)
			return false;
		b = &stored[k];
		if (a->index != b->index || a->flags != b->flags ||
		    a->eax != b->eax || a->ebx != b->ebx ||
		    a->ecx != b->ecx || a->edx != b->edx)
			return false;
	}
	return true;
}
