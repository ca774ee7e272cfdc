"""Who judges a review: the [review] policy as it stood before the review commit landed.

A commit cannot make itself verified by appointing its own author as a reviewer, nor keep a
document verified by declaring the field it changes non-content, in the same commit or in
the same pull request: the build (`kb build`, per-chunk `verified`) judges each review by
kb.toml at the commit's landing base (the pull request's base for a merged branch, the
parent for a direct push). Real Git repositories, the real CLI.
"""

from __future__ import annotations

import json
import os
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hostile import GOOD_DOC, kb, make_repo

from kbtools.ship.signing import keygen

REV = "rev@example.org"
MALLORY = "mallory@example.org"
EVE = "eve@example.org"
ALICE = "alice@example.org"
TOML = '''[embedding]
model = "test-hash"
languages = {{ en = "test-hash", zh = "test-hash" }}

[review]
non_content_fields = {nc}

[review.reviewers]
"knowledge/**" = {reviewers}
'''


def toml(reviewers: list[str], nc: tuple[str, ...] = ("tags",)) -> str:
    return TOML.format(reviewers=json.dumps(reviewers), nc=json.dumps(list(nc)))


def doc(title: str, by: str | None = None, source: str = "test") -> str:
    text = GOOD_DOC.replace("Pump maintenance", title).replace("source: test",
                                                               f"source: {source}")
    if by:
        at = datetime.now(UTC).isoformat(timespec="seconds")
        text = text.replace("verified: false",
                            f'verified: true\nverified_by: {by}\nverified_at: "{at}"')
    return text


def git(repo: Path, *args: str, who: str = ALICE, authored: str | None = None) -> str:
    name = who.split("@")[0].title()
    env = {**os.environ, "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": who,
           "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": who}
    if authored:
        env["GIT_AUTHOR_DATE"] = authored
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True,
                          text=True).stdout


def commit(repo: Path, who: str, message: str, files: dict[str, str],
           authored: str | None = None) -> None:
    for rel, text in files.items():
        (repo / rel).write_text(text, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message, who=who, authored=authored)


def lapsed_docs(repo: Path, home: Path) -> dict[str, str]:
    out = kb(repo, "build", "-q", "--json", home=home)
    assert out.returncode == 0, out.stderr.decode()
    manifest = json.loads((repo / "dist" / "manifest.json").read_text(encoding="utf-8"))
    stats = json.loads(out.stdout)
    assert manifest["verification"]["lapsed"] == stats["lapsed"]
    return {x["doc"].removeprefix("knowledge/"): x["reason"] for x in stats["lapsed"]}


def test_a_review_is_judged_by_the_policy_from_before_it(tmp_path):
    names = ("control", "self_appointed", "pr_appointed", "pr_legit", "field_flip")
    repo = make_repo(tmp_path / "repo", docs={f"knowledge/{n}.md": doc(n) for n in names})
    commit(repo, ALICE, "policy", {"kb.toml": toml([REV])})
    # a reviewer verifies two documents (the controls: they stay verified)
    flip = doc("field_flip", REV)  # the reviewed text, verified_at and all
    commit(repo, REV, "review control, field_flip", {
        "knowledge/control.md": doc("control", REV), "knowledge/field_flip.md": flip})
    # a direct push: Mallory appoints herself and verifies in the same commit
    commit(repo, MALLORY, "appoint and verify", {
        "kb.toml": toml([REV, MALLORY]),
        "knowledge/self_appointed.md": doc("self_appointed", MALLORY)})
    # a pull request: one commit appoints Eve, the next (hers) verifies; merged with a merge
    git(repo, "checkout", "-q", "-b", "pr")
    commit(repo, MALLORY, "appoint eve", {"kb.toml": toml([REV, MALLORY, EVE])})
    commit(repo, EVE, "verify", {"knowledge/pr_appointed.md": doc("pr_appointed", EVE)})
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge pr", "pr", who=REV)
    # a legitimate pull request: the reviewer verifies on a branch, merged
    git(repo, "checkout", "-q", "-b", "legit")
    commit(repo, REV, "verify pr_legit", {"knowledge/pr_legit.md": doc("pr_legit", REV)})
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge legit", "legit", who=ALICE)
    # a content field declared non-content in the commit that changes it
    commit(repo, MALLORY, "source is not content", {
        "kb.toml": toml([REV, MALLORY, EVE], nc=("tags", "source")),
        "knowledge/field_flip.md": flip.replace("source: test", "source: forged")})

    lapsed = lapsed_docs(repo, tmp_path / "home")
    assert set(lapsed) == {"self_appointed.md", "pr_appointed.md", "field_flip.md"}, lapsed
    assert f"{MALLORY} is not a reviewer" in lapsed["self_appointed.md"]
    assert f"{EVE} is not a reviewer" in lapsed["pr_appointed.md"]
    assert "source" in lapsed["field_flip.md"]
    # the CI rule for pull requests agrees on the merged branch
    check = kb(repo, "review", "check", "--base", "main~3", home=tmp_path / "home")
    assert check.returncode != 0 and b"is not a reviewer" in check.stdout + check.stderr


