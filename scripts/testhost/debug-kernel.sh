#!/bin/bash
# debug-kernel.sh: builds the debug L1 kernel of "make check-debug" --
# Linux 6.12 from Debian's linux-source-6.12, tinyconfig plus
# scripts/testhost/debug.config (lockdep, KASAN, atomic-sleep and object
# debugging, lockup and hung-task detectors) -- and kvm-pvple with its test
# fixtures against it.  Output in $WORK/debug/:
#   bzImage, modroot/ (KVM's modules), release (its uname -r),
#   mod/ (a copy of the module sources, built there: the clone keeps the
#   objects built for Debian's kernel).
# Rebuilds the kernel only when debug.config or this script change.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
pvple_resolve_versions

dir=$WORK/debug
src=$dir/src
stamp=$(cat "$PVPLE_TOP/scripts/testhost/debug.config" "$0" | md5sum | cut -c1-8)
t0=$(date +%s)
if [ ! -f "$dir/bzImage" ] || [ "$(cat "$dir/stamp" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$dir"
	mkdir -p "$src"
	log "unpacking linux-source-6.12 for the debug L1 kernel"
	tar -C "$src" --strip-components=1 -xf /usr/src/linux-source-6.12.tar.xz
	make -s -C "$src" tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$src" "$src/.config" \
		"$PVPLE_TOP/scripts/testhost/debug.config" >/dev/null
	"$src/scripts/config" --file "$src/.config" --set-str LOCALVERSION -pvple-debug
	make -s -C "$src" olddefconfig >/dev/null
	# A checker that did not survive olddefconfig is a test that never ran.
	for opt in PROVE_LOCKING PROVE_RCU DEBUG_ATOMIC_SLEEP KASAN DEBUG_OBJECTS \
		   SOFTLOCKUP_DETECTOR DETECT_HUNG_TASK DYNAMIC_FTRACE_WITH_ARGS \
		   KPROBES KALLSYMS_ALL; do
		grep -q "^CONFIG_$opt=y" "$src/.config" ||
			die "CONFIG_$opt did not survive olddefconfig"
	done
	for opt in KVM KVM_AMD; do
		grep -q "^CONFIG_$opt=m" "$src/.config" || die "CONFIG_$opt is not a module"
	done
	log "building the debug L1 kernel (-j$PVPLE_JOBS)"
	make -s -C "$src" -j"$PVPLE_JOBS" bzImage modules
	make -s -C "$src" INSTALL_MOD_PATH="$dir/modroot" INSTALL_MOD_STRIP=1 \
		modules_install >/dev/null
	cp "$src/arch/x86/boot/bzImage" "$dir/bzImage"
	make -s -C "$src" kernelrelease >"$dir/release"
	echo "$stamp" >"$dir/stamp"
	log "debug L1 kernel $(cat "$dir/release") built in $(($(date +%s) - t0))s"
fi

log "building kvm-pvple and the fixtures for $(cat "$dir/release")"
rm -rf "$dir/mod"
mkdir -p "$dir/mod"
(cd "$PVPLE_TOP" &&
 find Kbuild kvm-pvple include selftests/fixture -type f \
	\( -name Kbuild -o -name Makefile -o -name '*.[ch]' \) ! -name '*.mod.c' -print0 |
	xargs -0 cp --parents -t "$dir/mod"
 cp VERSION "$dir/mod/")
make -s -C "$src" M="$dir/mod" modules
make -s -C "$src" M="$dir/mod/selftests/fixture" modules
