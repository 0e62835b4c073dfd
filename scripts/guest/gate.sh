#!/bin/bash
# gate.sh WL:RC:TABLE...: the summary of a tier K run over several
# workloads (make bench-guests with GB_TA_WL="locktorture dbench
# hackbench"), one line per workload, from each workload's table
# (guests-table.sh) and its boot's status RC:
#   gate WL: speed-indexed X [LO, HI] +-H % ..., as measured ..., co-runner ...
# For an A/A run (the table's "tier K WL A/A" line: both guests the same
# kernel) the line ends with the verdict against issue 19's bar on the
# speed-indexed interval's half-width: +-5 % for locktorture and dbench,
# +-10 % for hackbench.  The bar is "met" only if the boot passed and the
# index covers every group the ratio as measured does: an index over
# fewer groups (the co-runner's lines stopped) is a shorter run, not a
# quieter one.  Exits 1 if an A/A bar is not met or a boot failed.
#
# gate.sh --design WL [DESIGN]: the size of WL's boot in such a run,
# "PLACEMENTS GROUPS", from DESIGN, WL:PxG entries apart by spaces or
# commas (GB_TK_DESIGN), else from the default below.  Every entry of
# both is checked, whichever WL asks: an entry that is not WL:PxG with
# WL one of the three loads and P and G from 1 to 99, or a load named
# twice in DESIGN, exits 1, saying why.
#
# The default sizes each workload by where its A/A noise lies
# (Documentation/results.rst, "Issue 19's gate in one command"):
# dbench's is in each guest boot's own speed, so it gets many placements
# of one group (SD 0.116 a placement, speed-indexed: 28 give about
# +-4.5 %); locktorture's is mostly in its windows (0.059 of 0.067), so
# more groups a boot, which cost 32 s each against 73 s a boot;
# hackbench's is far inside its +-10 % bar (+-3.5 % over 8 placements),
# so 4.  Measured warm on this 2-core test host: 8x2/20x1/8x2 took 66
# minutes; this default, about 71.
set -u
GATE_DESIGN="locktorture:8x4 dbench:28x1 hackbench:4x2"
# design_size WL DESIGN: as --design, from DESIGN alone; prints nothing
# if DESIGN does not name WL.
design_size() {
	local e n p g v seen=" " size=""
	set -f
	for e in ${2//,/ }; do
		n=${e%%:*} p=${e#*:}
		g=${p#*x} p=${p%%x*}
		case $n in
		locktorture | dbench | hackbench) ;;
		*) echo "gate.sh: design entry '$e' is not WL:PxG for locktorture, dbench or hackbench" >&2
		   return 1 ;;
		esac
		for v in "$p" "$g"; do
			case $v in
			[1-9] | [1-9][0-9]) ;;
			*) echo "gate.sh: design entry '$e' is not WL:PxG with P and G from 1 to 99" >&2
			   return 1 ;;
			esac
		done
		[ "$e" = "$n:${p}x$g" ] || {
			echo "gate.sh: design entry '$e' is not WL:PxG" >&2
			return 1
		}
		case $seen in
		*" $n "*) echo "gate.sh: design names $n twice" >&2; return 1 ;;
		esac
		seen="$seen$n "
		[ "$n" != "$1" ] || size="$p $g"
	done
	echo "$size"
}
if [ "${1:-}" = --design ]; then
	own=$(design_size "${2:-}" "${3:-}") || exit 1
	def=$(design_size "${2:-}" "$GATE_DESIGN") || exit 1
	[ -n "$own$def" ] || {
		echo "gate.sh: no design for workload '${2:-}'" >&2
		exit 1
	}
	echo "${own:-$def}"
	exit 0
fi
bad=0
for arg; do
	wl=${arg%%:*} rest=${arg#*:}
	rc=${rest%%:*} table=${rest#*:}
	awk -v wl="$wl" -v rc="$rc" '
	function ci(s) {
		if (match(s, /: [0-9.]+ \[[0-9.]+, [0-9.]+\]/))
			return substr(s, RSTART + 2, RLENGTH - 2)
		return "none"
	}
	# "8 placements of 48 groups", or one placement'"'"'s "40 groups".
	function groups(s) {
		if (match(s, /[0-9]+ groups/))
			return substr(s, RSTART, RLENGTH - 7) + 0
		return -1
	}
	BEGIN { hw = -1 }
	/^tier K ([a-z]+ )?(A\/A|B\/A) [a-z0-9]+\/[a-z0-9]+: / && raw == "" {
		raw = ci($0); rawg = groups($0); aa = $0 ~ / A\/A /
	}
	/^tier K co-runner beside B over beside A: / { co = ci($0) }
	/^speed-indexed B\/A / {
		idx = ci($0); idxg = groups($0)
		if (match($0, /half-width [0-9.]+ %/))
			hw = substr($0, RSTART + 11, RLENGTH - 13) + 0
	}
	END {
		bar = wl == "hackbench" ? 10 : 5
		line = "gate " wl ": speed-indexed " (idx == "" ? "none" : idx)
		if (hw >= 0)
			line = line sprintf(" +-%.1f %% over %d groups", hw, idxg)
		line = line ", as measured " (raw == "" ? "none" : raw) \
			(rawg >= 0 ? sprintf(" over %d groups", rawg) : "") \
			", co-runner " (co == "" ? "none" : co)
		if (rc != 0)
			why = "its boot failed"
		else if (idx == "" || idx == "none" || hw < 0)
			why = "no speed index with an interval"
		else if (idxg != rawg)
			why = "the index covers " idxg " of " rawg " groups"
		if (!aa) {
			print line (why != "" ? "; not usable: " why : "")
			exit why != ""
		}
		if (why == "" && hw > bar)
			why = sprintf("+-%.1f %% is wider than the bar", hw)
		print line "; A/A bar +-" bar " %: " (why == "" ? "met" : "not met (" why ")")
		exit why != ""
	}' "$table" || bad=1
done
exit $bad
