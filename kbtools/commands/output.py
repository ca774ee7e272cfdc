"""Shared options and output helpers for commands: JSON on stdout, human text otherwise."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click
from click.core import ParameterSource

from kbtools.errors import ConfigError, UsageError, plural, valid_unicode
from kbtools.findings import Finding, error_named_as_findings, here_prefix, report_lines, verdict
from kbtools.fsutil import json_line, unicode_stream
from kbtools.index.layout import device_of_release

if TYPE_CHECKING:
    from kbtools.build.pipeline import BuildStats

F = TypeVar("F", bound=Callable[..., Any])

# Where a client command (query, eval, serve, mcp) looks for its index when given no --index
# (`kbtools.ship.checkout.resolve_index_path`), said in each one's --help.
INDEX_DEFAULT = ("default: KB_INDEX, else the git checkout of a release at or above the "
                 "current directory, else ./dist of the knowledge repo there, else the device "
                 "directory; a kb.toml nearer than the checkout means its ./dist")


@contextlib.contextmanager
def terminate_interrupts() -> Iterator[None]:
    """While it is held, SIGTERM stops the command as Ctrl-C does (KeyboardInterrupt): what
    `kb sync` and `kb rollback` say then (which release serves, what to run next) and the
    clean-up on the way out (a git fetch killed, the device lock released) are the same for
    a service manager stopping kb as for an operator. Outside the main thread (where no
    handler can be set) it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def net_limit_options(table: str, what: str) -> Callable[[F], F]:
    """--stall-seconds, --stall-bytes and --list-timeout: when a command gives git up on
    a link that stops answering; unset, kb.toml's `table` (``sync``, ``release``), else the
    defaults of `kbtools.ship.gitrun`. `what` names the transfer watched ("a fetch", "a
    push or fetch"). One decorator, so `kb sync` and `kb release` take them alike."""
    def decorate(f: F) -> F:
        f = click.option(
            "--list-timeout", type=click.FloatRange(1, 86400), default=None,
            metavar="SECONDS",
            help=f"Give up listing the {'remote' if table == 'release' else 'source'}'s releases "
                 f"after this many seconds. Default: kb.toml [{table}] list_timeout, else "
                 "240.")(f)
        f = click.option(
            "--stall-bytes", type=click.IntRange(1), default=None, metavar="BYTES",
            help=f"The http(s) speed, in bytes per second, under which {what} counts as "
                 f"stalled. Default: kb.toml [{table}] stall_bytes, else 1000.")(f)
        return click.option(
            "--stall-seconds", type=click.FloatRange(1, 86400), default=None,
            metavar="SECONDS",
            help=f"Give {what} up after this many seconds without progress (and, over "
                 "http(s), under --stall-bytes per second that long). Default: kb.toml "
                 f"[{table}] stall_seconds, else 60.")(f)
    return decorate


