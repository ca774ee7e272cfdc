"""kb release: one commit + annotated tag per release, outside the user's refs and tree."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_release_helpers import git, make_dist, make_knowledge_repo, sample_files

from kbtools.cli import main
from kbtools.errors import ReleaseError
from kbtools.index.manifest import sha256_file
from kbtools.ship.git import find_git_dir, is_ancestor, list_source, parse_serial, read_blob
from kbtools.ship.release import make_release
from kbtools.ship.signing import keygen, load_public, verify


@pytest.fixture
def kr(tmp_path: Path) -> Path:
    return make_knowledge_repo(tmp_path / "kr")


def released_tags(kr: Path) -> list[str]:
    """Release tags the knowledge repo offers, newest first (as `kb releases` lists a source)."""
    refs = list_source(kr / ".git", str(kr), "kb-index")
    return [ref.rsplit("/", 1)[-1] for _, (ref, _sha) in sorted(refs.tags.items(), reverse=True)]


def test_release_records_commit_and_tag_without_touching_worktree(kr: Path, tmp_path: Path):
    (kr / "knowledge" / "b.md").write_text("# B\n")  # untracked file must stay untracked
    git(kr, "add", "knowledge/b.md")  # and a staged change must stay staged
    head, status = git(kr, "rev-parse", "HEAD"), git(kr, "status", "--porcelain")
    dist = make_dist(tmp_path / "dist", sample_files(1), commit="abc123")
    info = make_release(kr, dist)
    assert (info.tag, info.serial, info.new, info.source_commit) == ("kb-r1", 1, True, "abc123")
    assert git(kr, "rev-parse", "HEAD") == head
    assert git(kr, "status", "--porcelain") == status
    assert git(kr, "rev-parse", "refs/kb/heads/kb-index").strip() == info.commit
    files = set(git(kr, "ls-tree", "-r", "--name-only", info.commit).split())
    assert files == {"manifest.json", "release.json", *(f"data/{p}" for p in sample_files(1))}
    tag = git(kr, "cat-file", "tag", "refs/kb/tags/kb-r1")
    assert "source-commit: abc123" in tag
    assert f"manifest-sha256: {sha256_file(dist / 'manifest.json')}" in tag
    rel = json.loads(git(kr, "show", f"{info.commit}:release.json"))
    assert rel["serial"] == 1 and rel["manifest_sha256"] == info.manifest_sha256
    # plain refs untouched: no branch or tag a push --all/--tags would carry
    assert "kb-r" not in git(kr, "tag") and "kb-index" not in git(kr, "branch")


def test_a_build_of_uncommitted_changes_is_released_with_a_warning(kr: Path, tmp_path: Path,
                                                                   monkeypatch):
    """A dirty build (files the commit does not hold) was released without a word, and
    devices cited its lines under a commit that holds other lines."""
    clean = make_release(kr, make_dist(tmp_path / "d1", sample_files(1), commit="abc123"))
    assert clean.warnings == ()
    dist = make_dist(tmp_path / "d2", sample_files(2), commit="abc123", dirty=True)
    for info in (make_release(kr, dist), make_release(kr, dist)):  # new, then already released
        assert len(info.warnings) == 1
        assert "uncommitted changes" in info.warnings[0] and "commit abc123" in info.warnings[0]
    monkeypatch.chdir(kr)
    res = CliRunner().invoke(main, ["release", "--dist", str(dist)])
    assert res.exit_code == 0 and "warning: the build read uncommitted changes" in res.output


def test_rerun_is_noop_and_next_build_gets_next_serial(kr: Path, tmp_path: Path):
    dist = make_dist(tmp_path / "dist", sample_files(1), commit="a1")
    first = make_release(kr, dist)
    again = make_release(kr, dist)
    assert not again.new and again.commit == first.commit
    assert len(released_tags(kr)) == 1
    dist = make_dist(tmp_path / "dist", sample_files(2), commit="a2")
    second = make_release(kr, dist)
    assert second.serial == 2 and second.new
    assert git(kr, "rev-parse", f"{second.commit}^").strip() == first.commit
    assert released_tags(kr) == ["kb-r2", "kb-r1"]


def test_dist_not_matching_manifest_is_refused(kr: Path, tmp_path: Path):
    dist = make_dist(tmp_path / "dist", sample_files(1))
    (dist / "data" / "chunks" / "01.jsonl").write_bytes(b"changed")
    with pytest.raises(ReleaseError, match="does not match its manifest.*01.jsonl"):
        make_release(kr, dist)
    dist = make_dist(tmp_path / "dist", sample_files(1))
    (dist / "data" / "stray.bin").write_bytes(b"x")
    with pytest.raises(ReleaseError, match="stray.bin: not listed"):
        make_release(kr, dist)


def test_signed_release(kr: Path, tmp_path: Path):
    priv, pub, kid = keygen(tmp_path / "keys" / "rel")
    dist = make_dist(tmp_path / "dist", sample_files(1))
    info = make_release(kr, dist, sign_key=priv)
    assert info.signed_by == kid
    rel = git(kr, "show", f"{info.commit}:release.json").encode()
    sig = git(kr, "show", f"{info.commit}:release.sig").encode()
    assert verify(rel, sig, [load_public(pub)], where="t") == kid


def test_publish_to_artifacts_repo_keeps_plain_clones_clean(kr: Path, tmp_path: Path):
    art = tmp_path / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    dist = make_dist(tmp_path / "dist", sample_files(1), commit="s1")
    info = make_release(kr, dist, remote=str(art))
    assert info.pushed_to == str(art)
    refs = git(art, "for-each-ref", "--format=%(refname)").split()
    assert refs == ["refs/heads/kb-index", "refs/tags/kb-r1"]
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--no-local", str(kr), str(clone)], check=True)
    missing = subprocess.run(["git", "cat-file", "-e", info.commit], cwd=clone)
    assert missing.returncode != 0  # the release commit did not ride along
    # a fresh clone (e.g. CI) continues the serial from the artifacts repo
    dist = make_dist(tmp_path / "dist", sample_files(2), commit="s2")
    info2 = make_release(clone, dist, remote=str(art))
    assert info2.serial == 2
    assert git(art, "rev-parse", "kb-index^").strip() == info.commit


def test_release_outside_git_repo(tmp_path: Path):
    dist = make_dist(tmp_path / "dist", sample_files(1))
    with pytest.raises(ReleaseError, match="not inside a Git repository"):
        make_release(tmp_path / "dist", dist)


def test_parse_serial():
    assert parse_serial("kb-r12") == 12 and parse_serial("refs/tags/kb-r3") == 3
    assert parse_serial("v1.0") is None and parse_serial("kb-rx") is None


def test_git_layer_finds_the_repo_and_reads_release_commits(kr: Path, tmp_path: Path):
    first = make_release(kr, make_dist(tmp_path / "d1", sample_files(1), commit="a1"))
    second = make_release(kr, make_dist(tmp_path / "d2", sample_files(2), commit="a2"))
    gd = find_git_dir(kr / "knowledge")
    assert gd == find_git_dir(kr) == (kr / ".git").resolve()
    assert json.loads(read_blob(gd, second.commit, "release.json") or b"")["tag"] == "kb-r2"
    assert read_blob(gd, second.commit, "no-such-file") is None
    assert is_ancestor(gd, first.commit, second.commit)
    assert not is_ancestor(gd, second.commit, first.commit)


def test_cli_release_keygen_bundle(kr: Path, tmp_path: Path, monkeypatch):
    monkeypatch.chdir(kr)
    runner = CliRunner()
    res = runner.invoke(main, ["keygen", str(tmp_path / "k")])
    assert res.exit_code == 0 and (tmp_path / "k.pub").is_file()
    res = runner.invoke(main, ["keygen", str(tmp_path / "k")])
    assert res.exit_code == 1 and "refusing to overwrite" in res.output
    dist = make_dist(tmp_path / "dist", sample_files(1))
    res = runner.invoke(main, ["release", "--dist", str(dist), "--sign-key",
                               str(tmp_path / "k"), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["tag"] == "kb-r1"
    res = runner.invoke(main, ["release", "--dist", str(dist)])
    assert res.exit_code == 0 and "already released" in res.output
    res = runner.invoke(main, ["release", "--dist", str(tmp_path / "nope")])
    assert res.exit_code == 1 and "no manifest.json" in res.output
    res = runner.invoke(main, ["bundle", "create", str(tmp_path / "r.bundle"), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["tags"] == ["kb-r1"]
    res = runner.invoke(main, ["bundle", "create", "--since", "kb-r1", str(tmp_path / "x")])
    assert res.exit_code == 1 and "no releases newer than kb-r1" in res.output
    res = runner.invoke(main, ["bundle", "create", "--since", "kb-r9", str(tmp_path / "x")])
    assert res.exit_code == 1 and "no such release tag" in res.output
    # an older bundle is replaced; any other file (a key) only with --force
    assert runner.invoke(main, ["bundle", "create", str(tmp_path / "r.bundle")]).exit_code == 0
    key = tmp_path / "release.key"
    key.write_text("-----BEGIN PRIVATE KEY-----\n")
    res = runner.invoke(main, ["bundle", "create", str(key)])
    assert res.exit_code == 1 and "is not a git bundle; refusing" in res.output
    assert key.read_text() == "-----BEGIN PRIVATE KEY-----\n"
    assert runner.invoke(main, ["bundle", "create", "--force", str(key)]).exit_code == 0
    assert key.read_bytes().startswith(b"# v")


def test_keygen_writes_a_private_key_private_from_the_start_and_fails_in_one_line(
        tmp_path: Path, monkeypatch):
    from click.testing import CliRunner

    from kbtools.cli import main
    from kbtools.fsutil import atomic_write_bytes

    modes: list[int] = []
    real_replace = os.replace

    def replace(src, dst):  # the mode the key has when it appears under its name
        modes.append(os.stat(src).st_mode & 0o777)
        real_replace(src, dst)
    monkeypatch.setattr(os, "replace", replace)
    res = CliRunner().invoke(main, ["keygen", str(tmp_path / "keys" / "k")])
    assert res.exit_code == 0, res.output
    assert modes[0] == 0o600 and (tmp_path / "keys" / "k").stat().st_mode & 0o777 == 0o600
    monkeypatch.setattr(os, "replace", real_replace)
    atomic_write_bytes(tmp_path / "plain", b"x")  # other files keep the umask's mode
    assert (tmp_path / "plain").stat().st_mode & 0o777 != 0o600
    (tmp_path / "afile").write_text("x")
    for out, says in ((str(tmp_path / "afile" / "k"), "cannot write the key"),
                      ("", "the key file needs a name")):
        res = CliRunner().invoke(main, ["keygen", out])
        assert res.exit_code == 1 and says in res.output and res.output.count("\n") == 1, \
            res.output


KILL_AT_WRITE_TREE = """
import os, signal, sys
from pathlib import Path
from kbtools.ship import release as rel
real = rel.run_git
def run_git(gd, *args, **kw):
    if args[0] == "write-tree":  # the private index is written: SIGKILL now
        os.kill(os.getpid(), signal.SIGKILL)
    return real(gd, *args, **kw)
