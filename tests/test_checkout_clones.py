"""The ways a client makes its clone of the artifacts repository (autocrlf, partial, sparse,
no tags, another account's) each either answer from the release checked out or are refused
in one line that says what to do — real bare repositories over file://."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_checkout import QUESTION, ask, clean, clone, kb, published, refused
from test_release_helpers import git

import kbtools
from kbtools.ship.devicelock import locked

__all__ = ["published"]  # the module-scoped fixture of test_checkout, shared


@pytest.mark.parametrize("how", [
    ("-c", "core.autocrlf=true"),  # line endings converted in the work tree
    ("--filter=blob:none",),  # blobs fetched when read
    ("--sparse",),  # most release files never checked out
])
def test_clone_variants_answer_from_the_tag_checked_out(published, tmp_path, how):
    art = published["art"]
    git(art, "config", "uploadpack.allowFilter", "true")
    tree = tmp_path / "c"
    clone(f"file://{art}", tree, *how)
    assert ask(tree)["release"]["tag"] == "kb-r2" and clean(tree)
    git(tree, "checkout", "-q", "kb-r1")
    older = ask(tree)
    assert older["release"]["tag"] == "kb-r1" and "2000" in older["results"][0]["text"]
    assert clean(tree)


def test_clone_without_tags_says_to_fetch_them(published, tmp_path):
    tree = tmp_path / "c"
    clone(f"file://{published['art']}", tree, "--no-tags", "--single-branch")
    said = refused(tree)
    assert "the clone has no release tags" in said and "git fetch --tags" in said
    git(tree, "fetch", "-q", "--tags")
    assert ask(tree)["release"]["tag"] == "kb-r2" and clean(tree)


@pytest.mark.skipif(os.geteuid() != 0, reason="giving the clone to another account needs root")
def test_another_accounts_clone_is_refused_with_gits_reason(published, tmp_path):
    tree = tmp_path / "c"
    clone(f"file://{published['art']}", tree)
    subprocess.run(["chown", "-R", "nobody", str(tree)], check=True)
    said = refused(tree)
    assert "git refuses to read this clone" in said and "dubious ownership" in said
    assert f"safe.directory {tree}" in said
    code, _, err = kb("status", "--index", str(tree))
    assert code != 0 and len(err.strip().splitlines()) == 1 and "safe.directory" in err
    assert not Path(tree, ".git", "kb").exists()  # nothing written into it


def test_partial_clone_whose_remote_is_gone_says_what_it_lacks(published, tmp_path):
    art = tmp_path / "art.git"
    shutil.copytree(published["art"], art)
    git(art, "config", "uploadpack.allowFilter", "true")
    tree = tmp_path / "c"
    clone(f"file://{art}", tree, "--filter=blob:none", "--sparse")  # only the top files
    shutil.rmtree(art)
    said = refused(tree)
    assert "of the release checked out are not in this partial clone" in said
    assert "could not be fetched from its remote" in said
    code, out, err = kb("status", "--index", str(tree))
    assert code == 1 and "not in this partial clone" in err + out
    assert clean(tree)


def test_a_query_waiting_on_a_derivation_names_it_and_claims_no_sync(published, tmp_path):
    tree = tmp_path / "c"
    clone(f"file://{published['art']}", tree)
    state = tree / ".git" / "kb"
    with locked(state, "kb query (deriving a checkout's index)"):
        proc = subprocess.Popen([sys.executable, "-m", "kbtools", "query", "--index", str(tree),
                                 QUESTION, "-k", "1"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "PYTHONPATH": str(Path(kbtools.__file__)
                                                                     .parents[1])})
        assert proc.stderr is not None
        waiting = proc.stderr.readline()  # printed once the lock is found held
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0 and "[release kb-r2 @" in out, err
    assert waiting.startswith("kb: waiting for") and "deriving a checkout's index" in waiting
    assert "sync" not in waiting.split("held by", 1)[1]
