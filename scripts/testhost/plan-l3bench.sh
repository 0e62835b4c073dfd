# Sourced by /init: the nested-Linux L3 measurement of "make bench".
run_test l3bench 3000 /pvple/bin/l3-bench.sh
