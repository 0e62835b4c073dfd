#!/bin/sh
# The Linux-guest benchmark (make bench, PVPLE_BENCH_ONLY=guests; make
# bench-host on a real KVM host).  Runs where the guests' KVM is: inside
# the test host (L1), or on the host itself, under busybox sh and awk (no
# awk maths: logarithms are scripts/guest/guests-table.sh's, on the
# host).  A lock guest (GB_VCPUS vCPUs) runs hackbench, dbench and
# locktorture (scripts/guest/l2-bench) beside a co-runner guest of
# GB_HOGS vCPUs that spins CPU hogs and counts their work (l2-init).
#
# Tier B (GB_TIER=B, the default): what needs another guest kernel, one
# guest boot per run.  Configurations:
#   ple      unpatched guest, nopvspin: native qspinlock, KVM's PLE alone
#   anchor   unpatched guest, stock pvqspinlock, no kvm-pvple: the anchor
#   anchor2  the anchor again, a configuration of its own: the A/A arm,
#            whose ratio to the anchor is the noise of every other ratio
#   gyield   unpatched + scripts/guest/bench-guest-yield.patch, no module:
#            the guest yields to a preempted predecessor by itself
#   pvple    guest-pvlock series, kvm-pvple loaded: the product
#   series   guest-pvlock series, no kvm-pvple: the series' own cost
#   under    anchor with GB_UNDER_VCPUS vCPUs (one per CPU) and the
#            co-runner stopped: the undercommitted reference
#   underpv  under with the guest-pvlock guest and kvm-pvple loaded: what
#            pvple costs where there is nothing to fix
# The runs come in blocks: each block runs every configuration once, in
# the order of one row of a Williams design (williams below), so that over
# a whole design each configuration follows every other equally often
# within the blocks, and what the previous run left behind (a module
# unload, the co-runner's SIGCONT, a warm host) is spread evenly.
# GB_BLOCKS blocks, by default one whole design: K rows for K
# configurations, 2K when K is odd.  Ratios are taken within a block.
#
# Tier A (GB_TIER=A): kvm-pvple's decisions alone, in one boot of the
# guest-pvlock guest with the module loaded: locktorture (or, with
# GB_TA_WL=dbench, dbench with GB_TA_CLIENTS clients; with
# GB_TA_WL=hackbench, hackbench runs one after another) runs for the whole
# boot while kvm-pvple's mode= goes off, auto, auto, off (ABBA) in
# windows of GB_WIN seconds, GB_TA_GROUPS times, after GB_TA_SETTLE
# seconds.  The guest prints its cumulative acquisitions once a second
# with its own time stamps, the co-runner its hogs' iterations; guests-
# table.sh turns the windows into rates and the ABBA groups into ratios,
# the lock guest's and the co-runner's.  GB_TA_B=off makes the B windows
# off too: the A/A boot, the noise of tier A's ratio.  GB_TA_PARAM names
# another module parameter to switch instead of mode= (mode= stays auto),
# between GB_TA_A and GB_TA_B: GB_TA_PARAM=slice_ext_us GB_TA_A=0
# GB_TA_B=200 measures the slice extension alone.  The lock guest's
# kvm-pvple counters are noted at every window's start (one read of
# debugfs a window), for the slice counters per arm.
#
# Tier K (GB_TIER=K): two guest kernels in one boot, for what tier B
# compares across boots.  Two lock guests boot side by side, guest A on
# bzImage-GB_TK_A (stock: the anchor) and guest B on bzImage-GB_TK_B
# (pvple: the product; stock too for the A/A boot), both running tier A's
# workload (GB_TA_WL), pinned in the same layout, beside the co-runner;
# kvm-pvple is loaded (mode=auto), so guest A, which never registers, gets
# stock handling.  In each window one guest runs and the other's QEMU is
# stopped (SIGSTOP), in ABBA order: the guest clocks (kvm-clock) go on
# while a guest is stopped, so each window's rate comes from the
# progress lines its guest printed inside it (guests-table.sh).  The
# lines read "# ta-... g=a|b".  GB_TK_B=under makes guest B tier B's
# undercommitted reference in the same boot: the stock kernel with
# GB_UNDER_VCPUS vCPUs, and the co-runner stopped in its windows too, so
# that B/A is under/anchor and the table puts the anchor against the
# fair-share limit (under's rate x C*V/(V+H)/min(U,C)) with the
# interval of one boot, not of tier B's boots.  GB_TK_PLACES=P boots the two guests P
# times in the L1 boot ("placements", "# tk-place"), each time for
# GB_TA_GROUPS groups, the guest started first going GB_TK_FIRST's, the
# other's, the other's, GB_TK_FIRST's, ...:
# one pair of guests has an offset between its two places that the ABBA
# windows do not cancel (results.rst), so the table takes its interval
# over the placements; GB_TK_SWAP=1 also swaps the kernels between the
# guests in placements 3 and 4 of every four, so that an offset of one
# guest's place cancels too.  Every window line notes the QEMUs' CPU time
# (cpu_a=, cpu_b=, cpu_co=; tier A's cpu_l=).
#
# Noise control: the harness looks at the guests' consoles once a second
# (no more on the CPUs it measures), the guest settles and runs each
# workload once unmeasured first (l2-bench), perf counts the same events
# in every configuration (kvm:kvm_exit, all and PAUSE only: kvm-pvple's
# own events exist only while it is loaded, and its per-VM counters say
# the same), and, unless GB_PIN=0, every vCPU thread is pinned, in one
# fixed layout: vCPU i of each guest on the (i mod C)-th of the C CPUs in
# GB_CPUS (default: all of L1's), so that with 2 CPUs, 4 lock vCPUs and 2
# hogs each CPU has two lock vCPUs and one hog.  QEMU's other threads
# are left to the scheduler.
#
# Every tier-B run prints, for each workload,
#   # wl-begin cfg=C block=B wl=W up=T0
#   # cfg=C block=B wl=W value=V up0=T0 up1=T1 hograte=H ple=.. acted=.. ...
# with the guest's result, L1's uptime when it saw the workload begin and
# end (the host's steal recorder, scripts/guest/steal-rec.sh, notes its
# own counters when it sees these lines), the co-runner's iterations per
# second over the workload, and the counters over that workload only
# (KVM's per-VM statistics, kvm-pvple's per-VM counters where it is
# loaded), which guests-table.sh turns into the table.  TAP: one line per
# run.  GB_DRY=1 prints the plan and the commands instead.
# "l1-guests-bench.sh --williams K" prints the design for K configurations.
#
# Settings, from the environment (make bench passes every GB_* it is
# given on L1's kernel command line, spaces as commas), defaults in ():
#   GB_TIER B|A (B)         GB_CONFIGS (six: below)  GB_BLOCKS (one design;
#   GB_ROUNDS, the old name) GB_BLOCK0 (1: the first block's number)
#   GB_VCPUS (4)   GB_HOGS (2)   GB_CPUS (all)
#   GB_UNDER_VCPUS (as many as GB_CPUS)     GB_PIN (1)    GB_CPU (host,-xsave)
#   GB_HB (3:200)  GB_DB (8:4)  GB_LT (8:8)  GB_SETTLE (2)  GB_WARM (2):
#   l2-bench's bench.* parameters           GB_HOGREP (1): the co-runner's
#   report interval, s       GB_RUN_LIMIT (300 s a run)   GB_PERF (perf)
#   tier A: GB_WIN (4 s)  GB_TA_GROUPS (40)  GB_TA_SETTLE (20 s)
#   GB_TA_GUARD (1 s)  GB_TA_WRITERS (8)  GB_TA_PARAM (mode)  GB_TA_A (off)
#   GB_TA_WL (locktorture; or dbench, hackbench)  GB_TA_CLIENTS (4:
#   dbench's)  GB_TA_HB_GROUPS (3), GB_TA_HB_LOOPS (3): hackbench's
#   groups, and its loops a run (a progress line each); with hackbench
#   GB_WIN is 12 and GB_TA_GROUPS 20 unless given
#   GB_TA_B (auto)     GB_SLICE_US (50): kvm-pvple's slice_ext_us= at load
#   GB_TIME_SCALE (20): its time_scale= at load (50 us x 20: 1000 us of
#   the emulator's time, the bound of the runs published before the cap)
#   GB_SLICE_STEP_US (none: the module's own): its slice_step_us= at load
#   tier K: GB_TK_A (stock)  GB_TK_B (pvple; stock for the A/A boot,
#   under for the fair-share limit)  GB_TK_FIRST (a: the guest
#   whose QEMU starts first)  GB_TK_PLACES (1)  GB_TK_SWAP (1 when the
#   placements come in fours: the kernels swap guests in placements 3
#   and 4 of each four; 0 with GB_TK_B=under, which also makes
#   GB_TA_GROUPS 1), and tier A's GB_WIN,
#   GB_TA_GROUPS, GB_TA_SETTLE, GB_TA_GUARD, GB_TA_WRITERS, GB_TA_WL,
#   GB_TA_CLIENTS, GB_TA_HB_*
#   (the emulated host runs 50-100 times slower than hardware)
#   GB_L2_ARGS (none): more kernel arguments for tier A's and K's lock
#   guests (commas for spaces), e.g. nokaslr
#   GB_SCHED_FEAT (none): L1 scheduler features, e.g. NO_PICK_BUDDY
#   GB_SCHED_SLICE_NS (none: L1's own): L1's EEVDF base slice
#   GB_TA_TRACE (none): a window whose slice grants are traced
#   GB_DRY (empty): plan only
. "$(dirname "$0")/l1-lib.sh"

