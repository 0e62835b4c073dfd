#!/bin/bash
# Builds everything the test host runs: kvm-pvple.ko and the test fixture
# against the Debian 6.12 headers, the selftests against the 6.12 KVM
# selftest library, and the userspace unit tests.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
pvple_resolve_versions

log "building kvm-pvple.ko and the pause-filter fixture for $KVER"
make -s -C "$PVPLE_TOP" KDIR="$KDIR" modules fixture
log "building selftests and unit tests"
make -s -C "$PVPLE_TOP/selftests/kvm" -j"$PVPLE_JOBS" KSRC="$KSRC" \
	OUTPUT="$BUILD/selftests"
make -s -C "$PVPLE_TOP/selftests/unit" KSRC="$KSRC" OUTPUT="$BUILD/unit"
