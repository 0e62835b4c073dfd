# Sourced by the shell tests that print TAP: tap_result STATUS TEXT prints
# "ok N PREFIX: TEXT" (STATUS 0) or "not ok N ..." and counts the failures
# in tap_failed.  Set TAP_PREFIX first.
tap_n=0 tap_failed=0
tap_result() {
	tap_n=$((tap_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $tap_n $TAP_PREFIX: $2"
	else
		echo "not ok $tap_n $TAP_PREFIX: $2"
		tap_failed=$((tap_failed + 1))
	fi
}
