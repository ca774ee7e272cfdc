"""`kb review`: the reviewer's side of `verified: true` (check, pending, diff, approve,
record)."""

from __future__ import annotations

from pathlib import Path

import click

from kbtools.commands.output import echo_json, json_option, report_findings
from kbtools.config import load_kb_config, path_start
from kbtools.errors import plural
from kbtools.review.approve import approve as approve_docs
from kbtools.review.diff import review_diff
from kbtools.review.pending import pending as pending_docs
from kbtools.review.policy import check_range
from kbtools.review.record import add_records, staged_records


@click.group("review")
def review() -> None:
    """Review policy and reviewer tools for `verified: true` documents.

    Reviewers come from kb.toml [review.reviewers] (CODEOWNERS-style patterns, the last
    match wins); fields in [review] non_content_fields may change without re-review.
    """


@review.command("check")
@click.option("--base", required=True, help="Base revision of the range (e.g. origin/main).")
@click.option("--head", default="HEAD", show_default=True, help="Head revision of the range.")
@json_option
def check(base: str, head: str, as_json: bool) -> None:
    """Enforce the review policy on documents changed in BASE...HEAD.

    For each changed document verified at HEAD: verified_by must be a reviewer for its
    path; verified_at must not be earlier than the last content change; the commit that
    set it must be authored by that reviewer or carry a `Reviewed-by: Name <email>`
    trailer naming them; content must not change after verification; the reviewer must
    not have authored the content they verify; a document must be the content its
    approval recorded (Kb-Reviewed-Content). Prints `path:line:col: level: code:
    message` per finding and exits 1 if any is an error. Reviewers are read from kb.toml
    at the merge base, so a change cannot appoint its own reviewers. Needs full history
    (CI: fetch-depth 0).
    """
    findings, n_docs = check_range(load_kb_config(), base, head)
    report_findings(findings, f"review check: {plural(n_docs, 'changed document')}", as_json=as_json,
                    listed_by="kb review check --json")


@review.command("pending")
@json_option
def pending(as_json: bool) -> None:
    """List documents awaiting review, oldest first, with author and age.

    Unverified documents, verified ones whose content changed since their verification
    or whose verification is no valid review (verification-lapsed, as kb check warns), and
    uncommitted ones, and drafts waiting on their own branches (draft/..., local or fetched
    from a remote; `kb draft new`, an agent's report). In a shallow clone, a verified document whose verification is
    older than the fetched history is listed as history-missing.
    """
    rows = pending_docs(load_kb_config())
    if as_json:
        echo_json(rows)
        return
    for r in rows:
        who = r["author"] or "?"
        if r["git_author_email"]:
            who += f", committed by {r['git_author_email']}"
        if r["branch"]:
            who += f", on branch {r['branch']}"
        where = f"{r['doc']}:{r['line']}" if r.get("line") else r["doc"]
        click.echo(f"{r['age_days']:>7.1f}d  {r['reason']:<27} {where}  ({who})")
    click.echo(f"{plural(len(rows), 'document')} awaiting review", err=True)


@review.command("diff")
@click.argument("doc")
@json_option
def diff(doc: str, as_json: bool) -> None:
    """Show what changed in DOC's body (and content fields) since its last verification."""
    result = review_diff(load_kb_config(path_start(doc)), doc)
    if as_json:
        echo_json(result)
        return
    for key, change in result["front_matter"].items():
        click.echo(f"front matter {key}: {change['old']!r} -> {change['new']!r}")
    if result["diff"]:
        click.echo(result["diff"])
    if not result["changed"]:
        click.echo(f"{result['doc']}: no change since its last verification", err=True)


@review.command("approve")
@click.argument("docs", nargs=-1, required=True)
@click.option("--as", "as_email", metavar="EMAIL",
              help="Approve as this reviewer (default: git config user.email).")
@json_option
def approve(docs: tuple[str, ...], as_email: str | None, as_json: bool) -> None:
    """Verify DOCS: set verified, verified_by and verified_at and commit only those files
    with a `Reviewed-by:` trailer and a `Kb-Reviewed-Content: sha256:...` line per document
    (what was approved: a cherry-pick, rebase or squash of the approval onto other content
    does not verify it).

    Refuses (changing nothing) when the approver is not a reviewer for a document's path,
    authored the unverified change, or a document has uncommitted changes, or is verified
    by a valid review that still covers it.
    """
    result = approve_docs(load_kb_config(path_start(docs[0])), list(docs), as_email)
    if as_json:
        echo_json(result.to_dict())
        return
    click.echo(f"{result.commit[:10]} verified by {result.approver}: " + ", ".join(result.docs))


@review.command("record")
@click.argument("message_file", required=False,
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--kb", "kb_dir", type=click.Path(file_okay=False, path_type=Path),
              help="The knowledge base's folder (holding kb.toml) when it is not the "
                   "current one: a hook run from a monorepo's root (args: [--kb, docs/kb]).")
def record(message_file: Path | None, kb_dir: Path | None) -> None:
    """Record what a verification made by hand approves (Kb-Reviewed-Content).

    For every document the commit being made sets verified (staged with `verified: true`
    and verification fields HEAD's version lacks), a `Kb-Reviewed-Content: sha256:...`
    line with the digest of the document as staged, as `kb review approve` writes: a
    rebase that keeps the text keeps the approval, one onto other text is refused. With
    MESSAGE_FILE (as a commit-msg hook is given, `kb-review-record` in
    .pre-commit-hooks.yaml) the lines are added to that commit message as trailers;
    without it they are printed (`git commit --trailer "$(kb review record)"` for one).
    """
    cfg = load_kb_config(kb_dir)
    if message_file is None:
        for _rel, line in staged_records(cfg):
            click.echo(line)
        return
    for line in add_records(cfg, message_file):
        click.echo(f"kb review record: {line}", err=True)
