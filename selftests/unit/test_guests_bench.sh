#!/bin/bash
# Unit tests of the Linux-guest benchmark's parts that need no KVM:
#  - the plan "make bench-host --dry-run" prints (what a real host would
#    run, configuration by configuration);
#  - the tables scripts/guest/guests-table.sh computes from results files
#    with known figures: the paired ratios and their 95 % intervals, the
#    A/A row and the claim gate, the co-runner's ratio, the fair-share
#    column, the steal drop, all against an independent computation in
#    python3 (its own t quantiles,
#    by integrating Student's density), and that the comparison fails on
#    a broken statistic.
# TAP output.
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

### The plan of make bench-host --dry-run

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

### The tables

# gb.py gen RESULTS EXPECT: a results file with known logs, and what
# the tables must say, computed here: mean and sample deviation of the
# logs, Student's t by integrating its density (not a table).
# gb.py cmp WHAT TABLE EXPECT: compares one part of a table.
cat >"$tmp/gb.py" <<'EOF'
import functools, json, math, statistics, sys

@functools.lru_cache(maxsize=None)
def t975(v):
    c = math.exp(math.lgamma((v + 1) / 2) - math.lgamma(v / 2)) / math.sqrt(v * math.pi)
    f = lambda x: c * (1 + x * x / v) ** (-(v + 1) / 2)
    def area(t, n=2000):
        h = t / n
        return h / 3 * (f(0) + f(t) + sum(f(i * h) * (4 if i % 2 else 2) for i in range(1, n)))
    lo, hi = 0.0, 20.0
    for _ in range(50):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if area(mid) < 0.475 else (lo, mid)
    return (lo + hi) / 2

def ci(x):
    m = statistics.mean(x)
    h = t975(len(x) - 1) * statistics.stdev(x) / math.sqrt(len(x)) if len(x) > 1 else None
    return {"g": math.exp(m), "lo": math.exp(m - h), "hi": math.exp(m + h),
            "n": len(x), "pos": sum(1 for v in x if v > 0), "m": m, "h": h}

def gen(results, expect):
    B = range(1, 9)
    # speed logs against the anchor, per block; locktorture's are twice
    x = {"anchor": {b: 0 for b in B},
         "anchor2": {b: 0.01 * ((3 * b) % 5 - 2) for b in B},
         "pvple": {b: 0.10 + 0.03 * ((5 * b) % 7 - 3) for b in B},
         "series": {b: 0.004 * ((2 * b) % 3 - 1) for b in B},
         "under": {b: 0.70 + 0.02 * (b % 3) for b in B}}
    x["underpv"] = {b: x["under"][b] - 0.008 + 0.003 * (b % 4) for b in B}
    hogx = {"anchor2": {b: 0.004 * (b % 2) for b in B},
            "pvple": {b: -0.05 + 0.01 * (b % 3) for b in B}}
    lines = ["# gb-setup tier=B cpus=2 vcpus=4 hogs=2 under=2 blocks=8 pin=1 configs=x"]
    speed, hog = {}, {}
    for b in B:
        for cfg in x:
            hr = "none"
            if not cfg.startswith("under"):
                hr = "%.4f" % ((1000.0 + 10 * b) * math.exp(hogx.get(cfg, {}).get(b, 0)))
            for w, base, f in (("hackbench", 10.0 + b, 1), ("locktorture", 300000.0 + 1000 * b, 2)):
                lx = f * x[cfg][b]
                v = "%.6f" % (base * math.exp(-lx) if w == "hackbench" else base * math.exp(lx))
                lines.append("# cfg=%s block=%d wl=%s value=%s up0=1 up1=9 hograte=%s ple=- acted=0"
                             % (cfg, b, w, v, hr))
                # pvple's hackbench in block 8 is dropped for steal, below
                if not (cfg == "pvple" and b == 8 and w == "hackbench"):
                    speed[w, cfg, b] = 1 / float(v) if w == "hackbench" else float(v)
                    if hr != "none":
                        hog[w, cfg, b] = float(hr)
    lines.append("# cfg=gyield block=1 wl=hackbench value=none")
    lines.append("# cfg=gyield block=2 wl=hackbench value=10")
    lines.append("# steal cfg=pvple block=8 wl=hackbench frac=0.0900 secs=9.0")
    lines.append("# steal cfg=anchor block=2 wl=hackbench frac=0.0400 secs=9.0")
    lines.append("not ok 7 block 1: gyield")
    open(results, "w").write("\n".join(lines) + "\n")

    def paired(d, w, a, b):
        return ci([math.log(d[w, a, k] / d[w, b, k]) for k in B
                   if (w, a, k) in d and (w, b, k) in d])
    e = {"ratio": {}, "co": {}, "fair": {}, "median": {}}
    for w in ("hackbench", "locktorture"):
        for r in ("anchor2/anchor", "pvple/anchor", "series/anchor", "under/anchor", "underpv/under"):
            e["ratio"][w + " " + r] = paired(speed, w, *r.split("/"))
        for c in ("anchor2", "pvple", "series"):
            e["co"][w + " " + c] = paired(hog, w, c, "anchor")["g"]
            # fair share: 2 CPUs * 4 / (4 + 2) against min(2, 2)
            e["fair"][w + " " + c] = paired(speed, w, c, "under")["g"] * 2 / (2 * 4 / 6)
        for c in x:
            vals = [1 / speed[w, c, k] if w == "hackbench" else speed[w, c, k]
                    for k in B if (w, c, k) in speed]
            e["median"][w + " " + c] = [statistics.median(vals), len(vals)]

    json.dump(e, open(expect, "w"))

