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
 * know, and the host refuses to register an area of any other version
 * (-KVM_EOPNOTSUPP).
 *
 * 5: KVM_HC_PVPLE_FEATURES says what the host offers a registered vCPU;
 *    PVPLE_F_SLICE, that it extends slices at all, so that a guest runs
 *    no code on its unlock path for a host that never sets @slice.  A v4
 *    guest is refused by a v5 host (-KVM_EOPNOTSUPP), and refuses one
 *    (its probe answers 5): it then runs as an unpatched guest.
 * 4: the host writes one field of the area, @slice, while it holds a
 *    reschedule of the vCPU back for it (the slice extension); the guest
 *    ends that grant at the end of its section (KVM_HC_PVPLE_SLICE_DONE).
 *    A v3 guest is refused by a v4 host (-KVM_EOPNOTSUPP), and refuses
 *    one (its probe answers 4): it then runs as an unpatched guest.
 * 3: the area also says, at registration, where the guest's lock slow path
 *    lies (@text_start, @text_end): a PLE exit elsewhere gets stock
 *    handling, whatever the record says; and where the vCPU's preemption
 *    count lives (@preempt_gpa).  Refused by a v2 host, as a v2 guest is
 *    by a v3 host (-KVM_EOPNOTSUPP): it then runs as an unpatched guest.
 * 2: one 64-bit wait word instead of a sequence count; the lock address is
 *    part of every record; the queue head names the lock holder; role
 *    PVPLE_ROLE_UNKNOWN.
 * 1: first version (seq, state, target, role).  Refused by a v2 host.
 */
#define PVPLE_ABI_VERSION		5

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
/* () -> 0: the section @slice was set for has ended (ABI 4) */
#define KVM_HC_PVPLE_SLICE_DONE		(KVM_HC_PVPLE_BASE + 4)
/* () -> PVPLE_F_* the host offers this registered vCPU now (ABI 5) */
#define KVM_HC_PVPLE_FEATURES		(KVM_HC_PVPLE_BASE + 5)
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

/*
 * Answers of KVM_HC_PVPLE_FEATURES (non-negative), for the calling vCPU
 * at the time of the call: a host module parameter, the host's
 * preemption model or the vCPU thread's scheduling class may change
 * afterwards.  A guest asks once, after it registered; what changes later
 * costs it nothing but an early end: a host that starts granting later
 * sees its grants run to their bound, and a guest whose host stops pays
 * one per-CPU load per unlock.  A vCPU that has not registered is
 * answered -PVPLE_ENOTREG.  Bits not defined here are 0.
 *
 * PVPLE_F_SLICE: the host extends a reschedule of this vCPU while its
 * registered preemption count is non-zero, and writes @slice while it
 * does (slice_ext_us non-zero, the VM's mode not off, the host able to
 * hook its return to the guest, a preemption model of none or voluntary,
 * a timer fine enough for the bound, a vCPU thread whose policy is not RT
 * or deadline and that has no core-scheduling cookie).  Never set for a
 * vCPU that registered no preemption count.  What holds only for a
 * moment is not asked: a pending signal, a priority boost.
 */