# williams K: a Williams design for K configurations, numbered 0..K-1,
# one block per line.  The first row is 0, 1, K-1, 2, K-2, 3, ...; row i
# adds i to each (mod K).  For even K these K rows are a Latin square in
# which each configuration follows every other exactly once; for odd K
# the same rows reversed are added, and each follows every other twice.
williams() {
	awk -v k="$1" 'BEGIN {
		for (j = 0; j < k; j++)
			first[j] = j % 2 ? (j + 1) / 2 : (k - j / 2) % k
		rows = k % 2 ? 2 * k : k
		for (i = 0; i < rows; i++) {
			line = ""
			for (j = 0; j < k; j++) {
				jj = i < k ? j : k - 1 - j
				line = line (j ? " " : "") (first[jj] + i) % k
			}
			print line
		}
	}'
}
if [ "${1:-}" = --williams ]; then
	williams "$2"
	exit
fi

tier=${GB_TIER:-B}
# Comma-separated on a kernel command line, which splits at spaces.
# The default leaves out ple and gyield (GB_CONFIGS=ple,... adds them;
# make bench-host runs all eight).  In the test host a ple guest (no
# pvqspinlock) cannot finish even its warm-up hackbench within the run
# limit: both ple runs of a full design were killed at 300 s with no
# result (2026-12-01), 6 minutes a block for nothing; and six
# configurations are 36 runs, one design within the 75 minutes a bench
# may take, where eight were 64 runs and two hours.
configs=$(echo "${GB_CONFIGS:-anchor anchor2 pvple series under underpv}" | tr , ' ')
nconf=$(echo $configs | wc -w)
period=$(williams "$nconf" | wc -l)
blocks=${GB_BLOCKS:-${GB_ROUNDS:-$period}}
vcpus=${GB_VCPUS:-4}
hogs=${GB_HOGS:-2}
# The CPUs the guests run on: pinning's layout and the fair share.
pcpus=$(echo "${GB_CPUS:-$(awk '/^processor/ { printf "%s ", $3 }' /proc/cpuinfo)}" | tr , ' ')
ncpus=$(echo $pcpus | wc -w)
under=${GB_UNDER_VCPUS:-$ncpus}
pin_on=${GB_PIN:-1}
cpu=${GB_CPU:-host,-xsave}
# Timed runs of 5 s and more (Documentation/results.rst): dbench and
# locktorture by their time, hackbench by its loops.
work="l2.bench=1 bench.hb=${GB_HB:-3:200} bench.db=${GB_DB:-8:4} bench.lt=${GB_LT:-8:8}"
work="$work bench.settle=${GB_SETTLE:-2} bench.warm=${GB_WARM:-2}"
hogrep=${GB_HOGREP:-1}
limit=${GB_RUN_LIMIT:-300}
win=${GB_WIN:-4}
ta_groups=${GB_TA_GROUPS:-40}
ta_settle=${GB_TA_SETTLE:-20}
ta_guard=${GB_TA_GUARD:-1}
ta_writers=${GB_TA_WRITERS:-8}
# The workload of tiers A and K, and its size: locktorture's writers or
# dbench's clients.
ta_wl=${GB_TA_WL:-locktorture}
case $ta_wl in
dbench) ta_n=${GB_TA_CLIENTS:-4} ;;
hackbench)
	# A run of 3 groups and 10 loops takes 1.1-3.6 s in the test
	# host's windows (median 1.7-1.9 s, 2026-12-03), much of it forking
	# and reaping 120 tasks: windows of 12 s saw 1-3 runs end after
	# the guard, and a window's rate, from the runs that end in it, was
	# coarse enough to give 0.112 of the 0.192 (in ln) that tier K's
	# hackbench placements spread (results.rst).  3 loops a run end
	# about three times as many runs in a window.  20 groups of 12 s are 16 minutes of windows,
	# locktorture's 40 of 4 s are 11.
	ta_n=${GB_TA_HB_GROUPS:-3}
	win=${GB_WIN:-12}
	ta_groups=${GB_TA_GROUPS:-20}
	;;
