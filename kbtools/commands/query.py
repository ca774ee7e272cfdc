"""`kb query`: hybrid retrieval with citations."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import click

from kbtools.agents.arguments import MAX_QUESTION_CHARS, release_arguments
from kbtools.commands.output import (
    INDEX_DEFAULT,
    alias_option,
    echo_json,
    echo_jsonl,
    engine_options,
    json_option,
    refuse_engine_mix,
)
from kbtools.config import MAX_K
from kbtools.engine.milvus import connect_url
from kbtools.errors import KbError, UsageError, valid_unicode
from kbtools.query.question import refuse_blank  # (light: agents.arguments loads it)

if TYPE_CHECKING:
    from kbtools.index.reader import KbIndex
    from kbtools.query.results import SearchResponse

# The search and the releases it reads (index, search, GitPython: ~1.5 s of imports under
# load) are imported where a question is answered, after `--engine`'s connection: an
# engine that does not answer is told without them.


@click.command("query")
@click.argument("question", required=False)
@click.option("--index", "index_path", type=click.Path(path_type=Path),
              help=f"Index: dist/, a device dir or a git checkout of a release "
                   f"({INDEX_DEFAULT}).")
@click.option("--commit", metavar="SHA",
              help="Search the release a result cited, by its source commit (7+ digits), as "
                   "MCP search does: one the device keeps (releases/), or a release tag of a "
                   "git checkout (read from git objects and verified; nothing checked out); "
                   "with --engine, one the engine holds of the alias's knowledge base. "
                   "One no longer here is refused, naming the releases kept.")
@click.option("--release", "release", metavar="TAG", help="The same, by release tag.")
@click.option("-k", "k", type=click.IntRange(1, MAX_K), default=None,
              help="Number of results (default: kb.toml query.k, else 5).")
@click.option("--where", multiple=True, metavar="KEY=VALUE",
              help="Filter on front matter (=, !=, >=, <=, >, <): numbers compare as "
                   "numbers (size=1 matches 1.0, size>1 does not), versions as versions "
                   "(version>1.9 matches 1.10.2, firmware=2 matches 2.0.0), a date, month "
                   "or year as that whole period, holding a value whose day, month or year "
                   "lies inside it (updated=2024-03-01 matches 2024-03-01T09:30+08:00, "
                   "updated<=2024-03 all of March; 2024/3/1, 2024年3月1日, 2024年, Mar 2024, "
                   "15/03/2024 too, 03/04/2024 refused as day or month first; "
                   "2024年3月以后 or since 2024-03 as >=, 之前 or before as <; "
                   "published: 2024 beside dates is that year, in neither >=2024-02 nor "
                   "<=2024-02), a datetime by instant (no offset: UTC), no date in a "
                   "field of part numbers (model=3000-12; a month in digits alone is one "
                   "of 1900-2099), a number with its unit as that quantity, converted "
                   "within its dimension (power>500W matches 5kW, power>5hp 7.5kW, "
                   "pressure<=30psi 2 bar, rate>=20kg/亩 450kg/ha, 面积<10cm² 300 mm², "
                   "power>=1e3W 5kW, area>=200 sq ft 20 m², 功率>=五千瓦 5kW), a range "
                   "after = (power=5kW..10kW, 5–10kW, 5至10kW; open: 5kW.., 5kW以上, "
                   "..10kW; among values: 5–10kW,20kW, date=after 2024,2020; a tolerance: "
                   "power=10±2kW), an operator in words (功率大于6kW, 不低于, 早于, "
                   "power at least 5kW; ≈10, 约10 refused naming a range or tolerance), "
                   "money as a quantity of its currency (价格>=50 matches ¥80, 80元; $, €, £ "
                   "each their own), 度 as ℃ in a field of temperatures, "
                   "Chinese numerals as numbers (数量=二十), 是/否, 真/假 as true/false, "
                   "full-width forms as ASCII, other values as text, ordered after numbers, "
                   "a quoted value after = or != as typed (updated=\"03/04/2024\") (= "
                   "and != case-insensitively); a list matches = (and the orders) when a "
                   "member does, != when none is the value; a "
                   "document without the key matches only !=. Values a comma apart "
                   "(, ， 、 ; ； or 或, or) or a list as front matter writes it ([小麦, 玉米]): = any "
                   "of them, != none of them (crop=小麦,玉米); a value "
                   "holding a comma in quotes (title=\"a, b\"). A key as front matter "
                   "writes it (施药 时间>=2024-05), other characters in quotes "
                   "(\"pH (水)\"<7). Repeatable, all apply.")
@click.option("--verified-only/--include-unverified", default=None,
              help="Only verified documents (default from kb.toml query.verified_only).")
@click.option("--mode", type=click.Choice(["hybrid", "bm25", "vector"]), default="hybrid",
              show_default=True, help="Retrievers to use.")
@click.option("--batch", type=click.File("rb"),
              help='JSONL file (UTF-8; - for stdin) of {"id", "query", optional "where"}; '
                   'one result per line out.')
@click.option("--explain", is_flag=True, help="Show each retriever's rank and score and filters.")
@click.option("--no-log", "no_log", is_flag=True,
              help="Do not record the question in the device's query log (see `kb log`).")
@engine_options
@alias_option("With --engine: the alias to read (one `kb publish --alias` moved).")
@json_option
def query_cmd(question: str | None, index_path: Path | None, commit: str | None,
              release: str | None, k: int | None,
              where: tuple[str, ...],
              verified_only: bool | None, mode: str, batch: BinaryIO | None, explain: bool,
              no_log: bool, engine: str | None, token_file: Path | None, alias: str,
              as_json: bool) -> None:
    """Search the knowledge and print cited passages.

    Each result names its document, heading path, line range, whether it is verified (per
    passage: text changed after its review is unverified, with the reason), and the release
    and source commit of the index it came from. On a device, each question is appended to
    its query log (time, release, question, cited chunk ids) unless --no-log or `kb log --off`.

    Exit 0 when the search ran, answered or not ("No answer in the knowledge", --json
    "no_answer": true; fields: docs/retrieval.md), one question or --batch alike; 2 for a bad
    option, filter or question line (`FILE:LINE` named; the lines before it are answered)
    and for a blank question (spaces or control characters alone: nothing asked).
    """
    if batch is None and question is None:
        raise UsageError("give a QUESTION or --batch FILE.jsonl")
    if batch is not None and question is not None:
        raise UsageError("give a QUESTION or --batch FILE.jsonl, not both")
    refuse_engine_mix(engine, local_only=("index_path",), engine_only=("token_file", "alias"))
    if question is not None and len(question) > MAX_QUESTION_CHARS:  # as the API and MCP
        raise UsageError(f"question longer than {MAX_QUESTION_CHARS} characters")
    if question is not None:  # spaces or control characters alone: nothing asked
        refuse_blank(question, "QUESTION")
    release_arguments(commit, release)  # a malformed one refused before anything is opened
    if engine is not None:  # a release asked for: among those the engine holds
        eng = connect_url(engine, token_file)  # (an engine that does not answer: at once)
        from kbtools.agents.asked import asked_search
        from kbtools.engine.remote import open_engine_index

        served = open_engine_index(eng, alias)
        with asked_search(served, commit, release, None, "--commit and --release") as index:
            _answer(index, question, batch, k=k, where=list(where),
                    verified_only=verified_only, mode=mode, explain=explain,
                    as_json=as_json, log=not no_log)
        return
    # the release a result cited, found as MCP `search` finds it (refused once gone)
    from kbtools.agents.asked import asked_at

    with asked_at(index_path, commit, release) as index:
        _answer(index, question, batch, k=k, where=list(where), verified_only=verified_only,
                mode=mode, explain=explain, as_json=as_json, log=not no_log)


def _answer(index: KbIndex, question: str | None, batch: BinaryIO | None, *, k: int | None,
            where: list[str], verified_only: bool | None, mode: str, explain: bool,
            as_json: bool, log: bool) -> None:
    """The question, or each line of --batch, searched on `index` and printed."""
    if batch is not None:
        _run_batch(index, batch, k=k, where=where, verified_only=verified_only, mode=mode,
                   explain=explain, as_json=as_json, log=log)
    elif question is not None:
        res = _logged_search(index, question, log=log, k=k, where=where,
                             verified_only=verified_only, mode=mode)
        if as_json:
            echo_json(res.to_dict())
        else:
            render(res, explain)


def _logged_search(index: KbIndex, question: str, *, log: bool, k: int | None, where: list[str],
                   verified_only: bool | None, mode: str) -> SearchResponse:
    """`search`, with the question recorded in the device's query log (also when it fails)."""
    from kbtools.query.log import record_question
    from kbtools.query.search import search

    try:
        res = search(index, question, k=k, where=where, verified_only=verified_only, mode=mode)
    except KbError as exc:
        record_question(index, "cli", question, None, enabled=log, error=exc.message)
        raise
    record_question(index, "cli", question, res, enabled=log)
    return res


