"""`kb history DOC`: who changed a document, when, and who verified it."""

from __future__ import annotations

import click

from kbtools.commands.output import echo_json, json_option
from kbtools.config import load_kb_config, path_start
from kbtools.provenance import doc_rel
from kbtools.review.history import doc_history
from kbtools.review.verification import address, non_content_fields


@click.command("history")
@click.argument("doc")
@click.option("--rev", default="HEAD", show_default=True, help="Revision to start from.")
@json_option
def history(doc: str, rev: str, as_json: bool) -> None:
    """List the commits that touched DOC (newest first, following renames) with author,
    date, message and what changed, then its verification events (oldest first). A path
    the document was deleted from and added to again shows its earlier life too; a commit
    from before a rename says the name it had then ("as OLD")."""
    cfg = load_kb_config(path_start(doc))
    result = doc_history(cfg.root, doc_rel(cfg, doc), non_content_fields(cfg), rev)
    if as_json:
        echo_json(result)
        return
    newest = result["commits"][0]["path"] if result["commits"] else None
    for c in result["commits"]:
        click.echo(f"{c['commit'][:10]}  {c['date']}  {c['author']} <{c['author_email']}>")
        click.echo(f"    {c['message']}")
        # a commit from before a rename (`git mv`) names the document as it was then
        named = f" (as {c['path']})" if c["path"] != newest else ""
        click.echo(f"    {'; '.join(c['changes'])}{named}")
    if result["verifications"]:
        click.echo("verification events:")
    for e in result["verifications"]:
        if e["event"] == "verified":
            how = ("reviewer's own commit" if e["committed_by"] == address(e["verified_by"])
                   else f"Reviewed-by: {', '.join(e['reviewed_by']) or 'none'}")
            if e["cut"]:
                how = "set in a commit not fetched (shallow clone): not checked"
            click.echo(f"  {e['commit'][:10]}  verified by {e['verified_by']} at "
                       f"{e['verified_at']} ({how})")
        else:
            click.echo(f"  {e['commit'][:10]}  verification removed by {e['committed_by']}")