def near(a, b, what, bad, tol=0.0015):
    if abs(float(a) - b) > tol:
        print("%s: table %s, expected %.4f" % (what, a, b))
        bad.append(what)

def cmp(what, table, expect):
    e = json.load(open(expect))
    rows = open(table).read().splitlines()
    bad = []
    if what in ("ratio", "aa", "underpv"):
        keys = {"ratio": list(e["ratio"]), "aa": [k for k in e["ratio"] if "anchor2/" in k],
                "underpv": [k for k in e["ratio"] if "underpv/under" in k]}[what]
        for key in keys:
            x = e["ratio"][key]
            f = [r.split() for r in rows if r[:1] != " " and r.split()[:2] == key.split()]
            if len(f) != 1:
                print("no row for " + key); bad.append(key); continue
            f = f[0]
            near(f[2], x["g"], key + " geomean", bad)
            near(f[3].strip("[,"), x["lo"], key + " low", bad)
            near(f[4].strip("]"), x["hi"], key + " high", bad)
            if f[5] != str(x["n"]) or f[6] != "%d/%d" % (x["pos"], x["n"]):
                print(key + ": n and signs " + f[5] + " " + f[6]); bad.append(key)
    elif what in ("co", "fair", "main"):
        for key in e["co"]:
            w, c = key.split()
            f = [r.split() for r in rows if r.split()[:1] == [w] and len(r.split()) > 3 and r.split()[2] == c]
            if len(f) != 1:
                print("no main row for " + key); bad.append(key); continue
            f = f[0]
            if what == "co":
                near(f[10], e["co"][key], key + " co/anchor", bad)
            elif what == "fair":
                near(f[11], e["fair"][key], key + " x fair", bad)
            else:
                x = e["ratio"][w + " " + c + "/anchor"]
                near(f[6], x["g"], key + " vs anchor", bad)
                near(f[7].strip("[,"), x["lo"], key + " low", bad)
                near(f[8].strip("]"), x["hi"], key + " high", bad)
                med = e["median"][key][0]
                near(f[4], med, key + " median", bad, 0.006 if med < 10000 else 0.51)
                if f[3] != str(e["median"][key][1]):
                    print(key + ": n " + f[3]); bad.append(key)
    elif what == "gate":
        aa = {w: e["ratio"][w + " anchor2/anchor"]["h"] for w in ("hackbench", "locktorture")}
        for key, x in e["ratio"].items():
            if "anchor2" in key:
                continue
            w = key.split()[0]
            want = "beyond the A/A noise" if abs(x["m"]) > aa[w] else "inside the noise"
            r = [r for r in rows if r[:1] != " " and r.split()[:2] == key.split()]
            if not r or want not in r[0]:
                print(key + ": wanted " + want); bad.append(key)
    sys.exit(1 if bad else 0)

if sys.argv[1] == "gen":
    gen(*sys.argv[2:4])
else:
    cmp(*sys.argv[2:5])
EOF
python3 "$tmp/gb.py" gen "$tmp/results" "$tmp/expect"
"$top/scripts/guest/guests-table.sh" "$tmp/results" "$tmp/plots" >"$tmp/table" 2>&1
rc=$?
check "the table script runs" [ $rc = 0 ]
gbcmp() { python3 "$tmp/gb.py" cmp "$1" "$2" "$tmp/expect"; }
check "paired ratios: geometric means, 95 % CIs, n and signs as computed independently" \
	gbcmp ratio "$tmp/table"
