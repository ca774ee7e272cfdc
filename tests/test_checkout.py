"""Plain git is a client: `git clone` the artifacts repository, ask, `git checkout` an older
release tag, ask again — over file:// and a `git daemon` on loopback, with real builds and
real signed releases (`kb keygen`, `kb release`)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hostile import make_repo
from test_release_helpers import (
    GitDaemon,
    forge_release,
    git,
    make_dist,
    make_knowledge_repo,
    sample_files,
)

import kbtools
from kbtools.agents.mcp_server import Context, tool_search
from kbtools.cli import main
from kbtools.errors import IndexLoadError, SyncError
from kbtools.index.reader import open_index as open_release_dir
from kbtools.index.store import stored_info
from kbtools.index.tokenize import TOKENS_VERSION
from kbtools.ship.checkout import find_checkout, open_checkout, open_index
from kbtools.ship.git import point_head_at
from kbtools.ship.release import make_release

QUESTION = "how often to replace the mechanical seal"


def kb(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(main, list(args))
    return res.exit_code, res.stdout, res.stderr


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> dict[str, Path]:
    """A knowledge repo with two signed releases pushed to a fresh bare artifacts repo
    (HEAD of `git init --bare` names a branch that does not exist until `kb release`)."""
    base = tmp_path_factory.mktemp("published")
    kr = make_repo(base / "kr")
    art = base / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    key = base / "release.key"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KB_HOME", str(base / "home"))
        mp.chdir(kr)
        assert kb("keygen", str(key))[0] == 0
        for hours in ("2000", "3000"):
            doc = kr / "knowledge" / "good.md"
            doc.write_text(doc.read_text().replace("2000", hours), encoding="utf-8")
            git(kr, "commit", "-qam", f"every {hours} hours", "--allow-empty")
            code, out, err = kb("build", "-q")
            assert code == 0, err
            code, out, err = kb("release", "--sign-key", str(key), "--remote", str(art),
                                "--json")
            assert code == 0, err
    return {"kr": kr, "art": art, "key": key, "pub": Path(f"{key}.pub"), "base": base}


def clone(url: str, dest: Path, *extra: str) -> str:
    proc = subprocess.run(["git", "clone", *extra, url, str(dest)], capture_output=True,
                          text=True, check=True)
    return proc.stderr


def clean(tree: Path) -> bool:
    return git(tree, "status", "--porcelain", "--ignored", "--untracked-files=all") == ""


def ask(tree: Path, question: str = QUESTION) -> dict:
    code, out, err = kb("query", "--index", str(tree), question, "-k", "1", "--json")
    assert code == 0, err
    return json.loads(out)


def refused(tree: Path) -> str:
    code, out, err = kb("query", "--index", str(tree), QUESTION)
    assert code != 0 and out == ""
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    return err


def derived_dir(tree: Path, tag: str) -> Path:
    found = find_checkout(tree)
    assert found is not None
    for folder in found[0].derived_dirs().values():
        if json.loads((folder / "verified.json").read_text())["tag"] == tag:
            return folder
    raise AssertionError(f"no derived index for {tag}")


def derived_store(tree: Path, tag: str) -> os.stat_result:
    return (derived_dir(tree, tag) / "index" / "store.sqlite").stat()


def derivation(tree: Path, tag: str) -> str:
    return json.loads((derived_dir(tree, tag) / "verified.json").read_text())["derivation"]


@pytest.mark.parametrize("transport", ["file", "daemon"])
def test_clone_ask_checkout_older_ask_back_to_newest(published, tmp_path, transport):
    art, kr = published["art"], published["kr"]
    daemon = GitDaemon(art.parent) if transport == "daemon" else None
    try:
        url = daemon.url(art.name) if daemon else f"file://{art}"
        tree = tmp_path / "client"
        warnings = clone(url, tree)
    finally:
        if daemon:
            daemon.stop()
    assert "nonexistent ref" not in warnings and "warning" not in warnings.lower()
    assert git(tree, "symbolic-ref", "HEAD").strip() == "refs/heads/kb-index"
    assert clean(tree)
    sources = git(kr, "log", "--format=%H", "-2").split()  # newest first

    newest = ask(tree)
    assert newest["release"] == {"tag": "kb-r2", "source_commit": sources[0], "serial": 2}
    assert "3000" in newest["results"][0]["text"] and clean(tree)
    assert derivation(tree, "kb-r2") == "full"  # the first release this clone derives

    git(tree, "checkout", "-q", "kb-r1")
    older = ask(tree)
    assert older["release"] == {"tag": "kb-r1", "source_commit": sources[1], "serial": 1}
    assert "2000" in older["results"][0]["text"] and clean(tree)
    # kb-r1 differs from kb-r2 in one document: derived from kb-r2's index, changed shards only
    assert derivation(tree, "kb-r1") == "incremental"
    code, out, _ = kb("query", "--index", str(tree), QUESTION, "-k", "1")
    assert code == 0 and f"[release kb-r1 @ {sources[1][:12]}]" in out

    before = derived_store(tree, "kb-r2")
    git(tree, "checkout", "-q", "kb-index")
    again = ask(tree)
    assert again["release"]["tag"] == "kb-r2" and clean(tree)
    after = derived_store(tree, "kb-r2")  # reused: the same file, not derived again
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    found = find_checkout(tree)
    assert found is not None and open_checkout(*found).reused


def test_single_branch_shallow_clone_is_enough(published, tmp_path):
    tree = tmp_path / "shallow"
    clone(f"file://{published['art']}", tree, "--depth=1", "--single-branch")
    assert ask(tree)["release"]["tag"] == "kb-r2" and clean(tree)


@pytest.fixture
def client(published, tmp_path) -> Path:
    tree = tmp_path / "client"
    clone(f"file://{published['art']}", tree)
    return tree


@pytest.mark.parametrize("edit, says", [
    (lambda t: (t / "data" / "docs.jsonl").write_text("{}\n"),
     "data/docs.jsonl differs from the signed release kb-r2"),
    (lambda t: (t / "notes.txt").write_text("mine"), "notes.txt is not part of the signed"),
    (lambda t: (t / "data" / "dictionary.txt").unlink(),
     "data/dictionary.txt is missing from the signed release kb-r2"),
    (lambda t: (t / "release.json").unlink(), "release.json is missing from the signed"),
    (lambda t: ((t / "manifest.json").unlink(), (t / "manifest.json").symlink_to("/etc/passwd")),
     "manifest.json differs from the signed release kb-r2"),
    (lambda t: ((t / ".git" / "info" / "exclude").write_text("*.tmp\n"),
                (t / "data" / "x.tmp").write_text("")), "data/x.tmp is not part of the signed"),
    # a file's mode bits are no content: test_checkout_in_clone's card test (session 36)
])
def test_edited_work_tree_is_refused_naming_the_file(client, edit, says):
    assert ask(client)["release"]["tag"] == "kb-r2"
    edit(client)
    assert says in refused(client)
    code, _, err = kb("status", "--index", str(client))
    assert code == 1 and says in err


def test_a_release_file_hard_linked_outside_is_served_until_it_changes(client):
    """A file of the checkout replaced by a hard link to a copy outside it (same bytes) is
    the release's file; once the copy outside is written, the checkout is refused."""
    assert ask(client)["release"]["tag"] == "kb-r2"
    outside = client.parent / "outside.jsonl"
    shutil.copy(client / "data" / "docs.jsonl", outside)
    (client / "data" / "docs.jsonl").unlink()
    os.link(outside, client / "data" / "docs.jsonl")
    assert ask(client)["release"]["tag"] == "kb-r2"
    with outside.open("a", encoding="utf-8") as f:
        f.write("{}\n")
    assert "data/docs.jsonl differs from the signed release kb-r2" in refused(client)


