"""LaTeX and dvisvgm runs for formulas, boxed in: no shell, no files outside, bounded time.

`typeset(formulas, tmp)` writes one document (one page per formula) into the empty temporary
directory `tmp` and runs `latex` there:

- `-no-shell-escape` and `shell_escape=f`; kpathsea's `openin_any=p`/`openout_any=p`
  (paranoid: no dot files, no parent directories, absolute paths only under `TEXMFOUTPUT`,
  which is `tmp`); `MKTEX*=0` so no font-generation program is started;
- stdin closed, its own process group (killed as a whole), and limits set in the child
  before exec: CPU seconds (`RLIMIT_CPU`), address space and the size of any file written;
- a watchdog on the terminal output: after each formula LaTeX prints a marker carrying a
  random nonce (a formula cannot forge it); a formula that uses more than `seconds` of CPU
  time after the previous marker is stopped and named (`TexRun.culprit`). A formula that
  stalls only because the machine is busy hits the wall-time backstop instead, which is
  reported as transient (not cached).

`to_svg(tmp, pages)` then runs `dvisvgm --no-specials` under the same limits. Both are used
by `kbtools.render.formula`, which decides what a failure means.
"""

from __future__ import annotations

import math
import os
import re
import resource
import secrets
import select
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kbtools.errors import RenderError

FORMULA_SECONDS = 3.0  # CPU time one formula may take inside a LaTeX run
WALL_FACTOR = 4  # wall-time backstop per formula, as a multiple of its CPU budget
STARTUP_SECONDS = 15.0  # LaTeX start-up and the preamble, before the first formula
MEMORY_BYTES = 2 << 30  # address space of one latex/dvisvgm process
OUTPUT_BYTES = 64 << 20  # largest file a run may write
PRECISION = 3
PREAMBLE = r"""\documentclass[12pt]{article}
\usepackage{amsmath,amssymb}
\usepackage{CJKutf8}
\pagestyle{empty}
\tracinglostchars=3
\begin{document}
\begin{CJK}{UTF8}{gbsn}
"""
ENDING = "\\end{CJK}\n\\end{document}\n"
_TAIL = 16 * 1024  # terminal output kept for the error message
_POLL_SECONDS = 0.2


@dataclass(frozen=True)
class TexRun:
    """How far one LaTeX run got."""

    ok: bool  # every page typeset and the DVI written
    done: int  # formulas completely typeset before the run ended
    culprit: int | None  # index of the formula that failed, when one can be named
    reason: str = ""  # why it failed, one line ("" when ok)
    transient: bool = False  # the failure may not recur (a busy machine): do not cache it


def sandbox_env(tmp: Path) -> dict[str, str]:
    """The environment of every run: paranoid file access, no shell, no font generation."""
    env = dict(os.environ, openin_any="p", openout_any="p", shell_escape="f",
               TEXMFOUTPUT=str(tmp))
    env.update(dict.fromkeys(("MKTEXPK", "MKTEXTFM", "MKTEXMF", "MKTEXTEX", "MKOCP", "MKOFM"),
                             "0"))
    return env


