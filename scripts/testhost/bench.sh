#!/bin/bash
# "make bench": three boots of the test host.
#  ple     pvple_bench: the table "metric pvple stock ratio", measured side
#          by side in one boot (PLE exits, yields, parks).  Synthetic, a
#          measure of the mechanism and its per-exit costs: it runs in the
#          "every" pause mode (every PAUSE exits, testhost.rst) unless
#          PVPLE_PAUSE says otherwise, so its rows compare with the
#          earlier runs in results.rst.
#  l3      scripts/guest/l1-l3-bench.sh: a nested Linux guest under a
#          wake-up load without an L3, with kvm-pvple's and with QEMU's.
#  guests  scripts/guest/l1-guests-bench.sh: real Linux guests running
#          hackbench, dbench and locktorture beside a CPU-hog guest on two
#          L1 CPUs, in six configurations from the anchor to the product
#          (GB_* settings: that script; GB_TIER=A for the within-boot A/B
#          of kvm-pvple, GB_TIER=K for two guest kernels in one boot;
#          GB_TA_WL="locktorture dbench hackbench" with GB_TIER=K runs
#          each workload in its own boot, then the A/A gate over them),
#          with L0's steal time recorded per workload
#          (scripts/guest/steal-rec.sh).
#  unlock  scripts/guest/l1-unlock-cost.sh: what the guest series' unlock
#          costs with its end-of-section test on (the host grants) and
#          off, uncontended, in a 2-vCPU nested guest: paired, with an
#          A/A row.
#  factor  scripts/guest/calib.c on this machine, in L1 and in a nested
#          guest, three boots: the emulator's slowdown by kind of work.
#  profile (only when asked) perf in L1 over pvple_bench's PLE exits
#          with no target, stock and pvple: where the time goes.
# PVPLE_BENCH_ONLY=ple|l3|unlock|factor|guests|profile runs one of them.  The tables also go to
# files named on the last lines, so that a later run can be compared.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
only=${PVPLE_BENCH_ONLY:-}
extra=()
[ -n "$only" ] && [ "$only" != guests ] ||
	extra=(rt-tests dbench gnuplot-nox linux-perf:6.12)
[ "$only" != profile ] || extra=(linux-perf:6.12)
"$PVPLE_TOP/scripts/testhost/prepare.sh" "${extra[@]}" || die "prepare failed"
"$PVPLE_TOP/scripts/testhost/build.sh" || die "build failed"
pvple_resolve_versions
out=$WORK/bench
mkdir -p "$out"
stamp=$(date +%Y%m%d-%H%M%S)

# boot_nested NAME PLAN [ARGS...]: one boot of the test host that runs
# nested guests (multi-threaded TCG: Documentation/testhost.rst), L1's
# CPU without virtual GIF (-vgif: with it, two L2 guests on two L1 CPUs
# stopped L1 in most boots, testhost.rst "Bench boots"), logs in
# $out/NAME.  As in guest-check, a boot in which L1 stopped (and logged no
# kernel failure) is an emulator failure: it is started again, at most
# twice, and said so; its runs are dropped, never mixed with the next
# boot's.  Returns the last boot's status.
#
# L1 runs with tsc=reliable: the clocksource watchdog otherwise may find
# the emulated TSC skewed against the emulated HPET mid-run (0.1 % in
# guests-20261203-145207) and mark it unstable, and from then on KVM
# rewrites each vCPU's TSC offset at every load (kvm_arch_vcpu_load():
# the TSC resumes from last_guest_tsc) and keeps no master clock
# (pvclock_update_vm_gtod_copy()): the windows before and after would
# measure two machines.  KVM can still mark it unstable itself (a TSC
# that went back): classify.sh says so if it happens.
boot_nested() {
	local name=$1 plan=$2 attempt rc
	shift 2
	for attempt in 1 2 3; do
		PVPLE_L2=1 PVPLE_TCG_THREAD=multi \
		PVPLE_CPU_FLAGS=${PVPLE_CPU_FLAGS--vgif} \
		PVPLE_TIME_LIMIT=${PVPLE_TIME_LIMIT:-3600} \
		PVPLE_STALL_LIMIT=${PVPLE_STALL_LIMIT:-90} \
		PVPLE_L1_ARGS="tsc=reliable ${PVPLE_L1_ARGS:-}" \
			"$PVPLE_TOP/scripts/testhost/boot.sh" "$plan" "$out/$name" "$@" \
			>"$out/$name.verdict" 2>&1
		rc=$?
		if [ "$rc" != 0 ] && [ "$attempt" != 3 ] &&
		   pvple_bench_retry "$out/$name.verdict" "$plan" "$out/$name/results.tap"; then
			echo "RETRY: $name: L1 stopped or its clock leapt (attempt $attempt);" \
			     "its runs are dropped"
			grep -E "^  (L1|$plan)" "$out/$name.verdict" | sed 's/^/  /'
			continue
		fi
		break
	done
	return "$rc"
}