locktorture) ta_n=$ta_writers ;;
*) echo "Bail out! GB_TA_WL=$ta_wl: locktorture, dbench or hackbench"; exit 1 ;;
esac
ta_loops=${GB_TA_HB_LOOPS:-3}
# The parameter switched, and its value in the A and the B windows:
# mode=off against mode=auto (the product), or off for the A/A boot.
ta_param=${GB_TA_PARAM:-mode}
ta_a=${GB_TA_A:-off}
ta_b=${GB_TA_B:-auto}
slice_us=${GB_SLICE_US:-50}
time_scale=${GB_TIME_SCALE:-20}
# What "module on" sets: at insmod, or in sysfs on a loaded module (the
# scale first, then the bounds it scales).
mod_params="time_scale=$time_scale slice_ext_us=$slice_us${GB_SLICE_STEP_US:+ slice_step_us=$GB_SLICE_STEP_US}"
ta_trace=${GB_TA_TRACE:-}
tk_a=${GB_TK_A:-stock}
tk_b=${GB_TK_B:-pvple}
tk_first=${GB_TK_FIRST:-a}
l2_args=$(echo "${GB_L2_ARGS:-}" | tr , ' ')
case $tk_first in
a | b) ;;
*) echo "Bail out! GB_TK_FIRST=$tk_first: a or b"; exit 1 ;;
esac
# The undercommitted reference is B's, the arm the table divides by A.
[ "$tk_a" != under ] || { echo "Bail out! GB_TK_A=under: the reference is GB_TK_B's"; exit 1; }
# Placements: how many times tier K boots its two guests afresh in the
# one L1 boot, each time for GB_TA_GROUPS groups.
tk_places=${GB_TK_PLACES:-1}
case $tk_places in
'' | *[!0-9]* | 0*) echo "Bail out! GB_TK_PLACES=$tk_places: a count of 1 or more"; exit 1 ;;
esac
# Whether the two kernels swap guests in placements 3 and 4 of every
# four (1, the default when the placements come in fours): guest B's
# place was behind guest A's in 6 of 8 placements of one A/A boot,
# whichever started first (2026-12-03).
# GB_TK_B=under: no swap unless asked, and one group a placement unless
# GB_TA_GROUPS says otherwise.  Swapped, the reference is guest a, whose
# windows are the first and the last of a group, two windows apart: in
# all four such placements of the first run (2026-12-05,
# guests-20261205-052913) the reference printed nothing after that stop,
# its console silent in its second window while it used both CPUs, and
# the group had no rate.  Unswapped and with one group it runs its two
# windows back to back (more groups stop it for two windows between
# them, the same stop), and its place offset, a few per cent in tier K's
# A/A boots, is small beside an under/anchor ratio of about two.
[ "$tk_b" != under ] || ta_groups=${GB_TA_GROUPS:-1}
# The co-runner, stopped in the reference's two windows, gets no raised
# lockup and stall bounds (tier K's guests do, tier_k): with hackbench's
# 12 s windows it was stopped for 24 s, past its soft-lockup (20 s) and
# RCU stall (21 s) bounds, and it fell silent in the second placement and
# was gone before the end (guests-20261205-071959); with 4 s windows it
# ran to the end in all three runs.  Refused until that is understood.
if [ "$tier" = K ] && [ "$tk_b" = under ] && [ $((2 * win)) -ge 20 ]; then
	echo "Bail out! GB_TK_B=under with $win s windows: the co-runner would be stopped for $((2 * win)) s (results.rst)"
	exit 1
fi
tk_swap_dfl=0
[ $((tk_places % 4)) != 0 ] || [ "$tk_b" = under ] || tk_swap_dfl=1
tk_swap=${GB_TK_SWAP:-$tk_swap_dfl}
case $tk_swap in
0 | 1) ;;
*) echo "Bail out! GB_TK_SWAP=$tk_swap: 0 or 1"; exit 1 ;;
esac
if [ "$tk_swap" = 1 ] && [ $((tk_places % 4)) != 0 ]; then
	echo "Bail out! GB_TK_SWAP=1 wants GB_TK_PLACES in fours, not $tk_places"
	exit 1
fi
# The lockup and stall bounds of tier K's guests, where its windows need
# them (tier_k); none in tier A.
tk_wd=
ko=${PVPLE_KO:-/pvple/ko/kvm-pvple.ko}
dry=${GB_DRY:-}
L2_DRY=$dry
vms=/sys/kernel/debug/kvm-pvple/vms
modeparam=/sys/module/kvm_pvple/parameters/mode
taparam=/sys/module/kvm_pvple/parameters/$ta_param
kvmdbg=/sys/kernel/debug/kvm
colog=/tmp/gb-corunner.log
perf=${GB_PERF:-$(command -v perf)}
# The PAUSE exit's code in KVM's kvm_exit tracepoint.
if [ -d /sys/module/kvm_intel ]; then pause_exit=40; else pause_exit=0x77; fi

# do_ CMD...: runs CMD, or with GB_DRY=1 prints it.
do_() {
	if [ -n "$dry" ]; then echo "# would run: $*"; else "$@"; fi
}

# uptime_: L1's uptime in $up, without a fork.
uptime_() {
	read -r up _ </proc/uptime
}

# module on|off: kvm-pvple loaded or not.  The test host's /init loads it
# with its defaults (slice_ext_us=10, the hardware default) before this
# script runs, so "on" also sets slice_ext_us=GB_SLICE_US when it finds
# the module loaded.  Until 2026-12-04 it did not: every tier A and K run
# but those that switched slice_ext_us itself granted 10 us, not the
# 1000 their tables said (results.rst, "How long a grant is").  With
# GB_SLICE_STEP_US, "on" sets slice_step_us the same way.  Each "on"
# writes down what the module then runs with ("# pvple-params").
pdir=/sys/module/kvm_pvple/parameters
modstate=off
[ -d /sys/module/kvm_pvple ] && modstate=on
module() {
	if [ "$1" = on ] && [ "$modstate" = on ]; then
		for kv in $mod_params; do
			do_ sh -c "echo ${kv#*=} >$pdir/${kv%%=*}"
		done
	elif [ "$1" = on ]; then
		# shellcheck disable=SC2086 # one word a parameter
		do_ insmod "$ko" $mod_params
	elif [ "$modstate" = on ]; then
		do_ rmmod kvm_pvple
	fi
	modstate=$1
	[ "$1" = on ] && [ -z "$dry" ] || return 0
	pp=
	for p in mode time_scale slice_ext_us slice_step_us; do
		[ -r "$pdir/$p" ] && pp="$pp $p=$(cat "$pdir/$p")"
	done
	echo "# pvple-params$pp"
}

# cfg NAME: sets kernel, append, smp, mod (kvm-pvple on or off) and co
# (the co-runner's signal: CONT or STOP) for a configuration.
cfg() {
	kernel=bzImage-stock append= smp=$vcpus mod=off co=CONT
	case $1 in
	ple) append=nopvspin ;;
	anchor|anchor2) ;;
	gyield) kernel=bzImage-gyield ;;
	pvple) kernel=bzImage-pvple mod=on ;;
	series) kernel=bzImage-pvple ;;
	under) smp=$under co=STOP ;;
	underpv) kernel=bzImage-pvple mod=on smp=$under co=STOP ;;
	*) echo "Bail out! unknown configuration $1"; exit 1 ;;
	esac
}

# order BLOCK: the configurations of block BLOCK (from 1), in the order
# they run: row (BLOCK - 1) mod period of the design.
order() {
	williams "$nconf" | awk -v b="$1" -v cf="$configs" '
	{ row[NR] = $0 }
	END {
		split(cf, name, " ")
		k = split(row[(b - 1) % NR + 1], t, " ")
		for (j = 1; j <= k; j++)
			printf "%s%s", name[t[j] + 1], j < k ? " " : "\n"
	}'
}

# pin NAME PID VCPUS: vCPU i of the guest (thread "CPU i/KVM", QEMU's
# -name ...,debug-threads=on) on the (i mod C)-th CPU of GB_CPUS.  The
# threads exist before the guest's first instruction; waits for them up
# to 10 s.
pin() {
	pin_plan=$(echo $pcpus | awk -v v="$3" '{
		for (i = 0; i < v; i++)
			printf "%s%d:%s", i ? " " : "", i, $(i % NF + 1) }')
	if [ "$pin_on" != 1 ]; then
		echo "# not pinned: $1 (GB_PIN=0)"
		return 0
	fi
	if [ -n "$dry" ]; then
		echo "# would pin $1 (vCPU:CPU): $pin_plan"
		return 0
	fi
	pin_try=0
	while [ "$(cat /proc/"$2"/task/*/comm 2>/dev/null | grep -c '^CPU [0-9]*/KVM')" -lt "$3" ]; do
		pin_try=$((pin_try + 1))
		if [ "$pin_try" -gt 100 ] || ! kill -0 "$2" 2>/dev/null; then
			echo "# $1: its vCPU threads did not appear: not pinned"
			return 0
		fi
		sleep 0.1
	done
	for pin_t in /proc/"$2"/task/*; do
		read -r pin_c <"$pin_t/comm" || continue
		case $pin_c in
		"CPU "*/KVM) pin_i=${pin_c#CPU }; pin_i=${pin_i%/KVM} ;;
		*) continue ;;
		esac
		for pin_p in $pin_plan; do
			[ "${pin_p%:*}" = "$pin_i" ] &&
				taskset -p -c "${pin_p#*:}" "${pin_t##*/}" >/dev/null
		done
	done
	echo "# pinned $1 (vCPU:CPU): $pin_plan"
}

