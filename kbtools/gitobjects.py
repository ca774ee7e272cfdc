"""Commits and blobs read with the git command line, in either object format.

GitPython's object model (`repo.commit`, `commit.tree`, `commit.parents`) reads SHA-1
repositories only: in one made with `git init --object-format=sha256` every id is 64 hex
digits and `repo.commit("HEAD")` fails. Provenance and review read commits and files through
these functions instead, which ask git itself (through `repo.git`, so with the same
settings as every other call):

- `read_commit(repo, rev)`: a `CommitInfo` (id, parents, author, dates, message);
- `commit_log(repo, *args)`: `git log` records, each with its `CommitInfo` and the lines
  `--name-status` (or any other option) printed after it;
- `read_blobs(repo, names)`: the bytes of many `<commit>:<path>` names in one
  `git cat-file --batch` (the one of a `gitbatch.batched` block when it runs);
- `commit_authors(repo, shas)`: each commit's author as recorded (no ``.mailmap``);
- `merge_base(repo, a, b)`: the id of the best common ancestor;
- `diff_trees(repo, pairs, *options)`: the paths each of many (commit, base) pairs
  changes, with one `git diff-tree --stdin`;
- `diffs_alone(repo, commit, parent, added, alone, *options)`: what a commit's diff is for
  each of several new files were it the only one the commit added (rename and copy
  detection for that file on its own, as `git log --follow` runs it);
- `unquote_path(path)`: a path as git printed it, unquoted;
- `tree_id(repo, commit, folder)`: the id of a folder's tree; `exists` for any path;
- `write_blob(repo, data)`: store a file's bytes, for commits made without the work tree;
- `eol_normalized(root, paths)`: the files whose CRLF line endings git turns into LF when
  they are committed (.gitattributes ``text``/``eol``, ``core.autocrlf``).

Imports nothing of kbtools but `pathspecs` and `gitbatch`.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import git

from kbtools import gitbatch
from kbtools.pathspecs import literal

# %x1f between fields, the message last (it may hold anything but NUL); %x00 around the
# whole header, so the lines `git log` prints after it (`--name-status`) stand apart
FIELDS = ("%H", "%P", "%an", "%ae", "%aI", "%cI", "%B")
COMMIT_FORMAT = "--format=%x00" + "%x1f".join(FIELDS) + "%x00"


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    author_name: str
    author_email: str  # lower-case
    authored_at: datetime  # timezone-aware
    committed_at: datetime
    message: str
    parents: tuple[str, ...] = ()  # ids, first parent first

    @property
    def hexsha(self) -> str:
        """The id, under GitPython's name (callers may hold either kind of commit)."""
        return self.sha

    @property
    def short(self) -> str:
        return self.sha[:10]

    @property
    def subject(self) -> str:
        return self.message.strip().split("\n", 1)[0]

    def to_dict(self) -> dict[str, Any]:
        return {"commit": self.sha, "author": self.author_name, "author_email": self.author_email,
                "date": self.authored_at.isoformat(), "message": self.subject}


# git's C-style quoting of a path it prints (core.quotePath=false still quotes `"`, `\`
# and control characters): \" \\ \t \n …, and \ooo for a byte
C_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def unquote_path(path: str) -> str:
    """A path as git printed it in `--name-status` / `--name-only` output, unquoted:
    ``"knowledge/a \\"b\\".md"`` is ``knowledge/a "b".md``; a plain path is itself."""
    if len(path) < 2 or not (path.startswith('"') and path.endswith('"')):
        return path
    out, body, i = bytearray(), path[1:-1], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "0123" and body[i + 1:i + 4].isdigit():
                out.append(int(body[i + 1:i + 4], 8))
                i += 4
                continue
            out.append(C_ESCAPES.get(nxt, ord(nxt)))
            i += 2
            continue
        out += ch.encode("utf-8")
        i += 1
    return out.decode("utf-8", errors="surrogateescape")


