/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The virtual L3: a pure edit of a VMM's CPUID table, so that a Linux guest
 * sees one last-level cache shared by every vCPU of a virtual socket.  Like
 * policy.c it has no KVM state and builds into the userspace unit tests.
 *
 * Without an L3, a guest gives each vCPU its own LLC; cpus_share_cache() is
 * then false between siblings and every remote wake-up is a reschedule IPI.
 */
#ifndef _KVM_PVPLE_L3_H
#define _KVM_PVPLE_L3_H

#include <linux/kvm.h>
#include <linux/types.h>

enum pvple_l3_mode {
	PVPLE_L3_OFF,		/* never touch CPUID */
	PVPLE_L3_AUTO,		/* describe an L3 unless the VMM does */
	PVPLE_L3_ON,		/* also make the VMM's own L3 socket-wide */
	PVPLE_NR_L3_MODES
};

enum pvple_l3_result {
	PVPLE_L3_ADDED,		/* an L3 shared by the socket, where none was */
	PVPLE_L3_RESHARED,	/* on: the VMM's L3, now shared by the socket */
	PVPLE_L3_KEPT,		/* auto: the VMM describes an L3; left alone */
	PVPLE_L3_DISABLED,	/* mode off */
	PVPLE_L3_NO_VENDOR,	/* neither Intel nor AMD/Hygon: left alone */
	PVPLE_L3_NO_SLOT,	/* no cache leaf entry to carry it: left alone */
	PVPLE_NR_L3_RESULTS
};

/*
 * The L3 pvple describes, when the VMM gives none: QEMU's legacy L3 shape
 * (16 MiB, 16-way, 64-byte lines).  Guests use the size for reporting only;
 * what matters to the scheduler is who shares it.
 */
#define PVPLE_L3_WAYS		16
#define PVPLE_L3_LINE		64
#define PVPLE_L3_SIZE_KB	16384

/* Entries one edit may change: a cache sub-leaf and AMD's 0x80000006. */
#define PVPLE_L3_MAX_EDITS	2

struct pvple_l3_undo {
	int n;
	int idx[PVPLE_L3_MAX_EDITS];
	struct kvm_cpuid_entry2 old[PVPLE_L3_MAX_EDITS];
};

unsigned int pvple_l3_pkg_shift(const struct kvm_cpuid_entry2 *e, int nent);
enum pvple_l3_result pvple_l3_apply(struct kvm_cpuid_entry2 *e, int nent,
				    enum pvple_l3_mode mode,
				    struct pvple_l3_undo *undo);
void pvple_l3_revert(struct kvm_cpuid_entry2 *e,
		     const struct pvple_l3_undo *undo);
bool pvple_l3_matches(const struct kvm_cpuid_entry2 *e,
		      const struct pvple_l3_undo *undo,
		      const struct kvm_cpuid_entry2 *stored, int nstored);

#endif /* _KVM_PVPLE_L3_H */
