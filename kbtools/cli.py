"""The `kb` command line: a thin click shell over the library.

Every command lives in `kbtools/commands/<name>.py` and is registered below. Errors are
translated in exactly one place, `KbGroup.invoke`: KbError -> its exit code and one line
on stderr; the machine refusing a write (a full disk or quota, a read-only or forbidden
place: `MACHINE_ERRNOS`, SQLite's "database or disk is full") -> exit 1 and one line naming
the file; anything unexpected -> exit 3, one line on stderr and the traceback appended to
`<KB_HOME>/kb-crash.log`. Writing that log never fails the report: undecodable arguments
and messages are escaped, and a log that cannot be written safely (unwritable directory,
a symlink, a FIFO or other non-regular file in its place) is skipped.

A reader that leaves before kb has written all it has (`kb query ... | head -1`, `kb chunks
FILE | head`, a pager quit early) ends every command the same way, text or JSON, help
included: nothing more on stderr and exit 141, the status a shell gives git or coreutils
that SIGPIPE ends (`closed_output`). A broken pipe that is not kb's own output (a git
child that died) is unexpected, exit 3, as any other.
"""

from __future__ import annotations

import difflib
import errno
import importlib
import io
import os
import select
import sqlite3
import stat
import sys
import traceback
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn

import click

from kbtools import __version__
from kbtools.config import CONFIG_NAME, kb_home
from kbtools.errors import Interrupted, KbError, one_line, terminal_text
from kbtools.findings import error_named_as_findings
from kbtools.fsutil import tolerate_unencodable

# the machine refused, not a bug: a full disk or quota, a read-only or forbidden place (one
# line naming the file, exit 1; a build or sync that fails so leaves the previous output)
MACHINE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES,
                            errno.EPERM})

# how a one-line error names kb's own output (as Python names sys.stdout)
STDOUT = "<stdout>"

# kb's output pipe closed by its reader: what a shell reports for a command SIGPIPE ended
CLOSED_OUTPUT_EXIT = 128 + 13

# (module under kbtools.commands, click command attribute). Imported lazily per command.
COMMANDS: dict[str, tuple[str, str]] = {
    "build": ("build", "build_cmd"),
    "check": ("check", "check"),
    "chunks": ("chunks", "chunks"),
    "eval": ("eval", "eval_cmd"),
    "query": ("query", "query_cmd"),
    "watch": ("watch", "watch_cmd"),
    "init": ("init", "init"),
    "table": ("table", "table"),
    "read": ("read", "read"),
    "recent": ("recent", "recent"),
    "mcp": ("mcp", "mcp"),
    "serve": ("serve", "serve"),
    "release": ("release", "release"),
    "publish": ("publish", "publish_cmd"),
    "sync": ("sync", "sync"),
    "keygen": ("keygen", "keygen"),
    "trust": ("trust", "trust"),
    "releases": ("releases", "releases"),
    "status": ("status", "status"),
    "rollback": ("rollback", "rollback"),
    "bundle": ("bundle", "bundle"),
    "review": ("review", "review"),
    "history": ("history", "history"),
    "draft": ("draft", "draft"),
    "diff": ("diff", "diff"),
    "log": ("log", "log"),
}


def utf8_file_names() -> None:
    """Run this command again in Python's UTF-8 mode when the locale reads file names in
    another encoding (zh_CN.GB18030, a Latin-1 locale, C with locale coercion off).

    A knowledge repository's names are UTF-8 bytes (Git keeps bytes; `kb check` refuses any
    other), and so are a release's: read as GB18030, ``水泵密封.md`` became another document
    name (other data/ bytes, other shards, no Git history) and a device wrote the release's
    files under other names. In UTF-8 mode every file name is read and written as UTF-8;
    the arguments keep the text the locale gave them (sent on as UTF-8) and the terminal
    keeps its encoding (PYTHONIOENCODING, unless set). Nothing happens in UTF-8 locales."""
    if sys.flags.utf8_mode or sys.getfilesystemencoding().lower().replace("-", "") == "utf8":
        return
    if not sys.executable or not getattr(sys, "orig_argv", None):
        return
    env = dict(os.environ)
    env.setdefault("PYTHONIOENCODING", getattr(sys.stdout, "encoding", None) or "utf-8")
    argv = [os.fsencode(sys.executable), b"-X", b"utf8",
            *(a.encode("utf-8", "surrogateescape") for a in sys.orig_argv[1:])]
    os.execve(sys.executable, argv, env)


