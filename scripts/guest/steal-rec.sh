#!/bin/bash
# steal-rec.sh RESULTS: L0's steal time over each timed workload of the
# Linux-guest benchmark, for scripts/guest/guests-table.sh.
#
# The machine that runs the test host (L0) may itself be a VM: CPU time
# its hypervisor gives to others shows in L0's /proc/stat as steal, and
# neither L1 nor its guests can see it.  Once a second this reads the
# first line of L0's /proc/stat and the lines L1 has added to RESULTS
# (its result port: scripts/testhost/boot.sh's results.raw, or the
# results file of make bench-host).  At a "# wl-begin cfg=C block=B
# wl=W" line it notes L0's counters; at that workload's result line
# "# cfg=C block=B wl=W value=..." it prints
#   # steal cfg=C block=B wl=W frac=F secs=S
# F being steal over all of L0's CPU time in between (every CPU), S the
# seconds between the two looks.  The interval is the workload's as L0
# sees its lines: L1 prints them within a second of the guest (it looks
# once a second), and this reads them within a second: up to 2 s late at
# either end, against timed runs of 5 s and more.  The lines carry L1's
# uptime (up=, up0=, up1=) for a closer join later.
#
# RESULTS may not exist yet, and starts again when boot.sh boots L1 again
# after an emulator failure (it shrinks): then "# steal-reset" is printed
# and what came before belongs to the dropped boot.  Runs until killed.
# STEAL_STAT and STEAL_PERIOD (for the unit test): the file read for the
# counters (/proc/stat) and the seconds between looks (1).
set -uf
res=$1
stat=${STEAL_STAT:-/proc/stat}
period=${STEAL_PERIOD:-1}
done_lines=0
declare -A st0 tot0 t0

while :; do
	read -r _ user nice sys idle iow irq soft steal _ <"$stat"
	total=$((user + nice + sys + idle + iow + irq + soft + steal))
	now=$(date +%s.%N)
	lines=0
	[ -f "$res" ] && lines=$(wc -l <"$res")
	if [ "$lines" -lt "$done_lines" ]; then
		echo "# steal-reset"
		done_lines=0 st0=() tot0=() t0=()
	fi
	if [ "$lines" -gt "$done_lines" ]; then
		while IFS= read -r line; do
			line=${line%$'\r'}
			case $line in
			"# wl-begin cfg="*)
				set -- $line
				key="$3 $4 $5"
				st0[$key]=$steal tot0[$key]=$total t0[$key]=$now ;;
			"# cfg="*" block="*" wl="*" value="*)
				set -- $line
				key="$2 $3 $4"
				[ -n "${st0[$key]:-}" ] || continue
				awk -v k="$key" -v s=$((steal - st0[$key])) \
				    -v t=$((total - tot0[$key])) -v a="${t0[$key]}" -v b="$now" \
				    'BEGIN { printf "# steal %s frac=%.4f secs=%.1f\n", k, (t > 0 ? s / t : 0), b - a }'
				unset "st0[$key]" ;;
			esac
		done < <(sed -n "$((done_lines + 1)),${lines}p" "$res")
		done_lines=$lines
	fi
	sleep "$period"
done
