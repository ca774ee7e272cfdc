"""Running one git process for shipping: its environment, its limits on the network.

Every call runs the ``git`` executable in one environment, `GIT_ENV`: no terminal prompts,
C locale so that messages parse the same everywhere. A network command (``ls-remote``,
``fetch``, ``push``) is given up when its source stops answering (`NETWORK_TIMEOUT`,
`STALL_SECONDS`): git and its transport helper are then killed together and `run_git`
raises the caller's error in one line. What is run (refs, trees, blobs, sources) is
`kbtools.ship.git`.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from kbtools.errors import KbError, ReleaseError, SyncError

GIT_ENV: dict[str, str] = {"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
# Settings (`git -c`) for every git command of shipping, whatever the machine's ~/.gitconfig
# or /etc/gitconfig say, as `provenance.MACHINE_NEUTRAL` does for the knowledge repository:
# those that change what a command does. A user who signs every push (``push.gpgSign``) had
# `kb release`'s push fail against a server that takes no push certificates; one who signs
# every commit and tag (``commit.gpgSign``, ``tag.gpgSign``, ``tag.forceSignAnnotated``,
# with ``user.signingkey`` naming a key not on this machine, or a gpg that asks for a
# passphrase) is pinned too, so that no git version or command signs (git 2.39's
# ``commit-tree`` and ``mktag`` do not). A release is vouched for by kb's own signature of
# its manifest (`kbtools.ship.signing`), not by git's. Hooks of the user's (``core.hooksPath``, a
# repository's own ``reference-transaction`` or ``pre-push``) are not run: they aborted the
# ref updates of a release or a sync that are kb's own business. The other side of a push
# or fetch runs its own hooks and settings (git passes none of these to it).
# What a fetch trusts is pinned too. ``http.sslVerify=false`` (set once for one server with a
# broken certificate, in ~/.gitconfig or /etc/gitconfig, for every URL or for this one,
# or $GIT_SSL_NO_VERIFY) made a device take whatever answered at an https source's address
# unauthenticated, which is all a device with no pinned key has: TLS is always checked
# (`url_pins` pins it for the source's very URL, which outranks a setting for any prefix of
# it); a private CA is named with ``http.sslCAInfo``, which stays the user's. The transports a
# command may use are kb's (`ALLOWED_PROTOCOLS`, as $GIT_ALLOW_PROTOCOL, which git obeys
# over any ``protocol.allow``/``protocol.<name>.allow``): ``protocol.allow=always`` let a
# source ``ext::sh -c …`` (or a ``url.*.insteadOf`` rewriting a source to one) run a
# command. Where a fetch goes and how it gets there stay the user's: ``url.*.insteadOf``
# (a mirror in the field), ``core.sshCommand``/$GIT_SSH_COMMAND (the identity and host keys
# of ssh), ``http.proxy``: a route changes no release's content, which its manifest and,
# when keys are pinned, its signature vouch for, whoever delivers it.
PINNED = ("commit.gpgSign=false", "tag.gpgSign=false", "tag.forceSignAnnotated=false",
          "push.gpgSign=false", "log.showSignature=false", f"core.hooksPath={os.devnull}",
          "http.sslVerify=true")
PINNED_ARGS = tuple(arg for setting in PINNED for arg in ("-c", setting))
ALLOWED_PROTOCOLS = ("file", "git", "http", "https", "ssh")
# from the environment kb was started in: turn TLS checks off, or widen the transports
_DROPPED_ENV = ("GIT_SSL_NO_VERIFY", "GIT_ALLOW_PROTOCOL")

# A network operation that moves less than STALL_BYTES per second for STALL_SECONDS is
# given up (git's http.lowSpeedLimit/lowSpeedTime, for http(s) sources). Whatever the
# transport, listing a source's refs (a few kB) is killed past its overall limit: a git://
# or ssh source that accepts a connection and never answers would otherwise hold the device
# lock forever. A fetch has no overall limit (a large release over a slow field link may
# rightly take hours) but is killed once it has made no progress for STALL_SECONDS, on any
# transport: no progress line from git or the source (``--progress``; the source reports
# while it counts and compresses, git while it receives) and no object arriving (a pack
# growing, a loose object written). A git:// or ssh connection that goes silent (a 4G link dropping
# without a reset) is never closed by the kernel for hours, and curl's speed limit covers
# http(s) only. A push (`kb release`, often in CI) is watched the same way: git's
# ``--progress`` lines while it counts, compresses and writes the pack (written as the
# bytes go out, so they stop when the link does), then the remote's own progress; a push
# whose remote is silent for STALL_SECONDS after receiving the pack (a hook running that
# long) is given up too, and `kb release` run again pushes the same release.
STALL_BYTES = 1000
STALL_SECONDS = 60
NETWORK_TIMEOUT: dict[str, float | None] = {"ls-remote": 4 * STALL_SECONDS, "fetch": None,
                                            "push": None}
WATCHED = frozenset({"fetch", "push"})  # network commands killed when they make no progress
# A fetch is stopped once what it has stored passes MAX_FETCH_BYTES (kb.toml [sync]
# max_fetch_bytes, `kb sync --max-fetch-bytes`): a hostile or broken source (a release with
# a blob of gigabytes, a pack that never ends) no longer fills a field device's disk. Watched
# as the stall is, by what arrives in the object directory's pack/ (every transport and a
# bundle store a fetch as a pack there: `CHECKED_FETCH` keeps it one), every SIZE_POLL
# seconds; what git had written by then is removed by the caller (`kbtools.ship.fetching`).
MAX_FETCH_BYTES = 4 << 30  # 4 GiB: ten times the 54k-chunk tidb-docs-cn release
SIZE_POLL = 0.1
# What a source may list (``ls-remote``: two lines of ~60 bytes a release): past it git is
# stopped, before a source advertising refs without end fills a device's memory (its
# output is read whole; the listing's time limit bounds it at the speed of the link only).
MAX_LISTING_BYTES = 64 << 20


@dataclass(frozen=True)
class NetLimits:
    """When a device gives up a network git command (kb.toml ``[sync]``, `kb sync`'s
    options): `stall_seconds` without progress (and, for http(s), under `stall_bytes` per
    second that long), `list_timeout` seconds in all to list a source's refs. A device on a
    link slower than the defaults allow (a satellite or 2G link moving under 1000 bytes/s)
    raises them; nothing else changes. `default_limits` gives the defaults."""

    stall_seconds: float
    stall_bytes: int
    list_timeout: float
    max_fetch_bytes: int | None = MAX_FETCH_BYTES  # a fetch storing more is stopped (None:
    # no limit, `kb release` fetching from its own remote)


def default_limits() -> NetLimits:
    """The limits of this module's constants (read when called)."""
    return NetLimits(STALL_SECONDS, STALL_BYTES, NETWORK_TIMEOUT.get("ls-remote") or 0,
                     MAX_FETCH_BYTES)