def test_commit_that_is_not_a_release_is_refused(client):
    git(client, "tag", "-a", "kb-r9", "-m", "another name for kb-r2")  # release.json decides
    assert ask(client)["release"]["tag"] == "kb-r2"
    git(client, "commit", "-q", "--allow-empty", "-m", "local")
    head = git(client, "rev-parse", "HEAD").strip()
    assert f"HEAD {head[:12]} is not a signed release tag" in refused(client)
    git(client, "tag", "kb-r7")  # a lightweight tag is no release tag
    assert "kb-r7 is not an annotated release tag" in refused(client)
    assert clean(client)


def test_forged_release_is_refused(published, tmp_path):
    art = tmp_path / "art.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(published["art"]), str(art)],
                   check=True)

    def tamper(files: dict[str, bytes]) -> None:
        name = next(n for n in files if n.startswith("data/chunks/"))
        files[name] = files[name].replace(b"3000", b"9000")

    tag = forge_release(art, tamper)
    tree = tmp_path / "client"
    clone(f"file://{art}", tree)
    assert git(tree, "describe", "--tags").strip() == tag
    assert "do not match the manifest" in refused(tree)
    found = find_checkout(tree)
    assert clean(tree) and found is not None and found[0].derived_dirs() == {}


def test_pinned_key_requires_signed_releases(published, tmp_path):
    art = tmp_path / "art.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(published["art"]), str(art)],
                   check=True)
    tree = tmp_path / "client"
    clone(f"file://{art}", tree)
    code, out, err = kb("trust", "add", str(published["pub"]), "--to", str(tree))
    assert code == 0, err
    assert (tree / ".git" / "kb" / "trusted_keys").is_dir() and clean(tree)
    found = find_checkout(tree)
    assert found is not None
    assert open_checkout(*found).signed_by is not None
    # a release re-signed by nobody trusted: its release.sig no longer matches release.json
    forge_release(art, lambda files: None)
    git(tree, "pull", "-q", "--ff-only")
    assert "signature" in refused(tree).lower()
    code, _, _ = kb("trust", "remove", "--allow-unsigned", next(
        p.stem for p in (tree / ".git" / "kb" / "trusted_keys").glob("*.pub")), "--to",
        str(tree))
    assert code == 0 and ask(tree)["release"]["tag"] == "kb-r3"