def json_option(f: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")(f)


class DevicePath(click.Path):
    """A directory, or a device's `current` where it is a file: on a file system without
    symbolic links (FAT, exFAT) `current` is a file naming the served release
    (`kbtools.ship.device.switch_to`), and `DIR/current` means the device as the link does
    (`device_of_release`). Any other file is refused as click refuses it."""

    def __init__(self) -> None:
        super().__init__(path_type=Path)
        self.name = "directory"  # its metavar and messages, as click's directory type

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        path = super().convert(value, param, ctx)
        given = Path(os.fsdecode(path))
        if given.is_file() and device_of_release(given) is None:
            self.fail(f"Directory {click.format_filename(given)!r} is a file.", param, ctx)
        return path


def to_option(f: F) -> F:
    """--to DIR of status (which finds the clone around by itself)."""
    return click.option(
        "--to", "to", type=DevicePath(), default=None,
        help="Device directory (default: $KB_INDEX, else <KB_HOME>/device).")(f)


def to_device_option(f: F) -> F:
    """--to DIR of sync, which never takes the clone around the current directory for the
    device, nor <KB_HOME>/device while standing in one (`checkout.device_outside_checkout`)."""
    return click.option(
        "--to", "to", type=DevicePath(), default=None,
        help="Device directory (default: $KB_INDEX, else <KB_HOME>/device; needed inside a "
             "git checkout of a release, where git does this).")(f)


def to_here_option(f: F) -> F:
    """--to DIR of the device commands that also take the clone around the current
    directory (`checkout.device_or_checkout_here`): trust, releases, log and rollback (a
    rollback in a clone rolled back <KB_HOME>/device unseen), and diff (the clone's release
    tags: `checkout.clone_given_or_here`)."""
    return click.option(
        "--to", "to", type=DevicePath(), default=None,
        help="Device directory (default: $KB_INDEX, else the git checkout of a release at or "
             "above the current directory, else <KB_HOME>/device).")(f)


def engine_options(f: F) -> F:
    """--engine URL and --token-file F, shared by publish, query, mcp and rollback."""
    f = click.option("--token-file", type=click.Path(dir_okay=False, path_type=Path),
                     default=None, help="File holding the engine's token (user:password or "
                     "API key).")(f)
    return click.option("--engine", "engine", metavar="milvus://HOST:PORT[/DB]", default=None,
                        help="Use the release published in this Milvus (kbtools[milvus]) "
                             "instead of local files.")(f)




def alias_option(help_text: str) -> Callable[[F], F]:
    """--alias: the Milvus alias a command publishes to, moves or reads (default the one
    every reader follows)."""
    from kbtools.engine.milvus import ALIAS, check_alias

    return click.option("--alias", default=ALIAS, show_default=True, help=help_text,
                        callback=lambda _ctx, _param, value: check_alias(value))


ENGINE_URL = "milvus://HOST:PORT[/DB]"


def refuse_engine_mix(engine: str | None, *, local_only: tuple[str, ...] = (),
                      engine_only: tuple[str, ...] = ("token_file",)) -> None:
    """Refuse (UsageError, exit 2) an option the current command would ignore: one of
    `local_only` (parameter names: `to`, `index`, which name local files) given with
    --engine, or one of `engine_only` (`token_file`, `alias`) given without it. Such an
    option was dropped silently: `kb rollback --engine … --to DIR` moved the engine's alias
    and left the device the operator named as it was. Only options given (command line or
    environment) count; a default never does."""
    ctx = click.get_current_context()
    names = local_only if engine is not None else engine_only
    for param in ctx.command.params:
        if param.name not in names or ctx.get_parameter_source(param.name) in (
                None, ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP):
            continue
        flag = max(param.opts, key=len)
        if engine is not None:
            raise UsageError(f"{flag} names local files, which --engine does not use: give "
                             f"{flag} or --engine, not both")
        raise UsageError(f"{flag} is for an engine: give --engine {ENGINE_URL} with it, or "
                         "leave it out")


def lapse_message(lapse: dict[str, Any]) -> str:
    """What `kb build` and `kb release` say of a document whose verification lapsed (an
    entry of the manifest's `verification.lapsed`): its path and the line `kb check` names
    (`path:line`, so an editor opens it there; the path alone for a manifest of an older
    kb, which records no line), and how many passages are served as unverified, and why."""
    where = f"{lapse['doc']}:{lapse['line']}" if lapse.get("line") else lapse["doc"]
    return (f"verification lapsed: {where}: {lapse['chunks']} of {lapse['of']} passages "
            f"served as unverified: {lapse['reason']}")


def echo_json(data: Any) -> None:
    """Pretty JSON on stdout; text that is not valid Unicode (lone surrogates from input that
    was not UTF-8) is printed as U+FFFD rather than failing the output. On a stdout that
    cannot encode all of Unicode (a Latin-1 locale) non-ASCII text is \\u-escaped: the JSON
    stays valid and exact."""
    ascii_only = not unicode_stream(sys.stdout)
    text = json.dumps(data, ensure_ascii=ascii_only, indent=2, default=str)
    click.echo(text if ascii_only else valid_unicode(text))


def echo_jsonl(data: Any) -> None:
    """One JSON object per line, flushed: a reader on a pipe sees each line as it happens.
    No text inside (a passage, a file name) can break the line (`kbtools.fsutil.json_line`);
    non-ASCII text is \\u-escaped on a stdout that cannot encode all of Unicode."""
    click.echo(json_line(data, sort_keys=False, default=str,
                         ascii_only=not unicode_stream(sys.stdout)))
    sys.stdout.flush()


def report_findings(findings: list[Finding], summary: str, *, as_json: bool,
                    listed_by: str = "kb check --json") -> None:
    """Print findings (`path:line:col: level: code: message`, at most
    `MAX_SHOWN_PER_CODE` of one code in one file and a line saying how many more, which
    `listed_by` lists; or JSON, every one) and a summary counting every one.

    Any error ends the command with exit 1 (`kbtools.findings.verdict` raises FindingsError,
    translated by the CLI root); otherwise the summary goes to stderr.
    """
    if as_json:
        echo_json([f.to_dict() for f in findings])
    else:
        for line in report_lines(findings, listed_by):
            click.echo(line)
    click.echo(f"kb {verdict(findings, summary)}", err=True)


@contextlib.contextmanager
def named_from_here(root: Path) -> Iterator[None]:
    """A ConfigError naming a file of the knowledge base (a broken schema, kb.toml) names it
    as the findings name documents (`kbtools.findings.named_as_findings`). Why:
    `schemas/x.schema.json:4: …` was `/home/…/kb/schemas/…:4: …` beside findings reading
    `knowledge/a.md:3:1: …`. (The CLI root names kb.toml so for every command.)"""
    try:
        yield
    except ConfigError as exc:
        error_named_as_findings(exc, root)
        raise


def from_here(findings: list[Finding], root: Path) -> list[Finding]:
    """`findings` (paths from the knowledge base's folder `root`) named from the current
    directory when it lies above `root`: a monorepo's root, where pre-commit runs the hook
    of each knowledge base (`kb check docs/b/knowledge`). Why: the findings of docs/a and
    docs/b both read `knowledge/x.md:3:1`, naming no file an editor opens from there."""
    prefix = here_prefix(root)
    return [dataclasses.replace(f, path=prefix + f.path) for f in findings] if prefix \
        else findings



# kinds of data/ change (`BuildStats.changed`) that the counts of embedded vectors tell
_COUNTED = frozenset({"documents", "chunks", "vectors", "no-answer calibration"})


def vectors_said(stats: BuildStats, reused: str) -> str:
    """What a build did for the chunks' vectors, in words, with what else of the index
    changed ("dictionary", "synonyms", "pictures", …): a build of a dictionary edit
    says so, not "0 embedded"; "no document changed" when data/ is the previous output's.
    `reused`: how the vectors not embedded are said ("reused", "from cache"). Vectors of
    more than one model are said with their count and the models': English chunks get a
    second model's, and "39 chunks (68 embedded, 0 from cache)" read as more vectors
    embedded than there were chunks."""
    others = [kind for kind in stats.changed if kind not in _COUNTED]
    also = f"{', '.join(others)} changed" if others else ""
    if stats.unchanged or (also and stats.changed == others and not stats.embedded):
        return f"no document changed; {also}" if also else "no document changed"
    counts = f"{stats.embedded} embedded, {stats.reused} {reused}"
    if stats.vector_models > 1:
        counts = f"{plural(stats.vectors, 'vector')} by {stats.vector_models} models: {counts}"
    return f"{counts}; {also}" if also else counts