def limits_from(table: Mapping[str, Any], given: Mapping[str, float | None] | None = None
                ) -> NetLimits:
    """The limits a kb.toml table sets (its ``stall_seconds``, ``stall_bytes`` and
    ``list_timeout``, validated against the schema when kb.toml was loaded; other keys are
    the table's own business) over `default_limits` (read now, not copied into kb.toml's
    defaults), and the values in `given` (None: not given; a command's options) over both:
    `kb sync` reads ``[sync]``, `kb release` ``[release]``."""
    fields = asdict(default_limits())
    chosen = {**fields, **{k: v for k, v in table.items() if k in fields},
              **{k: v for k, v in (given or {}).items() if v is not None}}
    return NetLimits(stall_seconds=float(chosen["stall_seconds"]),
                     stall_bytes=int(chosen["stall_bytes"]),
                     list_timeout=float(chosen["list_timeout"]),
                     max_fetch_bytes=None if chosen["max_fetch_bytes"] is None
                     else int(chosen["max_fetch_bytes"]))


class GitTimeout(Exception):
    """A network git command ran past its limit and was killed (`run_git` reports it)."""


class GitTooLarge(GitTimeout):
    """A fetch stored more than its limit and was killed (`run_git` raises `FetchTooLarge`):
    `received` bytes by then, past `limit`."""

    def __init__(self, received: int, limit: int):
        self.received, self.limit = received, limit
        super().__init__(f"{received} bytes stored, past {limit}")