check "the A/A row: anchor2/anchor with its CI" gbcmp aa "$tmp/table"
check "the undercommitted cost: underpv/under with its CI" gbcmp underpv "$tmp/table"
check "the main table: median, n and the paired ratio to the anchor" gbcmp main "$tmp/table"
check "the co-runner's rate over its rate beside the anchor, paired" gbcmp co "$tmp/table"
check "the fraction of the fair-share limit" gbcmp fair "$tmp/table"
check "the claim gate: |ln ratio| against the A/A half-width" gbcmp gate "$tmp/table"
check "a run above GB_STEAL_MAX is dropped, counted and named" \
	grep -q '^L0 steal over each timed workload: 2 runs recorded, at most 9.0 %; 1 dropped above 5.0 %: hackbench/pvple/block 8 (9.0 %)$' "$tmp/table"
check "GB_STEAL_MAX=0.1 keeps it" \
	sh -c "GB_STEAL_MAX=0.1 '$top/scripts/guest/guests-table.sh' '$tmp/results' | grep -q '; 0 dropped above 10.0 %\$'"
row() { grep -E "^$1 +$2" "$tmp/table" | tr -s ' '; }
check "a run without a figure is not counted" \
	sh -c "[ '$(row 'hackbench s' 'gyield ' | cut -d' ' -f4)' = 1 ]"
check "a configuration with one block has a ratio and no interval" \
	sh -c "[ '$(row 'hackbench s' 'gyield ' | cut -d' ' -f8-9)' = '[-] 1/1' ]"
check "plot data: the paired ratios with their bounds" \
	sh -c "grep -q '^2 pvple/anchor ' '$tmp/plots/hackbench.ratios' &&
	       [ \$(wc -l <'$tmp/plots/locktorture.ratios') = 6 ]"

# Can the comparison fail?  The same results through a broken statistic:
# the normal 1.96 at 7 degrees of freedom, a deviation over n instead of
# n - 1, a gate without the A/A.
mkdir "$tmp/broken"
mutant() {
	rm -rf "$tmp/broken"/*
	cp "$top/scripts/guest/guests-table.sh" "$top/scripts/guest/gb-stats.awk" "$tmp/broken/"
	sed -i "$2" "$tmp/broken/$1"
	"$tmp/broken/guests-table.sh" "$3" >"$tmp/table.broken" 2>&1
}
mutant gb-stats.awk 's/return df <= 30 ? gb_tt\[df\] + 0 : 1.96/return 1.96/' "$tmp/results"
check "the check fails on t = 1.96 for small samples" sh -c "! python3 '$tmp/gb.py' cmp ratio '$tmp/table.broken' '$tmp/expect'"
mutant gb-stats.awk 's|s / (n - 1) / n|s / n / n|' "$tmp/results"
check "the check fails on a deviation over n" sh -c "! python3 '$tmp/gb.py' cmp ratio '$tmp/table.broken' '$tmp/expect'"
mutant guests-table.sh 's/aah\[wl\[j\]\] = gb_h/aah[wl[j]] = 0/' "$tmp/results"
check "the check fails on a gate without the A/A" sh -c "! python3 '$tmp/gb.py' cmp gate '$tmp/table.broken' '$tmp/expect'"
# Older results (round=, no setup line): read as blocks, the header parsed.
{
	echo "# guests-bench: 4-vCPU lock guest, 2-vCPU co-runner, 2 vCPUs undercommitted, 2 host CPUs, 5 rounds; x"
	for r in 1 2 3; do
		echo "# cfg=anchor round=$r wl=dbench value=$((100 + r))"
		echo "# cfg=pvple round=$r wl=dbench value=$((200 + 2 * r))"
		echo "# cfg=under round=$r wl=dbench value=$((300 + 3 * r))"
	done
} >"$tmp/old"
"$top/scripts/guest/guests-table.sh" "$tmp/old" >"$tmp/tableold" 2>&1
# pvple/anchor is 2.000 in every round; under is 3x the anchor: x fair 2/3 * 2 / (4/3)
check "older results: rounds as blocks, the fair share from the header" \
	sh -c "grep -E '^dbench MB/s +pvple +3 ' '$tmp/tableold' | tr -s ' ' | cut -d' ' -f7-12 |
	       grep -qx '2.000 \[2.000, 2.000\] 3/3 - 1.000'"

echo "1..$n"
[ "$failed" = 0 ]