# vmdir VMPID: the VM's directory in KVM's debugfs ("PID-FD"), in $d;
# empty when there is none.
vmdir() {
	d=$(ls -d "$kvmdbg/$1"-* 2>/dev/null | head -n 1)
}

# snap VMPID: "key=value ..." of KVM's statistics of the VM and, when
# kvm-pvple is loaded, its counters for the VM.
snap() {
	vmdir "$1"
	for f in exits halt_exits directed_yield_attempted directed_yield_successful; do
		echo "$f=$(cat "$d/$f" 2>/dev/null || echo 0)"
	done
	grep "^$1-" "$vms" 2>/dev/null | tr ' ' '\n' | grep '='
}

# delta BEFORE AFTER: the counters' differences, one "k=v" line each.
delta() {
	echo "$1" | awk -F= -v after="$2" '
	BEGIN { n = split(after, a, "\n"); for (i = 1; i <= n; i++) {
		split(a[i], kv, "="); v[kv[1]] = kv[2] } }
	NF == 2 && ($1 in v) { print $1 "=" v[$1] - $2 }'
}

# What the table reads: PLE exits and park hypercalls, what kvm-pvple did
# with them (acted: directed yields tried and parks), KVM's own directed
# yields, halts; and, for the log, the slice extension's reschedule
# requests, those inside a section, grants, those that still descheduled
# a vCPU inside a section, and grants that ran out inside one.
summary() {
	echo "$1" | awk -F= '{ v[$1] = $2 }
	END {
		acted = v["yield_tried"] + v["parks"]
		printf "ple=%s hcpark=%d acted=%d yield=%d park=%d spin=%d stock=%d idle=%d",
		       v["ple_exits"] == "" ? "-" : v["ple_exits"], v["hc_park"], acted,
		       v["yield_ok"], v["parks"], v["spin"], v["stock"], v["rec_idle"]
		printf " unreg=%d dy=%d dy_ok=%d exits=%d halts=%d",
		       v["rec_unregistered"], v["directed_yield_attempted"],
		       v["directed_yield_successful"], v["exits"], v["halt_exits"]
		printf " holder=%d nostock=%d nohold=%d reached=%d missed=%d",
		       v["yield_holder"], acted + v["spin"],
		       v["rec_no_holder"] + v["chain_no_holder"],
		       v["yield_reached"], v["yield_missed"]
		printf " sreq=%d incs=%d sgrant=%d sdesched=%d sstill=%d",
		       v["slice_requests"], v["slice_in_cs"], v["slice_granted"],
		       v["slice_desched_cs"], v["slice_still_in_cs"]
	}'
}

# hogs_now: the co-runner's last progress line, "TOTAL UPTIME" (its
# uptime, not L1's) in $hog, empty if it printed none.
hogs_now() {
	hog=$(tail -n 4 "$colog" 2>/dev/null | tr -d '\r' |
	      sed -n 's/^L2-HOGS-PROGRESS \([0-9]*\) up=\([0-9.]*\)$/\1 \2/p' | tail -n 1)
}

# hograte BEFORE AFTER: iterations per second between two hogs_now.
hograte() {
	echo "$1 $2" | awk 'NF == 4 && $4 > $2 { printf "%.0f", ($3 - $1) / ($4 - $2); ok = 1 }
			    END { if (!ok) printf "none" }'
}

corunner_start() {
	l2_start "$colog" bzImage-stock "$cpu" \
		"l2.hogs=$hogs l2.hogrep=$hogrep locktorture.torture_type=none" \
		-smp "$hogs" -name corunner,debug-threads=on
	corunner=${qpid:-CO-RUNNER}
	echo "# co-runner: $hogs vCPUs of CPU hogs, pid $corunner"
	pin co-runner "$corunner" "$hogs"
}

# perf_start NAME BLOCK / perf_stop: perf stat over a run, the same
# events in every configuration.
perf_start() {
	ppid=
	set -- stat -a -x, -o "/tmp/gb-perf-$1-$2" -e kvm:kvm_exit \
		-e kvm:kvm_exit --filter "exit_reason==$pause_exit"
	if [ -n "$dry" ]; then
		echo "# would run: ${perf:-perf} $*"
		return 0
	fi
	[ -n "$perf" ] || return 0
	# System-wide, no workload: it counts until SIGINT.  (With a
	# workload it would wait for that to end, whatever the signal.)
	$perf "$@" 2>/dev/null &
	ppid=$!
}
perf_stop() {
	[ -n "$ppid" ] || return 0
	kill -INT "$ppid" 2>/dev/null
	wait "$ppid"
	# The second kvm:kvm_exit is the one filtered to PAUSE exits.
	awk -F, -v c="$1" -v b="$2" '$3 ~ /:/ {
		e = $3; if (e in seen) e = e "(pause)"; seen[e] = 1
		printf "# perf cfg=%s block=%s %s=%s\n", c, b, e, $1 }' \
		"/tmp/gb-perf-$1-$2" 2>/dev/null
}

# run NAME BLOCK: one boot of the lock guest in configuration NAME.
run() {
	name=$1 block=$2 log=/tmp/gb-$1-$2.log
	cfg "$name"
	echo "# $name: $kernel -smp $smp, kvm-pvple $mod, co-runner $co"
	if [ -z "$dry" ] && ! kill -0 "$corunner" 2>/dev/null; then
		echo "# co-runner died; the end of its console:"
		tail -n 5 "$colog" | sed 's/^/#   /'
		corunner_start
	fi
	do_ kill -"$co" "$corunner"
	module "$mod"
	# dbench's files live in the guest's tmpfs (half its memory).
	L2_MEM=768M
	l2_start "$log" "$kernel" "$cpu" "$work $append" -smp "$smp" \
		-name lock,debug-threads=on
	L2_MEM=
	pin "lock guest" "$qpid" "$smp"
	perf_start "$name" "$block"
	[ -z "$dry" ] || return 0
	uptime_
	start=${up%.*} seen= before= hog0= up0=
	while kill -0 "$qpid" 2>/dev/null; do
		# Once a second: the guest's console is a file, and every look
		# at it forks on the CPUs being measured.
		sleep 1
		for w in $(tr -d '\r' <"$log" | sed -n 's/^L2-BENCH-BEGIN \([a-z]*\)$/\1/p
				s/^L2-RESULT \([a-z]*\) .*/\1=/p'); do
			case " $seen " in *" $w "*) continue ;; esac
			seen="$seen $w"
			uptime_
			case $w in
			*=) w=${w%=}
			    hogs_now
			    if [ "$w" = locktorture ]; then
				value=$(tr -d '\r' <"$log" | sed -n 's/^L2-RESULT locktorture writes=\([0-9]*\).* secs=\([0-9.]*\).*/\1 \2/p' |
					awk '{ if ($2 > 0) printf "%.0f", $1 / $2; else print "none" }')
			    else
				value=$(tr -d '\r' <"$log" | sed -n "s/^L2-RESULT $w [a-z]*=\([0-9.]*\).*/\1/p")
			    fi
			    hr=none
			    [ "$co" = CONT ] && hr=$(hograte "$hog0" "$hog")
			    echo "# cfg=$name block=$block wl=$w value=${value:-none}" \
				 "up0=$up0 up1=$up hograte=$hr" \
				 "$(summary "$(delta "$before" "$(snap "$qpid")")")" ;;
			*)  before=$(snap "$qpid")
			    hogs_now
			    hog0=$hog up0=$up
			    echo "# wl-begin cfg=$name block=$block wl=$w up=$up" ;;
			esac
		done
		guest_over "$name" "$start"
	done
	wait "$qpid"
	perf_stop "$name" "$block"
	check_guest "$name" 3
}

