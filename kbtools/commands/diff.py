"""`kb diff`: what changed between two releases of a device."""

from __future__ import annotations

from pathlib import Path

import click

from kbtools.commands.output import echo_json, json_option, to_here_option
from kbtools.ship.changes import ReleaseDiff, VerificationChange, diff_releases
from kbtools.ship.checkout import clone_given_or_here
from kbtools.ship.device import device_dir, require_device
from kbtools.ship.tagged import diff_tags


@click.command("diff")
@click.argument("tag_a", required=False)
@click.argument("tag_b", required=False)
@to_here_option
@json_option
def diff(tag_a: str | None, tag_b: str | None, to: Path | None, as_json: bool) -> None:
    """What changed from release TAG_A to TAG_B: documents added, removed and changed, the
    sections changed (by heading path), and sections that gained or lost verification.

    No TAG: the served release against the local one before it. One TAG: that release
    against the served one. A TAG may also be the path of a release directory (a build's
    dist/, a device's releases/<tag>).

    In a git checkout of a release (around the current directory, or given with --to) the
    releases are the clone's tags, read and verified from git objects (nothing is checked
    out): no TAG, the one checked out against the tag before it; one TAG, that tag against
    the one checked out.
    """
    # two release directories need no device: no clone around is refused for them
    paths = bool(tag_a and tag_b) and all(Path(t).is_dir() for t in (tag_a or "", tag_b or ""))
    clone = None if paths else clone_given_or_here(to)
    if clone is not None:  # a git checkout of a release: its tags, read from git objects
        res = diff_tags(*clone, tag_a, tag_b)
    else:
        path = require_device(device_dir(to))
        res = diff_releases(path, tag_a, tag_b) if tag_b or tag_a else diff_releases(path)
    if as_json:
        echo_json(res.to_dict())
    else:
        render(res)


def render(res: ReleaseDiff) -> None:
    old = res.old.name if res.old else "nothing"
    click.echo(f"{old} → {res.new.name}: {res.summary()}")
    if res.builds_differ:
        click.echo(res.build_note())
    for doc in res.documents_added:
        click.echo(f"+ {doc}" + _title(res.titles.get(doc)))
    for doc in res.documents_removed:
        click.echo(f"- {doc}" + _title(res.titles.get(doc)))
    for d in res.documents_changed:
        click.echo(f"~ {d.doc}" + _title(d.title))
        for mark, heads in ([("+", h) for h in d.sections_added]
                            + [("-", h) for h in d.sections_removed]
                            + [("~", h) for h in d.sections_changed]):
            click.echo(f"    {mark} § {' › '.join(heads) or '(before the first heading)'}")
        if d.metadata_changed:
            click.echo(f"    front matter: {', '.join(d.metadata_changed)}")
    for path in res.files_changed:
        click.echo(f"~ file {path}")
    for title, changes in (("verification gained", res.verification_gained),
                           ("verification lost", res.verification_lost)):
        if changes:
            click.echo(f"{title}:")
            for v in changes:
                click.echo(f"  {_section(v)}: {v.before} → {v.after}"
                           + (f" — {v.reason}" if v.reason else ""))


def _title(title: str | None) -> str:
    return f"  “{title}”" if title else ""


def _section(v: VerificationChange) -> str:
    return " › ".join([v.doc, *v.heading_path])