def typeset(formulas: list[str], tmp: Path, seconds: float = FORMULA_SECONDS) -> TexRun:
    """Run LaTeX on `formulas` (one page each) in `tmp`, which must be empty.

    Each formula may use `seconds` of CPU time (`WALL_FACTOR` times that in wall time), so
    the run ends soon after a formula stops making progress, whatever it does; on failure
    `culprit` names the formula LaTeX was on. Raises RenderError when LaTeX fails before the
    first formula (an installation problem, not a formula's).
    """
    # After each page LaTeX prints "[kb-<nonce>-<n>]" through a macro, so the marker's text
    # never appears in an error message's context (which shows `\kbdone{n}`).
    nonce = secrets.token_hex(8)
    mark = f"\\newcommand\\kbdone[1]{{\\message{{[kb-{nonce}-#1]}}}}\\kbdone{{0}}\n"
    body = "".join(f"$\\displaystyle {f}$\n\\newpage\\kbdone{{{i + 1}}}\n"
                   for i, f in enumerate(formulas))
    (tmp / "f.tex").write_text(PREAMBLE + mark + body + ENDING, encoding="utf-8")
    marker = re.compile(rf"(?:^|\s)\[kb-{nonce}-(\d+)\]".encode())
    cpu = STARTUP_SECONDS + seconds * (len(formulas) + 1)
    proc = subprocess.Popen(
        ["latex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "f.tex"],
        cwd=tmp, env=sandbox_env(tmp), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=_limits(cpu))
    assert proc.stdout is not None
    try:
        progress = _watch(proc, marker, seconds)
    finally:
        if proc.poll() is None:
            _kill(proc)
        proc.stdout.close()
    seen, tail = progress.seen, progress.tail
    if seen < 0:  # the preamble is ours: nothing a formula did
        why = (f"did not start within {STARTUP_SECONDS:g} s" if progress.stopped
               else f"failed before the first formula ({_tex_message(tail) or 'no message'})")
        raise RenderError(f"LaTeX {why}; check the installation (docs/formulas.md)")
    culprit = seen if seen < len(formulas) else None
    if progress.stopped == "cpu":
        return TexRun(False, seen, culprit,
                      f"LaTeX used more than {seconds:g} s of CPU time on this formula (stopped)")
    if progress.stopped == "wall":
        return TexRun(False, seen, culprit, f"LaTeX made no progress on this formula for "
                      f"{progress.waited:.0f} s (the machine is busy?); not cached, tried "
                      "again next time", transient=progress.cpu_known)
    if proc.returncode != 0 or seen != len(formulas) or not (tmp / "f.dvi").is_file():
        return TexRun(False, seen, culprit, _latex_error(tail, proc.returncode))
    return TexRun(True, seen, None)


@dataclass(frozen=True)
class _Progress:
    seen: int  # last marker seen (-1: none)
    tail: bytes  # the end of the terminal output
    stopped: str = ""  # "cpu" or "wall" when the watchdog stopped the run
    waited: float = 0.0  # wall seconds since the last marker when stopped
    cpu_known: bool = True  # the child's CPU time could be read (else wall time decides)


def _watch(proc: subprocess.Popen[bytes], marker: re.Pattern[bytes],
           seconds: float) -> _Progress:
    """Follow LaTeX's terminal output until it ends or a formula exceeds its budget:
    `seconds` of CPU time per formula (a busy machine does not count against a formula),
    with `WALL_FACTOR` times that in wall time as the backstop; `STARTUP_SECONDS` for the
    preamble. Uses wall time alone where the child's CPU time cannot be read."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    seen, tail = -1, b""
    mark_time, mark_cpu = time.monotonic(), _cpu_seconds(proc.pid)
    cpu_known = mark_cpu is not None
    wall = STARTUP_SECONDS
    while True:
        waited = time.monotonic() - mark_time
        if waited > wall:
            return _Progress(seen, tail, "cpu" if seen >= 0 and not cpu_known else "wall",
                             waited, cpu_known)
        cpu = _cpu_seconds(proc.pid)
        if seen >= 0 and cpu is not None and mark_cpu is not None and cpu - mark_cpu > seconds:
            return _Progress(seen, tail, "cpu", waited, cpu_known)
        if not select.select([fd], [], [], min(_POLL_SECONDS, wall - waited + 0.01))[0]:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        window = tail[-64:] + chunk
        tail = (tail + chunk)[-_TAIL:]
        found = [int(m.group(1)) for m in marker.finditer(window)]
        if found and max(found) > seen:
            seen = max(found)
            mark_time, mark_cpu = time.monotonic(), _cpu_seconds(proc.pid)
            wall = seconds * WALL_FACTOR if cpu_known else seconds
    try:
        proc.wait(timeout=seconds * WALL_FACTOR)
    except subprocess.TimeoutExpired:
        return _Progress(seen, tail, "wall", seconds * WALL_FACTOR, cpu_known)
    return _Progress(seen, tail)


def to_svg(tmp: Path, pages: int, seconds: float = FORMULA_SECONDS) -> list[str] | None:
    """dvisvgm on `tmp/f.dvi`: the SVG text of each page, or None when it fails."""
    limit = STARTUP_SECONDS + seconds * pages
    try:
        run = subprocess.run(
            ["dvisvgm", "--no-fonts", "--no-specials", "--exact-bbox",
             f"--precision={PRECISION}", "--page=1-", "--output=p%p.svg", "f.dvi"],
            cwd=tmp, env=sandbox_env(tmp), capture_output=True, timeout=limit,
            stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=_limits(limit))
    except subprocess.TimeoutExpired:
        return None
    if run.returncode != 0:
        return None
    files = sorted(tmp.glob("p*.svg"), key=lambda p: int(re.sub(r"\D", "", p.stem) or 0))
    if len(files) != pages:
        return None
    try:
        return [p.read_text(encoding="utf-8") for p in files]
    except (OSError, UnicodeDecodeError):
        return None


def _limits(cpu_seconds: float) -> Callable[[], None]:
    """The child-side limits (run between fork and exec)."""
    cpu = math.ceil(cpu_seconds)

    def apply() -> None:
        _lower(resource.RLIMIT_CPU, cpu, cpu + 1)
        _lower(resource.RLIMIT_AS, MEMORY_BYTES, MEMORY_BYTES)
        _lower(resource.RLIMIT_FSIZE, OUTPUT_BYTES, OUTPUT_BYTES)
        _lower(resource.RLIMIT_CORE, 0, 0)

    return apply


def _lower(kind: int, soft: int, hard: int) -> None:
    """Set a limit, never above what the parent already has (an unprivileged process cannot
    raise its hard limit)."""
    _, current = resource.getrlimit(kind)
    if current != resource.RLIM_INFINITY:
        soft, hard = min(soft, current), min(hard, current)
    resource.setrlimit(kind, (soft, hard))


def _cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) process `pid` has used; None when it cannot be read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """Stop the run and anything it started (its own process group)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def _tex_message(tail: bytes) -> str:
    """The first line of TeX's error message in its terminal output ("" when none)."""
    errors = re.findall(r"^! (.+)$", tail.decode("utf-8", errors="replace"), flags=re.M)
    return " ".join(errors[0].split()).rstrip(".")[:120] if errors else ""


def _latex_error(tail: bytes, returncode: int | None) -> str:
    """What went wrong with a formula: TeX's error message, or what ended the run."""
    message = _tex_message(tail)
    if message.startswith("Missing character"):  # \tracinglostchars=3: a glyph TeX lacks
        font = message.rpartition(" in font ")[2]
        return (f"LaTeX has no glyph for a character of this formula (font {font}); "
                "write it as a command (\\alpha, \\leq) or leave it out")
    if message:
        return f"LaTeX could not render this formula: {message}"
    if returncode is not None and returncode < 0:
        return f"LaTeX was stopped by signal {-returncode} (CPU or memory limit)"
    return "LaTeX could not render this formula"
