# Sourced by /init: the test plan of "make check".
run_test hooks 600 /pvple/bin/pvple_hooks_test
run_test yield 600 /pvple/bin/pvple_yield_test
run_test park 900 /pvple/bin/pvple_park_test
run_test abi 600 /pvple/bin/pvple_abi_test
run_test l3 600 /pvple/bin/pvple_l3_test
run_test slice 600 /pvple/bin/pvple_slice_test
run_test fuzz 900 /pvple/bin/pvple_fuzz_test
# Stock behaviour with the module absent (hypercalls answer -KVM_ENOSYS).
if rmmod kvm_pvple; then
	run_test hooks-no-module 120 /pvple/bin/pvple_hooks_test -t hypercall_routing
	insmod "$PVPLE_KO"
else
	echo "PVPLE-TEST rmmod" >$RES
	echo "not ok 1 rmmod kvm_pvple failed" >$RES
	echo "PVPLE-EXIT rmmod 1" >$RES
fi