rel.run_git = run_git
rel.make_release(Path(sys.argv[1]), Path(sys.argv[2]))
"""


def test_a_release_killed_with_sigkill_leaves_no_temporary_directory(kr: Path, tmp_path: Path):
    """The private index of the release tree used to live in /tmp/kb-release-*, left there
    for good by a killed `kb release`; it lives under the git dir and the next release
    removes a killed one's."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    dist = make_dist(tmp_path / "dist", sample_files(1), commit="abc123")
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    proc = subprocess.run([sys.executable, "-c", KILL_AT_WRITE_TREE, str(kr), str(dist)],
                          env=env, capture_output=True, text=True)
    assert proc.returncode == -9, proc.stderr
    assert list(tmpdir.iterdir()) == []
    assert make_release(kr, dist).tag == "kb-r1"
    assert [p.name for p in (kr / ".git" / "kb").iterdir() if "release-index" in p.name] == []


@pytest.mark.parametrize("known", [(), ("user.name", "user.email")])
def test_a_machine_where_git_knows_no_one_releases_as_kb(kr: Path, tmp_path: Path, monkeypatch,
                                                         known):
    """A fresh CI runner or machine has no user.name/user.email and no address git can
    guess: `kb release` committed nothing ("unable to auto-detect email address"). It now
    commits and tags as kb release; where git knows someone, as them."""
    home = tmp_path / "home"
    home.mkdir()
    for var in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME",
                "GIT_COMMITTER_EMAIL", "EMAIL", "GIT_CONFIG_GLOBAL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    if known:
        git(home, "config", "--global", "user.name", "Rel Eng")
        git(home, "config", "--global", "user.email", "releng@ex.org")
    probe = subprocess.run(["git", "var", "GIT_COMMITTER_IDENT"], cwd=kr, capture_output=True)
    if not known and probe.returncode == 0:  # a host name with a domain makes an address
        pytest.skip("this machine's name lets git guess an address")
    info = make_release(kr, make_dist(tmp_path / "dist", sample_files(1), commit="abc123"))
    who = "Rel Eng <releng@ex.org>" if known else "kb release <kb-release@localhost>"
    assert who in git(kr, "cat-file", "tag", "refs/kb/tags/kb-r1")
    assert git(kr, "log", "-1", "--format=%an <%ae>|%cn <%ce>", info.commit).strip() == \
        f"{who}|{who}"
