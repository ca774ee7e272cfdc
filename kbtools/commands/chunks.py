"""`kb chunks FILE`: show how a document is chunked (for authors and for debugging)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from kbtools.build.chunk import ChunkConfig, HeadingIndex, chunk_document
from kbtools.check.engine import max_document_bytes
from kbtools.commands.output import echo_json, json_option
from kbtools.config import load_config
from kbtools.corpus import iter_documents, load_named
from kbtools.errors import UsageError, line_span, plural


@click.command("chunks")
@click.argument("file", type=click.Path(path_type=Path))
@json_option
@click.option("--kind", "kinds", multiple=True,
              type=click.Choice(["section", "list_item", "table", "table_row", "code",
                                 "formula", "mermaid", "image"]),
              help="Only chunks of this kind (repeatable).")
@click.option("--embed", "show_embed", is_flag=True,
              help="Print the text that is embedded and indexed instead of the display text.")
def chunks(file: Path, as_json: bool, kinds: tuple[str, ...], show_embed: bool) -> None:
    """Print the chunks of one Markdown FILE: kind, heading path, lines and text.

    Chunk sizes come from the [chunk] section of the nearest kb.toml; cross references to
    other documents are resolved when FILE lies in the knowledge folder. With --json, prints
    a list of chunk objects (id, doc, heading_path, kind, line_start, line_end, text,
    embed_text, metadata, content_hash, links, extra).
    """
    if not file.exists() and not file.is_symlink():
        raise UsageError(f"no such file or directory: {file}")
    cfg = load_config(file.absolute().parent)  # the link's repository, not its target's
    src = load_named(file, cfg.root, max_document_bytes(cfg))  # as `kb check` reads it
    resolver = None
    knowledge = cfg.path("knowledge")
    if knowledge.is_dir() and Path(os.path.abspath(file)).is_relative_to(knowledge.absolute()):
        resolver = HeadingIndex.build(iter_documents(cfg.root, knowledge))
    result = chunk_document(src, ChunkConfig.from_config(cfg), resolver=resolver)
    if kinds:
        result = [c for c in result if c.kind in kinds]
    if as_json:
        echo_json([c.to_dict() for c in result])
        return
    for c in result:
        path = " › ".join(c.heading_path) or "(no heading)"
        click.echo(f"── {c.kind} · {path} · {line_span(c.line_start, c.line_end, '-')} · {c.id}")
        click.echo(c.embed_text if show_embed else c.text)
        for link in c.links:
            target = link.doc + (" › " + " › ".join(link.heading_path) if link.heading_path else "")
            click.echo(f"   ↳ {link.text} → {target or '(unresolved)'}")
        if c.kind == "mermaid" and c.extra.get("edges"):
            edges = "; ".join(f"{a} → {b}" + (f" ({lab})" if lab else "") for a, b, lab in c.extra["edges"])
            click.echo(f"   ↳ edges: {edges}")
        for key in ("svg", "csv"):
            if key in c.extra:
                click.echo(f"   ↳ {key}: {c.extra[key]}")
        click.echo("")
    click.echo(plural(len(result), "chunk"), err=True)
