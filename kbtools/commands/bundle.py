"""`kb bundle create`: a file carrying releases to an offline device."""

from __future__ import annotations

from pathlib import Path

import click

from kbtools.commands.output import echo_json, json_option
from kbtools.config import load_config_near
from kbtools.ship.bundle import create_bundle
from kbtools.ship.release import release_settings


@click.group("bundle")
def bundle() -> None:
    """Offline transport of releases (git bundle files)."""


@bundle.command("create")
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--since", default=None, help="Only releases newer than this tag; the device "
              "must already hold it.")
@click.option("--repo", type=click.Path(file_okay=False, exists=True, path_type=Path),
              default=None, help="Knowledge or artifacts repository (default: this repo).")
@click.option("--force", is_flag=True, help="Overwrite OUT even when it is not a bundle.")
@json_option
def create(out: Path, since: str | None, repo: Path | None, force: bool, as_json: bool) -> None:
    """Write the artifacts branch and release tags to OUT; `kb sync OUT` reads it. An older
    bundle at OUT is replaced; any other file only with --force."""
    cfg = load_config_near(repo)
    info = create_bundle(repo or cfg.root, out, branch=release_settings(cfg).branch, since=since,
                         force=force)
    if as_json:
        echo_json(info.to_dict())
    else:
        click.echo(f"{info.path}\t{info.size} bytes\t{' '.join(info.tags)}")
