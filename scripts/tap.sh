# Sourced by the shell tests that print TAP (POSIX sh: the test host's L1
# runs it too, staged beside the L1 scripts by mkinitramfs.sh):
#   tap_result STATUS TEXT  "ok N PREFIX: TEXT" (STATUS 0) or "not ok N ...",
#                           the failures counted in tap_failed;
#   tap_skip TEXT WHY       "ok N PREFIX: TEXT # SKIP WHY": never a pass.
# TAP_PREFIX is optional; without it a line is "ok N TEXT".
tap_n=0 tap_failed=0
tap_line() {
	tap_n=$((tap_n + 1))
	echo "$1 $tap_n ${TAP_PREFIX:+$TAP_PREFIX: }$2"
}
tap_result() {
	if [ "$1" = 0 ]; then
		tap_line ok "$2"
	else
		tap_line "not ok" "$2"
		tap_failed=$((tap_failed + 1))
	fi
}
tap_skip() {
	tap_line ok "$1 # SKIP $2"
}