class GitListedTooMuch(GitTimeout):
    """A command wrote more than its limit on its output and was killed: `limit` bytes."""

    def __init__(self, limit: int):
        self.limit = limit
        super().__init__(f"more than {limit} bytes listed")


class FetchTooLarge(SyncError):
    """A fetch stopped at its size limit (`NetLimits.max_fetch_bytes`); `received` bytes
    were stored by then, `limit` is the limit."""

    def __init__(self, received: int, limit: int):
        self.received, self.limit = received, limit
        super().__init__(f"the fetch stored {size_text(received)}, past this device's limit "
                         f"of {size_text(limit)}, and was stopped")


def size_text(n: int) -> str:
    """`n` bytes as an operator reads them: 5.0 GiB, 12.3 MiB, 800 kiB, 17 bytes."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("kiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.1f} {unit}" if shift > 10 else f"{n >> 10} {unit}"
    return f"{n} bytes"


def run_raw(git_dir: Path | str, args: tuple[str, ...], env: dict[str, str] | None = None,
            stdin: bytes | None = None, timeout: float | None = None,
            limits: NetLimits | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run git `args` against `git_dir`, whatever its exit status; a network command within
    its `limits` (default: `default_limits`; `GitTimeout` past them): `timeout` seconds in
    all when given, else its `NETWORK_TIMEOUT` (an ``ls-remote``: the limits' own)."""
    command = subcommand(args)
    lim = limits or default_limits()
    limit = timeout if timeout is not None else (
        lim.list_timeout if command == "ls-remote" else NETWORK_TIMEOUT.get(command))
    watch = None
    if command in WATCHED:  # its progress lines are the sign of life (-q would hide git's)
        at = args.index(command) + 1
        args = (*args[:at], "--progress", *(a for a in args[at:] if a not in ("-q", "--quiet")))
        watch = Path(git_dir) / "objects" if command == "fetch" else None  # what arrives
    if command in NETWORK_TIMEOUT:
        args = ("-c", f"http.lowSpeedLimit={lim.stall_bytes}",
                "-c", f"http.lowSpeedTime={max(1, round(lim.stall_seconds))}", *args)
    return run_plain(f"--git-dir={git_dir}", *args, env=env, stdin=stdin, timeout=limit,
                     stall=lim.stall_seconds if command in WATCHED else None, watch=watch,
                     cap=lim.max_fetch_bytes if command == "fetch" else None,
                     out_cap=MAX_LISTING_BYTES if command == "ls-remote" else None)


def run_plain(*args: str, env: dict[str, str] | None = None, stdin: bytes | None = None,
              timeout: float | None = None, stall: float | None = None,
              watch: Path | None = None, stdin_file: IO[bytes] | None = None,
              cap: int | None = None, out_cap: int | None = None
              ) -> subprocess.CompletedProcess[bytes]:
    """Run ``git args`` in `GIT_ENV`, whatever its exit status; killed (`GitTimeout`) past
    `timeout` seconds, or `stall` seconds without progress (`_supervise`), or (`GitTooLarge`)
    once more than `cap` bytes arrived in `watch`'s pack/, or (`GitListedTooMuch`) once it
    wrote more than `out_cap` bytes on its output. Its input is `stdin`, or the
    open file `stdin_file` read by git itself from where it stands (a pack of gigabytes is
    never read into memory)."""
    full_env = shipping_env(args, env)
    with started(["git", *PINNED_ARGS, *args], full_env,
                 stdin=subprocess.PIPE if stdin_file is None else stdin_file) as proc:
        if timeout is None and stall is None and out_cap is None:
            out, err = proc.communicate(None if stdin_file is not None else stdin)
        else:
            out, err = _supervise(proc, stdin, timeout, stall, watch, cap, out_cap)
    return subprocess.CompletedProcess(["git", *PINNED_ARGS, *args], proc.returncode, out, err)