# bench_guests_one SUFFIX: one boot of the Linux-guest benchmark, its
# table in guests-$stamp$SUFFIX.txt.  Returns 1 if the boot failed.
bench_guests_one() {
	local var rc srec table=$out/guests-$stamp$1.txt gb=()
	# Every GB_* setting goes to L1's plan (l1-guests-bench.sh), on
	# the kernel command line: spaces in a value become commas.
	for var in ${!GB_*}; do
		# Read here, on L0 (bench_guests).
		[ "$var" != GB_TK_DESIGN ] || continue
		gb+=("$var=$(echo ${!var} | tr ' ' ,)")
	done
	# The plan's defaults: 40 groups of 4 s, hackbench 20 of 12 s.
	local groups=40 win=4
	[ "${GB_TA_WL:-}" != hackbench ] || groups=20 win=12
	# Tier K's undercommitted reference: one group a placement.
	[ "${GB_TIER:-B}" != K ] || [ "${GB_TK_B:-}" != under ] || groups=1
	groups=${GB_TA_GROUPS:-$groups} win=${GB_WIN:-$win}
	if [ "${GB_TIER:-B}" = A ]; then
		log "Linux-guest benchmark, tier A, ${GB_TA_WL:-locktorture}: $groups ABBA groups of" \
		    "$win s windows, kvm-pvple ${GB_TA_PARAM:-mode}=${GB_TA_B:-auto} against ${GB_TA_A:-off}"
	elif [ "${GB_TIER:-B}" = K ]; then
		log "Linux-guest benchmark, tier K, ${GB_TA_WL:-locktorture}: ${GB_TK_PLACES:-1} x $groups ABBA groups of" \
		    "$win s windows, guest ${GB_TK_B:-pvple} against ${GB_TK_A:-stock} in one boot"
	else
		log "Linux-guest benchmark: ${GB_BLOCKS:-one Williams design of} blocks of" \
		    "${GB_CONFIGS:-anchor anchor2 pvple series under underpv}"
	fi
	# L0's steal time over each workload (this machine may be a VM).
	"$PVPLE_TOP/scripts/guest/steal-rec.sh" "$out/guests/results.raw" \
		>"$out/guests-$stamp$1.steal" &
	srec=$!
	# One Williams design of the six default configurations is 36 guest
	# boots, about 45 minutes: more than the hour other boots get when
	# GB_CONFIGS adds ple and gyield (64 boots).
	PVPLE_PERF=1 PVPLE_L1_SMP=${PVPLE_L1_SMP:-2} \
	PVPLE_TIME_LIMIT=${PVPLE_TIME_LIMIT:-7200} \
		boot_nested guests guestbench "${gb[@]}"
	rc=$?
	kill "$srec"
	wait "$srec" 2>/dev/null
	grep -a '^# \|^ok\|^not ok' "$out/guests/results.tap" >"$table.log"
	# What the recorder saw of the last boot only (boot_nested may have
	# booted L1 again).
	awk '/^# steal-reset/ { n = 0; next } { l[++n] = $0 }
	     END { for (i = 1; i <= n; i++) print l[i] }' \
		"$out/guests-$stamp$1.steal" >>"$table.log"
	mkdir -p "$out/guests-$stamp$1"
	{
		sed -n 's/^# guests-bench: //p' "$table.log" | head -n 1
		echo "test host: L1 = Debian $KVER under QEMU TCG, $(grep -c '^processor' /proc/cpuinfo) host cores;"
		echo "no PLE hardware: $(sed -n 's/^# pause mode: //p' "$out/guests/results.tap" | head -n 1)"
		echo
		"$PVPLE_TOP/scripts/guest/guests-table.sh" "$table.log" "$out/guests-$stamp$1"
		echo
		echo "perf stat in L1 over each whole run (guest boot included), per run:"
		awk '$2 == "perf" { split($3, c, "="); split($5, e, "=")
			k = c[2] " " e[1]; s[k] = s[k] " " e[2] }
		END { for (k in s) print "  " k ":" s[k] }' "$table.log" | sort
	} >"$table"
	cat "$table"
	grep -E '^(not ok|# [a-z0-9]+: )' "$table.log" | head -n 20
	if [ "$rc" != 0 ]; then
		grep -E '^  (L1|guestbench)' "$out/guests.verdict" ||
			tail -n 5 "$out/guests.verdict"
		echo "the guests bench boot failed: the table has only its runs"
		echo "before the failure; logs in $out/guests"
		return 1
	fi
	echo "guests table written to $table, plots in $out/guests-$stamp$1/"
}

