#!/bin/bash
# "make check-mutants": can the selftests fail?  Each fix a selftest
# guards is reverted alone, by a sed expression, in a copy of the module
# (as selftests/unit/test_policy_mutants.sh does for the unit tests); the
# copy is loaded in the nested test host in place of kvm-pvple.ko and the
# selftest that guards the fix is run against it.  TAP, one line per
# mutant: "ok" when that selftest failed (the mutant was caught), "not ok"
# when it passed, when the mutation no longer applies, or when the
# mutant did not build, load or report.  Ends with "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/lib.sh"

# NAME|FILE in kvm-pvple/|sed expression|selftest|test ("|" only as the
# separator: an expression must not contain one)
# Not here: "a stale hint may park" (test_policy_mutants.sh has it).  A
# chain ends STALE at the spinner's own hint only when that hint names
# the holder (pvple_chain_step()), and such a spinner is the queue head
# (pvple_spin()), which the head rule keeps from parking: no record can
# tell that mutant from the module, so no selftest can catch it.
mutants=(
	'a queue head may park|policy.c|s/return mode_parks(in->mode) \&\& !in->no_park \&\& !in->head \&\&/return mode_parks(in->mode) \&\& !in->no_park \&\&/|pvple_park_test|head_never_parks'
	'a chain ended at a head may park|policy.c|s/\&\& in->end != PVPLE_CHAIN_HEAD;/;/|pvple_park_test|head_never_parks'
	'a cycle of records is taken for a deep chain|policy.c|s/^\([[:blank:]]*\)PVPLE_CHAIN_CYCLE;$/\1PVPLE_CHAIN_DEEP;/|pvple_park_test|head_never_parks'
	'any number of spinners park behind one vCPU|pvple.h|s/^\(#define PVPLE_PARKERS_MAX[[:blank:]]*\)4$/\11000/|pvple_park_test|crowd_behind_one_vcpu_is_bounded'
	'a park whose target ran before its timer ends by the bound|park.c|s/^\([[:blank:]]*\)woken_early = !timed_out;$/\1woken_early = !timed_out; if (timed_out) { why = PVPLE_WAKE_TIMEOUT; break; }/|pvple_park_test|run_before_the_timer_ends_the_park'
	'a grant that ends at a load gives its request back to no one|slice.c|s/switches == pv->slice_switches)/0)/|pvple_slice_test|slice_given_back_spares_a_thread'
	'a request given back is extended again|slice.c|s/pvple_slice_gate_now(vcpu, pv->slice_owed, us, false)/pvple_slice_gate_now(vcpu, false, us, false)/|pvple_slice_test|slice_given_back_spares_a_thread'
	'a PLE exit outside the slow path is acted on|spin.c|s/!pvple_in_slowpath(kvm_get_linear_rip(me), pv->text_start,/0 \&\& !pvple_in_slowpath(kvm_get_linear_rip(me), pv->text_start,/|pvple_abi_test|ple_outside_slow_path_gets_stock'
)

# The copies are built against Debian's kernel, the one L1 boots here.
[ "${PVPLE_L1:-debian}" = debian ] || die "PVPLE_L1=$PVPLE_L1: mutants run on Debian's L1 only"
"$PVPLE_TOP/scripts/testhost/prepare.sh" >&2 || die "prepare failed"
pvple_resolve_versions
"$PVPLE_TOP/scripts/testhost/build.sh" >&2 || die "build failed"
out=${PVPLE_OUT:-$WORK/mutants}
rm -rf "$out"
mkdir -p "$out/ko"
: >"$out/ko/mutants.list"

echo "TAP version 13"
echo "1..${#mutants[@]}"
n=0 pass=0 fail=0
declare -A why
for m in "${mutants[@]}"; do
	n=$((n + 1))
	IFS='|' read -r name file expr bin test <<<"$m"
	src=$out/src-$n
	mkdir -p "$src"
	cp -r "$PVPLE_TOP/Kbuild" "$PVPLE_TOP/VERSION" "$PVPLE_TOP/include" \
		"$PVPLE_TOP/kvm-pvple" "$src/"
	rm -f "$src"/kvm-pvple/*.o "$src"/kvm-pvple/.*.cmd
	sed -i "$expr" "$src/kvm-pvple/$file"
	if cmp -s "$src/kvm-pvple/$file" "$PVPLE_TOP/kvm-pvple/$file"; then
		why[$n]="the mutation does not apply: fix this test"
		continue
	fi
	if ! make -s -C "$KDIR" M="$src" modules >"$src/build.log" 2>&1; then
		why[$n]="does not build ($src/build.log)"
		continue
	fi
	cp "$src/kvm-pvple.ko" "$out/ko/mutant-$n.ko"
	echo "$n $bin $test" >>"$out/ko/mutants.list"
done

log "nested test host: ${#mutants[@]} mutants" >&2
# Retried once on a documented emulator signature, as check.sh does.
for attempt in 1 2; do
	PVPLE_MUTANTS=$out/ko PVPLE_PAUSE=every \
		"$PVPLE_TOP/scripts/testhost/boot.sh" mutants "$out/l1" \
		>"$out/l1.verdict" 2>&1
	[ $? = 2 ] && [ "$attempt" = 1 ] || break
	echo "# RETRY: the L1 failure matched a documented emulator signature"
	rm -rf "$out/l1-attempt1"
	mv "$out/l1" "$out/l1-attempt1"
done
# The boot's own verdict (an L1 kernel report, a hang), as comments.
grep -v '^  mutant-' "$out/l1.verdict" | sed 's/^/# /'
n=0
for m in "${mutants[@]}"; do
	n=$((n + 1))
	IFS='|' read -r name file expr bin test <<<"$m"
	if [ -n "${why[$n]:-}" ]; then
		echo "not ok $n $name (${why[$n]})"
	elif grep -q "^  mutant-$n: not ok [0-9]* pvple\.$test" "$out/l1.verdict"; then
		echo "ok $n $name: caught by $test"
	elif grep -q "^  mutant-$n: ok " "$out/l1.verdict"; then
		echo "not ok $n $name: $test passes with it"
	else
		echo "not ok $n $name: no result ($out/l1.verdict)"
	fi
done | tee "$out/mutants.tap"
pass=$(grep -c '^ok ' "$out/mutants.tap")
fail=$(grep -c '^not ok ' "$out/mutants.tap")
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
