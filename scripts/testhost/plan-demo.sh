# Sourced by /init: the plan of "make demo".
# pvple-stat, the operator's live view, watches the whole demo (stock KVM,
# then kvm-pvple); its rows with PLE exits are printed after the demo.
# Sampled every 0.25 s: the kvm-pvple run lasts about a second.
/pvple/bin/pvple-stat -b -d 0.25 >/tmp/pvple-stat.log 2>&1 &
stat=$!
run_test demo 900 /pvple/bin/pvple_demo ${PVPLE_DEMO_ITERS:-2000}
kill "$stat" 2>/dev/null
run_test pvple-stat 60 sh -c 'echo "pvple-stat -b (per second; the rows of the kvm-pvple run):"
	grep "^VM (pid" /tmp/pvple-stat.log | head -n 1
	awk "\$1 ~ /^[0-9]+-[0-9]+\$/ && \$3 > 0" /tmp/pvple-stat.log | tail -n 6'
