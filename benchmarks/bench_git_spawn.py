"""What starting one git process costs a kb process of a given size, three ways, same run.

    .venv/bin/python benchmarks/bench_git_spawn.py [--mib 100 1000 3000] [--calls 100]

Every git of shipping starts through `kbtools.ship.gitrun.started`, which makes it die
with kb (Linux's parent-death signal). Session 32 set that signal in a ``preexec_fn``,
which makes Python fork the whole process rather than spawn git (no vfork/posix_spawn):
the fork copies the page tables of every resident page, so its cost grows with kb's size
(an MCP server or `kb serve` with models loaded, the test suite's one process). Session
33 starts git through ``setpriv --pdeathsig KILL`` instead (`gitrun.dying_with_kb`).
For each resident size (touched anonymous memory), prints the mean wall time of
``git --version`` started plainly (the floor), through ``setpriv`` (today) and with the
``preexec_fn`` (session 32), and the ratios against the floor.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import signal
import subprocess
import time
from collections.abc import Callable

from kbtools.ship.gitrun import dying_with_kb

PR_SET_PDEATHSIG = 1


def _preexec() -> Callable[[], None]:
    """Session 32's child-side hook: the parent-death signal set between fork and exec."""
    prctl = ctypes.CDLL(None, use_errno=True).prctl

    def child() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    return child


def mean_ms(argv: list[str], calls: int, preexec: Callable[[], None] | None = None) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        subprocess.run(argv, capture_output=True, check=True, start_new_session=True,
                       preexec_fn=preexec)
    return (time.perf_counter() - start) / calls * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mib", type=int, nargs="+", default=[100, 1000, 3000],
                    help="resident sizes to measure at, in MiB")
    ap.add_argument("--calls", type=int, default=100, help="git starts per way and size")
    args = ap.parse_args()
    argv = ["git", "--version"]
    held = bytearray()
    print(f"{'MiB':>6} {'plain ms':>9} {'setpriv ms':>11} {'preexec ms':>11} "
          f"{'setpriv/plain':>14} {'preexec/plain':>14}")
    for mib in sorted(args.mib):
        grow = mib * 2**20 - len(held)
        if grow > 0:
            more = bytearray(grow)
            for i in range(0, grow, os.sysconf("SC_PAGE_SIZE")):  # resident, not just mapped
                more[i] = 1
            held += more
            del more
        plain = mean_ms(argv, args.calls)
        wrapped = mean_ms(dying_with_kb(argv), args.calls)
        forked = mean_ms(argv, args.calls, _preexec())
        print(f"{mib:>6} {plain:>9.2f} {wrapped:>11.2f} {forked:>11.2f} "
              f"{wrapped / plain:>13.2f}× {forked / plain:>13.2f}×")


if __name__ == "__main__":
    main()
