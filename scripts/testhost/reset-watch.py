#!/usr/bin/python3
"""reset-watch.py QEMU-PID QMP-SOCKET RESULTS OUT: what L1 was doing when it reset.

boot.sh starts L0's QEMU with "-action reboot=shutdown,shutdown=pause":
a reset request (L1's own "reboot -f" at the end of its plan, a panic
with panic=-1, or a triple fault) stops the emulation instead of ending
QEMU, with every register as it was.  This watcher waits on QMP for that
SHUTDOWN event.  If RESULTS (L1's result port) has no "PVPLE-END" line,
L1 did not reach the end of its plan: a silent reset, the stop that
otherwise leaves no evidence (Documentation/testhost.rst).  It then writes
QEMU's view of the vCPUs to OUT.  Either way it tells QEMU to quit, so a
normal end costs no time.  It keeps trying while QEMU-PID lives (QMP takes
one client at a time; a reconnect finds a missed SHUTDOWN as the run
state), and never fails the caller.
"""
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

# Where each vCPU's SVM areas are (QEMU's CPUX86State: the host save area
# of MSR_VM_HSAVE_PA, and the VMCB of the last VMRUN).  Needs the symbols
# of the QEMU that qemu.sh builds.
GDB_AREAS = """set $c = (CPUState *)cpus_queue.tqh_first
while $c
printf "cpu %d vm_hsave=%#lx vm_vmcb=%#lx hflags=%#x hflags2=%#x\\n", $c->cpu_index, ((X86CPU *)$c)->env.vm_hsave, ((X86CPU *)$c)->env.vm_vmcb, ((X86CPU *)$c)->env.hflags, ((X86CPU *)$c)->env.hflags2
set $c = $c->node.tqe_next
end
"""
# Offsets in struct vmcb (the save area starts at 0x400): what #VMEXIT
# restores from the host save area, and what the guest had in its VMCB.
VMCB_FIELDS = (("efer", 0x4d0), ("cr4", 0x548), ("cr3", 0x550),
               ("cr0", 0x558), ("rip", 0x578), ("rsp", 0x5d8))


def svm_areas(pid, q):
    """Each vCPU's host save area and VMCB, as QEMU holds them."""
    out = ["=== gdb: each vCPU's SVM areas"]
    cmds = None
    try:
        with tempfile.NamedTemporaryFile("w", suffix=".gdb",
                                         delete=False) as f:
            f.write(GDB_AREAS)
            cmds = f.name
        gdb = subprocess.run(["gdb", "-p", str(pid), "-batch", "-nx",
                              "-ex", "set pagination off", "-x", cmds],
                             capture_output=True, text=True, timeout=60)
        lines = [ln for ln in gdb.stdout.splitlines() if ln.startswith("cpu ")]
    except (OSError, subprocess.SubprocessError) as e:
        return "\n".join(out + ["(gdb: %s)" % e]) + "\n"
    finally:
        if cmds:
            os.unlink(cmds)
    out += lines
    for ln in lines:
        m = re.match(r"cpu (\d+) vm_hsave=(\S+) vm_vmcb=(\S+)", ln)
        if not m:
            continue
        for area, base in (("hsave", m.group(2)), ("vmcb", m.group(3))):
            base = int(base, 16)
            vals = []
            for name, off in VMCB_FIELDS:
                text = q.cmd("human-monitor-command",
                             **{"command-line": "xp /1gx %#x" % (base + off)})
                vals.append("%s=%s" % (name, text.split(":")[-1].strip()))
            out.append("cpu %s %s %#x: %s" % (m.group(1), area, base,
                                              " ".join(vals)))
    return "\n".join(out) + "\n"


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


class Qmp:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(path)
        self.f = self.sock.makefile("rwb", buffering=0)
        self.events = []
        self.f.readline()                # the greeting
        self.cmd("qmp_capabilities")

    def read(self):
        line = self.f.readline()
        if not line:
            raise EOFError
        return json.loads(line)

    def cmd(self, name, **args):
        msg = {"execute": name}
        if args:
            msg["arguments"] = args
        self.f.write((json.dumps(msg) + "\n").encode())
        while True:                      # events on the way are kept
            msg = self.read()
            if "return" in msg or "error" in msg:
                return msg.get("return", "(error)")
            self.events.append(msg)

    def shutdown_reason(self):
        # A SHUTDOWN missed while no client was connected shows as the
        # "shutdown" run state.
        if self.cmd("query-status").get("status") == "shutdown":
            return "(seen as the run state)"
        while True:
            ev = self.events.pop(0) if self.events else self.read()
            if ev.get("event") == "SHUTDOWN":
                return ev.get("data", {}).get("reason", "?")


def session(pid, path, results, out):
    q = Qmp(path)
    reason = q.shutdown_reason()
    try:
        with open(results, "rb") as r:
            finished = b"PVPLE-END" in r.read()
    except OSError:
        finished = False
    if not finished:
        with open(out, "w") as o:
            o.write("=== L1 reset before the end of its plan at %s, "
                    "QMP SHUTDOWN reason %s\n" %
                    (time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                     reason))
            for cmd in ("info status", "info cpus", "info registers -a",
                        "info lapic 0", "info lapic 1", "info pic"):
                text = q.cmd("human-monitor-command",
                             **{"command-line": cmd})
                o.write("=== (qemu) %s\n%s\n" % (cmd, text))
            o.write(svm_areas(pid, q))
    q.cmd("quit")


def main():
    pid = int(sys.argv[1])
    while alive(pid):
        try:
            session(pid, *sys.argv[2:5])
            return
        except (OSError, EOFError, ValueError):
            time.sleep(0.5)


if __name__ == "__main__":
    main()