def shipping_env(args: tuple[str, ...] = (), env: dict[str, str] | None = None
                 ) -> dict[str, str]:
    """The environment of a shipping git command with `args`: `GIT_ENV`, the transports
    allowed (`ALLOWED_PROTOCOLS`, narrowed by a $GIT_ALLOW_PROTOCOL of the user's, never
    widened), no $GIT_SSL_NO_VERIFY, and TLS checked for the URLs in `args` (`url_pins`),
    then `env`."""
    full = {k: v for k, v in os.environ.items() if k not in _DROPPED_ENV}
    theirs = os.environ.get("GIT_ALLOW_PROTOCOL")
    allowed = [p for p in ALLOWED_PROTOCOLS if theirs is None or p in theirs.split(":")]
    return {**full, **GIT_ENV, "GIT_ALLOW_PROTOCOL": ":".join(allowed) or "none",
            **url_pins(args, full), **(env or {})}


def url_pins(args: tuple[str, ...], env: Mapping[str, str]) -> dict[str, str]:
    """``http.<url>.sslVerify=true`` for each http(s) URL among `args`, as git's
    GIT_CONFIG_COUNT/KEY/VALUE entries after those `env` holds (a URL may hold "=", which
    ``-c`` would split at): the setting for the URL as given outranks one for any prefix of
    it in the user's git config, which ``-c http.sslVerify`` does not."""
    urls = [a for a in args if a[:8].lower().startswith(("http://", "https://"))]
    if not urls:
        return {}
    count = env.get("GIT_CONFIG_COUNT", "0")
    start = int(count) if count.isdigit() else 0
    out = {"GIT_CONFIG_COUNT": str(start + len(urls))}
    for n, url in enumerate(urls, start):
        out[f"GIT_CONFIG_KEY_{n}"] = f"http.{url}.sslVerify"
        out[f"GIT_CONFIG_VALUE_{n}"] = "true"
    return out


INTERRUPTS = (signal.SIGINT, signal.SIGTERM)  # what stops kb (`kb: interrupted`, exit 130)


@functools.cache
def _setpriv() -> str | None:
    """util-linux's ``setpriv`` (Essential on Debian) when it can set the parent-death
    signal (``--pdeathsig``, util-linux 2.33+), else None: asked once per process."""
    found = shutil.which("setpriv") if sys.platform == "linux" else None
    if found is None:
        return None
    probe = subprocess.run([found, "--pdeathsig", "KILL", "--", "true"],
                           stdin=subprocess.DEVNULL, capture_output=True, check=False)
    return found if probe.returncode == 0 else None


def dying_with_kb(argv: list[str]) -> list[str]:
    """`argv` run so that it dies with kb, also when kb is killed with SIGKILL (the OOM
    killer, a service manager's last resort), which runs no clean-up: in a session of its
    own (`started`), git used to run on, over a stalled link for hours, writing into
    repo.git while the next sync held the lock. ``setpriv --pdeathsig KILL`` sets Linux's
    parent-death signal and execs git (same pid); the kernel sends it when the thread that
    started git ends: each git here is waited for, or killed, by the block that started it
    (`started`, `git.BlobReader`), so that thread outlives it. Not a ``preexec_fn``: that
    makes Python fork the whole kb process instead of spawning (130 ms a git call in a
    3 GB process, against 2 ms through setpriv), and a fork while other threads run may
    deadlock in the child. Without setpriv (not Linux, no util-linux) git runs as given.
    The one window left: kb killed in the ~1 ms between spawning setpriv and its prctl."""
    wrapper = _setpriv()
    return [wrapper, "--pdeathsig", "KILL", "--", *argv] if wrapper else argv


