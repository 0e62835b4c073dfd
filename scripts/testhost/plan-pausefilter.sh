# Sourced by /init: the second boot of "make check", in the "filter" pause
# mode (Documentation/testhost.rst, "The pause filter"): the filter counts
# and KVM's window adapts; the PLE path works with a real window.
run_test pause-filter 600 /pvple/bin/pvple_pause_filter_test
run_test hooks-filter 600 /pvple/bin/pvple_hooks_test -t ple_exits_per_vcpu \
	-t ple_exits_concurrent