class TerminalSafe:
    """A command's stdout: text written to it is `terminal_text` (knowledge and questions
    printed by `kb query`, `kb log`, `kb review`… cannot drive the terminal); bytes (a bundle
    to ``-``) and everything else go to the stream as they are."""

    def __init__(self, stream: Any):
        self.stream = stream

    def write(self, text: Any) -> int:
        try:
            written: int = self.stream.write(terminal_text(text) if isinstance(text, str)
                                             else text)
        except OSError as exc:
            raise named_stdout(exc) from None
        return written

    def flush(self) -> None:
        try:
            self.stream.flush()
        except OSError as exc:
            raise named_stdout(exc) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def named_stdout(exc: OSError) -> OSError:
    """`exc`, met writing kb's stdout, named `STDOUT` when it names no file (a full disk
    under `kb eval --json > results.json`), so its one line says what could not be
    written."""
    if exc.filename is None and not isinstance(exc, BrokenPipeError):
        exc.filename = STDOUT
    return exc


def closed_standard_streams() -> None:
    """Give kb a stdin, stdout or stderr that was closed when it started (`kb query … >&-`, a
    service started without them), which Python leaves as None: /dev/null, so output to it
    is dropped as click drops it, and nothing (the MCP server, the web server's logging,
    kb's own stdout wrapper) fails on a missing stream (exit 3, "unexpected error"). The
    descriptor itself is pointed at /dev/null where it is still free, so no file kb opens
    next takes its number and receives what a child writes to it."""
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        if getattr(sys, name) is not None:
            continue
        try:
            os.fstat(fd)
            target = os.open(os.devnull, os.O_RDWR)  # its number is taken: leave it be
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            target = fd if null == fd else os.dup2(null, fd)
            if null != fd:
                os.close(null)
        setattr(sys, name, open(target, "r" if fd == 0 else "w", encoding="utf-8",
                                closefd=target != fd))


INTERRUPTED_EXIT = 130


