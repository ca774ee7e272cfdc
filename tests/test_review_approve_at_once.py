"""kb review approve as a team meets it: a commit landing right after an approval's
(`kbtools.review.approve`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from reviewkb import DOC, KB, RITA, written

from kbtools.config import load_config
from kbtools.review import approve as approve_module
from kbtools.review.approve import approve


@pytest.fixture
def kb(tmp_path: Path) -> KB:
    return KB(tmp_path / "kb")


def _as(monkeypatch: pytest.MonkeyPatch, email: str) -> None:
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", email.split("@")[0])
        monkeypatch.setenv(f"GIT_{who}_EMAIL", email)


def test_a_commit_landing_right_after_is_not_reported_as_the_approval(kb: KB,
                                                                       monkeypatch) -> None:
    written(kb)
    _as(monkeypatch, RITA.email)
    commit_approval = approve_module.commit_approval

    def and_then_another(repo, planned, message):
        commit_approval(repo, planned, message)
        repo.git.commit("--allow-empty", "-m", "someone else's commit, just after")

    monkeypatch.setattr(approve_module, "commit_approval", and_then_another)
    result = approve(load_config(kb.root), [DOC])
    approval = kb.repo.head.commit.parents[0]
    assert result.commit == approval.hexsha != kb.repo.head.commit.hexsha
    assert "Reviewed-by: rita <rita@ex.org>" in approval.message
