#!/bin/bash
# tapcount.sh FILE: prints FILE's TAP result lines and "pvple-counts: P F S".
awk '
/^not ok / { print "  " $0; f++; next }
/^ok / { print "  " $0; if ($0 ~ /# SKIP/) s++; else p++; next }
/^Bail out!/ { print "  " $0; f++ }
END { printf "pvple-counts: %d %d %d\n", p, f, s }' "$1"