def _run_batch(index: KbIndex, batch: BinaryIO, *, k: int | None, where: list[str],
               verified_only: bool | None, mode: str, explain: bool, as_json: bool,
               log: bool) -> None:
    """One search per JSONL line (format and checks: `kbtools.query.quality`); a line's own
    "where" (list or object, even empty) replaces --where, a line without one uses --where.

    A line that is not UTF-8 or breaks the format is a one-line error naming the file and
    line; lone surrogates (JSON ``\\ud800``) in a question are cleaned by the search and in an
    id are shown as U+FFFD."""
    from kbtools.query.quality import check_question, question_lines

    name = getattr(batch, "name", "<batch>")
    name = name if isinstance(name, str) else "<stdin>"
    for n, line in question_lines(batch, name):
        item = check_question(line, name, n)
        q = item["query"]
        try:
            res = _logged_search(index, q, log=log, k=k, where=item.get("where", where),
                                 verified_only=verified_only, mode=mode)
        except UsageError as exc:  # an unknown key in the line's own "where": name the line
            if "where" not in item or exc.path:
                raise
            raise UsageError(exc.message, path=name, line=n) from None
        qid = item.get("id", n)
        qid = valid_unicode(qid) if isinstance(qid, str) else qid
        q = res.query
        if as_json:
            echo_jsonl({"id": qid, **res.to_dict()})
        else:
            click.echo(valid_unicode(f"## {qid}: {q}"))
            render(res, explain)