# guest_over NAME START: ends the lock guest once it printed L2-END, or
# kills it GB_RUN_LIMIT s (of L1's uptime) after START; sets up.
guest_over() {
	tr -d '\r' <"$log" | grep -q '^L2-END' && kill "$qpid"
	uptime_
	if [ $((${up%.*} - $2)) -ge "$limit" ]; then
		echo "# $1: lock guest still running after $limit s: killed"
		kill -9 "$qpid"
	fi
}

# check_guest NAME RESULTS: 0 when the guest gave RESULTS figures and its
# kernel said nothing bad; 2 when it stopped in the emulator before /init
# (testhost.rst: the run is dropped and said so, not failed); else 1.
check_guest() {
	grep '^L2-KERNEL\|^L2-ERROR' "$log" | sed "s/^/# $1: /"
	[ "$(grep -c '^L2-RESULT [a-z]* [a-z]*=[0-9]' "$log")" = "$2" ] &&
		! grep -q '^L2-KERNEL\|^L2-ERROR\|fail=[1-9]' "$log" && return 0
	# A kernel report's first lines (what and where), which a long
	# trace pushes out of the tail below.
	grep -m 6 -E 'BUG:|WARNING:|Oops|RIP:|Kernel panic|detected (expedited )?stall|soft lockup|hard LOCKUP' "$log" |
		sed "s/^/# $1: report: /"
	echo "# $1: the end of its console:"
	tail -n 15 "$log" | sed "s/^/# $1: /"
	if ! grep -q '^L2-BEGIN' "$log" &&
	   ! grep -Eq 'BUG:|WARNING:|Oops|Kernel panic|detected (expedited )?stall|soft lockup|hard LOCKUP' "$log"; then
		return 2
	fi
	return 1
}

