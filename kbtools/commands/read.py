"""`kb read`: one section of a document, as MCP `read` and ``/api/read`` read it
(library: `kbtools.agents.cited_read.read_cited`)."""

from __future__ import annotations

from pathlib import Path

import click

from kbtools.agents.citation_text import narrow_numbers
from kbtools.agents.cited_read import (
    CitedRead,
    config_here,
    edited_note,
    knowledge_for,
    read_asked,
)
from kbtools.commands.output import INDEX_DEFAULT, echo_json, json_option
from kbtools.errors import UsageError
from kbtools.ship.device import is_device_dir
from kbtools.words.error_words import asks_chinese
from kbtools.words.read_words import note


def parse_lines(lines: str | None) -> tuple[int | None, int | None]:
    """``--lines 65-73`` (or ``65``, ``65–73``, ``L65-L73``, typed full-width: ``６５－７３``)
    as (first, last)."""
    if lines is None:
        return None, None
    text = narrow_numbers(lines.strip()).replace("L", "").replace("l", "")
    first, _, last = text.partition("-")
    if not (first.strip().isascii() and first.strip().isdigit()) or \
            last and not (last.strip().isascii() and last.strip().isdigit()):
        raise UsageError(f"--lines '{lines}' is not a line range (e.g. 65-73)")
    return int(first), int(last) if last else int(first)


@click.command("read")
@click.argument("doc")
@click.option("--heading", "heading", metavar="PATH",
              help="The section: a heading path ('A > B'), its last heading, or a section "
                   "number (4.3).")
@click.option("--lines", metavar="A-B", help="A line range (at most 400 lines) instead.")
@click.option("--commit", metavar="SHA",
              help="The release a citation came from, by its source commit (7+ digits): its "
                   "text while this device keeps it, else the served release's at the "
                   "citation's heading path, said so on stderr.")
@click.option("--release", "release", metavar="TAG", help="The same, by release tag.")
@click.option("--index", type=click.Path(path_type=Path), default=None,
              help=f"Index: dist/, a device dir or a git checkout of a release "
                   f"({INDEX_DEFAULT}; else the repository's files).")
@json_option
def read(doc: str, heading: str | None, lines: str | None, commit: str | None,
         release: str | None, index: Path | None, as_json: bool) -> None:
    """Print one section of DOC (with its subsections), or a line range, with its citation.

    DOC is a document path as results cite it (knowledge/crops/x.md, or crops/x.md), a
    result's whole citation (knowledge/crops/x.md:65-73 § A > B, or as `kb query` shows it:
    knowledge/crops/x.md › A › B (lines 65–73)), optionally with the release after it
    (… @ 3f2a9c1d0b7e), or a link to a section (knowledge/crops/x.md#32-风险等级判定表).
    Without --heading or --lines (and no section in DOC) the document is read from the top.

    Example: kb read 'knowledge/crops/wheat-scab.md § 3.2 风险等级判定表'
    """
    first, last = parse_lines(lines)
    device = index if index is not None and is_device_dir(index) else None
    here = config_here() if index is None else None  # kb.toml read once
    kn = knowledge_for(index, here)
    result = read_asked(kn, doc, heading, first, last, commit=commit, release=release,
                        device=device)
    chinese = asks_chinese((doc, heading))  # its notes in the asker's language
    # (an earlier release read, `served`, differs from the work tree anyway)
    edited = edited_note(kn, result.section.doc, here, chinese) if result.served is None \
        else None
    if edited:
        click.echo(f"kb: note: {edited}", err=True)
    if as_json:
        echo_json(result.to_dict())
        return
    if result.gone:
        click.echo(f"kb: note: {result.gone}", err=True)
    if result.note:
        click.echo(f"kb: note: {result.note}", err=True)
    click.echo(format_read(result, chinese))


def format_read(result: CitedRead, chinese: bool = False) -> str:
    """The citation and the release, what is unverified and why, then the Markdown; its
    notes in Chinese when `chinese`."""
    s = result.section
    rel = result.release
    origin = (f"release {rel.tag} @ {rel.commit_text()}" if rel and rel.tag else
              f"local build @ {rel.commit_text()}" if rel else "repository files")
    head = [f"{s.citation()}  [{origin}]"]
    if result.served is not None and result.served != rel:
        tag = result.served.tag or result.served.source_commit[:12]
        head.append(note("earlier", chinese, tag=tag))
    if not s.verified:
        head.append(note("unverified_why", chinese, reason=s.reason) if s.reason else
                    note("unverified", chinese))
    if s.truncated:
        head.append(note("truncated", chinese, line=s.line_end + 1))
    tail = ("\n\n" + note("subsections", chinese, names="; ".join(s.subsections))
            if s.intro and s.subsections else "")
    return "\n".join(head) + "\n\n" + s.markdown + tail
