#!/usr/bin/env python3
"""Runs a pe-run --ranks command and reports what it leaves behind.

Usage: ranks_cleanup.py [--signal NAME] DIR -- COMMAND [ARG...]

Runs COMMAND with TMPDIR=DIR/tmp (created empty: pe-run's scratch
directories go there) and a variable PE_RANKS_CLEANUP_MARK unique to this run
in its environment, which every process it starts inherits (mpiexec, the
process manager's proxies, the ranks). With --signal (INT, TERM, HUP, KILL), waits
until a process carrying the mark runs `sleep` (the hanging rank of
faulty-mpiexec.sh) and then sends the signal to COMMAND. COMMAND's output
passes through; then it prints

  ranks_cleanup: exit STATUS            (or: ranks_cleanup: signal NAME)
  ranks_cleanup: processes left N
  ranks_cleanup: scratch directories left N

counting the processes that carry the mark and pe-run's scratch directories
(pe-run-ranks-*) in DIR/tmp, once
COMMAND has exited (after up to 2 s for the kernel to reap them). It kills
what is left, so that a failing test leaves nothing running.
"""

import os
import shutil
import signal
import subprocess
import sys
import time
import uuid

MARK = "PE_RANKS_CLEANUP_MARK"


def marked(mark):
    """The pids of the processes whose environment holds MARK=mark."""
    needle = f"{MARK}={mark}".encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                env = f.read().split(b"\0")
            with open(f"/proc/{name}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in env and state != b"Z":
            found.append(int(name))
    return found


def comm(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def main():
    args = sys.argv[1:]
    sig = None
    if args[:1] == ["--signal"]:
        sig = getattr(signal, "SIG" + args[1])
        args = args[2:]
    split = args.index("--")
    directory, command = args[0], args[split + 1:]
    tmp = os.path.join(directory, "tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    mark = uuid.uuid4().hex
    env = dict(os.environ, TMPDIR=tmp, **{MARK: mark})
    proc = subprocess.Popen(command, env=env)
    if sig is not None:
        deadline = time.time() + 300
        while time.time() < deadline and proc.poll() is None:
            if any(comm(p) == "sleep" for p in marked(mark)):
                break
            time.sleep(0.1)
        if proc.poll() is None:
            # The rank is up; let pe-run settle into its wait.
            time.sleep(0.5)
            proc.send_signal(sig)
    try:
        status = proc.wait(timeout=300)
    except subprocess.TimeoutExpired:
        proc.kill()
        status = proc.wait()
        print("ranks_cleanup: COMMAND did not exit, killed it")
    sys.stdout.flush()
    if status < 0:
        print(f"ranks_cleanup: signal {signal.Signals(-status).name[3:]}")
    else:
        print(f"ranks_cleanup: exit {status}")
    left = marked(mark)
    deadline = time.time() + 2
    while left and time.time() < deadline:
        time.sleep(0.1)
        left = marked(mark)
    print(f"ranks_cleanup: processes left {len(left)}"
          + "".join(f" {p}:{comm(p)}" for p in left))
    scratch = [e for e in os.listdir(tmp) if e.startswith("pe-run-ranks")]
    print(f"ranks_cleanup: scratch directories left {len(scratch)}")
    for p in left:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass


if __name__ == "__main__":
    main()