def exit_interrupted() -> NoReturn:
    """End an interrupted `kb` (Ctrl-C, SIGTERM: its line said, its clean-up done on the
    way out) at once, without the interpreter's finalization: what the interrupted work left
    can block that forever — a gRPC call stopped mid-way leaves a channel whose finalizer
    (`grpc._channel._ChannelCallState.__del__`) waits for the channel's thread, which
    finalization has already stopped, so a `kb publish` stopped by a service manager's
    SIGTERM said its line and never exited."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader gone, a stream closed: nothing to keep
            pass
    os._exit(INTERRUPTED_EXIT)


class KbGroup(click.Group):
    def main(self, *args: Any, **kwargs: Any) -> Any:
        """As click's, with a stdout that cannot encode Chinese (a Latin-1 locale) printing
        escapes rather than failing the command (exit 3), and no colour when NO_COLOR is set
        (https://no-color.org; pipes never get colour). Run as a program (not handed its
        arguments, as tests do), it first makes sure of UTF-8 file names
        (`utf8_file_names`)."""
        program = not args and kwargs.get("args") is None
        if program:
            closed_standard_streams()
            utf8_file_names()
            sys.stdout = whole_writes(sys.stdout)
        tolerate_unencodable(sys.stdout)
        if os.environ.get("NO_COLOR") and kwargs.get("color") is None:
            kwargs["color"] = False
        stdout = sys.stdout
        sys.stdout = TerminalSafe(stdout)
        try:
            return super().main(*args, **kwargs)
        except SystemExit as exc:
            if program and exc.code == INTERRUPTED_EXIT:
                exit_interrupted()
            raise
        finally:
            sys.stdout = stdout

    def make_context(self, info_name: str | None, args: list[str],
                     parent: click.Context | None = None, **extra: Any) -> click.Context:
        """As click's; `kb --help` or `kb --version` into a closed pipe ends as any command's
        output does (`closed_output`)."""
        try:
            return super().make_context(info_name, args, parent, **extra)
        except BrokenPipeError as exc:
            closed_output(exc)
        except OSError as exc:
            if exc.errno not in MACHINE_ERRNOS:
                raise
            refused_write(exc)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module, attr = COMMANDS[name]
        command: click.Command = getattr(importlib.import_module(f"kbtools.commands.{module}"), attr)
        return command

    def resolve_command(self, ctx: click.Context,
                        args: list[str]) -> tuple[str | None, click.Command | None, list[str]]:
        """As click's, but a mistyped command name gets the close matches suggested."""
        name = click.utils.make_str(args[0]) if args else ""
        if (name and name not in COMMANDS and not name.startswith("-")
                and not ctx.resilient_parsing):
            ctx.fail(f"No such command {name!r}.{suggest(name, sorted(COMMANDS))}")
        return super().resolve_command(ctx, args)


    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except Interrupted as exc:
            click.echo(f"kb: interrupted: {exc.message}", err=True)
            ctx.exit(exc.exit_code)
        except KbError as exc:
            click.echo(f"kb: error: {config_named(exc).format()}", err=True)
            ctx.exit(exc.exit_code)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except KeyboardInterrupt:
            click.echo("kb: interrupted", err=True)
            ctx.exit(INTERRUPTED_EXIT)
        except BrokenPipeError as exc:
            closed_output(exc)
        except OSError as exc:
            if exc.errno in MACHINE_ERRNOS:
                refused_write(exc)
            if exc.errno != errno.ENAMETOOLONG:
                unexpected(ctx, exc)
            # a name given on the command line that no file system can hold: not a bug
            click.echo(f"kb: error: {exc.strerror}: {one_line(str(exc.filename), 80)}",
                       err=True)
            ctx.exit(2)
        except sqlite3.OperationalError as exc:
            if getattr(exc, "sqlite_errorcode", 0) & 0xFF != sqlite3.SQLITE_FULL:
                unexpected(ctx, exc)
            click.echo(f"kb: error: {one_line(exc)}", err=True)  # "database or disk is full"
            ctx.exit(1)
        except Exception as exc:
            unexpected(ctx, exc)


def config_named(exc: KbError) -> KbError:
    """`exc` naming kb.toml by its absolute path (a ConfigError of `load_config`, every
    command's), naming it as the findings of its knowledge base name documents
    (`kbtools.findings.named_as_findings`): `kb.toml:4: …`, `docs/kb/kb.toml:4: …` from a monorepo's root;
    absolute only from a directory outside the knowledge base."""
    if exc.path and os.path.basename(exc.path) == CONFIG_NAME:
        return error_named_as_findings(exc, Path(exc.path).parent)
    return exc


def output_gone(fd: int) -> bool:
    """Whether `fd` is a pipe or socket whose reader has gone (poll says POLLERR/POLLHUP);
    a terminal, a file or a live pipe is not. Where there is no poll (Windows) a broken pipe
    can only be an output's."""
    if not hasattr(select, "poll"):
        return True
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    try:
        return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poller.poll(0))
    except OSError:
        return False


def closed_output(exc: BrokenPipeError) -> NoReturn:
    """End kb because the reader of its stdout or stderr left: the closed descriptor is
    pointed at /dev/null (the final flush of what is still buffered then fails nowhere: no
    "Exception ignored" from Python), exit `CLOSED_OUTPUT_EXIT`. A broken pipe of anything
    else is a bug, reported as one."""
    gone = [fd for fd in (1, 2) if output_gone(fd)]
    if not gone:
        unexpected(click.get_current_context(silent=True), exc)
    null = os.open(os.devnull, os.O_WRONLY)
    for fd in gone:
        os.dup2(null, fd)
    os.close(null)
    raise click.exceptions.Exit(CLOSED_OUTPUT_EXIT)