def git_reason(exc: OSError | git.GitCommandError) -> str:
    """Why Git (or the system) failed, in its own words, as one line: Git's `error:`/
    `fatal:`/`hint:` messages joined by "; ", without those prefixes, each with the lines
    that continue it (a paragraph git wrapped, as after "Unable to create '…/index.lock'");
    the system's reason and file otherwise."""
    if isinstance(exc, git.GitCommandError):
        said = str(exc.stderr or "").strip().removeprefix("stderr: '").removesuffix("'")
        messages: list[str] = []
        for line in (ln.strip() for ln in said.splitlines() if ln.strip()):
            text = re.sub(r"^(?:error|fatal|hint): ", "", line)
            if text == line and messages and not messages[-1].endswith(":"):
                messages[-1] += " " + text  # a wrapped line of the message before
            else:
                messages.append(text)
        if messages:
            return "; ".join(m.rstrip(".") for m in messages).replace(":; ", ": ")
        # nothing on stderr (`git commit` with nothing to commit says so on stdout)
        out = str(exc.stdout or "").strip().removeprefix("stdout: '").removesuffix("'")
        last = next((ln.strip() for ln in reversed(out.splitlines()) if ln.strip()), "")
        return f"git {git_subcommand(exc.command)} failed" + (f": {last}" if last else "")
    reason = exc.strerror or type(exc).__name__
    return reason + (f": {exc.filename}" if exc.filename else "")


def git_subcommand(command: Any) -> str:
    """The subcommand of a git command line (`commit` of `git -c user.name=x commit -m …`):
    what a failure names (it named `-c`)."""
    words = [str(c) for c in command] if isinstance(command, list | tuple) else [str(command)]
    rest = iter(words[1:])
    for word in rest:
        if word == "-c":
            next(rest, None)
        elif not word.startswith("-"):
            return word
    return ""


def parse_header(header: str) -> CommitInfo:
    """A commit from the fields `COMMIT_FORMAT` prints."""
    sha, parents, name, email, authored, committed, message = header.split("\x1f", 6)
    return CommitInfo(sha=sha, author_name=name, author_email=email.lower(),
                      authored_at=datetime.fromisoformat(authored),
                      committed_at=datetime.fromisoformat(committed), message=message,
                      parents=tuple(parents.split()))


def commit_log(repo: git.Repo, *args: str) -> list[tuple[CommitInfo, list[str]]]:
    """`git log COMMIT_FORMAT *args`: each commit with the non-empty lines printed after
    it. Raises git.GitCommandError as `repo.git.log` does."""
    out = repo.git.log(COMMIT_FORMAT, *args)
    parts = out.split("\x00")
    records = []
    for i in range(1, len(parts) - 1, 2):
        lines = [ln for ln in parts[i + 1].split("\n") if ln.strip()]
        records.append((parse_header(parts[i]), lines))
    return records


def commit_authors(repo: git.Repo, shas: Iterable[str]) -> dict[str, tuple[str, str]]:
    """Each commit's author (name, email) as the commit records it, never mapped through a
    ``.mailmap`` or the user's ``mailmap.file`` (``%an``/``%ae``, unlike ``%aN``). Raises
    git.GitCommandError as `repo.git.log` does."""
    wanted = sorted(shas)
    known = gitbatch.memo(repo, "authors")  # sha -> (name, email), or None: none found
    asked = [s for s in wanted if s not in known] if known is not None else wanted
    found: dict[str, tuple[str, str]] = {}
    if asked:
        out = repo.git.log("--no-walk=unsorted", "--format=%H%x1f%an%x1f%ae", *asked, "--")
        found = {sha: (name, email) for sha, name, email
                 in (line.split("\x1f") for line in out.split("\n") if line.count("\x1f") == 2)}
    if known is None:
        return found
    known.update({s: found.get(s) for s in asked})
    return {s: known[s] for s in wanted if known[s] is not None}