@contextlib.contextmanager
def started(argv: list[str], env: dict[str, str], *, stdin: int | IO[bytes] = subprocess.PIPE,
            stderr: int = subprocess.PIPE) -> Iterator[subprocess.Popen[bytes]]:
    """A git process (its stdout a pipe; `stdin` and `stderr` pipes unless given), in a
    session of its own: every git process of shipping starts here. Whatever ends the block
    by an exception
    (Ctrl-C, SIGTERM, a limit) kills it together with the processes it started (transport
    helpers, gc's repack), or it would go on writing into the repository after kb let go
    of its lock. Ctrl-C and SIGTERM are held while it starts, and raised once it has:
    raised inside `subprocess.Popen`, after its fork, they lost the child (no object held
    its pid yet), which ran on after kb exited (a `kb releases` stopped as it asked a
    source that never answers, one time in five on a busy machine)."""
    held: list[int] = []
    handlers = _hold(held)
    try:
        proc = subprocess.Popen(dying_with_kb(argv), stdin=stdin, stdout=subprocess.PIPE,
                                stderr=stderr, env=env, start_new_session=True)
    except BaseException:
        _deliver(handlers, held)
        raise
    with proc:
        try:
            _deliver(handlers, held)
            yield proc
        except BaseException:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise


@contextlib.contextmanager
def interrupts_held() -> Iterator[list[int]]:
    """Ctrl-C and SIGTERM recorded (in the list yielded), not acted on, while the block
    runs; then dropped. For the clean-up of a command already stopping (`kb sync` and `kb
    rollback` removing what they staged, recording where they stopped, saying so): a second
    stop there (a service manager's second SIGTERM, Ctrl-C pressed twice) cut it short,
    leaving the staged release behind, state.json unwritten and a bare `kb: interrupted`.
    The clean-up only touches the device's own disk, so holding a stop for its length is
    short; SIGKILL still ends kb at once, and the next `kb sync` finishes the clean-up."""
    held: list[int] = []
    handlers = _hold(held)
    try:
        yield held
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)


def _hold(held: list[int]) -> dict[int, Any]:
    """Have Ctrl-C and SIGTERM recorded in `held` rather than acted on; returns the handlers
    replaced. Python runs signal handlers in the main thread only: elsewhere nothing is
    raised inside `Popen`, and nothing is replaced."""
    if threading.current_thread() is not threading.main_thread():
        return {}

    def hold(signum: int, frame: object) -> None:
        held.append(signum)

    return {sig: signal.signal(sig, hold) for sig in INTERRUPTS
            if signal.getsignal(sig) is not None}  # None: a handler Python did not set


def _deliver(handlers: dict[int, Any], held: list[int]) -> None:
    """Put back the `handlers` `_hold` replaced, then have them act on the signals held."""
    for sig, handler in handlers.items():
        signal.signal(sig, handler)
    for sig in dict.fromkeys(held):
        signal.raise_signal(sig)


