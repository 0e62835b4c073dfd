# dbench-progress.awk: dbench's console into tier A's progress lines
# (scripts/guest/l2-bench, bench.tw=dbench).  dbench's parent prints its
# progress once a second from a SIGALRM handler, flushed:
#   "  N  LINES  R MB/sec  warmup|execute T sec  latency L ms"
# LINES is the load file's lines run per client, on average: a count that
# goes on across the warm-up's end and the load file's rewinds, so each
# window's rate is the difference of two such lines over their times.
# Each line becomes "L2-PROGRESS UPTIME LINES", UPTIME being the guest's
# /proc/uptime when the line is read (a moment after dbench took the
# count).  At the end "L2-RESULT tiera mbps=M", dbench's own throughput
# over its execute phase ("none" if it printed none).  UPTIME=FILE reads
# the time from FILE instead (the unit test).
BEGIN { if (UPTIME == "") UPTIME = "/proc/uptime" }
$4 == "MB/sec" && ($5 == "warmup" || $5 == "execute") && $2 ~ /^[0-9]+$/ {
	u = ""
	getline u <UPTIME
	close(UPTIME)
	split(u, t, " ")
	printf "L2-PROGRESS %s %s\n", t[1], $2
	fflush()
}
/^Throughput / { m = $2 }
END { print "L2-RESULT tiera mbps=" (m == "" ? "none" : m) }
