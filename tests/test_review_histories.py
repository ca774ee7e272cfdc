"""The review policy on the Git histories a team produces: real repositories made with the
git command line (a shallow clone as CI checks out), judged by the real `kb review check`."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.cli import main

KB_TOML = """\
[review]
non_content_fields = ["tags"]

[review.reviewers]
"knowledge/**" = ["rita@ex.org", "ray@ex.org"]
"""
DOC = "knowledge/pump.md"
AT = "2026-02-02T09:00:00+00:00"


def doc(by: str | None = None) -> str:
    verified = f'verified: true\nverified_by: {by}\nverified_at: "{AT}"' if by else \
        "verified: false"
    return ("---\ntitle: Pump seals\ncategory: engineering\nsource: SOP\nauthor: Alice\n"
            f'timestamp: "2026-01-01T09:00:00+08:00"\n{verified}\ntags: [pump]\n---\n\n'
            "# Pump seals\n\nReplace the seal every 2000 hours.\n")


def git(root: Path, *args: str, who: str = "alice@ex.org", date: str = AT) -> str:
    name = who.split("@")[0].title()
    env = {**os.environ, "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": who,
           "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": who,
           "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    return subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True,
                          text=True).stdout


def put(root: Path, text: str, message: str, who: str, date: str) -> None:
    (root / DOC).parent.mkdir(parents=True, exist_ok=True)
    (root / DOC).write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message, who=who, date=date)


def origin(root: Path, writer: str, verifier: str, message: str) -> Path:
    """main with kb.toml; branch `pr`: `writer` adds the document, then `verifier` commits
    its verification by Rita."""
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "kb.toml").write_text(KB_TOML, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "settings", who="lead@ex.org", date="2026-01-01T00:00:00Z")
    git(root, "checkout", "-q", "-b", "pr")
    put(root, doc(), "Add pump seals", writer, "2026-02-01T10:00:00+00:00")
    put(root, doc(by="rita@ex.org"), message, verifier, AT)
    return root


def review_check(root: Path) -> tuple[int, list[dict]]:
    cwd = Path.cwd()
    os.chdir(root)
    try:
        res = CliRunner().invoke(main, ["review", "check", "--base", "origin/main", "--json"])
    finally:
        os.chdir(cwd)
    return res.exit_code, json.loads(res.stdout)


def ci_checkout(src: Path, dest: Path, depth: int | None) -> Path:
    """`git clone` as CI does (`--depth 1` is actions/checkout's default), on branch pr."""
    shallow = ["--depth", str(depth), "--no-single-branch"] if depth else []
    subprocess.run(["git", "clone", "-q", *shallow, f"file://{src}", str(dest)], check=True)
    git(dest, "checkout", "-q", "pr")
    return dest


@pytest.mark.parametrize(("writer", "verifier", "message", "full"), [
    # Rita wrote the text and Alice committed Rita's approval of it: four eyes broken
    ("rita@ex.org", "alice@ex.org", "Verify\n\nReviewed-by: Rita <rita@ex.org>",
     ["review-self-review"]),
    # Alice wrote it, Rita verified it in her own commit: a legitimate review
    ("alice@ex.org", "rita@ex.org", "Verify", []),
])
def test_a_shallow_checkout_judges_nobody(tmp_path, writer, verifier, message, full):
    """In a shallow clone git shows the boundary commit as the document's creation, by that
    commit's author: the policy must not clear the self-review nor blame the reviewer for
    writing what she verified. It says the history is missing."""
    src = origin(tmp_path / "origin", writer, verifier, message)
    code, findings = review_check(ci_checkout(src, tmp_path / "full", None))
    assert [f["code"] for f in findings] == full and code == (1 if full else 0)
    code, findings = review_check(ci_checkout(src, tmp_path / "ci", 1))
    assert code == 1
    assert [(f["path"], f["code"]) for f in findings] == [(DOC, "review-no-history")]
    assert "fetch-depth: 0" in findings[0]["message"]
