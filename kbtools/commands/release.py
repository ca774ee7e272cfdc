"""`kb release`: record a built dist/ as a tagged commit on the artifacts branch."""

from __future__ import annotations

from pathlib import Path

import click

from kbtools.commands.output import echo_json, json_option, lapse_message, net_limit_options
from kbtools.config import load_config_near
from kbtools.ship.release import make_release, release_limits, release_settings


@click.command("release")
@click.option("--dist", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Built index directory (default: kb.toml paths.dist).")
@click.option("--remote", default=None,
              help="Artifacts remote (name or URL) to push branch + tag to "
                   "(default: kb.toml release.remote; empty = keep local).")
@click.option("--no-push", is_flag=True, help="Do not push even if kb.toml names a remote.")
@click.option("--sign-key", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              default=None, help="Ed25519 private key (from `kb keygen`) to sign release.json.")
@click.option("--next-key", "next_keys", multiple=True,
              type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="Private key to rotate to (repeatable): release.json names its public key "
                   "and it cosigns, so devices trusting --sign-key trust it instead.")
@click.option("--branch", default=None, help="Artifacts branch (default: kb.toml release.branch).")
@net_limit_options("release", "a push or fetch")
@json_option
def release(dist: Path | None, remote: str | None, no_push: bool, sign_key: Path | None,
            next_keys: tuple[Path, ...], branch: str | None, stall_seconds: float | None,
            stall_bytes: int | None, list_timeout: float | None, as_json: bool) -> None:
    """Record dist/ (manifest.json + data/) as the next release.

    One commit on the artifacts branch, kept under refs/kb/ so plain clones and pushes
    never carry it, plus an annotated tag kb-r<serial> naming the source commit and the
    manifest hash. Does nothing when the newest release already holds this build. Lists the
    documents whose verification lapsed (text changed after review: served as unverified).
    A remote that stops answering is given up (limits: the options below, kb.toml
    [release]); the release then stays recorded here and the next `kb release` pushes it.
    """
    cfg = load_config_near(dist)
    settings = release_settings(cfg)
    remote = None if no_push else (remote if remote is not None else settings.remote)
    info = make_release(cfg.root, dist or cfg.path("dist"), branch=branch or settings.branch,
                        remote=remote or None, sign_key=sign_key, next_keys=next_keys,
                        limits=release_limits(cfg, {"stall_seconds": stall_seconds,
                                                    "stall_bytes": stall_bytes,
                                                    "list_timeout": list_timeout}))
    if as_json:
        echo_json(info.to_dict())
        return
    what = "new release" if info.new else "already released"
    click.echo(f"{info.tag}\t{what}\tcommit {info.commit[:12]}\tsource {info.source_commit[:12]}"
               + (f"\tpushed to {info.pushed_to}" if info.pushed_to else ""))
    for warning in info.warnings:
        click.echo(f"warning: {warning}", err=True)
    for lapse in info.lapsed:
        click.echo(lapse_message(lapse), err=True)
