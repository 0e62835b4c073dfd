# Sourced by /init: the plan of "make demo".
run_test demo 900 /pvple/bin/pvple_demo ${PVPLE_DEMO_ITERS:-2000}