def _highlight(text: str, terms: list[str]) -> str:
    if not terms:
        return text
    pattern = re.compile("|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True)),
                         re.IGNORECASE)
    return pattern.sub(lambda m: click.style(m.group(0), bold=True, fg="yellow"), text)


# the words `_render_evaluation` frames an evaluation in: (Chinese, English), the question's
# language choosing (the evaluation's messages are in it already: `query.answers`)
_FRAME = {
    "read_as": ("{k}={t}（读作 {v}）", "{k}={t} (read as {v})"),
    "evaluated": ("   按问题中的数值判定（{given}）", "   evaluated ({given})"),
    "none_taken": ("   决策表，问题中没有可用的输入值", "   decision table, no input value taken"),
    "approximate": ("   近似值：{values}，接近规则边界时结果可能不同",
                    "   approximate value: {values}; near a rule's bound the answer may differ"),
    "near": ("   结果取决于确切数值：{values} 接近所匹配规则的边界",
             "   the answer depends on the exact value: {values}"),
    "near_one": ("{k} {c}", "{k} near the bound of {c}"),
    "row": ("第 {n} 行", " row {n}"),
    "two": ("{m}（问题给了两个值：{values}）", "{m} (the question gives two values: {values})"),
    "other": ("{m}（{why}）", "{m} ({why})"),
    "give": ("{head}：还需要 {asked} 才能得出结果", "{head}: give {asked} to get the answer"),
    "says": ("{head}：{message}", "{head}: {message}"),
    "outputs": ("{head}{at}：{outs}", "{head}{at}: {outs}"),
    "output": ("{k}：{v}", "{k}: {v}"),
    "list": ("、", ", "),
    "outs": ("；", "; "),
}