# switches PID: the context switches of process PID's threads so far,
# summed over /proc/PID/task/*/status: $nvsw, the scheduler took a thread
# off its CPU while it could still run (a preemption, a yield), $vsw, it
# blocked (a vCPU's HLT); 0 when it is gone.  GB_PROC: another /proc, for
# the unit test.
switches() {
	set -- $(cat "${GB_PROC:-/proc}/$1"/task/*/status 2>/dev/null | awk '
		$1 == "nonvoluntary_ctxt_switches:" { n += $2 }
		$1 == "voluntary_ctxt_switches:" { v += $2 }
		END { print n + 0, v + 0 }')
	nvsw=$1 vsw=$2
}

# slice_snap WIN [GUESTS]: the lock guest's slice counters now, and those
# of its yields and held spins, as "# ta-cnt"; beside them what L1 did to
# the guests: the lock guests' context switches (GUESTS: tier K's "a b",
# of which only the running one switches), the co-runner's, and the
# co-runner VM's exits and exits for a host interrupt (KVM's exits and
# irq_exits, kvm_vcpu_stats_desc in 6.12) -- where a cost to the
# co-runner would show (results.rst, "What L1 does to the co-runner").
slice_snap() {
	sl=0 sv=0
	for cg in ${2:-l}; do
		eval "cp=\${qpid_$cg:-\$qpid}"
		switches "$cp"
		sl=$((sl + nvsw)) sv=$((sv + vsw))
	done
	switches "$corunner"
	ex="l_switches=$sl l_vswitches=$sv co_switches=$nvsw"
	vmdir "$corunner"
	for f in exits irq_exits; do
		v=0
		[ -z "$d" ] || read -r v <"$d/$f" 2>/dev/null
		ex="$ex co_$f=${v:-0}"
	done
	grep "^$qpid-" "$vms" 2>/dev/null | tr ' ' '\n' |
		awk -F= -v w="$1" -v ex="$ex" '$1 ~ /^slice_(requests|in_cs|granted|steps|expired|cut|left|done|done_idle|ns|desched_cs|still_in_cs|waiting)$/ {
			s = s " " substr($1, 7) "=" $2 }
			$1 ~ /^(yield_ok|yield_reached|yield_missed|held_spin|ple_exits)$/ {
			s = s " " $1 "=" $2 }
			END { print "# ta-cnt win=" w s " " ex }'
}

# ta_wait LOG PID NAME: waits until the guest's workload prints its
# first progress line; 1 if the guest died or GB_RUN_LIMIT s passed.
ta_wait() {
	uptime_
	start=${up%.*}
	while ! tr -d '\r' <"$1" | grep -q '^L2-PROGRESS '; do
		uptime_
		if ! kill -0 "$2" 2>/dev/null || [ $((${up%.*} - start)) -ge "$limit" ]; then
			echo "# $3: no progress line after $((${up%.*} - start)) s"
			return 1
		fi
		sleep 1
	done
}

# clock_last LOG PATTERN FIELD: "N T" for LOG's lines matching PATTERN:
# how many, and the time stamp in FIELD of the last (an "up=T" too).
clock_last() {
	tr -d '\r' <"$1" | awk -v re="$2" -v f="$3" '$0 ~ re {
		n++; g = $f; sub(/^up=/, "", g) } END { print n + 0, g + 0 }'
}

# clock_off UP STAMP OFF: the least of OFF and UP - STAMP.
clock_off() {
	echo "$1 $2 $3" | awk '{ d = $1 - $2; if (NF > 2 && $3 < d) d = $3; printf "%.3f", d }'
}

# ta_clocks TAG LOG [TAG2 LOG2]: settles GB_TA_SETTLE s, and meanwhile
# takes each guest's clock against L1's: the offset is the least of (L1's
# uptime when a progress line is seen) - (the guest's time stamp on it),
# looked at every 0.2 s; the same for the co-runner's progress lines.
# Only now: the windows themselves are not polled.  Prints "# ta-clock"
# (with g=TAG when TAG is set) and "# ta-hogclock".
ta_clocks() {
	tag1=$1 log1=$2 tag2=${3:-} log2=${4:-}
	prog='^L2-PROGRESS [0-9.]+ [0-9]+$'
	uptime_
	start=${up%.*} off= k=0 seen=0 off2= k2=0 seen2=0 hoff= hk=0 hseen=0
	while [ $((${up%.*} - start)) -lt "$ta_settle" ]; do
		set -- $(clock_last "$log1" "$prog" 2)
		uptime_
		if [ "$1" -gt "$seen" ]; then
			seen=$1 k=$((k + 1)) off=$(clock_off "$up" "$2" "$off")
		fi
		if [ -n "$log2" ]; then
			set -- $(clock_last "$log2" "$prog" 2)
			uptime_
			if [ "$1" -gt "$seen2" ]; then
				seen2=$1 k2=$((k2 + 1)) off2=$(clock_off "$up" "$2" "$off2")
			fi
		fi
		set -- $(clock_last "$colog" '^L2-HOGS-PROGRESS [0-9]+ up=[0-9.]+$' 3)
		uptime_
		if [ "$1" -gt "$hseen" ]; then
			hseen=$1 hk=$((hk + 1)) hoff=$(clock_off "$up" "$2" "$hoff")
		fi
		sleep 0.2
	done
	echo "# ta-clock ${tag1:+g=$tag1 }offset=$off samples=$k"
	[ -z "$log2" ] || echo "# ta-clock g=$tag2 offset=$off2 samples=$k2"
	[ -z "$hoff" ] || echo "# ta-hogclock offset=$hoff samples=$hk"
}

# ta_progress TAG LOG: the guest's progress lines, for the table.
ta_progress() {
	tr -d '\r' <"$2" |
		sed -n "s/^L2-PROGRESS \([0-9.]*\) \([0-9]*\)$/# ta-progress ${1:+g=$1 }up=\1 writes=\2/p"
}

# ta_hogs: the co-runner's counts over the same time, for its rate per
# window.
ta_hogs() {
	tr -d '\r' <"$colog" |
		sed -n 's/^L2-HOGS-PROGRESS \([0-9]*\) up=\([0-9.]*\)$/# ta-hog up=\2 total=\1/p'
}

# ta_setup PARAM A B: the setup line; the co-runner running, kvm-pvple
# loaded with mode=auto.  The guests' workload outlasts the windows by
# 30 s ($secs), then each guest reports and ends (tier A; tier K ends its
# guests as the windows end, tk_place).
ta_setup() {
	secs=$((ta_settle + 4 * ta_groups * win + 30))
	echo "# ta-setup win=$win guard=$ta_guard groups=$ta_groups settle=$ta_settle writers=$ta_writers wl=$ta_wl n=$ta_n param=$1 a=$2 b=$3${tknote:-}${l2_args:+ l2args=$(echo $l2_args | tr ' ' ,)}"
	do_ kill -CONT "$corunner"
	module on
	do_ sh -c "echo auto >$modeparam"
	# The switched parameter's value before the windows, put back after.
	ta_was=$slice_us
	[ -z "$dry" ] && [ -r "$taparam" ] && read -r ta_was <"$taparam"
}

# ta_guest LOG KERNEL NAME [VCPUS]: a lock guest that runs tier A's
# workload alone, with GB_VCPUS vCPUs unless VCPUS.
ta_guest() {
	l2_start "$1" "$2" "$cpu" \
		"l2.bench=1 bench.hb=0 bench.db=0 bench.lt=0 bench.settle=0 bench.warm=0 bench.ta=$secs:$ta_n bench.tw=$ta_wl bench.tl=$ta_loops$tk_wd${l2_args:+ $l2_args}" \
		-smp "${4:-$vcpus}" -name "$3,debug-threads=on"
}

# ticks PID: the CPU time of process PID (all its threads: user and
# system, in USER_HZ ticks, 100 a second on x86) in $tck, without a
# fork; 0 when it is gone.  GB_PROC: another /proc, for the unit test.
ticks() {
	tck=0
	[ -r "${GB_PROC:-/proc}/$1/stat" ] || return 0
	read -r tst <"${GB_PROC:-/proc}/$1/stat"
	# After the command's name, field 14 (utime) is the 12th.
	set -- ${tst##*") "}
	tck=$((${12} + ${13}))
}

# cpu_tags: each lock guest's and the co-runner's CPU time now, in $cpus:
# what a window's rate cost in L1's CPU time, so that a guest that got
# more done because it got more CPU is told apart from one whose work
# ran faster on the same CPU time (results.rst, tier K's offset).
cpu_tags() {
	cpus=
	for cg in ${1:-l}; do
		eval "cp=\${qpid_$cg:-\$qpid}"
		ticks "$cp"
		cpus="$cpus cpu_$cg=$tck"
	done
	ticks "$corunner"
	cpus="$cpus cpu_co=$tck"
}

# GB_TA_TRACE=N: window N (of tier A or K) also records how the lock
# guest's slice grants begin and end, summed up by slice-trace.awk.  Only
# grant timers' hrtimer events are kept (filtered on the callback's
# address) and only vCPU threads' switches ("CPU n/KVM"): a recording
# that costs the window a little, so that window's figures are not
# comparable; it is for finding out where grants go, not for ratios.
tr=/sys/kernel/tracing
trace_start() {
	fn=$(awk '$3 == "pvple_slice_expired" { print $1; exit }' /proc/kallsyms)
	echo 0 >$tr/tracing_on
	echo >$tr/trace
	echo mono >$tr/trace_clock
	echo 16384 >$tr/buffer_size_kb
	for e in hrtimer_start hrtimer_expire_entry; do
		echo "function == 0x$fn" >$tr/events/timer/$e/filter
		echo 1 >$tr/events/timer/$e/enable
	done
	echo 'prev_comm ~ "CPU *"' >$tr/events/sched/sched_switch/filter
	echo 1 >$tr/events/sched/sched_switch/enable
	echo 1 >$tr/events/kvm_pvple/kvm_pvple_slice/enable
	echo 1 >$tr/tracing_on
}

trace_stop() {
	echo 0 >$tr/tracing_on
	for e in timer/hrtimer_start timer/hrtimer_expire_entry \
		 sched/sched_switch kvm_pvple/kvm_pvple_slice; do
		echo 0 >$tr/events/$e/enable
		echo 0 >$tr/events/$e/filter 2>/dev/null
	done
	echo "# slice-trace window=$1 lines=$(grep -vc '^#' $tr/trace)" \
	     "lost=$(grep -o 'entries-in-buffer/entries-written: [0-9/]*' $tr/trace)"
	awk -f "$(dirname "$0")/slice-trace.awk" $tr/trace
	grep -v '^#' $tr/trace | head -n 40 | sed 's/^/# slice-trace-raw /'
	echo local >$tr/trace_clock
}

# ta_windows SWITCH A B [GUESTS]: GB_TA_GROUPS ABBA groups of GB_WIN s
# windows.  "SWITCH ARM" starts each window (with GB_DRY=1 it only says
# what it would do) and sets $tags, what the window's line says of it.
# GUESTS: tier K's "a b", whose QEMUs' CPU time each line notes.  Window
# numbers ($wi) go on from one call to the next (tier K's placements).
wi=0
ta_windows() {
	g=0
	while [ "$g" -lt "$ta_groups" ]; do
		g=$((g + 1))
		for m in "$2" "$3" "$3" "$2"; do
			wi=$((wi + 1))
			$1 "$m"
			[ -z "$dry" ] || continue
			uptime_
			cpu_tags "${4:-}"
			echo "# ta-win win=$wi group=$g $tags${ptag:-} l1=$up$cpus"
			slice_snap "$wi" "${4:-}"
			if [ "$wi" = "$ta_trace" ]; then
				trace_start
				sleep "$win"
				trace_stop "$wi"
			else
				sleep "$win"
			fi
		done
	done
	[ -z "$dry" ] || return 0
	uptime_
	cpu_tags "${4:-}"
	echo "# ta-end l1=$up$cpus"
	slice_snap end "${4:-}"
}

# ta_param_to VALUE: tier A's switch, the module parameter.
ta_param_to() {
	if [ -n "$dry" ]; then
		echo "# would run: echo $1 >$taparam"
	else
		echo "$1" >"$taparam"
	fi
	tags="mode=$1"
}

# tk_run GUEST: tier K's switch: GUEST (a or b) runs, the other is
# stopped, first, so that the two never run at once.  A guest that is
# the undercommitted reference (GB_TK_B=under) runs with the co-runner
# stopped as well, which is stopped before and continued after the
# guests' switch: the co-runner never runs beside it.
tk_run() {
	eval "tk_k=\$kern_$1"
	if [ -n "$dry" ]; then
		echo "# would run guest $1 alone for $win s$([ "$tk_k" != under ] || echo ", the co-runner stopped")"
	else
		[ "$tk_k" != under ] || kill -STOP "$corunner"
		if [ "$1" = a ]; then
			kill -STOP "$qpid_b"; kill -CONT "$qpid_a"
		else
			kill -STOP "$qpid_a"; kill -CONT "$qpid_b"
		fi
		[ "$tk_k" = under ] || kill -CONT "$corunner"
	fi
	tags="mode=$tk_k guest=$1"
}

# ta_end TAG NAME: waits for the guest in $qpid/$log to end its
# workload and report; its progress lines for the table.
ta_end() {
	uptime_
	start=${up%.*}
	while kill -0 "$qpid" 2>/dev/null; do
		sleep 1
		guest_over "$2" "$start"
	done
	wait "$qpid"
	ta_progress "$1" "$log"
}

# tier_a: one boot, a kvm-pvple parameter switched in ABBA windows.
tier_a() {
	name=tiera log=/tmp/gb-tiera.log
	ta_setup "$ta_param" "$ta_a" "$ta_b"
	L2_MEM=768M
	ta_guest "$log" bzImage-pvple lock
	L2_MEM=
	pin "lock guest" "$qpid" "$vcpus"
	if [ -n "$dry" ]; then
		echo "# would wait for the first progress line, then $ta_settle s"
	elif ! ta_wait "$log" "$qpid" tiera; then
		kill -9 "$qpid" 2>/dev/null
		wait "$qpid"
		check_guest tiera 1
		return 1
	else
		ta_clocks "" "$log"
	fi
	ta_windows ta_param_to "$ta_a" "$ta_b"
	do_ sh -c "echo auto >$modeparam"
	[ "$ta_param" = mode ] || do_ sh -c "echo $ta_was >$taparam"
	[ -z "$dry" ] || return 0
	ta_end "" tiera
	ta_hogs
	check_guest tiera 1
}

# tk_mem WHEN: each lock guest's memory in L1, "# tk-mem": its QEMU's
# resident set and how much of it is in transparent huge pages (L1's THP
# is "always", Debian's default), and L1's free memory.  A guest whose
# memory L1 maps with 4 KB pages makes the emulator walk more nested page
# tables than one mapped with 2 MB pages: a candidate for tier K's
# per-boot asymmetry between its two guests (Documentation/results.rst).
tk_mem() {
	for g in a b; do
		eval "p=\$qpid_$g"
		awk -v w="$1" -v g="$g" '/^Rss:/ { r = $2 } /^AnonHugePages:/ { h = $2 }
			END { print "# tk-mem when=" w " g=" g " rss=" r + 0 " huge=" h + 0 }' \
			"/proc/$p/smaps_rollup" 2>/dev/null
	done
	awk -v w="$1" '/^MemFree:/ { f = $2 } /^AnonHugePages:/ { h = $2 }
		END { print "# tk-mem when=" w " g=l1 free=" f + 0 " huge=" h + 0 }' /proc/meminfo
}

# tk_kvm WHEN: each lock guest's statistics in L1's KVM, "# tk-kvm": every
# counter of its VM's debugfs directory (KVM's per-VM and summed per-vCPU
# statistics, kvm_vm_stats_desc and kvm_vcpu_stats_desc in 6.12), among
# them how its nested page tables map its memory (pages_4k, pages_2m) and
# its exits by kind: the difference between a fast and a slow boot of the
# same kernel (results.rst, tier K's per-boot speed).
tk_kvm() {
	for g in a b; do
		eval "vmdir \$qpid_$g"
		[ -n "$d" ] || continue
		printf '# tk-kvm when=%s g=%s' "$1" "$g"
		for f in "$d"/*; do
			[ -f "$f" ] || continue
			read -r v <"$f" 2>/dev/null || continue
			case $v in *[!0-9]* | '') continue ;; esac
			printf ' %s=%s' "${f##*/}" "$v"
		done
		echo
	done
}

