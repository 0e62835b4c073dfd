#!/bin/bash
# "make bench-host": the Linux-guest benchmark of "make bench" (guests) on
# a real KVM host with pause-loop exiting, as root: the same guest
# kernels, the same script (scripts/guest/l1-guests-bench.sh) and the same
# table, with the host's own QEMU and KVM instead of the nested test host.
#
#   scripts/bench-host.sh [--dry-run]
#
# The guests are confined to BENCH_CPUS host CPUs (default 0-1, two CPUs,
# as in the test host) with taskset, and their vCPU threads pinned among
# them in the benchmark's fixed layout (GB_PIN=0: not pinned); kvm-pvple
# is loaded and unloaded between configurations (kvm-pvple.ko of this
# tree), and left as it was found.  The host's steal time is recorded
# per workload (scripts/guest/steal-rec.sh; a host that is itself a VM
# has some).  --dry-run checks the prerequisites, prints the plan and
# every command it would run, and starts nothing.
# Environment: GB_* as for l1-guests-bench.sh (GB_BLOCKS, GB_HB, ...).
set -uo pipefail
. "$(dirname "$0")/testhost/lib.sh"
dry=
[ "${1:-}" = --dry-run ] && dry=1
cpus=${BENCH_CPUS:-0-1}
ncpus=$(taskset -c "$cpus" nproc 2>/dev/null || echo 0)
# The list, one CPU each: "0-1,4" is 0,1,4.
cpulist=$(echo "$cpus" | tr , '\n' | awk -F- '
	{ e = NF > 1 ? $2 : $1; for (i = $1; i <= e; i++) printf "%s%d", n++ ? "," : "", i }')
missing=0

# prereq OK DESCRIPTION: one line; a missing prerequisite stops a real run.
prereq() {
	if [ "$1" = 0 ]; then
		echo "# prerequisite ok: $2"
	else
		echo "# prerequisite MISSING: $2"
		missing=$((missing + 1))
	fi
}

vendor=none ple=0
if [ -d /sys/module/kvm_intel ]; then
	vendor=kvm_intel ple=$(cat /sys/module/kvm_intel/parameters/ple_gap 2>/dev/null || echo 0)
elif [ -d /sys/module/kvm_amd ]; then
	vendor=kvm_amd ple=$(cat /sys/module/kvm_amd/parameters/pause_filter_count 2>/dev/null || echo 0)
fi
[ "$(id -u)" = 0 ]
prereq $? "root (loads kvm-pvple, reads debugfs)"
[ -c /dev/kvm ]
prereq $? "/dev/kvm"
[ "$vendor" != none ]
prereq $? "kvm_intel or kvm_amd loaded (found: $vendor)"
[ "$ple" -gt 0 ] 2>/dev/null
prereq $? "pause-loop exiting on ($vendor ple_gap/pause_filter_count=$ple)"
grep -qE '^flags.*\b(pausefilter)\b|^vmx flags.*\bple\b' /proc/cpuinfo
prereq $? "the CPU has PLE / pause filtering (/proc/cpuinfo)"
case $(uname -r) in 6.12.*) true ;; *) false ;; esac
prereq $? "a 6.12 host kernel (running $(uname -r))"
[ -d /sys/kernel/debug/kvm ]
prereq $? "debugfs mounted with KVM's statistics (/sys/kernel/debug/kvm)"
command -v qemu-system-x86_64 >/dev/null
prereq $? "qemu-system-x86_64"
[ "$ncpus" -ge 2 ]
prereq $? "BENCH_CPUS=$cpus names two or more host CPUs ($ncpus)"
command -v perf >/dev/null || echo "# perf not installed: no perf stat lines"

if [ -n "$dry" ]; then
	echo "# dry run: $missing prerequisite(s) missing; the plan:"
	echo "# would run: scripts/testhost/prepare.sh rt-tests dbench gnuplot-nox"
	echo "# would run: make -C $PVPLE_TOP modules KDIR=/lib/modules/$(uname -r)/build"
	for v in stock gyield pvple; do
		echo "# would run: GUEST_VARIANT=$v scripts/guest/build.sh"
	done
	echo "# would run: scripts/guest/stage-l2.sh \$WORK/bench-host/l2"
	l2=/nonexistent/l2
else
	[ "$missing" = 0 ] || die "$missing prerequisite(s) missing (above)"
	"$PVPLE_TOP/scripts/testhost/prepare.sh" rt-tests dbench gnuplot-nox ||
		die "prepare failed"
	pvple_resolve_versions
	make -s -C "$PVPLE_TOP" modules KDIR="/lib/modules/$(uname -r)/build" ||
		die "kvm-pvple.ko did not build"
	for v in stock gyield pvple; do
		GUEST_VARIANT=$v "$PVPLE_TOP/scripts/guest/build.sh" ||
			die "guest kernel build failed ($v)"
	done
	l2=$WORK/bench-host/l2
	"$PVPLE_TOP/scripts/guest/stage-l2.sh" "$l2"
	mkdir -p "$WORK/bench-host"
fi

was=off
[ -d /sys/module/kvm_pvple ] && was=on
# All eight configurations on real hardware, where a ple guest finishes.
bench() {
	GB_CONFIGS=${GB_CONFIGS:-ple,anchor,anchor2,gyield,pvple,series,under,underpv} \
	PVPLE_QEMU="taskset -c $cpus qemu-system-x86_64" PVPLE_L2_DIR=$l2 \
	PVPLE_KO=$PVPLE_TOP/kvm-pvple.ko GB_CPU=${GB_CPU:-host} \
	GB_TIME_SCALE=${GB_TIME_SCALE:-1} GB_SLICE_US=${GB_SLICE_US:-10} \
	GB_CPUS=${GB_CPUS:-$cpulist} \
	GB_UNDER_VCPUS=${GB_UNDER_VCPUS:-$ncpus} GB_DRY=$dry \
		sh "$PVPLE_TOP/scripts/guest/l1-guests-bench.sh"
}
if [ -n "$dry" ]; then
	bench
	exit
fi
results=$WORK/bench-host/results-$(date +%Y%m%d-%H%M%S).tap
"$PVPLE_TOP/scripts/guest/steal-rec.sh" "$results" >"${results%.tap}.steal" &
srec=$!
bench >"$results"
rc=$?
kill "$srec"
wait "$srec" 2>/dev/null
cat "${results%.tap}.steal" >>"$results"
if [ "$was" = off ] && [ -d /sys/module/kvm_pvple ]; then
	rmmod kvm_pvple
fi
echo "host: $(uname -r), $vendor, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)," \
     "guests confined to CPUs $cpus"
"$PVPLE_TOP/scripts/guest/guests-table.sh" "$results" "${results%.tap}"
echo "results in $results, plots in ${results%.tap}/"
exit "$rc"
