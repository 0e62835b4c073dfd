#!/bin/sh
# The Linux-guest benchmark (make bench, PVPLE_BENCH_ONLY=guests; make
# bench-host on a real KVM host).  Runs where the guests' KVM is: inside
# the test host (L1), or on the host itself.  A lock guest (GB_VCPUS
# vCPUs) runs hackbench, dbench and locktorture (scripts/guest/l2-bench)
# beside a co-runner guest of GB_HOGS vCPUs that spins CPU hogs, nothing
# pinned.  Configurations, alternated round by round (the order rotates
# every round, so none always follows the same one):
#   ple     unpatched guest, nopvspin: native qspinlock, KVM's PLE alone
#   anchor  unpatched guest, stock pvqspinlock, no kvm-pvple: the anchor
#   gyield  unpatched + scripts/guest/bench-guest-yield.patch, no module:
#           the guest yields to a preempted predecessor by itself
#   pvple   guest-pvlock series, kvm-pvple loaded: the product
#   series  guest-pvlock series, no kvm-pvple: the series' own cost
#   under   anchor with GB_UNDER_VCPUS vCPUs (one per host CPU) and the
#           co-runner stopped: the undercommitted reference
# Every run prints one line per workload,
#   # cfg=C round=R wl=W value=V ple=.. acted=.. yield=.. park=.. ...
# with the guest's result and the counters over that workload only (KVM's
# per-VM statistics, kvm-pvple's per-VM counters where it is loaded),
# which scripts/guest/guests-table.sh turns into the table.  TAP: one
# line per run.  GB_DRY=1 prints the plan and the commands instead.
. "$(dirname "$0")/l1-lib.sh"
rounds=${GB_ROUNDS:-5}
# Comma-separated on a kernel command line, which splits at spaces.
configs=$(echo "${GB_CONFIGS:-ple anchor gyield pvple series under}" | tr , ' ')
vcpus=${GB_VCPUS:-4}
hogs=${GB_HOGS:-2}
under=${GB_UNDER_VCPUS:-$(grep -c ^processor /proc/cpuinfo)}
cpu=${GB_CPU:-host,-xsave}
work="l2.bench=1 bench.hb=${GB_HB:-3:30} bench.db=${GB_DB:-6:4} bench.lt=${GB_LT:-6:8}"
limit=${GB_RUN_LIMIT:-300}
ko=${PVPLE_KO:-/pvple/ko/kvm-pvple.ko}
dry=${GB_DRY:-}
L2_DRY=$dry
vms=/sys/kernel/debug/kvm-pvple/vms
kvmdbg=/sys/kernel/debug/kvm
perf=${GB_PERF:-$(command -v perf)}
# The PAUSE exit's code in KVM's kvm_exit tracepoint.
if [ -d /sys/module/kvm_intel ]; then pause_exit=40; else pause_exit=0x77; fi

# do_ CMD...: runs CMD, or with GB_DRY=1 prints it.
do_() {
	if [ -n "$dry" ]; then echo "# would run: $*"; else "$@"; fi
}

modstate=off
[ -d /sys/module/kvm_pvple ] && modstate=on
module() {
	[ "$1" = "$modstate" ] && return
	if [ "$1" = on ]; then do_ insmod "$ko"; else do_ rmmod kvm_pvple; fi
	modstate=$1
}

# cfg NAME: sets kernel, append, smp, mod (kvm-pvple on or off) and co
# (the co-runner's signal: CONT or STOP) for a configuration.
cfg() {
	kernel=bzImage-stock append= smp=$vcpus mod=off co=CONT
	case $1 in
	ple) append=nopvspin ;;
	anchor) ;;
	gyield) kernel=bzImage-gyield ;;
	pvple) kernel=bzImage-pvple mod=on ;;
	series) kernel=bzImage-pvple ;;
	under) smp=$under co=STOP ;;
	*) echo "Bail out! unknown configuration $1"; exit 1 ;;
	esac
}

# snap VMPID: "key=value ..." of KVM's statistics of the VM and, when
# kvm-pvple is loaded, its counters for the VM.
snap() {
	d=$(ls -d "$kvmdbg/$1"-* 2>/dev/null | head -n 1)
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
# yields, halts.
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
		printf " holder=%d nostock=%d nohold=%d",
		       v["yield_holder"], acted + v["spin"],
		       v["rec_no_holder"] + v["chain_no_holder"]
	}'
}

corunner_start() {
	l2_start /tmp/gb-corunner.log bzImage-stock "$cpu" \
		"l2.hogs=$hogs locktorture.torture_type=none" -smp "$hogs"
	corunner=${qpid:-CO-RUNNER}
	echo "# co-runner: $hogs vCPUs of CPU hogs, pid $corunner"
}