# tk_place P FIRST SWAP: placement P of tier K: both guests booted
# afresh, FIRST's QEMU started first, settled, GB_TA_GROUPS ABBA groups
# of windows, then both are ended and judged by their consoles
# (tk_check); a placement that failed before its windows waits for its
# guests to end and checks them as tier A does (check_guest).
# SWAP=1: guest a boots GB_TK_B's kernel and guest b GB_TK_A's.
tk_place() {
	ptag=" place=$1"
	echo "# tk-place place=$1 first=$2 swap=$3"
	kern_a=$tk_a kern_b=$tk_b
	[ "$3" = 0 ] || kern_a=$tk_b kern_b=$tk_a
	tk_order="a b"
	[ "$2" != b ] || tk_order="b a"
	for g in $tk_order; do
		eval "k=\$kern_$g"
		log=/tmp/gb-tierk-$g.log
		img=bzImage-$k n=$vcpus
		[ "$k" != under ] || img=bzImage-stock n=$under
		ta_guest "$log" "$img" "lock-$g" "$n"
		pin "lock guest $g ($k)" "$qpid" "$n"
		eval "qpid_$g=\$qpid"
	done
	if [ -n "$dry" ]; then
		echo "# would wait for both guests' first progress lines, then $ta_settle s"
		ta_windows tk_run a b "a b"
		return 0
	fi
	prc=0
	for g in a b; do
		eval "qpid=\$qpid_$g"
		ta_wait "/tmp/gb-tierk-$g.log" "$qpid" "tierk-$g" || prc=1
	done
	if [ "$prc" = 0 ]; then
		ta_clocks a /tmp/gb-tierk-a.log b /tmp/gb-tierk-b.log
		# The counters (ta-cnt) are those of GB_TK_B's kernel, which
		# is kvm-pvple's (all zero for GB_TK_B=stock or under).
		qpid=$qpid_b
		[ "$3" = 0 ] || qpid=$qpid_a
		tk_mem "settled$pl"
		tk_kvm "settled$pl"
		ta_windows tk_run a b "a b"
		tk_kvm "end$pl"
		tk_mem "end$pl"
	fi
	kill -CONT "$qpid_a" "$qpid_b" "$corunner" 2>/dev/null
	ran=$prc
	for g in a b; do
		log=/tmp/gb-tierk-$g.log
		eval "qpid=\$qpid_$g"
		if [ "$ran" = 0 ]; then
			# The windows are over: what the workload would still
			# do is measured by nothing (1-2 minutes a placement,
			# dbench's warm-up at the end included).  End the
			# guest now, and judge it by its console.
			kill "$qpid" 2>/dev/null
			k=0
			while kill -0 "$qpid" 2>/dev/null && [ "$k" -lt 10 ]; do
				sleep 1
				k=$((k + 1))
			done
			kill -9 "$qpid" 2>/dev/null
			wait "$qpid" 2>/dev/null
			ta_progress "$g" "$log"
			tr -d '\r' <"$log" |
				sed -n -e "s/^L2-VMSTAT \([0-9.]*\) /# tk-l2vm g=$g up=\1 /p" \
					-e "s/^L2-DMESG /# tk-l2dmesg g=$g /p"
			tk_check "tierk-$g" || prc=1
			continue
		fi
		kill -9 "$qpid" 2>/dev/null
		ta_end "$g" "tierk-$g"
		# A failure (1) stands over a stop in the emulator (2).
		check_guest "tierk-$g" 1 || { r=$?; [ "$prc" = 1 ] || prc=$r; }
	done
	return "$prc"
}

