#!/bin/bash
# stall-dump.sh QEMU-PID MONITOR-SOCKET OUT: what a stopped L1 was doing,
# captured before the harness kills it (Documentation/testhost.rst):
# QEMU's view of the L1 vCPUs (HMP info cpus, registers, local APICs,
# pending interrupts) and a backtrace of every QEMU thread.  Tells a
# deadlocked emulator from halted vCPUs with an interrupt pending (a lost
# interrupt) or vCPUs that spin.  Best effort: never fails the caller.
pid=$1 sock=$2 out=$3
{
	echo "=== stall dump of QEMU pid $pid at $(date -u +%FT%TZ)"
	if [ -S "$sock" ]; then
		/usr/bin/python3 - "$sock" <<'PY'
import re, socket, sys, time

def ask(s, cmd):
    s.sendall((cmd + "\n").encode())
    buf, end = b"", time.time() + 10
    while time.time() < end:
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            break
        if not chunk:
            break
        buf += chunk
        if buf.rstrip().endswith(b"(qemu)"):
            break
    # Drop the monitor's echo of the command (terminal escapes).
    text = buf.decode(errors="replace").replace("\r", "")
    return "\n".join(l for l in text.split("\n") if "\x1b[" not in l)

s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
try:
    s.connect(sys.argv[1])
    ask(s, "")
    for cmd in ("info status", "info cpus", "info registers -a",
                "info lapic 0", "info lapic 1", "info irq", "info pic"):
        print("=== (qemu) " + cmd)
        print(ask(s, cmd))
except OSError as e:
    print("=== monitor: %s" % e)
PY
	else
		echo "=== no monitor socket at $sock"
	fi
	# Twice, a second apart: a thread that moves spins, one that does not
	# is blocked.
	for i in 1 2; do
		echo "=== QEMU threads ($i): state and wait channel"
		for t in /proc/"$pid"/task/*; do
			printf '%s %s %s %s\n' "${t##*/}" "$(cat "$t/comm" 2>/dev/null)" \
				"$(awk '{ print $3, "utime=" $14, "stime=" $15 }' "$t/stat" 2>/dev/null)" \
				"$(cat "$t/wchan" 2>/dev/null)"
		done
		sleep 1
	done
	if command -v gdb >/dev/null; then
		echo "=== gdb: thread apply all bt"
		timeout 60 gdb -p "$pid" -batch -nx -ex 'set pagination off' \
			-ex 'thread apply all bt 12' 2>&1 | grep -v '^\[New LWP\|^warning:'
	fi
} >"$out" 2>&1
exit 0
