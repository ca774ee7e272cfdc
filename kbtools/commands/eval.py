"""`kb eval`: measure retrieval on a question set."""

from __future__ import annotations

from pathlib import Path

import click

from kbtools.commands.output import INDEX_DEFAULT, echo_json, json_option
from kbtools.config import MAX_K
from kbtools.query.quality import (
    evaluate,
    failures,
    first_missing,
    gold_not_in_index,
    numbered_questions,
    table,
)
from kbtools.ship.checkout import open_index


@click.command("eval")
@click.argument("questions", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option("--index", "index_path", type=click.Path(path_type=Path),
              help=f"Index to evaluate ({INDEX_DEFAULT}).")
@click.option("-k", "k", type=click.IntRange(1, MAX_K), default=10, show_default=True,
              help="Results per question.")
@click.option("--baseline", type=click.Choice(["bm25", "vector"]), multiple=True,
              help="Also run single-retriever baselines in the same run. Repeatable.")
@json_option
def eval_cmd(questions: Path, index_path: Path | None, k: int, baseline: tuple[str, ...],
             as_json: bool) -> None:
    """Score retrieval on QUESTIONS.jsonl: Hit@k, MRR@10, nDCG@10, answer-in-top-k,
    no-answer precision/recall and latency, side by side with baselines.

    QUESTIONS: JSON Lines (or one JSON array) of {"id", "query", "gold": [{"doc", "answers"?,
    "relevance"?}], "no_answer"?}. Each mode's failed questions (relevant document not
    first, or the wrong no-answer verdict) are listed as FILE:LINE, the question, what was
    expected and at which rank it came, after the table; --json gives every question's
    line, rank and documents. Format, metrics and output: docs/retrieval.md, "kb eval"."""
    numbered = numbered_questions(questions)
    qs, lines = [q for _, q in numbered], [n for n, _ in numbered]
    index = open_index(index_path)
    missing = gold_not_in_index(index, qs)
    if missing:  # the first question naming one, as FILE:LINE, to fix the path there
        held = next((d["doc"] for d in index.docs()), None)
        first, line = first_missing(numbered, missing)
        at = f" ({questions}:{line})" if line else ""
        click.echo(f"kb eval: warning: {len(missing)} gold document(s) not in {index.root}, "
                   f"e.g. {first!r}{at}, count as never retrieved; the index names documents "
                   f"like {held!r}", err=True)
    rows = [evaluate(index, qs, mode=m, k=k, lines=lines) for m in ("hybrid", *baseline)]
    if as_json:
        echo_json({"questions": str(questions), "index": str(index.root),
                   "gold_not_in_index": missing, "results": rows})
    else:
        click.echo(table(rows))
        for row in rows:
            click.echo("\n" + failures(row, str(questions)))
