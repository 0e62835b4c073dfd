#!/bin/bash
# Shared settings of the pvple test host.  Sourced, never run.
#
# Everything downloaded, extracted or built for a kernel version lives in
# $PVPLE_CACHE/<version>/, outside the clone, so that a second run is warm.

PVPLE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PVPLE_CACHE=${PVPLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pvple}
PVPLE_JOBS=${PVPLE_JOBS:-$(nproc)}

log() { printf '[pvple %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { log "error: $*"; exit 1; }

# The concrete kernel behind Debian's 6.12 meta package, e.g. 6.12.117+deb12-amd64.
# The archive rotates versions, so this is resolved on every run.
pvple_resolve_versions() {
	local dep
	dep=$(dpkg-query -W -f='${Depends}' linux-image-6.12-amd64 2>/dev/null) ||
		die "linux-image-6.12-amd64 is not installed (run scripts/testhost/prepare.sh)"
	KVER=$(sed -n 's/.*linux-image-\(6\.12\.[^ ,]*-amd64\).*/\1/p' <<<"$dep")
	[ -n "$KVER" ] || die "cannot read the kernel version from: $dep"
	KSRC_VER=$(dpkg-query -W -f='${Version}' linux-source-6.12)
	KDIR=/usr/src/linux-headers-$KVER
	KIMAGE=/boot/vmlinuz-$KVER
	KMODS=/lib/modules/$KVER
	WORK=$PVPLE_CACHE/$KVER
	KSRC=$PVPLE_CACHE/src-$KSRC_VER/linux-source-6.12
	# One build directory per source tree: a copy of the tree (selfcheck)
	# must never pick up objects built from another.
	BUILD=$WORK/build/$(printf '%s' "$PVPLE_TOP" | md5sum | cut -c1-8)
	export KVER KSRC_VER KDIR KIMAGE KMODS WORK KSRC BUILD
	# PVPLE_L1=debug: L1 boots the debug kernel of "make check-debug"
	# (debug-kernel.sh), with KVM's modules and kvm-pvple built for it.
	L1_KVER=$KVER KMOD_BASE=/ MODDIR=$PVPLE_TOP L1_ARGS=
	if [ "${PVPLE_L1:-debian}" = debug ]; then
		L1_KVER=$(cat "$WORK/debug/release" 2>/dev/null || echo none)
		KIMAGE=$WORK/debug/bzImage
		KMOD_BASE=$WORK/debug/modroot
		MODDIR=$WORK/debug/mod
		# no5lvl: 4-level paging, or KASAN cries wolf at boot.  With
		# LA57 on (QEMU's "max" CPU has it), pgtable_l5_enabled() is
		# cpu_feature_enabled(X86_FEATURE_LA57) (asm/pgtable_64_types.h:37),
		# read from boot_cpu_data until alternatives are patched
		# (cpu/common.c:2483).  identify_cpu() zeroes those bits
		# (cpu/common.c:1899) with interrupts already on
		# (init/main.c:1002 before :1042).  An interrupt in that window
		# sees __VIRTUAL_MASK_SHIFT 47 (asm/page_64_types.h:57), so
		# KASAN_SHADOW_START (asm/kasan.h:15) moves and every
		# direct-map address has no shadow (mm/kasan/kasan.h:331):
		# "BUG: KASAN: wild-memory-access in do_raw_spin_lock" from
		# handle_edge_irq, which also switches lockdep off.  Seen once
		# in CI (selfcheck lockdep case).  no5lvl clears LA57 for good
		# (cpu/common.c:1732), so the bit reads the same throughout.
		L1_ARGS=no5lvl
	fi
	export L1_KVER KMOD_BASE MODDIR L1_ARGS
	pvple_l0_qemu
}

# The emulator that runs L1 (L0's QEMU).  PVPLE_L0=built (the default) is
# QEMU $PVPLE_QEMU_SERIES built from Debian's source by qemu.sh: before
# 10.2, QEMU's nested SVM loses interrupts and L1 stops
# (Documentation/testhost.rst).  PVPLE_L0=debian is the qemu-system-x86
# package; PVPLE_L0_QEMU=PATH names any other binary.
PVPLE_QEMU_SERIES=${PVPLE_QEMU_SERIES:-10.2}
pvple_l0_qemu() {
	if [ -n "${PVPLE_L0_QEMU:-}" ]; then
		L0_QEMU=$PVPLE_L0_QEMU
	elif [ "${PVPLE_L0:-built}" = debian ]; then
		L0_QEMU=qemu-system-x86_64
	else
		L0_QEMU=$PVPLE_CACHE/qemu-$PVPLE_QEMU_SERIES/bin/qemu-system-x86_64
	fi
	export L0_QEMU
}

# pvple_l0_watch DIR: sets L0_WATCH, the L0 QEMU arguments that keep the
# evidence of a reset.  A reset (L1's "reboot -f" when its plan ends, a
# panic with panic=-1, a triple fault) pauses QEMU with L1's registers
# intact, where -no-reboot would end it; "-d cpu_reset" logs "Triple
# fault" when that is the cause (target/i386/tcg/excp_helper.c:62 in
# QEMU 10.2).  pvple_reset_watch QEMU-PID DIR RESULTS starts
# reset-watch.py, which keeps QEMU's view of the vCPUs in DIR/reset.txt if
# RESULTS lacks "PVPLE-END" (L1 had not finished), then quits QEMU.
pvple_l0_watch() {
	rm -f "$1/qmp.sock" "$1/reset.txt" "$1/qemu.log"
	L0_WATCH=(-action "reboot=shutdown,shutdown=pause"
		  -qmp "unix:$1/qmp.sock,server=on,wait=off"
		  -d "cpu_reset,guest_errors" -D "$1/qemu.log")
}
pvple_reset_watch() {
	/usr/bin/python3 "$PVPLE_TOP/scripts/testhost/reset-watch.py" "$1" \
		"$2/qmp.sock" "$3" "$2/reset.txt" &
}

# pvple_l1_stopped VERDICT: true when a nested-guest boot failed because
# L1 stopped (hang or time-out under multi-threaded TCG) and L1 logged no
# kernel failure: an emulator failure, which the callers retry.  The one
# kernel report allowed is what a stopped CPU makes the others print:
# RCU stall reports, when boot.sh saw that CPU ignore the NMI (its "an
# L1 CPU stopped" verdict, Documentation/testhost.rst).  A boot whose
# clock jumped, with nothing failed that the jump does not explain
# (classify.sh), is an emulator failure too.
pvple_l1_stopped() {
	! grep -q 'that the clock jump does not explain' "$1" || return 0
	grep -q 'L1: hang\|L1: time-out\|L1: reset\|did not finish' "$1" || return 1
	grep -q 'L1 kernel log:' "$1" || return 0
	grep -q 'L1: hang: an L1 CPU stopped' "$1" &&
		! sed -n '/L1 kernel log:/,/^[^ ]/p' "$1" | grep '^    ' |
			grep -vq 'rcu: INFO: rcu_preempt detected stalls'
}

# pvple_guest_outcome RC VERDICT RESULTS-TAP: how one boot of nested Linux
# guests ended (RC is boot.sh's status), one word:
#   clean       every case passed
#   l1-stopped  L1 stopped (hang, time-out), no kernel failure logged
#   l2-vanished a guest exited mid-boot without a word (a triple fault
#               under -no-reboot), no kernel failure anywhere
#   failed      anything else: a test or kernel failure, never retried
pvple_guest_outcome() {
	local rc=$1 verdict=$2 tap=$3
	if [ "$rc" = 0 ]; then
		echo clean
	elif [ ! -f "$tap" ]; then
		echo failed
	elif pvple_l1_stopped "$verdict"; then
		echo l1-stopped
	elif grep -q 'L1 kernel log:' "$verdict"; then
		echo failed
	elif ! grep -q ': L2-END' "$tap" &&
	     ! grep -Eq 'BUG|WARNING|Oops|stall|lockup' "$tap"; then
		echo l2-vanished
	else
		echo failed
	fi
}

# pvple_bench_outcome RC VERDICT RESULTS-TAP: the same words for one boot
# of the Linux-guest benchmark, whose guests print no L2-END: a run that
# the bench skipped because its guest stopped before /init is l2-vanished.
pvple_bench_outcome() {
	local rc=$1 verdict=$2 tap=$3
	if [ "$rc" = 0 ] && [ -f "$tap" ] &&
	   ! grep -q '# SKIP emulator' "$tap"; then
		echo clean
	elif [ "$rc" = 0 ]; then
		echo l2-vanished
	else
		pvple_guest_outcome "$rc" "$verdict" "$tap" | sed 's/^l2-vanished$/failed/'
	fi
}

# pvple_bench_retry VERDICT PLAN [RESULTS-TAP]: true when a bench boot
# that failed is the emulator's and is booted again (scripts/testhost/
# bench.sh boot_nested): L1 stopped while PLAN reported no failure of its
# own; or L1's clock leapt with nothing failed in L1 that the leap does
# not explain (classify.sh), and nothing in PLAN's results either: a
# leap makes a window last minutes and a guest stopped over it report
# soft lockups or RCU stalls (guests-20261203-172417), but not a
# WARNING, an oops, a workload's error or locktorture's failures.
pvple_bench_retry() {
	if grep -q 'that the clock jump does not explain' "$1"; then
		[ -n "${3:-}" ] && [ -f "$3" ] || return 0
		! grep -aE 'L2-ERROR|WARNING:|Oops|Kernel panic|BUG:|Fail: *[1-9]' "$3" |
			grep -aEvq 'soft lockup|detected (expedited )?stall|self-detected stall|blocked for more than [0-9]+ seconds'
		return
	fi
	pvple_l1_stopped "$1" && ! grep -q "$2: not ok" "$1"
}

# pvple_guest_boot CASE OUT: one L1 boot running the nested-Linux guest
# case CASE of scripts/guest/l1-guest-test.sh ("make guest-check"), logs
# in OUT/, boot.sh's verdict in OUT.verdict; returns boot.sh's status.
# Multi-threaded TCG (nested Linux hangs under single-threaded TCG), L1
# with one CPU, a heartbeat every 10 s, so 90 s of silence is a stop.
pvple_guest_boot() {
	PVPLE_L2=1 PVPLE_TCG_THREAD=${PVPLE_TCG_THREAD:-multi} \
	PVPLE_L1_SMP=${PVPLE_L1_SMP:-1} \
	PVPLE_TIME_LIMIT=${PVPLE_TIME_LIMIT:-1200} \
	PVPLE_STALL_LIMIT=${PVPLE_STALL_LIMIT:-90} \
		"$PVPLE_TOP/scripts/testhost/boot.sh" guest "$2" \
		L2_SECS="${L2_SECS:-20}" GUEST_CASES="$1" \
		${L2_TORTURE:+L2_TORTURE=$L2_TORTURE} \
		${L2_PAUSE_RIPS:+L2_PAUSE_RIPS=1} >"$2.verdict" 2>&1
}