def test_a_clone_refuses_its_release_once_the_signer_is_removed(published, tmp_path):
    """A clone has no kept releases to fall back on: `kb trust remove` of the key its
    checked-out release is signed by refuses the next question at once (a device serves
    the newest kept release a pinned key signed: test_revoked_signer.py)."""
    tree = tmp_path / "client"
    clone(f"file://{published['art']}", tree)
    assert kb("keygen", str(tmp_path / "other.key"))[0] == 0
    other_pub = tmp_path / "other.key.pub"
    for pub in (published["pub"], other_pub):
        assert kb("trust", "add", str(pub), "--to", str(tree))[0] == 0
    tag = ask(tree)["release"]["tag"]
    found = find_checkout(tree)
    assert found is not None
    signed_by = open_checkout(*found).signed_by
    assert signed_by is not None
    code, out, err = kb("trust", "remove", signed_by, "--to", str(tree))
    assert code == 0 and out == f"unpinned {signed_by}\n", out + err
    assert f"untrusted key {signed_by}" in refused(tree) and clean(tree)
    assert kb("trust", "add", str(published["pub"]), "--to", str(tree))[0] == 0
    assert ask(tree)["release"]["tag"] == tag


def test_derived_indexes_are_pruned_to_a_bound(client):
    found = find_checkout(client)
    assert found is not None
    layout, tree = found
    for tag in ("kb-r1", "kb-r2"):
        git(client, "checkout", "-q", tag)
        open_checkout(layout, tree, keep=1)
        assert len(layout.derived_dirs()) == 1
    assert clean(client)


def test_index_derived_by_an_older_tokenizer_is_derived_again(client):
    """A kbtools upgrade that changes the BM25 tokens: the derived index of the checkout
    (its store recording no tokens version, as older ones do) is not reused but derived
    afresh, and the question is answered from the new terms."""
    assert ask(client)["results"]
    store = derived_dir(client, "kb-r2") / "index" / "store.sqlite"
    con = sqlite3.connect(store)
    con.execute("DELETE FROM info WHERE key = 'tokens'")
    con.commit()
    con.close()
    with pytest.raises(IndexLoadError, match="tokenizer v2 or older"):
        open_release_dir(derived_dir(client, "kb-r2"))
    assert ask(client)["results"]
    assert derivation(client, "kb-r2") == "full"
    assert stored_info(derived_dir(client, "kb-r2") / "index" / "store.sqlite",
                       "tokens") == TOKENS_VERSION


def test_a_derived_store_appended_to_is_derived_again_not_reused(client):
    """Whether a checkout's derived index is reused read its rules with `stored_infos`
    alone, which SQLite reads from a store with pages appended as from a whole one: it was
    reused and answered from. Its rules are read as every caller reads them
    (`selfcheck.index_rules`): a store whose length is not the one its header records is
    damage, and the index is derived again."""
    assert ask(client)["results"]
    store = derived_dir(client, "kb-r2") / "index" / "store.sqlite"
    size = store.stat().st_size
    with store.open("ab") as fh:
        fh.write(bytes(4096))
    assert ask(client)["results"]
    assert derivation(client, "kb-r2") == "full"
    assert (derived_dir(client, "kb-r2") / "index" / "store.sqlite").stat().st_size == size


