"""A picture in a git submodule below assets/ (a shared image library checked out there).

The commit of the knowledge repository does not hold the picture: it records only which
commit of the other repository the folder is. The build shipped the picture and the manifest
said the release was that commit, clean, with no word of the other repository; with
`submodule.<name>.ignore = all` (or `diff.ignoreSubmodules`) a submodule checked out at
another commit was clean too, since `git status` hides it. Now the source names the
submodules the build read and the commit recorded for each, and is dirty whenever what was
read is not that commit's (asked of the submodule itself)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from hostile import GOOD_DOC, git, make_repo

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config

PNG = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00"
       b"\x00\x90wS\xde\x00\x00\x00\x0cIDATx\x9cc\xf8\xcf\xc0\x00\x00\x03\x01\x01\x00\xc9\xfe"
       b"\x92\xef\x00\x00\x00\x00IEND\xaeB`\x82")
WHO = ("-c", "user.name=a", "-c", "user.email=a@example.org")


def _source(repo: Path) -> dict:
    dist = repo / "dist"
    build(load_config(repo), BuildOptions(out=dist, progress=False))
    return json.loads((dist / "manifest.json").read_text(encoding="utf-8"))["source"]


def _repos(tmp_path: Path) -> tuple[Path, Path, str]:
    """A knowledge repo whose document shows a picture of the submodule assets/lib."""
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "pump.png").write_bytes(PNG)
    (lib / "unused.png").write_bytes(PNG)
    git(lib, "init", "-q", "-b", "main")
    git(lib, "add", "-A")
    git(lib, *WHO, "commit", "-q", "-m", "pictures")
    pinned = git(lib, "rev-parse", "HEAD").strip()
    doc = GOOD_DOC.replace("# Pump maintenance", "# Pump photo") + "\n![泵外观](../assets/lib/pump.png)\n"
    repo = make_repo(tmp_path / "kb", docs={"knowledge/photo.md": doc})
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "assets/lib")
    git(repo, *WHO, "commit", "-q", "-m", "picture library")
    return repo, repo / "assets" / "lib", pinned


def test_a_submodule_s_picture_ships_and_the_manifest_names_its_commit(tmp_path: Path):
    repo, sub, pinned = _repos(tmp_path)
    source = _source(repo)
    assert (repo / "dist" / "data" / "source" / "assets" / "lib" / "pump.png").read_bytes() == PNG
    assert source["dirty"] is False
    assert source["commit"] == git(repo, "rev-parse", "HEAD").strip()
    assert source["submodules"] == {"assets/lib": pinned}
    (sub / "notes.txt").write_text("not read\n", encoding="utf-8")  # untracked, not read
    (sub / "unused.png").write_bytes(PNG + b"x")  # changed, not read
    assert _source(repo)["dirty"] is False


def test_a_submodule_read_at_another_commit_or_changed_is_dirty(tmp_path: Path):
    repo, sub, pinned = _repos(tmp_path)
    # `ignore = all`: git status in the knowledge repo says nothing of the submodule
    git(repo, "config", "-f", ".gitmodules", "submodule.assets/lib.ignore", "all")
    git(repo, *WHO, "commit", "-q", "-am", "quiet submodule")
    (sub / "pump.png").write_bytes(PNG + b"edited")
    git(sub, *WHO, "commit", "-q", "-am", "new picture")
    assert git(repo, "status", "--porcelain", "--", "assets") == ""
    source = _source(repo)
    assert source["dirty"] is True and source["tree"] == "dirty"
    assert source["submodules"] == {"assets/lib": pinned}  # what the commit records
    git(sub, "checkout", "-q", pinned)
    assert _source(repo)["dirty"] is False
    (sub / "pump.png").write_bytes(PNG + b"uncommitted")
    assert _source(repo)["dirty"] is True


def test_a_repository_without_submodules_has_no_submodules_key(tmp_path: Path):
    repo = make_repo(tmp_path / "kb")
    source = _source(repo)
    assert "submodules" not in source and source["dirty"] is False


def test_a_clone_without_its_submodule_is_told_to_check_it_out(tmp_path: Path,
                                                                monkeypatch):
    """A clone made without `--recurse-submodules` has the submodule's folder, empty: the
    picture's `path-missing` said only "does not exist"; it now says the folder is a
    submodule not checked out and the command that checks it out."""
    repo, _, _ = _repos(tmp_path)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    monkeypatch.chdir(clone)
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    assert res.exit_code == 1
    [line] = [x for x in res.output.splitlines() if "path-missing" in x]
    assert line.endswith("'../assets/lib/pump.png' does not exist (assets/lib/pump.png): "
                         "assets/lib is a git submodule that is not checked out; run "
                         "'git submodule update --init assets/lib'")
    git(clone, "-c", "protocol.file.allow=always", "submodule", "update", "-q", "--init")
    assert CliRunner().invoke(main, ["check", "--no-cache"]).exit_code == 0


def _monorepo(tmp_path: Path) -> tuple[Path, str]:
    """A monorepo whose knowledge base is its folder kb/ (kb.toml there, not at the top),
    with the picture library a submodule at kb/assets/lib: `.gitmodules` is at the top."""
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "pump.png").write_bytes(PNG)
    git(lib, "init", "-q", "-b", "main")
    git(lib, "add", "-A")
    git(lib, *WHO, "commit", "-q", "-m", "pictures")
    mono = tmp_path / "mono"
    (mono / "src").mkdir(parents=True)
    (mono / "src" / "main.c").write_text("int main(void) { return 0; }\n", encoding="utf-8")
    doc = GOOD_DOC.replace("# Pump maintenance", "# Pump photo") + "\n![泵外观](../assets/lib/pump.png)\n"
    make_repo(mono / "kb", docs={"knowledge/photo.md": doc}, commit=False)
    git(mono, "init", "-q", "-b", "main")
    git(mono, "add", "-A")
    git(mono, *WHO, "commit", "-q", "-m", "code and knowledge")
    git(mono, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "kb/assets/lib")
    git(mono, *WHO, "commit", "-q", "-m", "picture library")
    return mono, git(lib, "rev-parse", "HEAD").strip()


def test_a_monorepo_s_knowledge_base_records_its_submodule(tmp_path: Path):
    """kb.toml in a folder of the repository: the submodule below its assets/ is named in
    the manifest by its git path, with the commit the superproject records."""
    mono, pinned = _monorepo(tmp_path)
    source = _source(mono / "kb")
    assert source["submodules"] == {"kb/assets/lib": pinned}
    assert source["dirty"] is False and source["base"].endswith(":kb")
    assert (mono / "kb" / "dist" / "data" / "source" / "assets" / "lib" / "pump.png").is_file()


def test_a_monorepo_clone_without_its_submodule_is_told_to_check_it_out(tmp_path: Path,
                                                                         monkeypatch):
    """`.gitmodules` sits at the top of the work tree, above the knowledge base: it was
    looked for at the knowledge base's root only, so the missing picture said nothing of the
    submodule. The command to run names the folder from where kb runs (the knowledge base,
    or the top as pre-commit runs it), with the results cache on too."""
    mono, _ = _monorepo(tmp_path)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(mono), str(clone))
    said = ("'../assets/lib/pump.png' does not exist (assets/lib/pump.png): assets/lib is a "
            "git submodule that is not checked out; run 'git submodule update --init {}'")
    for cwd, args, named in [(clone / "kb", [], "assets/lib"), (clone, ["kb"], "kb/assets/lib"),
                             (clone / "kb", [], "assets/lib")]:
        monkeypatch.chdir(cwd)
        for cache in ([], ["--no-cache"]):
            res = CliRunner().invoke(main, ["check", *cache, *args])
            assert res.exit_code == 1, res.output
            [line] = [x for x in res.output.splitlines() if "path-missing" in x]
            assert line.endswith(said.format(named)), (cwd, cache, line)
    git(clone, "-c", "protocol.file.allow=always", "submodule", "update", "-q", "--init")
    monkeypatch.chdir(clone / "kb")
    assert CliRunner().invoke(main, ["check"]).exit_code == 0
