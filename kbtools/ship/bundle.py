"""`kb bundle create`: carry releases to a device with no network, as one git bundle file.

The bundle holds the artifacts branch and the release tags (all of them, or only those
newer than `--since TAG`, in which case the device must already hold TAG). It is made from
the knowledge repo (refs/kb/*) or from an artifacts repository (refs/heads, refs/tags);
`kb sync FILE` reads either naming and verifies the release exactly as from a remote.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kbtools.config import branch_problem
from kbtools.errors import ReleaseError
from kbtools.ship.git import (
    LOCAL_HEADS,
    LOCAL_TAGS,
    TAG_PREFIX,
    absolute_git_dir,
    parse_serial,
    release_tags,
    rev_parse,
    tag_form_problem,
)
from kbtools.ship.gitrun import run_git


@dataclass(frozen=True)
class BundleInfo:
    path: str
    tags: tuple[str, ...]
    since: str | None
    size: int

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "tags": list(self.tags)}


BUNDLE_SIGNATURES = (b"# v2 git bundle\n", b"# v3 git bundle\n")


def create_bundle(repo: Path, out: Path, *, branch: str = "kb-index",
                  since: str | None = None, force: bool = False) -> BundleInfo:
    """Write the artifacts branch and its release tags (newer than `since`) to `out`. An
    older bundle there is replaced; any other file only with `force` (a key, a document)."""
    if (problem := branch_problem(branch)) is not None:
        raise ReleaseError(problem, path=str(repo))
    if out.exists() and not force and not _is_bundle(out):
        raise ReleaseError("exists and is not a git bundle; refusing to overwrite it (pass "
                           "--force)", path=str(out))
    gd = absolute_git_dir(repo)
    heads, tags_prefix = LOCAL_HEADS, LOCAL_TAGS
    if rev_parse(gd, LOCAL_HEADS + branch) is None:
        heads, tags_prefix = "refs/heads/", "refs/tags/"
    if rev_parse(gd, heads + branch) is None:
        raise ReleaseError(f"no {branch} branch here: make a release first (`kb release`)",
                           path=str(repo))
    tags = release_tags(gd, tags_prefix)
    excl: list[str] = []
    if since is not None:
        s = parse_serial(since)
        if s is None or s not in tags:
            raise ReleaseError(f"--since {since}: {tag_form_problem(since) or 'no such release tag'}",
                               path=str(repo))
        excl = [f"^{tags[s]}"]
        tags = {k: v for k, v in tags.items() if k > s}
    if not tags and since is None:
        raise ReleaseError(f"no release tags ({TAG_PREFIX}<N>) here, only the {branch} branch: "
                           "`kb release` makes one", path=str(repo))
    if not tags:
        raise ReleaseError(f"no releases newer than {since} to bundle", path=str(repo))
    out = out.resolve()
    tmp = out.with_name(f".{out.name}.tmp")
    run_git(gd, "bundle", "create", "-q", str(tmp), heads + branch,
            *(tags[k] for k in sorted(tags)), *excl)
    os.replace(tmp, out)
    return BundleInfo(str(out), tuple(v.rsplit("/", 1)[-1] for _, v in sorted(tags.items())),
                      since, out.stat().st_size)


def _is_bundle(path: Path) -> bool:
    """Whether `path` is a regular file that starts as a git bundle does (checked before it
    is opened: opening a FIFO would wait for a writer)."""
    try:
        if not path.is_file():
            return False
        with path.open("rb") as f:
            return f.read(16) in BUNDLE_SIGNATURES
    except OSError:
        return False
