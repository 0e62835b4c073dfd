# Sourced by /init: nested Linux guests (scripts/guest/check.sh).
run_test guest 1800 /pvple/bin/guest-test.sh