def read_commit(repo: git.Repo, rev: str) -> CommitInfo | None:
    """The commit `rev` names; None when it names none (or names an option)."""
    if not rev or rev.startswith("-"):
        return None
    try:
        sha = repo.git.rev_parse("--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
        records = commit_log(repo, "-1", "--no-walk", sha.strip())
    except git.GitCommandError:
        return None
    return records[0][0] if records else None


def merge_base(repo: git.Repo, a: str, b: str) -> str | None:
    """The id of a best common ancestor of commits `a` and `b`; None when they share none."""
    try:
        return str(repo.git.merge_base(a, b)).split()[0]
    except (git.GitCommandError, IndexError):
        return None


# a change as `git diff-tree --raw -z` prints it: its fields (modes, ids, status), its paths
Change = tuple[list[str], list[str]]


def diff_trees(repo: git.Repo, pairs: list[tuple[str, str | None]], *options: str
               ) -> dict[str, list[str]]:
    """The paths `git diff-tree -r --raw -z --root *options` lists for each (commit, base)
    pair (base None: the commit against its own parents), keyed by the commit (each given
    once), with one `git diff-tree --stdin` for all; `options` may end with `--` and
    pathspecs. Raises git.GitCommandError when git fails."""
    return {commit: [paths[-1] for _, paths in entries]
            for commit, entries in diff_raw(repo, pairs, *options).items()}


def diff_raw(repo: git.Repo, pairs: list[tuple[str, str | None]], *options: str
             ) -> dict[str, list[Change]]:
    """`diff_trees` with each change whole: its raw fields (modes, ids, status) and its
    paths (two for a rename or copy: source, then destination)."""
    if not pairs:
        return {}
    proc = repo.git.diff_tree("--stdin", "-r", "--raw", "-z", "--root", *options,
                              as_process=True, istream=subprocess.PIPE)
    lines = "".join(f"{commit} {base}\n" if base else f"{commit}\n" for commit, base in pairs)
    out, err = proc.proc.communicate(lines.encode("ascii"))
    if proc.proc.returncode:
        raise git.GitCommandError(["git", "diff-tree", "--stdin", *options],
                                  proc.proc.returncode, err)
    found: dict[str, list[Change]] = {commit: [] for commit, _ in pairs}
    found.update(_raw_changes(out))
    return found


def _raw_changes(out: bytes) -> dict[str, list[Change]]:
    """The changes `git diff-tree --stdin -r --raw -z` printed, by the commit (or, for a
    pair of trees, the second tree) each diff is of. "<commit>\0" before each non-empty
    diff of a commit ("<tree> <tree>\n" before one of two trees), then
    ":<modes> <ids> <status>\0<path>\0" per change (a rename or copy: two paths): a token
    after a status is always a path, whatever its characters."""
    found: dict[str, list[Change]] = {}
    tokens = out.decode("utf-8", errors="surrogateescape").split("\0")
    current: list[Change] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if not token.startswith(":") and "\n" in token:
            header, token = token.split("\n", 1)
            current = found.setdefault(header.split()[-1], [])
        if token.startswith(":"):
            fields = token[1:].split()
            n = 2 if fields[-1][:1] in ("R", "C") else 1
            current.append((fields, tokens[i + 1:i + 1 + n]))
            i += 1 + n
            continue
        if token:
            current = found.setdefault(token, [])
        i += 1
    return found


def diffs_alone(repo: git.Repo, commit: str, parent: str, added: Iterable[str],
                alone: Iterable[str], *options: str) -> dict[str, list[Change]]:
    """For each path of `alone` (files `commit` adds against `parent`): the changes
    `git diff-tree -r --raw *options parent commit` lists when, of the files `added` (every
    file the commit adds), that one alone is added (a path the commit does not hold: left
    out). Rename and copy detection then looks for
    that file's source on its own, as `git log --follow` does, instead of sharing the
    deleted files among all the new ones. The trees compared are written to a temporary
    object directory (the repository is not written to): one `git ls-tree`, one
    `git rev-parse`, one `git hash-object` and one `git diff-tree --stdin` for all. Raises
    git.GitCommandError when git fails."""
    wanted = sorted(set(alone))
    if not wanted:
        return {}
    listing = repo.git.ls_tree("-r", "-t", "-z", "--full-tree", commit, stdout_as_string=False)
    base = str(repo.git.rev_parse("--verify", f"{parent}^{{tree}}")).strip()
    folders: dict[bytes, dict[bytes, tuple[bytes, bytes]]] = {b"": {}}
    for entry in bytes(listing).split(b"\0"):
        if entry:
            info, _, full = entry.partition(b"\t")
            mode, kind, oid = info.split(b" ")
            folder, _, name = full.rpartition(b"/")
            folders.setdefault(folder, {})[name] = (mode.lstrip(b"0"), oid)
            if kind == b"tree":
                folders.setdefault(full, {})
    trees: dict[bytes, bytes] = {}  # id → contents
    drop = {os.fsencode(p) for p in added} | {os.fsencode(p) for p in wanted}
    stripped = _without(folders, drop, trees, len(base))
    tops: dict[bytes, str] = {}  # the root tree made for each path → that path
    for path in wanted:
        folder, _, name = os.fsencode(path).rpartition(b"/")
        if name not in folders.get(folder, {}):
            continue  # not in the commit: left out of the answer
        child = (name, folders[folder][name])
        while True:
            entries = dict(stripped.get(folder, folders[folder]))
            entries[child[0]] = child[1]
            oid = _tree(entries, trees, len(base))
            if not folder:
                tops[oid] = path
                break
            folder, _, name = folder.rpartition(b"/")
            child = (name, (b"40000", oid))
    with tempfile.TemporaryDirectory() as scratch:
        objects = os.path.join(scratch, "objects")
        os.mkdir(objects)
        # ours, with the repository's objects (and those it borrows) to read
        alternates = [os.path.join(repo.common_dir, "objects"),
                      *filter(None, [os.environ.get("GIT_ALTERNATE_OBJECT_DIRECTORIES")])]
        env = {"GIT_OBJECT_DIRECTORY": objects,
               "GIT_ALTERNATE_OBJECT_DIRECTORIES": os.pathsep.join(alternates)}
        _store(repo, trees, env)
        proc = repo.git.diff_tree("--stdin", "-r", "--raw", "-z", *options, as_process=True,
                                  istream=subprocess.PIPE, env=env)
        out, err = proc.proc.communicate(
            "".join(f"{base} {t.decode()}\n" for t in tops).encode("ascii"))
    if proc.proc.returncode:
        raise git.GitCommandError(["git", "diff-tree", "--stdin", *options],
                                  proc.proc.returncode, err)
    found = _raw_changes(out)
    return {path: found.get(t.decode(), []) for t, path in tops.items()}


def _without(folders: Mapping[bytes, Mapping[bytes, tuple[bytes, bytes]]], drop: set[bytes],
             trees: dict[bytes, bytes], width: int
             ) -> dict[bytes, dict[bytes, tuple[bytes, bytes]]]:
    """The entries of every folder holding a path of `drop` (at any depth), those paths
    left out (and the folders they leave empty), their trees kept in `trees` (ids `width`
    hex digits long)."""
    affected = {path[:i] for path in drop for i, c in enumerate(path) if c == ord("/")}
    affected.add(b"")
    stripped: dict[bytes, dict[bytes, tuple[bytes, bytes]]] = {}
    for folder in sorted(affected, key=lambda f: -f.count(b"/") - bool(f)):
        entries = {}
        for name, entry in folders.get(folder, {}).items():
            full = folder + b"/" + name if folder else name
            if full in drop:
                continue
            if full in affected:
                if not stripped[full]:
                    continue
                entry = (b"40000", _tree(stripped[full], trees, width))
            entries[name] = entry
        stripped[folder] = entries
    return stripped


def _tree(entries: Mapping[bytes, tuple[bytes, bytes]], trees: dict[bytes, bytes], width: int
          ) -> bytes:
    """The id of the tree holding `entries` (name → (mode, id)), its contents kept in
    `trees`; SHA-1 or SHA-256 as the repository's ids are 40 or 64 hex digits (`width`).
    Entries go in git's order: a folder's name as if it ended in "/"."""
    order = sorted(entries, key=lambda n: n + b"/" if entries[n][0] == b"40000" else n)
    data = b"".join(entries[n][0] + b" " + n + b"\0" + bytes.fromhex(entries[n][1].decode())
                    for n in order)
    algorithm = "sha1" if width == 40 else "sha256"
    oid = hashlib.new(algorithm, b"tree %d\0" % len(data) + data).hexdigest().encode()
    trees[oid] = data
    return oid


def _store(repo: git.Repo, trees: Mapping[bytes, bytes], env: dict[str, str]) -> None:
    """Write `trees` with one `git hash-object` into the object directory `env` names;
    git.GitCommandError when git reads any of them as another id than ours."""
    with tempfile.TemporaryDirectory() as scratch:
        names = []
        for n, data in enumerate(trees.values()):
            name = os.path.join(scratch, str(n))
            with open(name, "wb") as fh:
                fh.write(data)
            names.append(name)
        proc = repo.git.hash_object("-w", "-t", "tree", "--stdin-paths", as_process=True,
                                    istream=subprocess.PIPE, env=env)
        out, err = proc.proc.communicate("".join(n + "\n" for n in names).encode())
    if proc.proc.returncode or out.split() != list(trees):
        raise git.GitCommandError(["git", "hash-object", "-t", "tree"],
                                  proc.proc.returncode or 1, err)


def tree_id(repo: git.Repo, commit: str, folder: str) -> str | None:
    """The id of the tree of `folder` ("" for the root) at commit `commit`; None when
    that is no folder there."""
    try:
        if not folder:
            return str(repo.git.rev_parse("--verify", "--quiet", f"{commit}^{{tree}}")).strip()
        out = str(repo.git.ls_tree("-d", "-z", commit, "--", literal(folder)))
    except git.GitCommandError:
        return None
    for entry in out.split("\x00"):  # "<mode> <type> <id>\t<path>"
        info, _, path = entry.partition("\t")
        if path == folder and info.split(" ")[1:2] == ["tree"]:
            return info.split(" ")[2]
    return None


def exists(repo: git.Repo, commit: str, path: str) -> bool:
    """Whether commit `commit` holds something (a file or a folder) at `path`."""
    try:
        repo.git.cat_file("-e", f"{commit}:{path}")
    except git.GitCommandError:
        return False
    return True


def write_blob(repo: git.Repo, data: bytes) -> str:
    """Store `data` as a blob in the repository; its id."""
    proc = repo.git.hash_object("-w", "--stdin", as_process=True, istream=subprocess.PIPE)
    out, err = proc.proc.communicate(data)
    if proc.proc.returncode:
        raise git.GitCommandError(["git", "hash-object", "-w", "--stdin"], proc.proc.returncode,
                                  err)
    return str(out.decode("ascii")).strip()


def read_blob(repo: git.Repo, name: str) -> bytes | None:
    """The contents of one blob `name` (`<commit>:<path>`, any characters); None when it is
    no blob."""
    try:
        data = repo.git.cat_file("blob", name, stdout_as_string=False, strip_newline_in_stdout=False)
    except git.GitCommandError:
        return None
    return bytes(data)


def read_blobs(repo: git.Repo, names: list[str]) -> list[bytes | None]:
    """The contents of the blobs `names` (`<commit>:<path>`) in order, None for a name that
    is no blob (missing, or a folder), with one `git cat-file --batch`."""
    if not names:
        return []
    if any("\n" in n for n in names):  # one name per line: it would be read as two
        return [read_blob(repo, n) if "\n" in n else read_blobs(repo, [n])[0] for n in names]
    if (batch := gitbatch.reader(repo)) is not None:  # a loop's one process
        return [batch.read(n) for n in names]
    proc = repo.git.cat_file("--batch", as_process=True, istream=subprocess.PIPE)
    out, _ = proc.proc.communicate("".join(n + "\n" for n in names).encode("utf-8"))
    result: list[bytes | None] = []
    pos = 0
    for _ in names:
        end = out.index(b"\n", pos)
        head = out[pos:end].split(b" ")
        pos = end + 1
        if len(head) != 3 or not head[2].isdigit():  # "<name> missing" / "ambiguous"
            result.append(None)
            continue
        size = int(head[2])
        result.append(out[pos:pos + size] if head[1] == b"blob" else None)
        pos += size + 1  # the object, then a line feed
    return result


def status_changed(porcelain_z: str) -> set[str]:
    """The paths `git status --porcelain -z` names as changed (staged or not); a rename's or
    copy's source path, which follows its entry, included."""
    entries = iter(porcelain_z.split("\x00"))
    changed = set()
    for entry in entries:
        if len(entry) > 3:
            changed.add(entry[3:])
            if entry[0] in "RC":
                changed.add(next(entries, ""))
    changed.discard("")
    return changed


def commit_paths(repo: git.Repo, commit: str | None, prefix: str) -> frozenset[str]:
    """Every path of `commit`'s tree below `prefix` (a kb root's `git_prefix`), relative to
    it, with every folder above them ("" included), as `staged_paths` gives the index's:
    what a checkout of `commit` holds. Only "" for None (a repository without commits)."""
    if commit is None:
        return frozenset({""})
    listed = repo.git.ls_tree("-r", "-z", "--name-only", "--full-tree", commit,
                              stdout_as_string=False)
    return paths_with_folders(listed, prefix)


def paths_with_folders(out: bytes, prefix: str) -> frozenset[str]:
    """The NUL-separated Git paths `out` below `prefix`, relative to it, and their folders."""
    paths: set[str] = {""}
    for raw in out.split(b"\0"):
        name = os.fsdecode(raw)
        if not raw or not name.startswith(prefix):
            continue
        rel = name[len(prefix):]
        paths.add(rel)
        while "/" in rel:
            rel = rel.rsplit("/", 1)[0]
            paths.add(rel)
    return frozenset(paths)


TRUE_WORDS = frozenset({"true", "yes", "on", "1"})


def eol_normalized(root: os.PathLike[str] | str, paths: Iterable[str]) -> frozenset[str]:
    """Those of `paths` (relative to `root`, in a Git work tree) whose CRLF line endings git
    turns into LF when they are added: attribute ``text`` set, or ``eol`` set with ``text``
    unspecified, always; ``text=auto``, or ``text`` unspecified with ``core.autocrlf`` true
    or input, unless the file is in the index with CRLF (git then keeps what it holds). A
    Windows team's ``* text=auto eol=crlf`` checks its files out with CRLF on purpose and
    commits LF. Empty outside a work tree or when git cannot say."""
    wanted = sorted(p for p in paths if p and not p.startswith("/"))
    if not wanted:
        return frozenset()

    def run(*args: str, data: bytes | None = None) -> bytes | None:
        try:
            proc = subprocess.run(["git", "-C", os.fspath(root), *args], input=data,
                                  capture_output=True, check=False)
        except OSError:
            return None
        return proc.stdout if proc.returncode == 0 else None

    out = run("check-attr", "-z", "--stdin", "text", "eol",
              data=b"".join(os.fsencode(p) + b"\0" for p in wanted))
    if out is None:
        return frozenset()
    attrs: dict[str, dict[str, str]] = {}
    fields = out.split(b"\0")
    for i in range(0, len(fields) - 2, 3):
        attrs.setdefault(os.fsdecode(fields[i]), {})[os.fsdecode(fields[i + 1])] = \
            os.fsdecode(fields[i + 2])
    autocrlf = (run("config", "--get", "core.autocrlf") or b"").decode().strip().lower()
    auto_by_config = autocrlf in TRUE_WORDS or autocrlf == "input"
    crlf_in_index: set[str] = set()
    listed = run("ls-files", "--eol", "-z", "--", *map(literal, wanted))
    for entry in (listed or b"").split(b"\0"):
        info, _, name = entry.partition(b"\t")
        if info.startswith(b"i/crlf") or info.startswith(b"i/mixed"):
            crlf_in_index.add(os.fsdecode(name))
    found = set()
    for path in wanted:
        text = attrs.get(path, {}).get("text", "unspecified")
        eol = attrs.get(path, {}).get("eol", "unspecified")
        if text == "set" or (text == "unspecified" and eol in ("lf", "crlf")):
            found.add(path)
        elif (text == "auto" or (text == "unspecified" and auto_by_config)) \
                and path not in crlf_in_index:
            found.add(path)
    return frozenset(found)


def staged_changes(repo: git.Repo) -> list[tuple[str, str, str, str]] | None:
    """(old mode, new mode, status, path) of each change the Git index holds against HEAD,
    renames as a deletion and an addition (`git diff-index --cached --raw --no-renames`):
    what the commit being made changes. None without a HEAD (a first commit) or when git
    fails."""
    try:
        out = repo.git.diff_index("--cached", "--raw", "-z", "--no-renames", "HEAD", "--",
                                  stdout_as_string=False)
    except git.GitCommandError:
        return None
    tokens = out.decode("utf-8", errors="surrogateescape").split("\0")
    changes = []
    for head, path in zip(tokens[0:-1:2], tokens[1::2], strict=True):  # ":<modes> …", path
        fields = head.split()
        if len(fields) == 5 and fields[0].startswith(":"):
            changes.append((fields[0][1:], fields[1], fields[4], path))
    return changes


def staged_renames(repo: git.Repo) -> dict[str, str]:
    """New path → old path of each rename the Git index holds against HEAD, found by git's
    own rename detection (`git diff --cached -M`): a `git mv`, edited or not, or a move
    staged by `git add -A`. Paths from the top of the work tree; {} without a HEAD or when
    git fails."""
    try:
        out = repo.git.diff("--cached", "-M", "--diff-filter=R", "--name-status", "-z",
                            "HEAD", "--", stdout_as_string=False)
    except git.GitCommandError:
        return {}
    tokens = out.decode("utf-8", errors="surrogateescape").split("\0")
    return {new: old for status, old, new in zip(tokens[0:-2:3], tokens[1:-1:3], tokens[2::3],
                                                  strict=False) if status.startswith("R")}
