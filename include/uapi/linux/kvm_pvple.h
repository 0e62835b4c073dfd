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
/* One past the last number the host reserves for pvple. */
#define KVM_HC_PVPLE_END		(KVM_HC_PVPLE_BASE + 0x100)

#endif /* _UAPI_LINUX_KVM_PVPLE_H */
