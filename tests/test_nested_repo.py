"""Knowledge in a Git repository of its own (a submodule) beside the repository holding
kb.toml: kb reads history in kb.toml's repository only, where those documents have none.

Every command that reads or writes their history says so in one line instead of what it
used to say: `kb check` "the document is not committed" for every verified document, `kb
history` "no commits touch this document", `kb review diff` "never verified", `kb draft
new` an unexpected git error (exit 3), and `kb review check` passed a range whose only
change to the knowledge was the submodule's new commit ("0 changed documents").
"""

from __future__ import annotations

import shutil
from pathlib import Path

from hostile import git, kb
from kbfixtures import copy_example

DOC = "knowledge/crops/wheat-scab.md"
SAYS = "knowledge/ is a Git repository of its own (a submodule?)"


def super_repo(tmp_path: Path) -> Path:
    """The example's kb.toml in one repository, its knowledge/ a submodule."""
    sup = copy_example(tmp_path / "sup", [DOC])
    kn = tmp_path / "kn"
    shutil.copytree(sup / "knowledge", kn)
    git(kn, "init", "-q", "-b", "main")
    git(kn, "add", "-A")
    git(kn, "-c", "user.name=a", "-c", "user.email=a@example.org", "commit", "-qm", "docs")
    git(sup, "rm", "-rq", "knowledge")
    git(sup, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(kn),
        "knowledge")
    git(sup, "-c", "user.name=a", "-c", "user.email=a@example.org", "commit", "-qm", "sub")
    return sup


def one_error(res) -> str:
    err = res.stderr.decode()
    assert res.returncode == 1 and len(err.strip().splitlines()) == 1, err
    assert err.startswith("kb: error: ") and "Traceback" not in err
    return err


def test_knowledge_in_a_submodule_is_named_not_misreported(tmp_path):
    sup, home = super_repo(tmp_path), tmp_path / "home"
    res = kb(sup, "check", home=home)
    out = res.stdout.decode() + res.stderr.decode()
    assert f"verification lapsed: {SAYS}" in out and "not committed" not in out, out
    for args in (("history", DOC), ("review", "diff", DOC), ("review", "check", "--base",
                                                              "HEAD~1")):
        assert SAYS in one_error(kb(sup, *args, home=home)), args
    res = kb(sup, "draft", "new", "--category", "field-report", "--title", "t", "--location",
             "l", "--author", "a", "--from", "/dev/null", home=home)
    assert SAYS in one_error(res)
    assert git(sup, "branch", "--list", "draft/*") == ""
    # CI clones without the submodule's files: the gitlink alone says it
    ci = tmp_path / "ci"
    git(tmp_path, "clone", "-q", str(sup), str(ci))
    assert SAYS in one_error(kb(ci, "review", "check", "--base", "HEAD~1", home=home))
