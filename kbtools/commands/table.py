"""`kb table`: evaluate decision tables written in Markdown (library: `kbtools.decision`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from kbtools.agents.cited_read import asked_release, config_here, edited_note, knowledge_for
from kbtools.agents.cited_table import evaluate_cited
from kbtools.agents.named import Named, evaluate_named, named
from kbtools.agents.read import open_knowledge
from kbtools.commands.output import INDEX_DEFAULT, echo_json, json_option
from kbtools.config import Config
from kbtools.corpus import SourceDoc
from kbtools.decision import POLICIES, TableResult
from kbtools.decision.documents import as_source, list_tables
from kbtools.errors import KbError, UsageError, line_span, one_line
from kbtools.ship.device import is_device_dir


def parse_pairs(pairs: tuple[str, ...]) -> dict[str, str]:
    """``温度=18`` arguments as {column: value}; UsageError for one without ``=``, and for a
    key given twice with different values (the last one silently decided the row)."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = (part.strip() for part in pair.partition("="))
        if not sep or not key:
            raise UsageError(f"input '{pair}' is not KEY=VALUE (e.g. 温度=18)")
        if out.get(key, value) != value:
            raise UsageError(f"input {key} is given twice ({key}={out[key]} and {key}={value}); "
                             "give it once")
        out[key] = value
    return out


def read_doc_arg(doc: str, index: Path | None, here: Config | None = None) -> SourceDoc:
    """DOC's source: a Markdown file of its own (`own_file`) as that file; else the document
    named so (as results cite it, ``knowledge/crops/x.md``, or inside the knowledge folder,
    ``crops/x.md``) where `kb read` reads it (`knowledge_for`: --index, else the index a
    client command finds, else the repository's files). `here`: the configuration around
    the current directory when the command has read it (`config_here`)."""
    if index is None and own_file(doc, here):
        if not _is_file(doc):
            raise no_such_file(doc)
        return replace(as_source(Path(doc)), rel=doc)
    try:
        kn = knowledge_for(index, here)
        path = kn.resolve(doc, section_arg="--table")
    except KbError:  # not a document of this knowledge either (or no knowledge here)
        if index is not None:
            raise
        raise no_such_file(doc) from None
    return kn.read(path)


def no_such_file(doc: str) -> UsageError:
    return UsageError(f"no such file: {one_line(doc, 80)} (on a device, pass --index to read "
                      "the knowledge inside an index)")


def own_file(doc: str, here: Config | None = None) -> bool:
    """DOC (a path, or a citation or link of one) names a Markdown file of its own, no
    document of the knowledge repository around the current directory: an absolute path
    (documents are named by the path results cite), or a file outside its knowledge folder
    (or with none there). `kb table` reads it as that file. A document of the knowledge is
    read where `kb read` reads it, the index found before the work tree, so that both
    answer a citation alike. `here`: the configuration around the current directory when
    the command has read it."""
    path = doc if _is_file(doc) else named(doc).doc
    if Path(path).is_absolute():
        return True
    if not _is_file(path):
        return False
    try:
        folder = open_knowledge(cfg=here).allowed
    except KbError:
        return True
    try:
        return not Path(path).resolve().is_relative_to(folder.resolve())
    except OSError:
        return True


def doc_source(doc: str, index: Path | None,
               here: Config | None = None) -> tuple[SourceDoc, Named]:
    """DOC's source and what it names of it (`agents.named`): a citation as `kb query` and
    the MCP tools cite (``x.md:65-73 § A > B``) or a link to a section
    (``x.md#32-风险等级判定表``) names its table as every surface takes it (a user or an
    agent pasting either was told "no such file"). A file of that very name is that file."""
    name = Named(doc, doc) if index is None and _is_file(doc) else named(doc)
    return read_doc_arg(name.doc, index, here), name


def _synonyms(index: Path | None, here: Config | None = None) -> dict[str, list[str]]:
    """The synonym groups that also name a table's inputs (`Knowledge.table_synonyms`): the
    index's with --index, else the repository's (`here`: its configuration when the command
    has read it); none outside a repository."""
    try:
        return open_knowledge(index=index, cfg=here).table_synonyms
    except KbError:
        return {}


def _is_file(doc: str) -> bool:
    try:
        return Path(doc).is_file()
    except OSError:
        return False


@click.group("table")
def table() -> None:
    """Decision tables: Markdown tables read as rules (see docs/agents.md)."""


@table.command("eval")
@click.argument("doc")
@click.argument("inputs", nargs=-1)
@click.option("--table", "which", metavar="NAME|N",
              help="Decision table by CSV/annotation name, section (heading, number: 4.4, "
                   "or a link's anchor: '#32-风险等级判定表'), or 1-based index (needed when "
                   "the document has several).")
@click.option("--policy", type=click.Choice(POLICIES), default=None,
              help="Several matching rows: take the first (default) or list all.")
@click.option("--commit", metavar="SHA",
              help="The release the table was cited from, by its source commit (7+ digits): "
                   "its table while this device keeps it, else the served release's, said "
                   "so on stderr.")
@click.option("--release", "release", metavar="TAG", help="The same, by release tag.")
@click.option("--index", type=click.Path(path_type=Path), default=None,
              help=f"Index DOC is read from, as `kb read` reads it: dist/, a device dir or a "
                   f"git checkout of a release ({INDEX_DEFAULT}; else the repository's "
                   "files). A Markdown file outside the knowledge folder is read as that "
                   "file.")
