#!/bin/bash
# Unit tests of the Linux-guest benchmark's two halves that need no KVM:
# the plan "make bench-host --dry-run" prints (what a real host would run,
# configuration by configuration), and the table scripts/guest/
# guests-table.sh computes from a results file.  TAP output.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

# check DESCRIPTION CMD...: one TAP line for a command that must succeed.
check() {
	local d=$1
	shift
	n=$((n + 1))
	if "$@" >"$tmp/why" 2>&1; then
		echo "ok $n guests-bench: $d"
	else
		echo "not ok $n guests-bench: $d"
		sed 's/^/# /' "$tmp/why" | head -n 10
		failed=$((failed + 1))
	fi
}

GB_ROUNDS=5 GB_UNDER_VCPUS=3 BENCH_CPUS=0 \
	"$top/scripts/bench-host.sh" --dry-run >"$tmp/plan" 2>&1
rc=$?
check "the dry run exits 0 on a machine without KVM" [ "$rc" = 0 ]
check "the dry run checks every prerequisite" \
	[ "$(grep -c '^# prerequisite \(ok\|MISSING\)' "$tmp/plan")" = 9 ]
# No PLE on this machine, one CPU named: both must be reported missing.
check "a host without PLE is reported" \
	grep -q '^# prerequisite MISSING: pause-loop exiting' "$tmp/plan"
check "fewer than two host CPUs are reported" \
	grep -q '^# prerequisite MISSING: BENCH_CPUS=0 names two' "$tmp/plan"
check "it plans 30 runs (6 configurations x 5 rounds)" \
	[ "$(grep -c '^ok [0-9]* round [1-5]: ' "$tmp/plan")" = 30 ]

# Runs as "ROUND CONFIG", in order.
sed -n 's/^ok [0-9]* round \([0-9]\): \([a-z]*\)$/\1 \2/p' "$tmp/plan" >"$tmp/runs"
every_round_once() {
	local r
	for r in 1 2 3 4 5; do
		[ "$(grep "^$r " "$tmp/runs" | cut -d' ' -f2 | sort | tr '\n' ' ')" = \
		  "anchor gyield ple pvple series under " ] || return 1
	done
}
check "each configuration runs once in every round" every_round_once
rotates() {
	[ "$(awk 'NR % 6 == 1 { printf "%s ", $2 }' "$tmp/runs")" = \
	  "ple anchor gyield pvple series " ]
}
check "the order rotates: round i starts with the i-th configuration" rotates

# The guest command line of each configuration: the block of lines from
# "# NAME:" to its TAP line.
block() { awk -v c="$1" '$0 ~ "^# " c ": " { on = 1 } on { print } on && /^ok / { exit }' "$tmp/plan"; }
qemu_of() { block "$1" | grep 'would run: .*qemu-system' | grep -v 'l2.hogs'; }
check "ple boots the unpatched kernel with nopvspin" \
	sh -c "echo '$(qemu_of ple)' | grep -q 'bzImage-stock .*initramfs-stock.*nopvspin'"
check "anchor boots the unpatched kernel without nopvspin" \
	sh -c "echo '$(qemu_of anchor)' | grep 'bzImage-stock' | grep -vq nopvspin"
check "gyield boots the guest-only yield kernel" \
	sh -c "echo '$(qemu_of gyield)' | grep -q 'bzImage-gyield .*initramfs-gyield'"
check "pvple and series boot the guest-pvlock kernel" \
	sh -c "echo '$(qemu_of pvple) $(qemu_of series)' | grep -c 'bzImage-pvple' | grep -qx 1 &&
	       echo '$(qemu_of series)' | grep -q bzImage-pvple"
check "under has GB_UNDER_VCPUS vCPUs and stops the co-runner" \
	sh -c "echo '$(qemu_of under)' | grep -q -- '-smp 3 ' &&
	       block() { :; }; grep -q '^# under: .*co-runner STOP' '$tmp/plan'"
check "the other configurations have 4 vCPUs and a running co-runner" \
	[ "$(grep -c '^# [a-z]*: bzImage-[a-z]* -smp 4, kvm-pvple o[nf]*, co-runner CONT' "$tmp/plan")" = 25 ]
