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
		# What decides whether a pending interrupt reaches a vCPU
		# (x86_cpu_pending_interrupt() in target/i386/cpu.c): the
		# request bits, the exit request and the TB-exit counter a
		# kick sets, GIF, the host IF saved at VMRUN (HF2_HIF) and
		# V_INTR masking, NMI blocking, guest mode.  Needs the
		# symbols of the QEMU that qemu.sh builds.
		echo "=== gdb: each vCPU's interrupt state"
		cmds=$(mktemp)
		cat >"$cmds" <<'GDB'
set $c = (CPUState *)cpus_queue.tqh_first
while $c
printf "cpu %d: interrupt_request=%#x exit_request=%d halted=%d icount_decr=%#x hflags=%#x hflags2=%#x eflags=%#x int_ctl=%#x intercept=%#lx\n", $c->cpu_index, $c->interrupt_request, $c->exit_request, $c->halted, $c->neg.icount_decr.u32, ((X86CPU *)$c)->env.hflags, ((X86CPU *)$c)->env.hflags2, ((X86CPU *)$c)->env.eflags, ((X86CPU *)$c)->env.int_ctl, ((X86CPU *)$c)->env.intercept
set $c = $c->node.tqe_next
end
GDB
		timeout 60 gdb -p "$pid" -batch -nx -ex 'set pagination off' \
			-x "$cmds" 2>&1 | grep '^cpu [0-9]'
		rm -f "$cmds"
		echo "    (hflags2: GIF 0x1, HIF 0x2, NMI blocked 0x4, VINTR 0x8, NPT 0x40," \
		     "VGIF 0x100; hflags: guest mode 0x200000, inhibit-IRQ 0x8)"
	fi
} >"$out" 2>&1
exit 0
