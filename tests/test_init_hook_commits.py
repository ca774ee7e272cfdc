"""`kb init`'s pre-commit hooks, installed and run by real `git commit`s as authors make them.

Guards (these already held when written, session 35): the hooks check what the commit
holds, not the work tree — a line staged alone (`git add -p`, a Git app's "stage selected
lines"), `git commit PATH` and `git commit -a`, a staged rename or deletion against the
links to it, file names with spaces, Chinese and `#` — from a subfolder or a linked
worktree, with CRLF files under `core.autocrlf`, and refuse a file an editor left empty.
Each finding is one `path:line:col` line, and no hook changes a file.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.cli import main
from tests.kbfixtures import titled_page

BIN = Path(sys.executable).parent
pytestmark = pytest.mark.skipif(not (BIN / "pre-commit").exists(),
                                reason="pre-commit not installed")
BAD = "category: engineering", "category: nonsense"  # line 3 of a page
TARGET = "knowledge/子 目录/目标 #1.md"
LINKER = "knowledge/链接 a#b.md"


class Author:
    """A knowledge repository from `kb init` with the hooks installed, committed to with
    git as an author does (PATH holding the environment of kb and pre-commit)."""

    def __init__(self, tmp_path: Path) -> None:
        self.root = tmp_path / "kr"
        assert CliRunner().invoke(main, ["init", str(self.root)]).exit_code == 0
        self.env = {**{k: v for k, v in os.environ.items() if k != "PRE_COMMIT"},
                    "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
                    "PRE_COMMIT_HOME": str(tmp_path / "pc"),
                    "GIT_AUTHOR_NAME": "作者", "GIT_AUTHOR_EMAIL": "a@example.org",
                    "GIT_COMMITTER_NAME": "作者", "GIT_COMMITTER_EMAIL": "a@example.org"}
        self.write(TARGET, titled_page("目标", "液压系统压力异常时先停机。"))
        self.write(LINKER, titled_page("链接", "见[目标](<子 目录/目标 %231.md>)。"))
        self.git("add", "-A")
        self.git("commit", "-qm", "start", "--no-verify")
        self.git(sys.executable, "-m", "pre_commit", "install")

    def write(self, rel: str, text: str, newline: str = "\n") -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.replace("\n", newline).encode("utf-8"))

    def text(self, rel: str) -> str:
        return (self.root / rel).read_text(encoding="utf-8")

    def git(self, *args: str, cwd: Path | None = None, stdin: str | None = None
            ) -> subprocess.CompletedProcess[str]:
        cmd = list(args) if args[0] == sys.executable else ["git", *args]
        return subprocess.run(cmd, cwd=cwd or self.root, env=self.env, input=stdin,
                              capture_output=True, text=True, timeout=300)

    def commit(self, *args: str, cwd: Path | None = None) -> tuple[int, list[str]]:
        """Exit code and the finding lines of `git commit -qm msg ARGS`."""
        done = self.git("commit", "-qm", "msg", *args, cwd=cwd)
        said = (done.stdout + done.stderr).splitlines()
        return done.returncode, sorted({line for line in said if ": error: " in line
                                        and not line.startswith("kb: ")})


@pytest.fixture
def author(tmp_path: Path) -> Author:
    return Author(tmp_path)


def test_a_line_staged_alone_is_what_is_checked(author):
    """`git add -p`: of one file's two changes, the good one staged passes, the work tree
    keeping the other; the bad one staged alone is refused."""
    doc = "knowledge/getting-started.md"
    before = author.text(doc)
    both = before.replace(*BAD).replace("Each document is one", "Each document is ONE")
    author.write(doc, both)
    assert author.git("add", "-p", doc, stdin="n\ny\n").returncode == 0
    assert author.commit() == (0, [])
    assert author.text(doc) == both  # the unstaged change is back, untouched
    head = author.git("show", f"HEAD:{doc}").stdout
    assert "Each document is ONE" in head and BAD[0] in head
    author.write(doc, head.replace(*BAD).replace("Each document is ONE", "Each doc is 1"))
    assert author.git("add", "-p", doc, stdin="y\nn\n").returncode == 0
    code, errors = author.commit()
    assert code == 1 and errors == [
        f"{doc}:3:1: error: fm-unknown-category: unknown category 'nonsense' (known: "
        "crop-protection, engineering, equipment-maintenance, field-report)"]
    assert "Each doc is 1" in author.text(doc)


def test_staged_but_fixed_in_the_work_tree_is_refused_and_the_reverse_passes(author):
    good = author.text(TARGET) + "\n新的一段。\n"
    author.write(TARGET, good.replace(*BAD))
    author.git("add", "-A")
    author.write(TARGET, good)
    code, errors = author.commit()
    assert code == 1 and [e.split(": error: ")[0] for e in errors] == [f"{TARGET}:3:1"]
    assert author.text(TARGET) == good
    author.git("add", "-A")
    author.write(TARGET, good.replace(*BAD))  # broken, but not staged
    assert author.commit() == (0, [])
    assert author.text(TARGET) == good.replace(*BAD)


@pytest.mark.parametrize("how", ["rename", "delete"])
def test_a_staged_rename_or_deletion_breaks_the_links_to_it(author, how):
    if how == "rename":
        author.git("mv", TARGET, "knowledge/新 名#2.md")
    else:
        author.git("rm", "-q", TARGET)
    code, errors = author.commit()
    assert code == 1 and len(errors) == 1, errors
    assert errors[0].startswith(f"{LINKER}:13:8: error: path-missing: '子 目录/目标 #1.md' "
                                "does not exist")
    if how == "rename":
        assert "renamed to '新 名#2.md' in the staged changes" in errors[0]


def test_git_commit_of_named_paths_and_of_all(author):
    """`git commit PATH` commits PATH alone (a temporary index): a broken file staged
    beside it is not in that commit; `git commit -a` takes the work tree's changes."""
    author.write(TARGET, author.text(TARGET).replace(*BAD))
    author.git("add", TARGET)
    author.write(LINKER, author.text(LINKER) + "\n更多。\n")
    assert author.commit(LINKER) == (0, [])
    code, errors = author.commit("-a")
    assert code == 1 and [e.split(": error: ")[0] for e in errors] == [f"{TARGET}:3:1"]


