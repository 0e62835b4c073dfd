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
import socket
import sys
import time


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


def session(path, results, out):
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
    q.cmd("quit")


def main():
    pid = int(sys.argv[1])
    while alive(pid):
        try:
            session(*sys.argv[2:5])
            return
        except (OSError, EOFError, ValueError):
            time.sleep(0.5)


if __name__ == "__main__":
    main()