def _supervise(proc: subprocess.Popen[bytes], stdin: bytes | None, timeout: float | None,
               stall: float | None, watch: Path | None, cap: int | None = None,
               out_cap: int | None = None) -> tuple[bytes, bytes]:
    """Wait for `proc`, reading its output; kill its process group and raise `GitTimeout`
    past `timeout` seconds in all, or after `stall` seconds with no output and no object
    arriving in the object directory `watch` (`_arrivals`), or `GitTooLarge` once more than
    `cap` bytes arrived there, or `GitListedTooMuch` once its output passed `out_cap`."""
    heard = [time.monotonic()]  # when the process last wrote anything
    streams: list[list[bytes]] = [[], []]
    overflow: list[bool] = []

    def drain(fd: int, into: list[bytes]) -> None:
        size = 0
        for block in iter(lambda: os.read(fd, 1 << 16), b""):
            size += len(block)
            if out_cap is not None and into is streams[0] and size > out_cap:
                overflow.append(True)  # nothing more kept; git is stopped
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                into.clear()
                return
            into.append(block)
            heard[0] = time.monotonic()

    def feed() -> None:
        if proc.stdin is None:  # git reads a file of the caller's
            return
        with contextlib.suppress(OSError):
            proc.stdin.write(stdin or b"")
        with contextlib.suppress(OSError):
            proc.stdin.close()

    assert proc.stdout is not None and proc.stderr is not None
    threads = [threading.Thread(target=drain, args=(s.fileno(), into), daemon=True)
               for s, into in ((proc.stdout, streams[0]), (proc.stderr, streams[1]))]
    threads.append(threading.Thread(target=feed, daemon=True))
    try:  # from the first thread on: a SIGTERM while they start left git running
        for t in threads:
            t.start()
        _wait(proc, watch, timeout, stall, heard, cap)
    except BaseException:  # Ctrl-C, SIGTERM, given up: git (in a session of its own) goes
        # too, or it would go on writing into the repository after kb let go of its lock
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        for t in (t for t in threads if t.ident is not None):  # those started
            t.join()
        raise
    for t in threads:
        t.join()
    if overflow and out_cap is not None:
        raise GitListedTooMuch(out_cap)
    return b"".join(streams[0]), b"".join(streams[1])


def _wait(proc: subprocess.Popen[bytes], watch: Path | None, timeout: float | None,
          stall: float | None, heard: list[float], cap: int | None = None) -> None:
    """Wait for `proc` to end; raise `GitTimeout` past `timeout` seconds in all, or after
    `stall` seconds with no output (`heard[0]`, when it last wrote) and no object arriving in
    `watch`; `GitTooLarge` once the files of `watch`'s pack/ grew by more than `cap`."""
    started = last = time.monotonic()
    seen = _arrivals(watch)
    base = seen[0]  # bytes in pack/ before this command stored any
    poll = SIZE_POLL if cap is not None and watch is not None else 1.0
    while True:
        try:
            proc.wait(timeout=poll)
            return
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        arrived = _arrivals(watch)
        if cap is not None and watch is not None and arrived[0] - base > cap:
            raise GitTooLarge(arrived[0] - base, cap)
        if arrived != seen:
            seen, last = arrived, now
        last = max(last, heard[0])
        if timeout is not None and now - started > timeout:
            raise GitTimeout(f"no answer within {timeout:g} s")
        if stall is not None and now - last > stall:
            raise GitTimeout(f"no progress for {stall:g} s")


def _arrivals(objects: Path | None) -> tuple[int, int]:
    """What changes while objects arrive in a git object directory: the sizes of the files
    in pack/ (a pack being received grows there, over any transport) and the modification
    times of its directories (a loose object written by a dumb-HTTP fetch)."""
    sizes = times = 0
    if objects is None:
        return sizes, times
    with contextlib.suppress(OSError), os.scandir(objects / "pack") as entries:
        for entry in entries:
            with contextlib.suppress(OSError):
                sizes += entry.stat(follow_symlinks=False).st_size
    with contextlib.suppress(OSError), os.scandir(objects) as entries:
        for entry in entries:
            with contextlib.suppress(OSError):
                times += entry.stat(follow_symlinks=False).st_mtime_ns
    return sizes, times


def run_git(git_dir: Path | str, *args: str, env: dict[str, str] | None = None,
            stdin: bytes | None = None, error: type[KbError] = ReleaseError,
            check: bool = True, timeout: float | None = None,
            limits: NetLimits | None = None) -> str:
    """Run one git plumbing command against `git_dir`; raise `error` with git's message
    (also when a network command stalls or runs past its limit: `timeout` seconds when
    given, else its `limits`, `run_raw`). Returns its output."""
    return run_git_proc(git_dir, *args, env=env, stdin=stdin, error=error, check=check,
                        timeout=timeout, limits=limits).stdout.decode(errors="replace")