def test_from_a_subfolder_and_from_a_linked_worktree(author, tmp_path):
    author.write(TARGET, author.text(TARGET).replace(*BAD))
    author.git("add", "-A")
    code, errors = author.commit(cwd=author.root / "knowledge" / "子 目录")
    assert code == 1 and [e.split(": error: ")[0] for e in errors] == [f"{TARGET}:3:1"]
    author.git("reset", "-q", "--hard")
    tree = tmp_path / "另一 工作树"
    assert author.git("worktree", "add", "-q", "-b", "旁支", str(tree)).returncode == 0
    doc = tree / LINKER
    doc.write_text(doc.read_text(encoding="utf-8").replace(*BAD), encoding="utf-8")
    author.git("add", "-A", cwd=tree)
    code, errors = author.commit(cwd=tree)
    assert code == 1 and [e.split(": error: ")[0] for e in errors] == [f"{LINKER}:3:1"]
    doc.write_text(doc.read_text(encoding="utf-8").replace(BAD[1], BAD[0]) + "\n补充。\n",
                   encoding="utf-8")
    author.git("add", "-A", cwd=tree)
    assert author.commit(cwd=tree) == (0, [])


def test_crlf_under_autocrlf_and_a_bom_pass_an_empty_file_is_refused(author):
    """Windows authors: CRLF that Git turns into LF and a BOM are no errors; Typora caught
    mid-save leaves an empty file, which is."""
    author.git("config", "core.autocrlf", "true")
    author.write("knowledge/crlf.md", titled_page("换行", "Windows 保存的文件。"), "\r\n")
    author.write("knowledge/bom.md", "\ufeff" + titled_page("BOM", "记事本保存的文件。"))
    author.git("add", "-A")
    assert author.commit() == (0, [])
    author.write("knowledge/empty.md", "")
    author.git("add", "-A")
    assert author.commit() == (1, ["knowledge/empty.md:1:1: error: file-empty: file is empty"])
    assert author.git("status", "--porcelain").stdout == "A  knowledge/empty.md\n"