def test_read_only_checkout_serves_what_was_derived_and_writes_nothing(client, monkeypatch):
    """A clone on read-only media (a read-only mount, another account's files): the release
    derived there before is served with no lock taken and nothing written; one never
    derived there is refused in one line. Every question used to fail taking the lock."""
    assert ask(client)["release"]["tag"] == "kb-r2"
    state = client / ".git" / "kb"

    def snapshot() -> dict[str, tuple[int, int]]:
        return {str(p.relative_to(state)): (p.stat().st_mtime_ns, p.stat().st_size)
                for p in [state, *state.rglob("*")]}

    before = snapshot()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: False if mode & os.W_OK
                        else real_access(path, mode, **kw))
    assert ask(client)["release"]["tag"] == "kb-r2"
    git(client, "checkout", "-q", "kb-r1")
    says = refused(client)
    assert "(read-only) and kb-r1 has no index derived there yet" in says, says
    assert snapshot() == before


def test_mcp_and_library_follow_the_checkout(client):
    ctx = Context(index=client)
    first = tool_search(ctx, QUESTION, k=1)
    assert first["release"]["tag"] == "kb-r2"
    git(client, "checkout", "-q", "kb-r1")
    second = tool_search(ctx, QUESTION, k=1)
    assert second["release"]["tag"] == "kb-r1" and "2000" in json.dumps(second)
    idx = open_index(client)
    try:
        assert idx.release.tag == "kb-r1"
    finally:
        idx.close()
    with pytest.raises(IndexLoadError, match="git checkout of a release"):
        open_release_dir(client)
    (client / "data" / "docs.jsonl").write_text("{}\n")
    with pytest.raises(SyncError, match="data/docs.jsonl differs from the signed release kb-r1"):
        tool_search(ctx, QUESTION, k=1)  # the MCP server reports it as the tool's error


def test_status_of_a_checkout(client):
    code, out, err = kb("status", "--index", str(client), "--json")
    assert code == 0, err
    st = json.loads(out)
    assert (st["tag"], st["derived"], st["problem"]) == ("kb-r2", None, None)
    ask(client)
    code, out, _ = kb("status", "--index", str(client))
    assert code == 0 and "release kb-r2" in out and "index derived" in out


def test_point_head_leaves_an_existing_default_branch(tmp_path):
    bare = tmp_path / "a.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    assert point_head_at(str(bare), "kb-index")  # main does not exist: HEAD follows releases
    assert git(bare, "symbolic-ref", "HEAD").strip() == "refs/heads/kb-index"
    work = tmp_path / "w"
    subprocess.run(["git", "init", "-q", "-b", "main", str(work)], check=True)
    git(work, "commit", "-q", "--allow-empty", "-m", "x")
    git(work, "push", "-q", str(bare), "main")
    git(bare, "symbolic-ref", "HEAD", "refs/heads/main")
    assert not point_head_at(str(bare), "kb-index")
    assert not point_head_at("https://example.invalid/a.git", "kb-index")
    # kb release says so when the remote's HEAD keeps naming another branch
    info = make_release(make_knowledge_repo(tmp_path / "kr"),
                        make_dist(tmp_path / "dist", sample_files(1)), remote=str(bare))
    assert info.warnings and "HEAD names refs/heads/main" in info.warnings[0]
    assert git(bare, "symbolic-ref", "HEAD").strip() == "refs/heads/main"


def test_hostile_state_dir_is_refused(client, tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (client / ".git" / "kb").symlink_to(tmp_path / "elsewhere")
    assert "cannot write" in refused(client)
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_readme_roll_back_with_git_runs(published, tmp_path):
    """The README's "Roll back with git" commands, run as written (the URL pointed at the
    test's artifacts repository, `kb` as this tree's CLI)."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Roll back with git", 1)[1].split("```bash\n", 1)[1]
    lines = [line.split("  #")[0].strip() for line in block.split("```", 1)[0].splitlines()]
    outputs = []
    for line in filter(None, lines):
        argv = shlex.split(line.replace("file:///srv/kb-artifacts.git",
                                        f"file://{published['art']}"))
        if argv[0] == "kb":
            argv = [sys.executable, "-m", "kbtools", *argv[1:]]
        proc = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=300,
                              env={**os.environ, "PYTHONPATH": str(Path(kbtools.__file__)
                                                                   .parents[1])})
        assert proc.returncode == 0, (line, proc.stderr)
        outputs.append(proc.stdout)
    queried = [o for o in outputs if "[release" in o]
    assert len(queried) == 2
    assert "[release kb-r2 @" in queried[0] and "[release kb-r1 @" in queried[1]
    assert clean(tmp_path / "kb")