# run NAME ROUND: one boot of the lock guest in configuration NAME.
run() {
	name=$1 round=$2 log=/tmp/gb-$1-$2.log
	cfg "$name"
	echo "# $name: $kernel -smp $smp, kvm-pvple $mod, co-runner $co"
	if [ -z "$dry" ] && ! kill -0 "$corunner" 2>/dev/null; then
		echo "# co-runner died; the end of its console:"
		tail -n 5 /tmp/gb-corunner.log | sed 's/^/#   /'
		corunner_start
	fi
	do_ kill -"$co" "$corunner"
	module "$mod"
	# dbench's files live in the guest's tmpfs (half its memory).
	L2_MEM=768M
	l2_start "$log" "$kernel" "$cpu" "$work $append" -smp "$smp"
	L2_MEM=
	[ -z "$dry" ] || return 0
	ppid=
	if [ -n "$perf" ]; then
		ev="-e kvm:kvm_exit -e kvm:kvm_exit --filter exit_reason==$pause_exit"
		[ "$mod" = on ] && ev="$ev -e kvm_pvple:*"
		# System-wide, no workload: it counts until SIGINT.  (With a
		# workload it would wait for that to end, whatever the signal.)
		$perf stat -a -x, -o "/tmp/gb-perf-$name-$round" $ev \
			2>/dev/null &
		ppid=$!
	fi
	t=0 seen= before=
	while kill -0 "$qpid" 2>/dev/null; do
		sleep 0.2
		t=$((t + 1))
		for w in $(sed -n 's/^L2-BENCH-BEGIN //p; s/^L2-RESULT \([a-z]*\) .*/\1=/p' "$log"); do
			case " $seen " in *" $w "*) continue ;; esac
			seen="$seen $w"
			case $w in
			*=) w=${w%=}
			    value=$(sed -n "s/^L2-RESULT $w [a-z]*=\([^ ]*\).*/\1/p" "$log")
			    [ "$w" = locktorture ] && value=$(sed -n "s/^L2-RESULT locktorture writes=\([0-9]*\).* secs=\([0-9.]*\).*/\1 \2/p" "$log" |
				awk '{ if ($2 > 0) printf "%.0f", $1 / $2; else print "none" }')
			    echo "# cfg=$name round=$round wl=$w value=${value:-none}" \
				 "$(summary "$(delta "$before" "$(snap "$qpid")")")" ;;
			*)  before=$(snap "$qpid") ;;
			esac
		done
		grep -q '^L2-END' "$log" && kill "$qpid"
		if [ "$t" -ge $((limit * 5)) ]; then
			echo "# $name: lock guest still running after $limit s: killed"
			kill -9 "$qpid"
		fi
	done
	wait "$qpid"
	if [ -n "$ppid" ]; then
		kill -INT "$ppid" 2>/dev/null
		wait "$ppid"
		# The second kvm:kvm_exit is the one filtered to PAUSE exits.
		awk -F, -v c="$name" -v r="$round" '$3 ~ /:/ {
			e = $3; if (e in seen) e = e "(pause)"; seen[e] = 1
			printf "# perf cfg=%s round=%s %s=%s\n", c, r, e, $1 }' \
			"/tmp/gb-perf-$name-$round"
	fi
	grep '^L2-KERNEL\|^L2-ERROR' "$log" | sed "s/^/# $name: /"
	# Every workload gave a figure, and the guest kernel said nothing bad.
	[ "$(grep -c '^L2-RESULT [a-z]* [a-z]*=[0-9]' "$log")" = 3 ] &&
		! grep -q '^L2-KERNEL\|^L2-ERROR\|fail=[1-9]' "$log" && return 0
	echo "# $name: the end of its console:"
	tail -n 15 "$log" | sed "s/^/# $name: /"
	# A guest that never reached /init and said nothing bad stopped in the
	# emulator (testhost.rst): the run is dropped and said so, not failed.
	if ! grep -q '^L2-BEGIN' "$log" &&
	   ! grep -Eq 'BUG:|WARNING:|Oops|Kernel panic|stall|lockup' "$log"; then
		return 2
	fi
	return 1
}

echo "TAP version 13"
echo "1..$((rounds * $(echo $configs | wc -w)))"
echo "# guests-bench: $vcpus-vCPU lock guest, $hogs-vCPU co-runner," \
     "$under vCPUs undercommitted, $(grep -c ^processor /proc/cpuinfo) host CPUs," \
     "$rounds rounds; $work"
[ -n "$perf" ] || echo "# perf not found: no perf stat lines"
[ -n "$dry" ] || keeper_start
corunner_start

i=0
while [ "$i" -lt "$rounds" ]; do
	i=$((i + 1))
	# Rotate the order: round i starts with the i-th configuration.
	set -- $configs
	k=$(( (i - 1) % $# ))
	while [ "$k" -gt 0 ]; do set -- "$@" "$1"; shift; k=$((k - 1)); done
	for c in "$@"; do
		run "$c" "$i"
		rc=$?
		if [ "$rc" = 2 ]; then
			n=$((n + 1))
			echo "ok $n round $i: $c # SKIP emulator: the guest stopped before /init"
		else
			result "$rc" "round $i: $c"
		fi
	done
done

if [ -z "$dry" ]; then
	kill -CONT "$corunner"
	kill "$corunner"
	wait "$corunner" 2>/dev/null
	keeper_stop
fi
module on
[ "$failed" = 0 ]