def test_each_finding_of_a_failing_commit_is_said_once(author):
    """A staged-files hook and a whole-folder hook both ran and both reported every staged
    document's finding: each was said twice. One hook now checks the folder as the commit
    holds it: a staged document's finding and a deleted target's broken link, once each.
    Files the build never reads are not refused either (the staged-files hook checked them
    as documents): Typora's copy mid-save and an Obsidian trash note are warnings, an
    underscore file is no document."""
    author.write(TARGET, author.text(TARGET).replace(*BAD))
    author.git("rm", "-q", "knowledge/getting-started.md")
    author.write(LINKER, author.text(LINKER) + "\n见[入门](getting-started.md)。\n")
    author.write("knowledge/链接 a#b~.md", "---\ntitle: 半存\n---\n")  # Typora, mid-save
    author.write("knowledge/.trash/旧.md", "旧笔记\n")
    author.write("knowledge/_草稿.md", "草稿\n")
    author.git("add", "-A")
    done = author.git("commit", "-qm", "msg")
    said = (done.stdout + done.stderr).splitlines()
    errors = [line for line in said if ": error: " in line and not line.startswith("kb: ")]
    assert done.returncode == 1 and [e.split(": error: ")[0] for e in errors] == [
        f"{TARGET}:3:1", f"{LINKER}:15:7"], said
    warned = [line.split(": warning: ")[1].split(":")[0] for line in said
              if ": warning: " in line]
    assert warned == ["editor-leftover"] * 2, said
    assert sum(line.startswith("- hook id: ") for line in said) == 1


def test_a_merge_committed_with_its_conflict_markers_is_refused(author):
    """Both branches change one line; the conflict `git add`ed as it stands (what a Git
    app's "mark as resolved" does) was committed through the hook with both sides and Git's
    markers. Refused now, once, at the markers; resolved, the merge commits."""
    good = author.text(TARGET)
    author.git("checkout", "-qb", "维护")
    author.write(TARGET, good.replace("液压系统压力异常时先停机。", "液压系统压力异常时先泄压。"))
    author.git("commit", "-qam", "泄压", "--no-verify")
    author.git("checkout", "-q", "-")
    author.write(TARGET, good.replace("液压系统压力异常时先停机。", "压力异常时立即停机。"))
    author.git("commit", "-qam", "停机", "--no-verify")
    assert author.git("merge", "维护").returncode == 1  # the conflict
    author.git("add", TARGET)
    done = author.git("commit", "--no-edit")
    said = (done.stdout + done.stderr).splitlines()
    assert done.returncode == 1, said
    assert [line.split(": error: ")[0] for line in said if ": error: merge-conflict" in line] == [
        f"{TARGET}:13:1"]
    author.write(TARGET, good.replace("液压系统压力异常时先停机。", "压力异常时先泄压，再停机。"))
    author.git("add", TARGET)
    assert author.git("commit", "--no-edit").returncode == 0
    assert len(author.git("log", "-1", "--format=%P").stdout.split()) == 2  # the merge


def test_an_amend_a_case_only_rename_and_a_rebase_exec_are_checked(author):
    """Guards (already right, session 36): `git commit --amend` is checked as the commit it
    makes; `git mv Pump.md pump.md` (a case-only rename) breaks a link that names the old
    case, which a case-sensitive device would not find (`--fix` rewrites it); `git rebase
    -i --exec 'pre-commit run --from-ref HEAD~1 --to-ref HEAD'` stops at the commit whose
    document is broken."""
    author.write("knowledge/Pump.md", titled_page("Pump", "Hydraulic pump, 20 MPa."))
    author.write(LINKER, author.text(LINKER) + "\n见[泵](Pump.md)。\n")
    author.git("add", "-A")
    assert author.commit() == (0, [])
    good = author.text(TARGET)
    author.write(TARGET, good.replace(*BAD))
    author.git("add", TARGET)
    code, errors = author.commit("--amend")
    assert code == 1 and [e.split(": error: ")[0] for e in errors] == [f"{TARGET}:3:1"]
    author.git("reset", "-q", "--hard")
    author.git("mv", "knowledge/Pump.md", "knowledge/pump.md")
    code, errors = author.commit()
    assert code == 1 and [e.split(": error: ")[1].split(":")[0] for e in errors] == [
        "path-case"] and errors[0].startswith(f"{LINKER}:15:"), errors
    author.git("reset", "-q", "--hard")
    author.write(TARGET, good.replace(*BAD))
    author.git("commit", "-qam", "broken", "--no-verify")
    author.write(LINKER, author.text(LINKER) + "\n更多。\n")
    author.git("commit", "-qam", "fine", "--no-verify")
    done = author.git("-c", "sequence.editor=true", "rebase", "-i", "--exec",
                      "pre-commit run --from-ref HEAD~1 --to-ref HEAD", "HEAD~2")
    said = done.stdout + done.stderr
    assert done.returncode != 0 and f"{TARGET}:3:1: error: fm-unknown-category" in said, said
    assert author.git("log", "-1", "--format=%s").stdout.strip() == "broken"  # stopped there
    author.git("rebase", "--abort")