def run_git_proc(git_dir: Path | str, *args: str, env: dict[str, str] | None = None,
                 stdin: bytes | None = None, error: type[KbError] = ReleaseError,
                 check: bool = True, timeout: float | None = None,
                 limits: NetLimits | None = None) -> subprocess.CompletedProcess[bytes]:
    """`run_git`, returning the finished process: what git said on stderr besides (a
    warning, as "redirecting to URL") is the caller's to read."""
    try:
        proc = run_raw(git_dir, args, env, stdin, timeout, limits)
    except GitTooLarge as exc:
        raise FetchTooLarge(exc.received, exc.limit) from None
    except GitListedTooMuch as exc:
        whose = "the source" if issubclass(error, SyncError) else "the remote"
        raise error(f"git {subcommand(args)} stopped: {whose} listed more than "
                    f"{size_text(exc.limit)} of refs (an artifacts repository lists two "
                    "short lines a release); refusing it") from None
    except GitTimeout as exc:
        command = subcommand(args)
        # a device's sync (SyncError) reads from its source; `kb release` talks to its remote
        other = "the source" if issubclass(error, SyncError) else "the remote"
        raise error(f"git {command} failed: {exc} ({other} stopped answering); try again "
                    "later") from None
    if check and proc.returncode != 0:
        raise error(f"git {subcommand(args)} failed: {failure_reason(proc)}")
    return proc


def failure_reason(proc: subprocess.CompletedProcess[bytes]) -> str:
    """The line of a failed git's stderr that says why (its first error or fatal line)."""
    lines = [m.strip() for m in proc.stderr.decode(errors="replace").splitlines() if m.strip()]
    refused = [m for m in lines if m.startswith("! [") and "rejected]" in m]
    if refused:  # a push the remote turned down: git's last line ("failed to push some
        # refs") says nothing of why; the ref's line (a hook declined, not a fast-forward)
        # and the remote's own words (a hook's message) do
        said = [m[len("remote:"):].strip() for m in lines if m.startswith("remote:")]
        words = "; ".join(w for w in said if w and "% (" not in w)[:300]  # (not progress)
        return refused[0][2:] + (f" (the remote says: {words})" if words else "")
    bad = [i for i, m in enumerate(lines) if m.startswith(("fatal:", "error:"))]
    reason = lines[bad[0]] if bad else (lines or [f"exit {proc.returncode}"])[0]
    if bad and reason.endswith(":") and bad[0] + 1 < len(lines):
        reason += " " + lines[bad[0] + 1]  # "unable to connect to HOST:" + why
    return with_clock(reason)


# How git's TLS libraries word a certificate they refused: GnuTLS (Debian's git) gives no
# reason at all, OpenSSL names the date check when that was it.
CERTIFICATE_REFUSED = ("certificate verification failed", "ssl certificate problem",
                       "certificate is not yet valid", "certificate has expired")


def with_clock(reason: str) -> str:
    """`reason`, and this machine's clock when it says a TLS certificate was refused.

    A certificate is valid between two dates read against the local clock, so a field
    device whose clock is far off (no battery-backed clock: it boots in 1970; or set years
    ahead) has every https source refused, and GnuTLS does not say why. The clock's reading
    lets the operator see it at once instead of suspecting the source."""
    if not any(word in reason.lower() for word in CERTIFICATE_REFUSED):
        return reason
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (f"{reason} (this machine's clock reads {now}: a certificate is valid only "
            "between two dates, so a clock far off fails every one; if that is not the "
            "time, set the clock and try again)")


def subcommand(args: tuple[str, ...]) -> str:
    skip = False
    for a in args:
        if skip:
            skip = False
        elif a == "-c":
            skip = True
        elif not a.startswith("-"):
            return a
    return "command"