# tk_check NAME: a tier K guest in $log, ended after its windows: 0 if its
# console has progress lines and none of these, else 1, with the lines:
# a kernel failure or a locktorture statistics line with failures, as
# l2-bench's kmsg_faults prints them when the kernel logs them
# (L2-KERNEL: WARNINGs, RCU stalls, ...), the level-0 reports the
# console level of 1 still shows as they are (lockups, oopses, panics),
# or a workload's error line.
tk_check() {
	if tr -d '\r' <"$log" |
	   grep -E 'BUG:|Oops|Kernel panic|soft lockup|hard LOCKUP|^L2-(ERROR|KERNEL)' |
	   head -n 8 | sed "s/^/# $1: /" | grep .; then
		return 1
	fi
	tr -d '\r' <"$log" | grep -q '^L2-PROGRESS ' && return 0
	echo "# $1: no progress line"
	return 1
}

# tier_k: two guest kernels in one boot, one stopped while the other runs,
# in ABBA windows; GB_TK_PLACES placements of the two, one after another.
tier_k() {
	name=tierk
	tknote=" first=$tk_first places=$tk_places swap=$tk_swap"
	# A tier K guest stays stopped (SIGSTOP, so its kvm-clock runs on
	# and QEMU never tells it it was paused) for two windows and more:
	# the guest's soft-lockup detector, at 2 x watchdog_thresh (20 s by
	# default), then reports every CPU stuck, and RCU's stall detector
	# (21 s) a stall, which fails the run (12 s hackbench windows,
	# 2026-12-03).  Both bounds go up to 4 x the window where that is
	# needed; 4 s windows keep the defaults.
	[ $((4 * win)) -lt 20 ] ||
		tk_wd=" watchdog_thresh=$((2 * win)) rcupdate.rcu_cpu_stall_timeout=$((4 * win))"
	ta_setup kernel "$tk_a" "$tk_b"
	# Each guest's workload counts from its own start, and the windows
	# start after both and run over their nominal length by the
	# harness's time (0.13-0.18 s a window, 2026-12-03): 1 s a group
	# more, and 20 s.
	secs=$((secs + ta_groups + 20))
	# Two guests in L1's 2 GB: dbench's files (in the guest's tmpfs,
	# half its memory) want more than locktorture.
	L2_MEM=384M
	[ "$ta_wl" != dbench ] || L2_MEM=512M
	# Placement p starts GB_TK_FIRST's QEMU first when p mod 4 is 1 or
	# 0, the other's when it is 2 or 3: ABBA over the placements, so an
	# advantage of the guest started first (tier K's A/A boots,
	# results.rst) cancels over each four.  With GB_TK_SWAP=1 the
	# kernels swap guests in placements 3 and 4 of each four: every
	# pairing of a kernel's place and the guest started first comes
	# once in every four.
	other=b
	[ "$tk_first" != b ] || other=a
	rc=0 tkp=0 pl=
	while [ "$tkp" -lt "$tk_places" ]; do
		tkp=$((tkp + 1))
		[ "$tk_places" = 1 ] || pl=-p$tkp
		case $((tkp % 4)) in
		0 | 1) tkf=$tk_first ;;
		*) tkf=$other ;;
		esac
		tks=0
		[ "$tk_swap" = 0 ] || tks=$((((tkp - 1) / 2) % 2))
		tk_place "$tkp" "$tkf" "$tks" || rc=$?
		[ "$rc" = 0 ] || break
	done
	L2_MEM=
	[ -z "$dry" ] || return 0
	ta_hogs
	return "$rc"
}

echo "TAP version 13"
if [ "$tier" = A ] || [ "$tier" = K ]; then
	echo "1..1"
else
	echo "1..$((blocks * nconf))"
fi
echo "# guests-bench: tier $tier, $vcpus-vCPU lock guest, $hogs-vCPU co-runner," \
     "$under vCPUs undercommitted, $ncpus host CPUs," \
     "$([ "$tier" != B ] && echo "$([ "$tier" != K ] || echo "$tk_places x ")$ta_groups ABBA groups of $win s windows" ||
	echo "$blocks blocks of $nconf"); $work"
echo "# gb-setup tier=$tier cpus=$ncpus vcpus=$vcpus hogs=$hogs under=$under" \
     "blocks=$blocks pin=$pin_on configs=$(echo $configs | tr ' ' ,)"
[ -n "$perf" ] || echo "# perf not found: no perf stat lines"
# GB_SCHED_FEAT: L1 scheduler features to set first (comma-separated, as
# in /sys/kernel/debug/sched/features: NO_PICK_BUDDY turns off the only
# way 6.12's EEVDF honours a directed yield's buddy).  Each is read back.
for f in $(echo "${GB_SCHED_FEAT:-}" | tr , ' '); do
	sf=/sys/kernel/debug/sched/features
	[ -n "$dry" ] || [ -d /sys/kernel/debug/sched ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
	do_ sh -c "echo $f >$sf"
	if [ -z "$dry" ] && ! tr ' ' '\n' <"$sf" | grep -qx "$f"; then
		echo "Bail out! scheduler feature $f not set"
		exit 1
	fi
	echo "# sched-feature $f"
done
# GB_SCHED_SLICE_NS: L1's EEVDF base slice (debugfs
# sched/base_slice_ns, sysctl_sched_base_slice in 6.12: the request every
# task runs for before the pick may preempt it, 0.7 ms x (1 +
# ilog2(min(CPUs, 8))) by default, get_update_sysctl_factor(): 1.4 ms on
# L1's two CPUs), read back; the value the run had is noted either way.
sbs=/sys/kernel/debug/sched/base_slice_ns
sbs_was=
if [ -n "${GB_SCHED_SLICE_NS:-}" ]; then
	[ -n "$dry" ] || [ -d /sys/kernel/debug/sched ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
	[ -n "$dry" ] || sbs_was=$(cat $sbs)
	do_ sh -c "echo $GB_SCHED_SLICE_NS >$sbs"
	if [ -z "$dry" ] && [ "$(cat $sbs)" != "$GB_SCHED_SLICE_NS" ]; then
		echo "Bail out! base slice $GB_SCHED_SLICE_NS not set"
		exit 1
	fi
fi
[ -n "$dry" ] || [ ! -r "$sbs" ] || echo "# sched-base-slice ns=$(cat $sbs)"
[ -n "$dry" ] || keeper_start
corunner_start

# outcome RC WHAT: the TAP line of a run; status 2 is a guest that stopped
# in the emulator before /init, skipped and said so, never passed.
outcome() {
	if [ "$1" = 2 ]; then
		tap_skip "$2" "emulator: the guest stopped before /init"
	else
		tap_result "$1" "$2"
	fi
}

if [ "$tier" = A ]; then
	tier_a
	outcome $? "tier A: $ta_groups ABBA groups"
elif [ "$tier" = K ]; then
	tier_k
	outcome $? "tier K: $tk_b against $tk_a, $tk_places x $ta_groups ABBA groups"
else
	# GB_BLOCK0: the first block's number, so that blocks run in
	# several boots (soak.sh's bench load) take the design's rows in
	# turn and keep distinct numbers.
	b=$((${GB_BLOCK0:-1} - 1))
	while [ "$b" -lt "$((blocks + ${GB_BLOCK0:-1} - 1))" ]; do
		b=$((b + 1))
		o=$(order "$b")
		echo "# block $b: $o"
		for c in $o; do
			run "$c" "$b"
			outcome $? "block $b: $c"
		done
	done
fi

if [ -z "$dry" ]; then
	kill -CONT "$corunner"
	kill "$corunner"
	wait "$corunner" 2>/dev/null
	keeper_stop
	# The base slice back as it was (make bench-host runs on a real host).
	[ -z "$sbs_was" ] || echo "$sbs_was" >$sbs
fi
module on
[ "$tap_failed" = 0 ]