#define PVPLE_F_SLICE			(1ULL << 0)

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
 * memory slot.  Only the owning vCPU writes it, but for @slice.
 *
 * @wait:	PVPLE_WAIT(state, role, target, gen), written with one aligned
 *		64-bit store, so that the host can never see a state of one
 *		record with the target of another
 * @lock:	guest address of the lock waited on; written before @wait
 * @text_start:	guest virtual address of the first byte of the code in which
 *		the guest spins on a lock with this record live (its lock slow
 *		path); read once, at registration
 * @text_end:	one past its last byte; @text_start < @text_end
 * @preempt_gpa: guest physical address of the vCPU's preemption count (a
 *		32-bit word, 4-aligned), or 0 if the guest keeps none the
 *		host may read; read once, at registration
 * @slice:	written by the host: 1 while it holds back a reschedule of
 *		this vCPU because the vCPU is inside a critical section (a
 *		grant of the slice extension), else 0.  The guest, seeing it
 *		set when its outermost section ends, writes 0 and calls
 *		KVM_HC_PVPLE_SLICE_DONE: the host then reschedules at once
 *		instead of when the grant's bound runs out.  The host writes
 *		it only from the vCPU's own task while the vCPU is out of
 *		the guest, never from another vCPU's; it may leave a 1 behind
 *		after a grant ended otherwise, and a call then is answered 0
 *		and changes nothing.
 * @reserved:	must be 0; room to grow within one cache line
 *
 * The host acts on a record at a PLE exit only if the exit's RIP is in
 * [@text_start, @text_end) (never for a guest whose state is protected:
 * the host cannot read its RIP); the park hypercall is an explicit
 * request and is not checked.  It reads a spinner's own record while that
 * vCPU is stopped in a PLE exit or a pvple hypercall, and the records of the vCPUs ahead of it
 * (to find the lock holder) while those may run.  For those it reads @wait,
 * then @lock, then @wait again, and uses the record only if both reads of
 * @wait agree; @gen, which changes on every store of @wait, makes an
 * update in between visible even when it restores an older record.
 */
#define PVPLE_AREA_RESERVED		2

struct pvple_area {
	__u64 wait;
	__u64 lock;
	__u64 text_start;
	__u64 text_end;
	__u64 preempt_gpa;
	__u64 slice;
	__u64 reserved[PVPLE_AREA_RESERVED];
};

#define PVPLE_AREA_ALIGN		64

/* @wait: target in bits 0-31, state 32-39, role 40-47, gen 48-63. */
#define PVPLE_WAIT_TARGET_MASK		0xffffffffULL
#define PVPLE_WAIT_STATE_SHIFT		32
#define PVPLE_WAIT_ROLE_SHIFT		40
#define PVPLE_WAIT_GEN_SHIFT		48
#define PVPLE_WAIT_FIELD_MASK		0xffULL
#define PVPLE_WAIT_GEN_MASK		0xffffULL

#define PVPLE_WAIT(state, role, target, gen)				\
	((((__u64)(gen) & PVPLE_WAIT_GEN_MASK) << PVPLE_WAIT_GEN_SHIFT) | \
	 (((__u64)(role) & PVPLE_WAIT_FIELD_MASK) << PVPLE_WAIT_ROLE_SHIFT) | \
	 (((__u64)(state) & PVPLE_WAIT_FIELD_MASK) << PVPLE_WAIT_STATE_SHIFT) | \
	 ((__u64)(target) & PVPLE_WAIT_TARGET_MASK))

#define PVPLE_WAIT_TARGET(w)	((__u32)((w) & PVPLE_WAIT_TARGET_MASK))
#define PVPLE_WAIT_STATE(w)	((__u32)(((w) >> PVPLE_WAIT_STATE_SHIFT) & \
					 PVPLE_WAIT_FIELD_MASK))
#define PVPLE_WAIT_ROLE(w)	((__u32)(((w) >> PVPLE_WAIT_ROLE_SHIFT) & \
					 PVPLE_WAIT_FIELD_MASK))
#define PVPLE_WAIT_GEN(w)	((__u32)(((w) >> PVPLE_WAIT_GEN_SHIFT) & \
					 PVPLE_WAIT_GEN_MASK))

#define PVPLE_STATE_IDLE		0	/* not waiting; role, target 0 */
#define PVPLE_STATE_WAITING		1	/* spinning on @lock */

/*
 * Roles: how @target relates to @lock.  A WAITING record has a non-zero
 * @lock; an IDLE record has role and @target 0, an UNKNOWN one @target 0
 * (anything else is malformed).  HOLDER is written by the queue head only,
 * and is a hint: lock stealers publish nothing.
 */
#define PVPLE_ROLE_UNKNOWN		0	/* holder not known: no target */
#define PVPLE_ROLE_HOLDER		1	/* @target held @lock, last seen */
#define PVPLE_ROLE_PREDECESSOR		2	/* @target queued just ahead */

#endif /* _UAPI_LINUX_KVM_PVPLE_H */
