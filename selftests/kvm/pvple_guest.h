/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Guest-side pvple, for selftest guests: what a guest kernel does (see
 * guest-pvlock/), reduced to what synthetic guests need.  Runs in the guest.
 */
#ifndef SELFTEST_PVPLE_GUEST_H
#define SELFTEST_PVPLE_GUEST_H

#include <linux/kvm_para.h>
#include <uapi/linux/kvm_pvple.h>

#include "processor.h"

/*
 * The test binary's text, where every synthetic guest's code lies (the
 * guest runs the binary's own code at its own addresses): the slow-path
 * range a synthetic guest registers unless a test says otherwise.
 */
extern char __executable_start[], etext[];
/* The bounds of a PAUSE loop of pvple_abi_test.c's, labelled in its asm. */
extern char pvple_inside_start[], pvple_inside_end[];

/*
 * Registers @a, at @gpa, with its registration fields (ABI v3): the slow
 * path [@start, @end) and the preemption count at @preempt_gpa (0: none).
 * The host reads them once, in the hypercall.
 */
static inline long pvple_guest_register_all(struct pvple_area *a, u64 gpa,
					    u64 start, u64 end,
					    u64 preempt_gpa)
{
	WRITE_ONCE(a->text_start, start);
	WRITE_ONCE(a->text_end, end);
	WRITE_ONCE(a->preempt_gpa, preempt_gpa);
	return kvm_hypercall(KVM_HC_PVPLE_REGISTER, gpa, PVPLE_ABI_VERSION,
			     0, 0);
}

static inline long pvple_guest_register_text(struct pvple_area *a, u64 gpa,
					     u64 start, u64 end)
{
	return pvple_guest_register_all(a, gpa, start, end, 0);
}

static inline long pvple_guest_register(struct pvple_area *a, u64 gpa)
{
	return pvple_guest_register_text(a, gpa, (u64)__executable_start,
					 (u64)etext);
}

static inline long pvple_guest_park(void)
{
	return kvm_hypercall(KVM_HC_PVPLE_PARK, 0, 0, 0, 0);
}

/* The lock every synthetic guest waits on, unless it says otherwise. */
#define PVPLE_TEST_LOCK		0x1000

/*
 * As the guest series writes it: the lock, then the wait word with one
 * aligned 64-bit store and a new generation.  Only this vCPU writes its
 * area; x86 keeps the two stores in order, barrier() keeps the compiler
 * from reordering them.
 */
static inline void pvple_guest_write(struct pvple_area *a, u32 state,
				     u32 role, u32 target, u64 lock)
{
	u32 gen = PVPLE_WAIT_GEN(READ_ONCE(a->wait)) + 1;

	WRITE_ONCE(a->lock, lock);
	barrier();
	WRITE_ONCE(a->wait, PVPLE_WAIT(state, role, target, gen));
}

static inline void pvple_guest_publish_on(struct pvple_area *a, u32 target,
					  u32 role, u64 lock)
{
	pvple_guest_write(a, PVPLE_STATE_WAITING, role,
			  role == PVPLE_ROLE_UNKNOWN ? 0 : target, lock);
}

static inline void pvple_guest_publish(struct pvple_area *a, u32 target,
				       u32 role)
{
	pvple_guest_publish_on(a, target, role, PVPLE_TEST_LOCK);
}

static inline void pvple_guest_clear(struct pvple_area *a)
{
	pvple_guest_write(a, PVPLE_STATE_IDLE, 0, 0, 0);
}

/*
 * A ticket lock whose waiters publish as the guest series does for
 * qspinlock: the next in line (the queue head) names the vCPU the lock
 * belongs to now -- the one holding ticket @owner, who holds the lock or
 * has been handed it and not yet run -- and every waiter behind it names
 * the vCPU with the ticket just ahead of its own.  A head is never parked
 * by the host (it would hold off everyone behind it); waiters behind it
 * may be.  @use_hc: spin with the park hypercall (hosts without PLE) as
 * well.
 */
#define PVPLE_TICKET_SLOTS	16

struct pvple_ticket_lock {
	u32 next;
	u32 owner;
	u32 vcpu_of[PVPLE_TICKET_SLOTS];	/* ticket % slots -> vCPU */
};

static inline void pvple_ticket_lock(struct pvple_ticket_lock *l, u32 me,
				     struct pvple_area *a, bool use_hc)
{
	u32 ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_ACQUIRE);
	u32 published = ~0u, owner, ahead, target, role;

	WRITE_ONCE(l->vcpu_of[ticket % PVPLE_TICKET_SLOTS], me);
	while ((owner = __atomic_load_n(&l->owner, __ATOMIC_ACQUIRE)) != ticket) {
		ahead = ticket - owner == 1 ? owner : ticket - 1;
		role = ahead == owner ? PVPLE_ROLE_HOLDER :
					PVPLE_ROLE_PREDECESSOR;
		target = READ_ONCE(l->vcpu_of[ahead % PVPLE_TICKET_SLOTS]);
		if (a && (target | role << 16) != published && target != me) {
			pvple_guest_publish(a, target, role);
			published = target | role << 16;
		}
		if (use_hc && a)
			pvple_guest_park();
		else
			asm volatile("pause" ::: "memory");
	}
	if (a && published != ~0u)
		pvple_guest_clear(a);
}

static inline void pvple_ticket_unlock(struct pvple_ticket_lock *l)
{
	__atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
}

#endif
