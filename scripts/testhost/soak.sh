#!/bin/bash
# soak.sh [RUNS] [PLAN]: boots the test host RUNS times (default 10) with the
# same build and reports how many boots were clean, and how each of the
# others failed.  Measures the test host itself; the configuration comes
# from the environment as for boot.sh (e.g. PVPLE_TCG_THREAD=multi).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
pvple_resolve_versions
runs=${1:-10} plan=${2:-check}
out=$WORK/soak-${PVPLE_TCG_THREAD:-single}
"$PVPLE_TOP/scripts/testhost/build.sh" >/dev/null || die "build failed"
clean=0 retryable=0
for i in $(seq 1 "$runs"); do
	t0=$(date +%s)
	"$PVPLE_TOP/scripts/testhost/boot.sh" "$plan" "$out/$i" >"$out.$i.verdict" 2>&1
	rc=$?
	dt=$(($(date +%s) - t0))
	case $rc in
	0) clean=$((clean + 1)); echo "run $i: clean (${dt}s)" ;;
	2) retryable=$((retryable + 1))
	   echo "run $i: emulator signature (${dt}s)" ;;
	*) echo "run $i: FAILED (${dt}s):"
	   grep -E 'not ok|L1:|    \[' "$out.$i.verdict" | head -n 5 ;;
	esac
done
echo "soak: $clean of $runs boots clean, $retryable with the emulator signature" \
     "(tcg thread=${PVPLE_TCG_THREAD:-single}, smp=${PVPLE_L1_SMP:-2})"
[ "$clean" = "$runs" ]
