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
set -u
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