def _render_evaluation(ev: dict[str, Any], chinese: bool = False) -> None:
    """The decision table evaluated on the question: the answer, or what is missing; framed
    in Chinese for a question with Chinese in it (`_FRAME`), as its messages are."""
    def say(key: str, **values: str) -> str:
        return _FRAME[key][0 if chinese else 1].format(**values)

    sep = say("list")
    # each value as the question typed it, and what it was read as where that differs
    # (温度(℃)=二十五 (read as 25), 温度(℃)=2 k): the JSON's ``typed`` and ``inputs``
    typed = ev.get("typed") or {}
    given = sep.join(say("read_as", k=k, t=typed[k], v=v) if k in typed and k in (
        ev.get("readings") or {}) else f"{k}={typed.get(k, v)}" for k, v in ev["inputs"].items())
    # (no value taken, two given for one input: what the table needs follows, as --json says)
    head = say("evaluated", given=given) if given else say("none_taken")
    rough = ev.get("approximate") or {}  # inputs the question gave only roughly
    if rough:
        click.echo(click.style(say("approximate", values=sep.join(
            f"{k} {v}" for k, v in rough.items())), fg="yellow"))
    if ev.get("unused"):  # values given that no input took: the message's note, in its language
        from kbtools.query.answers import unused_note
        note = next((n for n in (unused_note(ev["unused"], chinese=c) for c in (True, False))
                     if ev["message"].endswith(n)), unused_note(ev["unused"], chinese=chinese))
        click.echo(click.style("   " + note.strip(" ()（）"), fg="yellow"))
    near = ev.get("near_bound") or {}  # approximate inputs near a bound of the matched row
    if near:
        click.echo(click.style(say("near", values=sep.join(
            say("near_one", k=k, c=c) for k, c in near.items())), fg="yellow", bold=True))
    if ev["status"] == "match":
        rows = ev.get("rows") or [ev]  # policy all: every matching row
        for r in rows:
            outs = say("outs").join(say("output", k=k, v=v) for k, v in r["outputs"].items())
            at = say("row", n=str(r["row"])) if len(rows) > 1 else ""
            click.echo(click.style(say("outputs", head=head, at=at, outs=outs), fg="green",
                                   bold=True))
            for c in r["cells"]:
                click.echo(f"     {c['column']}: {c['reason']}")
    elif ev["status"] == "missing_inputs":
        two = ev.get("conflicts") or {}  # inputs the question gave two values
        other = ev.get("said_of_other") or {}  # … or a value said of another thing
        asked = sep.join(say("two", m=m, values=sep.join(two[m])) if m in two else
                         say("other", m=m, why=other[m]) if m in other else m
                         for m in ev["missing"])
        click.echo(click.style(say("give", head=head, asked=asked), fg="yellow", bold=True))
    elif ev["status"] == "spans_rows":  # a range given that rows each hold part of
        click.echo(click.style(say("says", head=head, message=ev["message"]), fg="yellow",
                               bold=True))
    else:
        click.echo(click.style(say("says", head=head, message=ev["message"]), fg="red",
                               bold=True))


