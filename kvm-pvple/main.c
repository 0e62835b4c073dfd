// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-pvple: paravirtual pause-loop exits for KVM.
 *
 * Loads on a stock kernel next to kvm.ko and attaches to its PLE path,
 * hypercall path and vCPU schedule-in (see hooks.c).  Unloading restores
 * stock KVM behaviour for every VM, including VMs that are running.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include <uapi/linux/kvm_pvple.h>

#include "pvple.h"

#define CREATE_TRACE_POINTS
#include "pvple_trace.h"

static int __init pvple_init(void)
{
	int ret;

	ret = pvple_vm_init();
	if (ret)
		return ret;
	ret = pvple_hooks_init();
	if (ret) {
		pvple_vm_exit();
		return ret;
	}
	pr_info("loaded, ABI version %d\n", PVPLE_ABI_VERSION);
	return 0;
}

static void __exit pvple_exit(void)
{
	pvple_hooks_exit();
	pvple_vm_exit();
	pr_info("unloaded\n");
}

module_init(pvple_init);
module_exit(pvple_exit);

MODULE_DESCRIPTION("Paravirtual pause-loop exits for KVM");
MODULE_LICENSE("GPL");
