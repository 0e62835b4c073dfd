# Sourced by /init: one selftest only, for the harness self-check
# (selfcheck.sh's lockdep case), which proves the judge, not the module.
run_test hooks 600 /pvple/bin/pvple_hooks_test
