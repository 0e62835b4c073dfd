#!/bin/bash
# soak.sh BOOTS CONFIG...: the test host's stop rate under the
# "make guest-check" workload, per configuration of the emulator.
# SOAK_LOAD=bench runs the Linux-guest benchmark's load instead: L1 with
# two CPUs, perf in L1, the 4-vCPU lock guest beside the 2-vCPU hog guest,
# one block of SOAK_BENCH_CONFIGS (default anchor,pvple) per boot, boot i
# taking block i (its row of the Williams design), so that the kept
# results tables of all boots add up to one tier-B table.
#
# A CONFIG is NAME or NAME:VAR=VALUE[,VAR=VALUE...], the variables being
# the test host's (lib.sh, boot.sh), e.g.
#   scripts/guest/soak.sh 30 qemu-10.0:PVPLE_L0=debian qemu-10.2:PVPLE_L0=built
# Each configuration gets BOOTS boots of L1; every boot runs one
# guest-check case, the five cases in turn; the configurations alternate
# boot by boot so that all of them see the same machine.  Each boot's end
# is pvple_guest_outcome's word; a stopped L1 keeps its QEMU state
# (stall-dump.sh) as OUT/NAME-I.stall.txt, and one that reset before its
# end its registers (reset-watch.py) as OUT/NAME-I.reset.txt.  The last
# lines are a table: per configuration, boots, clean, stops (L1 stopped
# or a guest vanished: the emulator) and other failures, with the stop
# rate and its 95 % Wilson score interval.  SOAK_FIRST=K numbers the boots
# from K (an interrupted soak goes on with the next blocks).  Documentation/testhost.rst holds the measured table.
set -uo pipefail
. "$(dirname "$0")/../testhost/lib.sh"
boots=${1:?usage: soak.sh BOOTS CONFIG...}
shift
[ $# -ge 1 ] || die "usage: soak.sh BOOTS CONFIG..."
# cfg_env CONFIG: exports the configuration's variables (in a subshell).
cfg_env() {
	local kv a
	[ "$1" != "${1%%:*}" ] || return 0
	IFS=, read -ra kv <<<"${1#*:}"
	for a in "${kv[@]}"; do
		export "${a?}"
	done
}
# Each configuration's L0 QEMU must exist before the first boot; the
# bench's load also needs its workloads and perf (as bench.sh does).
extra=()
[ "${SOAK_LOAD:-}" != bench ] || extra=(rt-tests dbench gnuplot-nox linux-perf:6.12)
for cfg in "$@"; do
	(cfg_env "$cfg" && "$PVPLE_TOP/scripts/testhost/prepare.sh" "${extra[@]}") ||
		die "prepare failed for $cfg"
done
pvple_resolve_versions
"$PVPLE_TOP/scripts/testhost/build.sh" >/dev/null &&
	"$PVPLE_TOP/scripts/guest/build.sh" >/dev/null &&
	GUEST_STOCK=1 "$PVPLE_TOP/scripts/guest/build.sh" >/dev/null ||
	die "build failed"

out=$WORK/soak-guests/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
cases=(patched no-module unpatched hotplug reload)
load=${SOAK_LOAD:-guest-check}
if [ "$load" = bench ]; then
	cases=(bench)
	for v in stock gyield; do
		GUEST_VARIANT=$v "$PVPLE_TOP/scripts/guest/build.sh" >/dev/null ||
			die "build failed"
	done
fi
# soak_boot CASE OUT: one boot of the chosen load; prints its outcome.
soak_boot() {
	if [ "$load" != bench ]; then
		pvple_guest_boot "$1" "$2"
		pvple_guest_outcome $? "$2.verdict" "$2/results.tap"
		return
	fi
	PVPLE_L2=1 PVPLE_PERF=1 PVPLE_TCG_THREAD=${PVPLE_TCG_THREAD:-multi} \
	PVPLE_L1_SMP=${PVPLE_L1_SMP:-2} PVPLE_TIME_LIMIT=${PVPLE_TIME_LIMIT:-1200} \
	PVPLE_STALL_LIMIT=${PVPLE_STALL_LIMIT:-90} \
		"$PVPLE_TOP/scripts/testhost/boot.sh" guestbench "$2" GB_BLOCKS=1 \
		GB_BLOCK0="$i" GB_CONFIGS="${SOAK_BENCH_CONFIGS:-anchor,pvple}" \
		>"$2.verdict" 2>&1
	pvple_bench_outcome $? "$2.verdict" "$2/results.tap"
}
# SOAK_FIRST: the first boot's number (1), to continue an interrupted soak
# with the next blocks of the design.
first=${SOAK_FIRST:-1}
log "soak ($load): $boots boots per configuration from boot $first, logs in $out"
for i in $(seq "$first" "$((first + boots - 1))"); do
	c=${cases[$(((i - 1) % ${#cases[@]}))]}
	for cfg in "$@"; do
		name=${cfg%%:*}
		t0=$(date +%s)
		(
			cfg_env "$cfg"
			pvple_resolve_versions
			soak_boot "$c" "$out/boot"
		) >"$out/outcome" 2>/dev/null
		outcome=$(tail -n1 "$out/outcome")
		dt=$(($(date +%s) - t0))
		echo "$name $i $c $outcome $dt" | tee -a "$out/boots.txt"
		# A bench boot's runs are data: kept, clean or not, for
		# guests-table.sh (blocks from several boots pair alike).
		[ "$load" != bench ] ||
			cp "$out/boot/results.tap" "$out/$name-$i.results.tap" 2>/dev/null
		if [ "$outcome" != clean ]; then
			cp "$out/boot.verdict" "$out/$name-$i.verdict"
			cp "$out/boot/console.log" "$out/$name-$i.console.log" 2>/dev/null
			cp "$out/boot/results.tap" "$out/$name-$i.results.tap" 2>/dev/null
			cp "$out/boot/stall.txt" "$out/$name-$i.stall.txt" 2>/dev/null
			cp "$out/boot/reset.txt" "$out/$name-$i.reset.txt" 2>/dev/null
			cp "$out/boot/qemu.log" "$out/$name-$i.qemu.log" 2>/dev/null
		fi
	done
done

# The table, in configuration order.
printf '%s\n' "$@" | sed 's/:.*//' >"$out/order"
awk -v order="$out/order" '
{ n[$1]++; o[$1, $4]++; t[$1] += $5 }
END {
	printf "%-14s %5s %5s %5s %6s %5s  %-22s %s\n", "configuration",
	       "boots", "clean", "stops", "(L2)", "fail", "stop rate (95% CI)", "s/boot"
	while ((getline c < order) > 0) {
		s = o[c, "l1-stopped"] + o[c, "l2-vanished"]
		z = 1.96; p = s / n[c]; d = 1 + z * z / n[c]
		mid = (p + z * z / (2 * n[c])) / d
		half = z * sqrt(p * (1 - p) / n[c] + z * z / (4 * n[c] * n[c])) / d
		# At p = 0 the lower bound is 0 exactly; rounding made "-0.0".
		lo = mid - half < 0 ? 0 : mid - half
		printf "%-14s %5d %5d %5d %6s %5d  %4.1f %% (%4.1f-%4.1f %%)   %d\n",
		       c, n[c], o[c, "clean"], s, "(" o[c, "l2-vanished"] + 0 ")",
		       o[c, "failed"], 100 * p, 100 * lo,
		       100 * (mid + half), t[c] / n[c]
	}
}' "$out/boots.txt" | tee "$out/table.txt"
