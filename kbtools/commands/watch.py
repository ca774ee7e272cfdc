"""`kb watch`: rebuild the local index whenever the knowledge changes."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from kbtools.build.watch import Update, watch
from kbtools.commands.output import echo_jsonl, json_option, vectors_said
from kbtools.config import load_kb_config
from kbtools.errors import plural


@click.command("watch")
@click.option("--out", type=click.Path(path_type=Path), help="Index directory (default: kb.toml paths.dist, else dist/).")
@click.option("--lenient", is_flag=True, help="Front-matter schema errors become warnings.")
@click.option("--skip-invalid", is_flag=True,
              help="Update with the valid documents, list the rest.")
@json_option
def watch_cmd(out: Path | None, lenient: bool, skip_invalid: bool, as_json: bool) -> None:
    """Watch knowledge/ and update the local index on every save (Ctrl-C to stop).

    Each update prints what changed, how many chunks were embedded and how long it took;
    a document with errors is reported and the previous index keeps serving (with
    --skip-invalid, the index is updated without that document, which is listed).
    """
    cfg = load_kb_config()

    def report(u: Update) -> None:
        if as_json:
            echo_jsonl({"changed": list(u.changed), "git": u.git, "seconds": round(u.seconds, 3),
                        "error": u.error, "stats": u.stats.to_dict() if u.stats else None})
            return
        what = _what(u)
        if u.error or u.stats is None:
            click.echo(f"kb watch: {what}: NOT updated, previous index still serving:\n{u.error}",
                       err=True)
        else:
            s = u.stats
            for skipped in s.skipped:
                click.echo(f"kb watch: skipped {skipped['doc']}: {', '.join(skipped['errors'])}",
                           err=True)
            click.echo(f"kb watch: {what}: {plural(s.documents, 'doc')}, {plural(s.chunks, 'chunk')}, "
                       f"{_vectors(u)} — queryable after {u.seconds:.2f}s")
            sys.stdout.flush()

    click.echo(f"kb watch: watching {cfg.path('knowledge')} (Ctrl-C to stop)", err=True)
    try:
        watch(cfg, out, report, lenient=lenient, skip_invalid=skip_invalid)
    except KeyboardInterrupt:
        pass


SHOWN = 5  # changed files named in a line; the rest are counted


def _what(u: Update) -> str:
    """What an update was for: the files saved, or what moved HEAD and the files it changed."""
    files = ", ".join(u.changed[:SHOWN]) + (
        f" and {len(u.changed) - SHOWN} more" if len(u.changed) > SHOWN else "")
    if u.git:
        return f"{u.git} ({files})" if files else u.git
    return files or "initial build"


def _vectors(u: Update) -> str:
    """What an update did for the chunks' vectors and the rest of the index, in words: a
    save that changes nothing the index holds (a comment in the dictionary) says so."""
    assert u.stats is not None
    if u.stats.unchanged and not u.stats.changed and u.changed:
        return "nothing the index holds changed"
    return vectors_said(u.stats, "reused")
