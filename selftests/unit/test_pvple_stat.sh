#!/bin/bash
# packaging/pvple-stat against fake counter files: per-VM rates are the
# differences over the interval divided by it, a VM new in the interval
# counts from zero, and a VM without counters says so.  TAP.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
TAP_PREFIX=pvple-stat
. "$top/scripts/tap.sh"
echo "TAP version 13"
echo "1..4"
echo "1-5 mode=default ple_exits=100 hc_park=0 yield_ok=10 yield_holder=5 yield_reached=4 parks=2 wake_sched_in=1 spin=3 stock=4" >"$tmp/vms"
echo auto >"$tmp/mode"
# The counters move half-way through the 2 s interval.
(sleep 1; printf '%s\n%s\n%s\n' \
	"1-5 mode=default ple_exits=500 hc_park=8 yield_ok=50 yield_holder=25 yield_reached=24 parks=6 wake_sched_in=5 spin=3 stock=24" \
	"7-9 mode=off ple_exits=40 hc_park=0 yield_ok=0 yield_holder=0 parks=0 spin=0 stock=40" \
	"8-2 mode=park counters=unavailable" >"$tmp/vms") &
PVPLE_STAT_VMS=$tmp/vms PVPLE_STAT_MODE=$tmp/mode \
	"$top/packaging/pvple-stat" -b -n 1 -d 2 >"$tmp/out"
wait
row() { grep "^$1 " "$tmp/out" | awk '{ $1 = ""; print substr($0, 2) }'; }
[ "$(row 1-5)" = "default 200 4 20 10 10 2 2 0 0 0 10" ]
tap_result $? "rates per second of one VM (PLE 400/2 s ... stock 20/2 s)"
[ "$(row 7-9)" = "off 20 0 0 0 0 0 0 0 0 0 20" ]
tap_result $? "a VM new in the interval counts from zero; each VM shows its mode"
grep -q '^8-2 .*counters unavailable' "$tmp/out"
tap_result $? "a VM without counters is shown as such"
grep -q 'mode=auto' "$tmp/out"
tap_result $? "the module's mode is shown"
cat "$tmp/out" | sed 's/^/# /'
[ "$tap_failed" = 0 ]
