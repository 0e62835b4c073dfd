#!/bin/bash
# The operator's path, in "make check" (TAP): "make deb" builds the
# package; installing it lets DKMS build kvm-pvple for the Debian 6.12
# kernel the test host runs (not necessarily this machine's); that module
# must be the one built from this tree (same version and srcversion), and
# it is the one the test host then loads; removing the package leaves no
# trace.  Needs root (dpkg).  PVPLE_DKMS_CHECK=0 skips it on a developer's
# machine that should not have the package installed and removed.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
pvple_resolve_versions
TAP_PREFIX=dkms
. "$PVPLE_TOP/scripts/tap.sh"
echo "TAP version 13"
echo "1..7"
if [ "${PVPLE_DKMS_CHECK:-1}" = 0 ] || [ "$(id -u)" != 0 ]; then
	for i in 1 2 3 4 5 6 7; do
		echo "ok $i dkms: # SKIP PVPLE_DKMS_CHECK=0 or not root"
	done
	exit 0
fi
ver=$(cat "$PVPLE_TOP/VERSION")
out=$BUILD/deb
mkdir -p "$BUILD"
deb=$(OUT=$out "$PVPLE_TOP/scripts/deb.sh" 2>"$out.err" | tail -n 1)
[ -f "$deb" ] && ! grep -qE '^[EW]: ' "$out/lintian.txt"
tap_result $? "make deb builds $(basename "${deb:-kvm-pvple-dkms.deb}"), lintian finds nothing"
sed 's/^/# /' "$out.err"

dpkg -r kvm-pvple-dkms >/dev/null 2>&1
dpkg -i "$deb" >"$out/install.log" 2>&1
tap_result $? "dpkg -i installs it (DKMS: $(dkms status kvm-pvple 2>/dev/null | tr '\n' ';'))"

dkms build -k "$KVER" "kvm-pvple/$ver" >"$out/dkms-build.log" 2>&1 ||
	dkms status kvm-pvple | grep -q "$KVER.*built\|$KVER.*installed"
tap_result $? "DKMS builds kvm-pvple $ver for $KVER"

# A PREEMPT_RT kernel (Debian's -rt flavours) of the same series: DKMS
# must refuse it by its config (dkms.conf, BUILD_EXCLUSIVE_CONFIG), as the
# module would refuse to load there.
rt=$out/rt-kernel rtver=6.12.0-pvple-rt
rm -rf "$rt" && mkdir -p "$rt" && echo CONFIG_PREEMPT_RT=y >"$rt/.config"
dkms build -k "$rtver" --kernelsourcedir "$rt" "kvm-pvple/$ver" >"$out/dkms-rt.log" 2>&1
rc=$?
[ "$rc" != 0 ] && grep -q BUILD_EXCLUSIVE "$out/dkms-rt.log" &&
	[ -z "$(find "/var/lib/dkms/kvm-pvple/$ver/$rtver" -name '*.ko*' 2>/dev/null)" ]
tap_result $? "DKMS refuses a PREEMPT_RT kernel (exit $rc: $(grep -m1 -o 'BUILD_EXCLUSIVE[^.]*' "$out/dkms-rt.log"))"

ko=$(find "/var/lib/dkms/kvm-pvple/$ver/$KVER" -name 'kvm-pvple.ko*' | head -n 1)
mine=$PVPLE_TOP/kvm-pvple.ko
same=1
if [ -n "$ko" ] && [ -f "$mine" ]; then
	case $ko in *.xz) xz -dc "$ko" >"$out/dkms.ko" ;; *) cp "$ko" "$out/dkms.ko" ;; esac
	[ "$(modinfo -F version "$out/dkms.ko")" = "$ver" ] &&
	[ "$(modinfo -F version "$mine")" = "$ver" ] &&
	[ "$(modinfo -F srcversion "$out/dkms.ko")" = "$(modinfo -F srcversion "$mine")" ] &&
	[ "$(modinfo -F vermagic "$out/dkms.ko")" = "$(modinfo -F vermagic "$mine")" ]
	same=$?
fi
tap_result $same "the DKMS module is this tree's (version $ver, srcversion $(modinfo -F srcversion "$out/dkms.ko" 2>/dev/null))"
# The test host loads the module DKMS built.
[ "$same" = 0 ] && cp "$out/dkms.ko" "$mine"
tap_result $? "the test host will load the DKMS-built module"

dpkg -r kvm-pvple-dkms >"$out/remove.log" 2>&1 &&
	[ -z "$(dkms status kvm-pvple 2>/dev/null)" ] &&
	[ ! -e "/usr/src/kvm-pvple-$ver" ] &&
	dpkg -P kvm-pvple-dkms >>"$out/remove.log" 2>&1 &&
	[ ! -e /etc/modprobe.d/kvm-pvple.conf ]
tap_result $? "dpkg -r leaves no DKMS tree and no source; purge, no conffile"
[ "$tap_failed" = 0 ]
