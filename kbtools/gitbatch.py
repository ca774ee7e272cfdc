"""One `git cat-file --batch` for every blob a loop over many documents reads.

Judging a verified document's review (`review.lapse.review_coverage`, which `kb check`,
`kb build` and `kb review pending` run for every verified document) reads five blobs: its
text at HEAD, its states in its history, the trusted kb.toml and .mailmap, its reviewed
text. Each was a git process of its own (`gitobjects.read_blobs`), 4–7 ms to start: on the
example knowledge two thirds of `kb check`'s history work, and 5,000 processes for a
thousand verified documents. Inside ``with batched(repo):`` every `read_blobs` on that
repository asks one long-lived process instead, one name at a time: each answer is read
before the next name is written, so no pipe fills up whatever the sizes.

The block also remembers answers that cannot change (`memo`): a commit's recorded author
(`gitobjects.commit_authors`, asked of every document's blamed commits) and whether a
commit is an ancestor of another (`provenance.not_ancestors`, asked of them against each
review commit). Documents written and reviewed in the same commits ask git once.

GitPython's own long-lived reader (`Git.get_object_data`) is not used: it takes only
40-digit object ids, and a SHA-256 repository's 64-digit answer is an error after the
header, with the object's bytes left in the pipe for the next caller.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import git

_OPEN: dict[int, _Batch] = {}  # id(repo) -> its open reader, while `batched` runs


class _Batch:
    def __init__(self, repo: git.Repo):
        self.cmd = repo.git.cat_file("--batch", as_process=True, istream=subprocess.PIPE)
        self.lock = threading.Lock()  # one name and its answer at a time
        self.memo: dict[str, dict[Any, Any]] = {}

    def read(self, name: str) -> bytes | None:
        """The bytes of blob `name` (one line); None when it is no blob."""
        proc = self.cmd.proc
        assert proc.stdin is not None and proc.stdout is not None
        with self.lock:
            proc.stdin.write(name.encode("utf-8", "surrogateescape") + b"\n")
            proc.stdin.flush()
            header = proc.stdout.readline()
            if not header.endswith(b"\n"):
                raise git.GitCommandError(["git", "cat-file", "--batch"], proc.poll() or -1,
                                          b"it stopped answering")
            # "<id> <type> <size>", or "<name> missing" / "<name> ambiguous" (nothing follows)
            head = header[:-1].split(b" ")
            if len(head) != 3 or not head[2].isdigit():
                return None
            size = int(head[2])
            data = proc.stdout.read(size + 1)[:size]  # the object, then a line feed
            if len(data) != size:
                raise git.GitCommandError(["git", "cat-file", "--batch"], proc.poll() or -1,
                                          b"an object was cut short")
        return data if head[1] == b"blob" else None

    def close(self) -> None:
        """End git: its input closed, and its output too (a block left mid-read, by Ctrl-C
        or an error, may leave an object unread that git would wait to write)."""
        proc = self.cmd.proc
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()
        proc.wait()


@contextmanager
def batched(repo: git.Repo) -> Iterator[None]:
    """Blob reads of `repo` (`gitobjects.read_blobs`) through one git process until the
    block ends. Nested blocks share the outer one's."""
    if id(repo) in _OPEN:
        yield
        return
    batch = _OPEN[id(repo)] = _Batch(repo)
    try:
        yield
    finally:
        del _OPEN[id(repo)]
        batch.close()


def reader(repo: git.Repo) -> _Batch | None:
    """The open reader of `repo`, if a `batched` block holds one."""
    return _OPEN.get(id(repo))


def memo(repo: git.Repo, kind: str) -> dict[Any, Any] | None:
    """The answers of kind `kind` remembered for `repo` while a `batched` block runs (None
    outside one): only answers no later commit can change belong here."""
    batch = _OPEN.get(id(repo))
    return None if batch is None else batch.memo.setdefault(kind, {})
