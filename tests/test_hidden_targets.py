"""Symlinks committed to a knowledge repository that lead into its hidden entries: the git
directory (`.git/config`, where a CI checkout keeps its token as an `http.extraheader`), an
ignored `.env`, a `.venv`. They lie inside the repository's folder but are no part of its
knowledge: the walk never takes a hidden entry for a document, so a link may not take it
there either. Real repositories, the real `kb` CLI in a subprocess."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from hostile import GOOD_DOC, git, kb, make_repo, tree_bytes

from kbtools.linkscope import hidden_target

TOKEN = "U0VDUkVULVRPS0VOLTRmOWE="  # base64, as actions/checkout writes it
ENV_SECRET = "SECRET-ENV-7c1e"
# a PNG signature and header, then the secret: a picture by its bytes
PNG = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00"
       b"\x00\x1f\x15\xc4\x89" + ENV_SECRET.encode())
PDF = b"%PDF-1.4\n% " + ENV_SECRET.encode() + b"\n%%EOF\n"

USES = GOOD_DOC.replace("# Pump maintenance", "# Pump maintenance\n\n"
                        "![泵](../assets/pump.png)\n\n[手册](../assets/manual.pdf)\n\n"
                        "![ok](../assets/ok.png)\n\n![缓存](../assets/cache/pump.png)")


def hostile_repo(tmp_path: Path) -> Path:
    """A committed repository whose links lead into .git, .env and .venv, plus controls: a
    document and a picture linked from inside the knowledge, which stay."""
    repo = make_repo(tmp_path / "repo", commit=False, docs={"knowledge/uses.md": USES})
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "http.https://github.com/.extraheader", f"AUTHORIZATION: basic {TOKEN}")
    (repo / ".gitignore").write_text(".env\n.venv/\n", encoding="utf-8")
    (repo / ".env").write_text(f"---\ntitle: env\n---\n# Env\n\nAPI_KEY={ENV_SECRET}\n",
                               encoding="utf-8")
    (repo / ".venv").mkdir()
    (repo / ".venv" / "pump.png").write_bytes(PNG)
    (repo / ".git" / "manual.pdf").write_bytes(PDF)
    (repo / "assets" / "ok.png").write_bytes(PNG.replace(ENV_SECRET.encode(), b"fine"))
    k = repo / "knowledge"
    (k / "cfg.md").symlink_to("../.git/config")
    (k / "配置.md").symlink_to("../.git/config")
    (k / "env.md").symlink_to("../.env")
    (k / "twin.md").symlink_to("good.md")  # a document linked from inside: still read
    (repo / "assets" / "pump.png").symlink_to("../.venv/pump.png")
    (repo / "assets" / "manual.pdf").symlink_to("../.git/manual.pdf")
    (repo / "assets" / "cache").symlink_to("../.venv")  # a linked folder on the way
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "knowledge with links")
    return repo


def test_links_into_hidden_entries_are_findings(tmp_path: Path) -> None:
    repo = hostile_repo(tmp_path)
    res = kb(repo, "check", "--json", home=tmp_path / "home")
    assert res.returncode == 1, res.stderr.decode()
    found: dict[str, set[str]] = {}
    for f in json.loads(res.stdout):
        found.setdefault(f["path"], set()).add(f["code"])
    for doc in ("knowledge/cfg.md", "knowledge/配置.md", "knowledge/env.md"):
        assert found[doc] == {"path-symlink-escape"}, found
    escapes = [f["message"] for f in json.loads(res.stdout)
               if f["path"] == "knowledge/uses.md" and f["code"] == "path-symlink-escape"]
    assert len(escapes) == 3 and any("cache/pump.png" in m for m in escapes), escapes
    assert "knowledge/twin.md" not in found, found
    out = res.stdout.decode()
    assert TOKEN not in out and ENV_SECRET not in out
    assert ".git" in out and "hidden" in out  # says where the link leads


def test_no_byte_of_a_hidden_entry_reaches_a_release(tmp_path: Path) -> None:
    repo = hostile_repo(tmp_path)
    res = kb(repo, "build", "--lenient", "--skip-invalid", "--json", home=tmp_path / "home")
    assert res.returncode == 0, res.stderr.decode()
    skipped = {d["doc"]: d["errors"] for d in json.loads(res.stdout)["skipped"]}
    assert skipped == {"knowledge/cfg.md": ["path-symlink-escape"],
                       "knowledge/env.md": ["path-symlink-escape"],
                       "knowledge/配置.md": ["path-symlink-escape"]}, skipped
    dist = repo / "dist"
    data = tree_bytes(dist)
    assert TOKEN.encode() not in data and ENV_SECRET.encode() not in data
    assert b"extraheader" not in data
    source = dist / "data" / "source"
    assert (source / "assets" / "ok.png").is_file()  # the control picture ships
    assert not (source / "assets" / "pump.png").exists()
    assert not (source / "assets" / "manual.pdf").exists()
    assert not (source / "assets" / "cache").exists()
    with sqlite3.connect(dist / "index" / "store.sqlite") as con:
        docs = {r[0] for r in con.execute("SELECT DISTINCT doc FROM chunks")}
    assert "knowledge/twin.md" in docs and "knowledge/cfg.md" not in docs, docs


def test_a_watchers_mailmap_linked_to_dev_zero_or_outside_is_not_followed(tmp_path: Path
                                                                          ) -> None:
    """`kb watch` keys its blame on the work tree's `.mailmap`: a committed `.mailmap ->
    /dev/zero` was read to the end (memory until MemoryError; without a limit, all of it),
    one leading outside was read too (only hashed). Git itself follows no linked
    `.mailmap`; the key now reads it as documents are read (`read_source`), bounded."""
    from forge_helpers import run_forked

    from kbtools.build.history import HistoryMemo, document_provenance

    outside = tmp_path / "outside.txt"
    outside.write_text("Outside <outside@example.org>\n", encoding="utf-8")
    for target in ("/dev/zero", str(outside)):
        repo = make_repo(tmp_path / f"repo{len(target)}")
        (repo / ".mailmap").symlink_to(target)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "mailmap")
        raw = {"knowledge/good.md": (repo / "knowledge" / "good.md").read_bytes()}
        kind, got = run_forked(lambda repo=repo, raw=raw: sorted(
            document_provenance(HistoryMemo(), repo, raw)), timeout=30, extra_memory=512 << 20)
        assert (kind, got) == ("ok", ["knowledge/good.md"]), (target, kind, got)


@pytest.mark.parametrize(("named", "real", "hidden"), [
    ("knowledge/cfg.md", "/r/.git/config", ".git/config"),
    ("knowledge/环境.md", "/r/.env", ".env"),
    ("assets/cache/p.png", "/r/.venv/p.png", ".venv/p.png"),
    ("knowledge/a.md", "/r/knowledge/.d/b.md", "knowledge/.d/b.md"),
    (".kb/knowledge/a.md", "/r/.git/config", ".git/config"),
    ("knowledge/a.md", "/r/knowledge/b.md", None),  # a link between documents
    (".github/notes.md", "/r/.github/notes.md", None),  # a hidden path named, no link
    (".kb/knowledge/a.md", "/r/.kb/knowledge/b.md", None),  # inside the hidden folder named
    ("knowledge/a.md", "/elsewhere/x.md", None),  # outside: `is_inside`'s to refuse
])
def test_hidden_target(named: str, real: str, hidden: str | None) -> None:
    assert hidden_target(named, real, "/r") == hidden


def test_fix_never_rewrites_through_a_link_into_git(tmp_path: Path) -> None:
    """`--fix` rewrites a symlinked document's target when it lies inside the repository;
    never one in `.git` (`check.fix.fix_target`), whatever edits it is handed."""
    from kbtools.check.fix import fix_target
    from kbtools.errors import SourceError

    repo = hostile_repo(tmp_path)
    with pytest.raises(SourceError) as err:
        fix_target(repo / "knowledge" / "cfg.md", repo)
    assert err.value.code == "path-symlink-escape" and ".git/config" in err.value.message
    assert fix_target(repo / "knowledge" / "twin.md", repo) == repo / "knowledge" / "good.md"