# bench_guests: the Linux-guest benchmark.  GB_TA_WL may name several
# workloads for tier K ("locktorture dbench hackbench"): one L1 boot each,
# of the size gate.sh --design gives it (GB_TK_DESIGN="dbench:24x1 ..."
# changes one), one table each (guests-STAMP-WL.txt), then
# scripts/guest/gate.sh's summary of them (guests-STAMP.gate), with the
# whole run's time: issue 19's A/A gate in one command.
bench_guests() {
	local v wl size rc=0 t0=$SECONDS gate=()
	for v in stock gyield pvple; do
		GUEST_VARIANT=$v "$PVPLE_TOP/scripts/guest/build.sh" ||
			die "guest kernel build failed ($v)"
	done
	set -- ${GB_TA_WL:-locktorture}
	if [ $# -eq 1 ]; then
		[ -z "${GB_TK_DESIGN:-}" ] ||
			die "GB_TK_DESIGN sizes a run over several workloads; one is sized by GB_TK_PLACES and GB_TA_GROUPS"
		bench_guests_one "" || exit 1
		return 0
	fi
	[ "${GB_TIER:-B}" = K ] || die "GB_TA_WL=\"$*\": several workloads are for GB_TIER=K"
	[ -z "${GB_TK_PLACES:-}${GB_TA_GROUPS:-}" ] ||
		die "several workloads: each one's size is GB_TK_DESIGN's (WL:PxG), not GB_TK_PLACES or GB_TA_GROUPS"
	for wl; do
		size=$("$PVPLE_TOP/scripts/guest/gate.sh" --design "$wl" "${GB_TK_DESIGN:-}") ||
			die "GB_TK_DESIGN=\"${GB_TK_DESIGN:-}\""
	done
	for wl; do
		size=$("$PVPLE_TOP/scripts/guest/gate.sh" --design "$wl" "${GB_TK_DESIGN:-}")
		GB_TA_WL=$wl GB_TK_PLACES=${size% *} GB_TA_GROUPS=${size#* } \
			bench_guests_one "-$wl"
		gate+=("$wl:$?:$out/guests-$stamp-$wl.txt")
	done
	(
		"$PVPLE_TOP/scripts/guest/gate.sh" "${gate[@]}" || rc=1
		echo "gate: $# workloads in $(((SECONDS - t0 + 59) / 60)) min (guest kernels built, boots included)"
		exit $rc
	) | tee "$out/guests-$stamp.gate"
	[ "${PIPESTATUS[0]}" = 0 ] || exit 1
}

bench_l3() {
	GUEST_STOCK=1 "$PVPLE_TOP/scripts/guest/build.sh" ||
		die "guest kernel build failed"
	local rc
	PVPLE_L1_SMP=${PVPLE_L1_SMP:-1} boot_nested l3 l3bench \
		L3_WAKE="${L3_WAKE:-pipe:2:4000}" L3_ROUNDS="${L3_ROUNDS:-5}"
	rc=$?
	local table=$out/l3-$stamp.txt
	grep -a '^# [a-z]*: index3=\|^not ok' "$out/l3/results.tap" >"$table.log"
	grep '^# [a-z]*: index3=\|^not ok' "$table.log"
	l3_table <"$table.log" >"$table"
	echo
	cat "$table"
	if [ "$rc" != 0 ]; then
		grep -E '^  (L1|l3bench: not ok)' "$out/l3.verdict"
		echo "the L3 bench boot failed (an emulator failure above, or a"
		echo "configuration that did not do what it says): the table has"
		echo "only the runs before it; logs in $out/l3"
		exit 1
	fi
	echo "L3 rows written to $table"
}

# The emulator's factor: CALIB_BOOTS (3) boots of the test host with two
# CPUs, as the Linux-guest bench has; in each, calib on this machine
# (L0) just before, then in L1 and in a nested guest of that bench's
# setup (scripts/guest/l1-calib.sh); the table from every repeat
# (scripts/guest/calib.awk), the raw lines beside it.
bench_factor() {
	GUEST_STOCK=1 "$PVPLE_TOP/scripts/guest/build.sh" ||
		die "guest kernel build failed"
	local i rc=0 table=$out/factor-$stamp.txt
	gcc -static -O2 -Wall -o "$out/calib" "$PVPLE_TOP/scripts/guest/calib.c" ||
		die "calib does not build"
	: >"$table.log"
	for i in $(seq 1 "${CALIB_BOOTS:-3}"); do
		"$out/calib" "${CALIB_REPEATS:-5}" |
			sed "s/^calib /# calib boot=$i l0 /" >>"$table.log"
		PVPLE_L1_SMP=${PVPLE_L1_SMP:-2} boot_nested "factor$i" calib \
			CALIB_REPEATS="${CALIB_REPEATS:-5}" || rc=1
		grep -a '^# calib l[12] ' "$out/factor$i/results.tap" |
			sed "s/^# calib /# calib boot=$i /" >>"$table.log"
		grep -a '^not ok' "$out/factor$i/results.tap"
	done
	awk -f "$PVPLE_TOP/scripts/guest/gb-stats.awk" \
	    -f "$PVPLE_TOP/scripts/guest/calib.awk" "$table.log" >"$table"
	echo
	cat "$table"
	[ "$rc" = 0 ] || { echo "a calibration boot failed; logs in $out/factor*"; exit 1; }
	echo "factor rows written to $table (raw: $table.log)"
}

# The unlock bench: one boot, L2_COST_BLOCKS blocks of three guest boots
# (scripts/guest/l1-unlock-cost.sh); its table from every round's time
# (scripts/guest/unlock-cost.awk).  A boot whose guest key did not follow
# the host fails the bench.
bench_unlock() {
	"$PVPLE_TOP/scripts/guest/build.sh" || die "guest kernel build failed"
	local rc table=$out/unlock-$stamp.txt
	PVPLE_L1_SMP=${PVPLE_L1_SMP:-1} boot_nested unlock unlockbench \
		L2_COST_BLOCKS="${L2_COST_BLOCKS:-6}"
	rc=$?
	grep -a '^# cost \|^# block\|^not ok' "$out/unlock/results.tap" >"$table.log"
	awk -f "$PVPLE_TOP/scripts/guest/gb-stats.awk" \
	    -f "$PVPLE_TOP/scripts/guest/unlock-cost.awk" "$table.log" >"$table"
	echo
	cat "$table"
	if [ "$rc" != 0 ]; then
		grep -E '^  (L1|unlockbench: not ok)' "$out/unlock.verdict"
		grep '^# block\|^not ok' "$table.log"
		echo "the unlock bench boot failed; logs in $out/unlock"
		exit 1
	fi
	echo "unlock rows written to $table (raw: $table.log)"
}

# Per configuration, from the "# NAME: index3=L secs=S res=R cal=C
# exits=E" lines: totals over its runs, per 1000 pipe passes, with the
# range of the per-run IPI figure (the noise); ratios against "none".
l3_table() {
	awk -v wake="${L3_WAKE:-pipe:2:4000}" '
	$3 ~ /^index3=/ {
		c = $2; sub(":", "", c)
		for (i = 4; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		s[c] += v["secs"]; res[c] += v["res"]; cal[c] += v["cal"]
		ex[c] += v["exits"]; k[c]++; n[c] += v["passes"] / 1000
		r = (v["res"] + v["cal"]) / v["passes"] * 1000
		if (!(c in lo) || r < lo[c]) lo[c] = r
		if (!(c in hi) || r > hi[c]) hi[c] = r
	}
	END {
		printf "l2-wake %s, 1 socket x 4 vCPUs, per 1000 messages\n", wake
		printf "%-6s %4s %7s %8s %8s %9s %15s %9s\n", "config", "runs",
		       "secs", "RES/1k", "CAL/1k", "IPIs/1k", "(range)", "exits/1k"
		split("none pvple qemu", order, " ")
		for (j = 1; j <= 3; j++) {
			c = order[j]
			if (!k[c])
				continue
			p = n[c]
			printf "%-6s %4d %7.2f %8.1f %8.1f %9.1f %7.1f-%-7.1f %9.1f\n",
			       c, k[c], s[c] / k[c], res[c] / p, cal[c] / p,
			       (res[c] + cal[c]) / p, lo[c], hi[c], ex[c] / p
		}
		for (j = 2; j <= 3; j++) {
			c = order[j]
			if (!k[c] || !k["none"] || !(res["none"] + cal["none"]))
				continue
			q = n["none"] / n[c]
			printf "%s vs none: IPIs %+.1f%%, exits %+.1f%%, time %+.1f%%\n", c,
			       100 * ((res[c] + cal[c]) * q / (res["none"] + cal["none"]) - 1),
			       100 * (ex[c] * q / ex["none"] - 1),
			       100 * (s[c] / k[c] / (s["none"] / k["none"]) - 1)
		}
	}'
}

# The profile: perf in L1 over PLE exits with no target, stock and pvple
# (plan-profile.sh).  A look, not a figure: its shares say where the
# round trip's time goes, pvple_bench's rows how long it is.
bench_profile() {
	local table=$out/profile-$stamp.txt
	PVPLE_PERF=1 PVPLE_PAUSE=${PVPLE_PAUSE:-every} PVPLE_L1_SMP=1 \
	PVPLE_TIME_LIMIT=${PVPLE_TIME_LIMIT:-3600} \
		"$PVPLE_TOP/scripts/testhost/boot.sh" profile "$out/profile" \
		>"$out/profile.verdict" 2>&1 ||
		{ cat "$out/profile.verdict"; die "the profile boot failed; logs in $out"; }
	sed -n '/^PVPLE-TEST profile/,/^PVPLE-EXIT profile-pvple/p' \
		"$out/profile/results.tap" >"$table"
	cat "$table"
	echo "profile written to $table"
}

case $only in
l3) bench_l3; exit ;;
unlock) bench_unlock; exit ;;
factor) bench_factor; exit ;;
guests) bench_guests; exit ;;
profile) bench_profile; exit ;;
esac
# One L1 CPU by default: single-threaded TCG runs every L1 CPU on one host
# thread in turn, so two L1 CPUs are not concurrent in real time and L1's
# scheduler would be measuring the emulator.  With one, every vCPU beyond
# the first is real overcommit, scheduled by L1's own kernel.
PVPLE_PAUSE=${PVPLE_PAUSE:-every} \
PVPLE_L1_SMP=${PVPLE_L1_SMP:-1} PVPLE_TIME_LIMIT=${PVPLE_TIME_LIMIT:-3600} \
	"$PVPLE_TOP/scripts/testhost/boot.sh" bench "$out/l1" \
	${PVPLE_BENCH_PARAMS:+pvple.bench_params=$PVPLE_BENCH_PARAMS} \
	${PVPLE_BENCH_TRIPS:+pvple.bench_trips=$PVPLE_BENCH_TRIPS} >"$out/verdict" 2>&1
rc=$?
table=$out/bench-$stamp.txt
sed -n '/^PVPLE-TEST bench/,/^PVPLE-EXIT/p' "$out/l1/results.tap" |
	grep -v '^PVPLE-' | grep -v '^PVPLE-BENCH-TABLE' >"$table.log"
sed -n '/^PVPLE-BENCH-TABLE/,/^PVPLE-EXIT/p' "$out/l1/results.tap" |
	grep -v '^PVPLE-' >"$table"
echo
grep -v '^[a-zA-Z ]*[ ]\{3,\}' "$table.log" | head -n 5
cat "$table"
echo
if [ "$rc" != 0 ] || [ ! -s "$table" ]; then
	cat "$out/verdict"
	die "the bench boot failed; logs in $out"
fi
echo "bench rows written to $table"
[ "$only" = ple ] && exit
bench_factor
bench_l3
bench_unlock
bench_guests