def refused_write(exc: OSError) -> NoReturn:
    """End kb because the machine refused a write (`MACHINE_ERRNOS`): one line naming the
    file, exit 1. Where that file is kb's stdout, what is still buffered for it is dropped
    (fd 1 pointed at /dev/null): Python's last flush at exit would fail again, printing
    "Exception ignored …" and ending 120."""
    where = f": {one_line(str(exc.filename), 200)}" if exc.filename else ""
    click.echo(f"kb: error: {exc.strerror or exc}{where}", err=True)
    if exc.filename == STDOUT:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
    raise click.exceptions.Exit(1)


def whole_writes(stream: Any) -> Any:
    """`stream` as a buffered writer where it writes to its file unbuffered (PYTHONUNBUFFERED
    or `python -u`, as many container images set): a pipe takes part of a long write when
    its reader leaves meanwhile, and a text stream over an unbuffered file drops the rest
    without a word (`kb query --json | head -1` ended 0 while text output ended 141). A
    buffered writer writes all or raises. Flushed on every line, as unbuffered output is."""
    raw = getattr(stream, "buffer", None)
    if not isinstance(raw, io.FileIO) or raw.closed:
        return stream
    try:
        writer = io.BufferedWriter(io.FileIO(raw.fileno(), "w", closefd=False))
    except (OSError, ValueError):
        return stream
    return io.TextIOWrapper(writer, encoding=stream.encoding, errors=stream.errors,
                            line_buffering=True, write_through=True)


def unexpected(ctx: click.Context | None, exc: BaseException) -> NoReturn:
    """The one place unexpected errors are reported: one line, the traceback in the crash log,
    exit 3."""
    log = write_crash_log()
    click.echo(f"kb: unexpected error: {type(exc).__name__}: {one_line(exc)} "
               f"(traceback in {one_line(log)})", err=True)
    if ctx is None:  # before any command's context (kb --help)
        raise click.exceptions.Exit(3)
    ctx.exit(3)


def suggest(name: str, known: list[str]) -> str:
    """`` Did you mean 'query'?`` for a mistyped `name` (difflib close matches, or the
    commands it begins), else a pointer to --help."""
    close = difflib.get_close_matches(name.lower(), known, n=3, cutoff=0.6)
    close += [k for k in known if len(name) >= 2 and k.startswith(name.lower())
              and k not in close]
    if not close:
        return " See `kb --help` for the commands."
    if len(close) == 1:
        return f" Did you mean {close[0]!r}?"
    return " Did you mean one of: " + ", ".join(close[:3]) + "?"


CRASH_LOG = "kb-crash.log"
_LOG_FLAGS = (os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
              | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))


def write_crash_log() -> str:
    """Append the current traceback to `<KB_HOME>/kb-crash.log`; returns where it went, or
    "(log unwritable)". Never raises: it runs while another error is being reported."""
    try:
        home = kb_home()
        home.mkdir(parents=True, exist_ok=True)
        path = home / CRASH_LOG
        text = (f"--- {datetime.now(UTC).isoformat()} kb {__version__}\n"
                + " ".join(sys.argv) + "\n" + traceback.format_exc())
        data = text.encode("utf-8", "backslashreplace")  # surrogates from argv or messages
        fd = os.open(path, _LOG_FLAGS, 0o600)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return "(log unwritable)"
            os.write(fd, data)
        finally:
            os.close(fd)
        return str(path)
    except Exception:  # noqa: BLE001 - the crash report must reach the user whatever happens
        return "(log unwritable)"


@click.group(cls=KbGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kb")
def main() -> None:
    """kb: a Git-native knowledge repository for AI agents.

    Check Markdown knowledge, build reproducible hybrid-search index releases, sync them
    to offline devices, query them with citations, and serve them to agents over MCP.

    Data goes to stdout: with --json one JSON document (`kb query --batch` and `kb watch`:
    one JSON object per line); progress, warnings and errors go to stderr.

    \b
    Exit status:
      0    done (kb check: no errors)
      1    failed: findings with errors, a failed build, sync or write, a refused
           index; one line `kb: error: ...` on stderr
      2    usage: a bad option, argument, filter or question file
      3    a bug: one line, the traceback in <KB_HOME>/kb-crash.log
      4    kb status: serving, but degraded (last sync failed, stale release)
      130  interrupted (Ctrl-C)
      141  the reader of kb's output left (`kb query ... | head -1`)
    """
