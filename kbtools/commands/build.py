"""`kb build`: check, chunk, render, embed and index the knowledge into dist/."""

from __future__ import annotations

from pathlib import Path

import click

from kbtools.build.embed_stage import seed_cache
from kbtools.build.pipeline import BuildOptions, build
from kbtools.commands.output import (
    echo_json,
    json_option,
    lapse_message,
    named_from_here,
    vectors_said,
)
from kbtools.config import load_config, load_kb_config
from kbtools.errors import plural
from kbtools.index.manifest import history_warnings


@click.command("build")
@click.option("--out", type=click.Path(path_type=Path), help="Output directory (default: kb.toml paths.dist, else dist/).")
@click.option("--corpus", type=click.Path(path_type=Path, exists=True, file_okay=False),
              help="Index this folder of Markdown instead of the repo's knowledge/.")
@click.option("--lenient", is_flag=True, help="Front-matter schema errors become warnings.")
@click.option("--skip-invalid", is_flag=True, help="Build the valid documents, list the rest.")
@click.option("--no-cache", is_flag=True, help="Ignore the embedding cache (re-embed all).")
@click.option("--cache-from", type=click.Path(path_type=Path, exists=True, file_okay=False),
              help="Seed the embedding cache from a previous build or release first.")
@click.option("-q", "--quiet", is_flag=True, help="No progress on stderr.")
@json_option
def build_cmd(out: Path | None, corpus: Path | None, lenient: bool, skip_invalid: bool,
              no_cache: bool, cache_from: Path | None, quiet: bool, as_json: bool) -> None:
    """Build a reproducible index (chunks, vectors, BM25, store, manifest) into dist/.

    The build happens in a staging directory that replaces the output only on success,
    so a failed or interrupted build leaves the previous index serving.
    """
    cfg = load_config() if corpus else load_kb_config()
    if cache_from:
        n = seed_cache(cfg, cache_from)
        if not quiet:
            click.echo(f"kb build: seeded {n} cached vectors from {cache_from}", err=True)
    with named_from_here(cfg.root):
        stats = build(cfg, BuildOptions(corpus=corpus, out=out, lenient=lenient,
                                        skip_invalid=skip_invalid, use_cache=not no_cache,
                                        progress=not quiet))
    if as_json:
        echo_json(stats.to_dict())
        return
    for s in stats.skipped:
        click.echo(f"skipped {s['doc']}: {', '.join(s['errors'])}", err=True)
    for warning in history_warnings({"shallow": stats.shallow}):
        click.echo(f"warning: {warning}", err=True)
    for lapse in stats.lapsed:
        click.echo(lapse_message(lapse), err=True)
    click.echo(f"built {stats.out}: {plural(stats.documents, 'document')}, "
               f"{plural(stats.chunks, 'chunk')} ({vectors_said(stats, 'from cache')}), "
               f"{plural(stats.formulas, 'formula')}, {plural(stats.tables, 'table')}, "
               f"{sum(stats.seconds.values()):.1f}s")


