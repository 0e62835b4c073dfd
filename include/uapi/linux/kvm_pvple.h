/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pvple: paravirtual pause-loop exits for KVM -- the guest/host ABI.
 *
 * This is the one definition of the ABI.  The host module (kvm-pvple.ko),
 * the guest patch series (guest-pvlock/) and the selftests all include it.
 * See Documentation/abi.rst for the rules a guest must follow.
 */
#ifndef _UAPI_LINUX_KVM_PVPLE_H
#define _UAPI_LINUX_KVM_PVPLE_H

#include <linux/types.h>

/*
 * ABI version returned by KVM_HC_PVPLE_PROBE.  It is bumped on any change a
 * guest can observe; a guest must not use a host whose version it does not
 * know.
 */
#define PVPLE_ABI_VERSION		1

/*
 * Hypercall numbers.  Upstream KVM allocates KVM_HC_* densely from 1 (12 is
 * KVM_HC_MAP_GPA_RANGE in v6.12).  pvple lives far from that range, at
 * 0x50564c00 ("PVL" in ASCII), so that a future upstream number can never
 * collide with ours.  Every number is below 2^31: a 32-bit guest (whose RAX
 * KVM truncates to 32 bits) and a 64-bit guest name the same call.
 *
 * A host without kvm-pvple answers every one of these with -KVM_ENOSYS,
 * exactly as stock KVM answers any unknown number.
 */
#define KVM_HC_PVPLE_BASE		0x50564c00UL
/* () -> PVPLE_ABI_VERSION */
#define KVM_HC_PVPLE_PROBE		(KVM_HC_PVPLE_BASE + 0)
/* (gpa of this vCPU's struct pvple_area, PVPLE_ABI_VERSION) -> 0 */
#define KVM_HC_PVPLE_REGISTER		(KVM_HC_PVPLE_BASE + 1)
/* () -> 0 */
#define KVM_HC_PVPLE_UNREGISTER		(KVM_HC_PVPLE_BASE + 2)
/* () -> enum pvple_park_result: act on this vCPU's published wait */
#define KVM_HC_PVPLE_PARK		(KVM_HC_PVPLE_BASE + 3)
/* One past the last number the host reserves for pvple. */
#define KVM_HC_PVPLE_END		(KVM_HC_PVPLE_BASE + 0x100)

/*
 * Errors, returned negated like KVM's own (-KVM_EINVAL, ...).  Besides
 * KVM_ENOSYS, KVM_EINVAL, KVM_EFAULT, KVM_EOPNOTSUPP and KVM_EPERM from
 * <linux/kvm_para.h>, pvple defines one: the host does not know this vCPU's
 * area (it never registered, or the host lost it: module reloaded, VM
 * migrated).  The guest should register again.
 */
#define PVPLE_ENOTREG			1001

/* Results of KVM_HC_PVPLE_PARK (non-negative). */
enum pvple_park_result {
	PVPLE_PARK_RAN		= 0,	/* the target ran: yielded to, or woke us */
	PVPLE_PARK_RUNNING	= 1,	/* the target is running: keep spinning */
	PVPLE_PARK_TIMEOUT	= 2,	/* the host's bound ended the park */
	PVPLE_PARK_EVENT	= 3,	/* an interrupt or event is pending */
	PVPLE_PARK_IDLE		= 4,	/* the area says this vCPU does not wait */
};

/*
 * struct pvple_area - what one vCPU publishes about its own spin-wait.
 *
 * One per vCPU, in guest memory the vCPU registers by GPA.  It must be
 * aligned to PVPLE_AREA_ALIGN (so it never crosses a page) and lie in a
 * memory slot.  Only the owning vCPU writes it, and the host reads it only
 * while that vCPU is stopped in a PLE exit or a pvple hypercall, so a record
 * is never torn for a well-behaved guest; @seq still lets the host reject a
 * record caught mid-update (odd @seq), whoever wrote it.
 *
 * @seq:	incremented before (to odd) and after (to even) every update
 * @state:	PVPLE_STATE_*
 * @target:	the vCPU waited behind, as its APIC ID (== KVM vcpu_id)
 * @role:	PVPLE_ROLE_*: how @target relates to the lock
 * @flags:	must be 0
 * @lock:	guest address of the lock, for tracing only
 * @reserved:	must be 0; room to grow within one cache line
 */
#define PVPLE_AREA_RESERVED		4

struct pvple_area {
	__u32 seq;
	__u32 state;
	__u32 target;
	__u32 role;
	__u32 flags;
	__u32 pad;
	__u64 lock;
	__u64 reserved[PVPLE_AREA_RESERVED];
};

#define PVPLE_AREA_ALIGN		64

#define PVPLE_STATE_IDLE		0	/* not waiting: ignore the rest */
#define PVPLE_STATE_WAITING		1	/* spinning until @target acts */

#define PVPLE_ROLE_HOLDER		1	/* @target holds the lock */
#define PVPLE_ROLE_PREDECESSOR		2	/* @target is queued just ahead */

#endif /* _UAPI_LINUX_KVM_PVPLE_H */