def render(res: SearchResponse, explain: bool) -> None:
    from kbtools.query.results import FILTERED_AWAY, UNCOMMITTED
    from kbtools.query.wording import is_cjk

    rel = res.release
    origin = f"release {rel.tag}" if rel.tag else "local build"
    commit = rel.commit_text()
    if explain:
        f = res.filters
        click.echo(f"filters: where={list(f.where) or '-'} verified_only={f.verified_only} "
                   f"routed={[r['field'] + '=' + r['value'] for r in f.routed] or '-'}")
        for e in f.expanded:
            click.echo(f"expanded: {e['term']} → {' / '.join(e['expanded'])} ({e['from']})")
    if res.condensed is not None:
        click.echo(click.style(condensed_note(res.condensed), fg="yellow"))
    if (unheld := res.filters.unheld_text()) is not None:  # crop=玉木 of crop=小麦,玉木
        click.echo(click.style(unheld, fg="yellow"))
    if (quiet := res.filters.excludes_nothing_text()) is not None:  # crop!=玉米, none has 玉米
        click.echo(quiet)
    if (fractions := res.filters.fractions_text()) is not None:  # 湿度: 0.9 beside 湿度>=80%
        click.echo(click.style(fractions, fg="yellow"))
    if (degrees := res.filters.degrees_text()) is not None:  # 角度: 30度 beside 角度: 25℃
        click.echo(click.style(degrees, fg="yellow"))
    names, more = res.names_shown()  # codes and names no document holds
    missing = ", ".join(names) + (f" and {more} more" if more else "")
    if res.no_answer and res.reason == FILTERED_AWAY:
        click.echo(f"No answer among the documents with {res.filters_text()}: nothing there "
                   f"is relevant enough; without the filters the knowledge answers it. "
                   f"[{origin} @ {commit}]")
    elif res.no_answer:
        where = "with these filters" if res.filtered() else "in the knowledge"
        click.echo(f"No answer {where}: {res.reason_text() or 'nothing relevant'}. "
                   f"[{origin} @ {commit}]")
    if res.no_answer:
        if missing:
            click.echo(f"Not in the knowledge: {missing}")
        return
    if missing:
        click.echo(click.style(f"Not in the knowledge: {missing}. The results answer the rest "
                               f"of the question.", fg="yellow"))
    for r in res.results:
        flag = ("" if r.verified else click.style(" [UNVERIFIED]", fg="red")) + \
            (click.style(" [POSSIBLY OUTDATED]", fg="yellow") if r.outdated else "") + \
            (click.style(" [SUPERSEDED]", fg="yellow") if r.superseded_by else "")
        click.echo(click.style(f"{r.rank}. {r.citation.display()}", bold=True) + flag)
        if not r.verified and r.verification.get("status") in ("lapsed", "unchecked"):
            click.echo(click.style(f"   unverified: {r.reason}", fg="red"))
        if r.outdated:
            click.echo(click.style(f"   possibly outdated: valid until "
                                   f"{r.metadata.get('valid_until')}", fg="yellow"))
        if r.superseded_by:
            click.echo(click.style(f"   superseded by {', '.join(r.superseded_by)}", fg="yellow"))
        if r.evaluation is not None:  # (framed in the question's language, as answered)
            _render_evaluation(r.evaluation, chinese=any(is_cjk(ch) for ch in res.query))
        text = r.text.strip()
        if r.kind == "formula" and r.extra.get("svg"):
            text += f"\n[formula SVG: {r.extra['svg']}]"
        lines = text.splitlines()
        shown = "\n".join(lines[:12]) + ("\n…" if len(lines) > 12 else "")
        click.echo("   " + _highlight(shown, r.why["matched_terms"]).replace("\n", "\n   "))
        for f in r.extra.get("formulas") or ():  # the display formulas its text holds
            click.echo(f"   [formula SVG: {f['svg']}] (line {f['line']})")
        if r.last_commit == UNCOMMITTED:
            click.echo("   — changed since the last commit (not committed yet)")
        elif r.last_author:
            click.echo(f"   — last changed {(r.last_changed or '')[:10]} by {r.last_author}")
        if explain:
            w = r.why
            click.echo(f"   why: score={r.score:.4f} bm25 {_rank(w, 'bm25')} "
                       f"vector {_rank(w, 'vector')} terms={w['matched_terms']}")
        click.echo()
    click.echo(f"[{origin} @ {commit}]")


def condensed_note(c: dict[str, Any]) -> str:
    """The line saying how much of a long question was searched (`SearchResponse.condensed`)."""
    read = "" if c["read_chars"] == c["question_chars"] else \
        f"; only its first {c['read_chars']:,} were read"
    return (f"Searched {c['searched_chars']:,} of the question's {c['question_chars']:,} "
            f"characters: the lines with the most distinctive terms (at most "
            f"{c['max_searched_chars']:,} are searched{read}; --json shows the text searched).")


def _rank(why: dict[str, Any], name: str) -> str:
    """``#2 (0.65)`` for the list `name` ranked the hit in, ``-`` when it did not."""
    rank = why.get(f"{name}_rank")
    return "-" if rank is None else f"#{rank} ({why.get(f'{name}_score')})"
