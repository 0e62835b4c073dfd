# Sourced by /init: "make check-mutants" (mutants.sh).  Each mutant module
# replaces kvm-pvple.ko in turn for the one selftest that must catch it.
while read -r n bin test; do
	rmmod kvm_pvple || break
	if insmod "/pvple/ko/mutant-$n.ko"; then
		run_test "mutant-$n" 600 "/pvple/bin/$bin" -t "$test"
		rmmod kvm_pvple
	else
		echo "PVPLE-TEST mutant-$n-insmod" >$RES
		echo "not ok 1 insmod mutant-$n.ko failed" >$RES
		echo "PVPLE-EXIT mutant-$n-insmod 1" >$RES
	fi
	insmod "$PVPLE_KO" || break
done </pvple/ko/mutants.list