def test_an_appointment_that_landed_before_the_review_counts(tmp_path):
    """The control for the rule: a reviewer appointed by an earlier commit (the policy
    change is its own change) verifies, and the document is served as verified."""
    repo = make_repo(tmp_path / "repo", docs={"knowledge/later.md": doc("later")})
    commit(repo, ALICE, "appoint rev", {"kb.toml": toml([REV])})
    commit(repo, REV, "verify later", {"knowledge/later.md": doc("later", REV)})
    assert lapsed_docs(repo, tmp_path / "home") == {}
    first_commit = tmp_path / "import"  # a repository's first commit is its own policy
    first_commit.mkdir()
    (first_commit / "knowledge").mkdir()
    commit_files = {"kb.toml": toml([REV]), "knowledge/imported.md": doc("imported", REV)}
    git(first_commit, "init", "-q", "-b", "main")
    # an import is authored before its verified_at (docs/review.md); without the explicit
    # author date the commit could land a second after verified_at and read as stale
    an_hour_ago = (datetime.now(UTC) - timedelta(hours=1)).isoformat(timespec="seconds")
    commit(first_commit, ALICE, f"import\n\nReviewed-by: Rev <{REV}>", commit_files,
           authored=an_hour_ago)
    assert lapsed_docs(first_commit, tmp_path / "home") == {}


def test_status_shows_pinned_keys_and_lapsed_reviews(tmp_path):
    """`kb status` on a device: the pinned key's fingerprint and how many documents and
    passages of the served (signed) release had their verification lapse."""
    home = tmp_path / "home"
    repo = make_repo(tmp_path / "repo", docs={"knowledge/pump.md": doc("pump"),
                                              "knowledge/seal.md": doc("seal")})
    commit(repo, ALICE, "appoint rev", {"kb.toml": toml([REV])})
    pump = doc("pump", REV)
    commit(repo, REV, "verify", {"knowledge/pump.md": pump,
                                 "knowledge/seal.md": doc("seal", REV)})
    edited = pump.replace("every 2000 operating hours", "every 20000 operating hours")
    commit(repo, MALLORY, "unreviewed edit", {"knowledge/pump.md": edited})
    assert set(lapsed_docs(repo, home)) == {"pump.md"}
    _, pub, kid = keygen(tmp_path / "keys" / "ci")
    art = tmp_path / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    out = kb(repo, "release", "--remote", str(art), "--sign-key", str(tmp_path / "keys" / "ci"),
             home=home)
    assert out.returncode == 0, out.stderr.decode()
    dev = tmp_path / "dev"
    before = kb(repo, "status", "--to", str(dev), "--json", home=home)
    assert json.loads(before.stdout)["trusted_keys"] == []
    out = kb(repo, "sync", str(art), "--to", str(dev), "--trusted-key", str(pub), home=home)
    assert out.returncode == 0, out.stderr.decode()
    st = json.loads(kb(repo, "status", "--to", str(dev), "--json", home=home).stdout)
    assert [k["key_id"] for k in st["trusted_keys"]] == [kid]
    review = st["served"]["review"]
    assert review["checked"] is True and review["lapsed"] == ["knowledge/pump.md"]
    assert review["lapsed_documents"] == 1 and review["lapsed_chunks"] >= 1
    text = kb(repo, "status", "--to", str(dev), home=home)
    lines = text.stdout.decode()
    assert text.returncode == 0 and f"pinned key {kid}" in lines
    assert (f"verified: lapsed in 1 document(s), {review['lapsed_chunks']} passage(s)" in lines
            and "knowledge/pump.md" in lines), lines
