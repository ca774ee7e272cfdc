"""An interrupted `kb` (Ctrl-C, a service manager's SIGTERM) exits once it has said its line
and cleaned up: `kb publish` stopped mid-load said "kb: interrupted: …" and then never
exited — the gRPC call the signal cut short left a channel whose finalizer waits, at the
interpreter's exit, for a thread the exit has already stopped. A real process here, with a
finalizer that waits forever standing in for that channel."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

STUCK_AT_EXIT = """
import threading
import kbtools.commands.status as status
from kbtools.cli import main


class Stuck:  # finalized at the interpreter's exit, and never done (as that gRPC channel)
    def __del__(self):
        threading.Event().wait()


def interrupted(*args, **kwargs):
    raise KeyboardInterrupt


stuck = Stuck()
status.report = interrupted  # Ctrl-C while the command works
main(prog_name="kb")
"""


def test_an_interrupted_kb_exits_whatever_the_interpreters_exit_would_wait_for(tmp_path: Path):
    proc = subprocess.run([sys.executable, "-c", STUCK_AT_EXIT, "status", "--to",
                           str(tmp_path / "dev")], capture_output=True, text=True, timeout=30,
                          env={**os.environ, "KB_HOME": str(tmp_path / "home")})
    assert (proc.returncode, proc.stderr) == (130, "kb: interrupted\n"), proc.stderr


def test_a_finished_kb_still_exits_through_the_interpreters_exit(tmp_path: Path):
    """Only an interrupted command skips the interpreter's exit: a command that ends as
    usual still runs what is registered for it (an atexit handler writing a line)."""
    script = ("import atexit, sys\nfrom kbtools.cli import main\n"
              "atexit.register(lambda: sys.stderr.write('exit ran\\n'))\nmain(prog_name='kb')\n")
    proc = subprocess.run([sys.executable, "-c", script, "--version"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0 and proc.stderr == "exit ran\n", proc.stderr