# kvm-pvple is loaded for pvple alone: replay the insmod/rmmod lines.
module_only_for_pvple() {
	awk '/would run: insmod/ { m = 1 } /would run: rmmod/ { m = 0 }
	     /^# [a-z]+: bzImage/ { c = $2 }
	     /would run: .*qemu-system.*l2.bench/ {
		if ((c == "pvple:") != m) { print "wrong module state for " c; bad = 1 } }
	     END { exit bad }' "$tmp/plan"
}
check "kvm-pvple is loaded for pvple, and only for pvple" module_only_for_pvple
check "the guests are confined to BENCH_CPUS with taskset" \
	sh -c "! grep 'would run: .*qemu-system' '$tmp/plan' | grep -vq 'taskset -c 0 '"

# The table, from a results file with known figures.
{
	for r in 1 2 3 4 5; do
		# hackbench seconds, lower is better; dbench MB/s, higher is better
		echo "# cfg=anchor round=$r wl=hackbench value=$((8 + r)) ple=- acted=0"
		echo "# cfg=pvple round=$r wl=hackbench value=$((3 + r)) ple=100 hcpark=10 acted=$((50 + r)) yield=40 park=$((10 + r)) spin=20 stock=30 idle=25"
		echo "# cfg=ple round=$r wl=hackbench value=$((40 + 2 * r)) ple=-"
		echo "# cfg=under round=$r wl=hackbench value=$((2 + r))"
		echo "# cfg=series round=$r wl=hackbench value=$((8 + r))"
		echo "# cfg=anchor round=$r wl=dbench value=$((100 + 10 * r))"
		echo "# cfg=pvple round=$r wl=dbench value=$((200 + 10 * r)) ple=10 acted=5"
	done
	echo "# cfg=gyield round=1 wl=hackbench value=none"
	echo "# cfg=gyield round=2 wl=hackbench value=10"
	echo "not ok 7 round 1: gyield"
} >"$tmp/results"
"$top/scripts/guest/guests-table.sh" "$tmp/results" >"$tmp/table" 2>&1
check "the table script runs" [ $? = 0 ]
row() { grep -E "^$1 +$2" "$tmp/table" | tr -s ' '; }
# anchor hackbench 9..13: median 11; pvple 4..8: 6; under 3..7: 5; ple 42..50: 46
check "medians, min-max and the multiple of the reference" \
	sh -c "[ '$(row hackbench 's +anchor')' = 'hackbench s anchor: unpatched, pvqspinlock (anchor) 5 11.00 9.00-13.00 2.20' ]"
check "a run without a figure is not counted" \
	sh -c "[ '$(row hackbench 's +gyield' | cut -d' ' -f8)' = 1 ]"
check "ratios of medians, time inverted: pvple/anchor 11/6 and 230/130" \
	sh -c "[ '$(row pvple/anchor '' | cut -d' ' -f2-)' = '1.83 1.77' ]"
check "pvple/ple 46/6 and a missing configuration as -" \
	sh -c "[ '$(row pvple/ple '' | cut -d' ' -f2-)' = '7.67 -' ]"
check "the anchor's first and second half (rounds 1-2 vs 3-5: 9.5 vs 12)" \
	sh -c "[ '$(row 'anchor 1st/2nd' '' | cut -d' ' -f3)' = '1.26' ]"
check "PLE exits and park calls acted on: 265 of 500 + 50" \
	sh -c "[ '$(row hackbench ' +pvple ' | cut -d' ' -f3-6)' = '100 10 48.2% 40' ]"
check "goals are judged: 1.83 >= 1.2 met, 7.67 >= 3 met, 6/5 within 2x met" \
	[ "$(grep -c '^  hackbench pvple.* met$' "$tmp/table")" = 3 ]
check "series within the anchor's spread is met" \
	grep -q 'hackbench   series within anchor min-max:  1.00  met' "$tmp/table"

echo "1..$n"
[ "$failed" = 0 ]
