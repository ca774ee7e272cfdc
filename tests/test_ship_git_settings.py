"""A user's git settings do not change what shipping's git commands do: `kb release` on a
machine whose ~/.gitconfig signs every commit and tag with a key that is not there
(``commit.gpgSign``, ``tag.gpgSign``, ``push.gpgSign``, ``user.signingkey``) or runs hooks of
its own (``core.hooksPath``), and `kb sync` on a device set up that way. Real git, HOME in a
temp dir (`kbtools.ship.gitrun.PINNED`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from test_release_helpers import Pub

from kbtools.errors import ReleaseError
from kbtools.ship import device
from kbtools.ship.sync import sync


def hostile_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME with a ~/.gitconfig signing everything with a missing key, and a hooks folder
    whose every hook fails."""
    home = tmp_path / "home"
    hooks = home / "hooks"
    hooks.mkdir(parents=True)
    for name in ("pre-push", "reference-transaction", "post-commit"):
        (hooks / name).write_text("#!/bin/sh\necho \"user hook $0 ran\" >&2\nexit 1\n")
        (hooks / name).chmod(0o755)
    (home / ".gitconfig").write_text(
        "[user]\n\tsigningkey = 0xDEADBEEFDEADBEEF\n\tname = Someone\n\temail = s@example.org\n"
        "[commit]\n\tgpgSign = true\n[tag]\n\tgpgSign = true\n\tforceSignAnnotated = true\n"
        "[push]\n\tgpgSign = true\n[gpg]\n\tprogram = false\n"
        f"[core]\n\thooksPath = {hooks}\n", encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    return home


def test_release_and_sync_with_a_users_signing_and_hooks_config(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pub = Pub(tmp_path)  # its knowledge repo is committed before the settings come in
    # the artifacts repository stands for a server: its hooks are its own (none)
    (tmp_path / "server-hooks").mkdir()
    subprocess.run(["git", "--git-dir", str(pub.art), "config", "core.hooksPath",
                    str(tmp_path / "server-hooks")], check=True)
    hostile_home(tmp_path, monkeypatch)
    # the settings are in force for plain git on this machine
    probe = subprocess.run(["git", "config", "--global", "commit.gpgSign"], capture_output=True,
                           text=True, check=True)
    assert probe.stdout.strip() == "true"
    assert pub.release() == "kb-r1"  # commit-tree, mktag, update-ref, push to the remote
    assert pub.release() == "kb-r2"
    dev = tmp_path / "dev"
    assert sync(str(pub.art), dev).tag == "kb-r2"
    assert device.served_tag(dev) == "kb-r2"
    # the release commits are plain (no gpgsig header): kb signs the manifest itself
    head = subprocess.run(["git", "--git-dir", str(pub.art), "cat-file", "commit", "kb-index"],
                          capture_output=True, text=True, check=True).stdout
    assert "gpgsig" not in head


def test_a_device_whose_user_runs_hooks_of_their_own_syncs(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """A device's ``core.hooksPath`` (a failing ``reference-transaction`` hook) aborted the
    fetch into its repository: every sync failed; now the served release moves."""
    pub = Pub(tmp_path)
    pub.release()
    (tmp_path / "server-hooks").mkdir()
    subprocess.run(["git", "--git-dir", str(pub.art), "config", "core.hooksPath",
                    str(tmp_path / "server-hooks")], check=True)
    hostile_home(tmp_path, monkeypatch)
    dev = tmp_path / "dev"
    assert sync(str(pub.art), dev).tag == "kb-r1"


def test_the_remotes_own_hooks_still_run(tmp_path: Path) -> None:
    """Guard: what is pinned is the user's side only; an artifacts repository's own
    ``pre-receive`` (a server's policy) still decides a push."""
    pub = Pub(tmp_path)
    hooks = pub.art / "hooks"
    (hooks / "pre-receive").write_text("#!/bin/sh\necho 'policy: no releases today' >&2\n"
                                       "exit 1\n")
    (hooks / "pre-receive").chmod(0o755)
    with pytest.raises(ReleaseError) as refused:
        pub.release()
    # why, in the one line: the ref the hook declined and what the hook said
    assert "git push failed: [remote rejected]" in refused.value.message
    assert "(pre-receive hook declined) (the remote says: policy: no releases today)" \
        in refused.value.message, refused.value.message
    assert subprocess.run(["git", "--git-dir", str(pub.art), "for-each-ref"],
                          capture_output=True, text=True, check=True).stdout == ""