@json_option
def eval_(doc: str, inputs: tuple[str, ...], which: str | None, policy: str | None,
          commit: str | None, release: str | None, index: Path | None, as_json: bool) -> None:
    """Evaluate a decision table of DOC for INPUTS given as KEY=VALUE.

    KEY is a column header with or without its unit (温度 for 温度(℃)), a leading or trailing
    part of one input's name as a question names it (湿度 for 相对湿度, cycles for Cycles of
    concentration), a term the knowledge's _synonyms.txt groups with one (temperature for
    温度 when it says 温度 = temperature), or a 1-based column number. Prints the matching row, why each cell matched, and the outputs; when no row
    matches it says so ("no rule matches, needs human review") and never guesses.

    VALUE may be rough (约25度, 25℃左右: read as 25 and said so), in Chinese numerals
    (二十五度), or a range (22-25度: answered when one row holds all of it, else the rows
    it spans are named). Refused, naming the column and what it takes: a value no such
    quantity can be (湿度=130%), a date that does not exist, two values at once
    (E17和E71), a text no row of its column names.

    DOC may be a citation as results give it (knowledge/crops/x.md:65-73 § A > B): the
    decision table at those lines is evaluated; or a link to a section
    (knowledge/crops/x.md#32-风险等级判定表): the decision table of that section.

    A citation from an earlier release names it after itself (… @ 3f2a9c1d0b7e) or by
    --commit/--release: that release's table while the device keeps it.

    DOC is read where `kb read` reads it: the index (--index, else the one a client
    command finds, such as ./dist) before the repository's files; a Markdown file outside
    the knowledge folder, or given by an absolute path, is read as that file. A document
    the work tree here holds with other text than the index (an edit not built) is said so
    on stderr.

    Example: kb table eval knowledge/crops/x.md 温度=18 相对湿度=90
    """
    values = parse_pairs(inputs)
    _, said_commit, said_tag = asked_release(doc, commit, release)
    here = config_here() if index is None else None  # kb.toml read once, for all that asks
    if index is None and said_commit is None and said_tag is None and own_file(doc, here):
        src, name = doc_source(doc, index, here)  # a Markdown file of no knowledge: that file
        result = evaluate_named(src, name, values, which, policy=policy,
                                synonyms=_synonyms(index, here), option="--table")
        if as_json:
            echo_json(result.to_dict())
        else:
            click.echo(format_result(result))
        return
    device = index if index is not None and is_device_dir(index) else None
    kn = knowledge_for(index, here)
    cited = evaluate_cited(kn, doc, values, which, commit=commit, release=release,
                           device=device, policy=policy, option="--table")
    edited = edited_note(kn, cited.result.doc, here) if cited.served is None else None
    if edited:
        click.echo(f"kb: note: {edited}", err=True)
    if as_json:
        echo_json(cited.to_dict())
        return
    for note in (cited.gone, cited.note):
        if note:
            click.echo(f"kb: note: {note}", err=True)
    click.echo(format_result(cited.result))
    if cited.release is not None:
        click.echo(f"[release {cited.release.tag} @ {cited.release.commit_text()}]"
                   if cited.release.tag else f"[local build @ {cited.release.commit_text()}]")


@table.command("list")
@click.argument("doc")
@click.option("--index", type=click.Path(path_type=Path), default=None,
              help=f"Index DOC is read from, as `kb read` reads it: dist/, a device dir or a "
                   f"git checkout of a release ({INDEX_DEFAULT}; else the repository's "
                   "files). A Markdown file outside the knowledge folder is read as that "
                   "file.")
@json_option
def list_(doc: str, index: Path | None, as_json: bool) -> None:
    """List the decision tables of DOC with their inputs and outputs."""
    here = config_here() if index is None else None  # kb.toml read once
    tables = list_tables(read_doc_arg(named(doc).doc, index, here))  # a citation's or link's doc
    if as_json:
        echo_json(tables)
    else:
        click.echo(format_listing(tables))


def format_listing(tables: list[dict[str, Any]]) -> str:
    """One line per table of `list_tables`: place, name, lines, inputs -> outputs."""
    if not tables:
        return "no decision tables"
    lines = []
    for t in tables:
        where = " > ".join(t["heading_path"]) or "(top)"
        name = f" [{t['name']}]" if t["name"] else ""
        lines.append(f"{t['index']}: {where}{name} {line_span(t['line_start'], t['line_end'], '-')}: "
                     f"inputs {', '.join(t['inputs'])} -> outputs {', '.join(t['outputs'])}")
    return "\n".join(lines)


def format_result(r: TableResult) -> str:
    """A `TableResult` as text: where, inputs, the message, each matching row and why."""
    t = r.table
    where = " > ".join(t.heading_path)
    lines = [f"{r.doc} § {where} (table {r.table_index}, {line_span(t.line_start, t.line_end, '-')})",
             "inputs: " + ", ".join(f"{k}={v}" for k, v in r.inputs.items())]
    if r.status == "no_match":
        lines.append(f"NO MATCH: {r.message}")
        return "\n".join(lines)
    lines.append(r.message)
    for m in r.matches:
        mark = "*" if m.row in r.selected else " "
        lines.append(f"{mark} row {m.row} (line {m.line}):")
        lines.extend(f"    {c.column}: {c.condition} — {c.reason}" for c in m.cells)
        lines.append("    => " + ", ".join(f"{k}={v}" for k, v in m.outputs.items()))
        lines.extend(f"       {link['column']}: {link['text']} → {link['target']}"
                     for link in m.links)
    return "\n".join(lines)
