r"""Atomic writes (a temp file in the same directory, fsync, rename), staging directories
for whole trees, and JSON Lines (no-follow I/O below a directory, what a device directory is
read and written with, is `kbtools.beneath`).

A tree such as `dist/` is written into a staging directory `.<name>.build-<random>` next to
it and moved into place by `replace_dir`. `staging_dir` holds an flock on its staging
directory for as long as the writer lives (the kernel drops it when the process dies, even
by SIGKILL), so the next writer can tell a dead writer's leftovers (no lock: removed) from a
live writer's tree (locked: left alone); the sweep and the creation of a new staging
directory happen under an flock on the parent directory, so none is swept before its
writer has locked it.

JSON Lines files (data/chunks/*.jsonl, data/docs.jsonl, `kb query --batch --json` and
`kb watch --json` output) hold one record per ``\n``-terminated line whatever the text holds:
`json_line` writes UTF-8 as ``json.dumps(ensure_ascii=False)`` does, but escapes the
characters that other readers take for a line break and JSON leaves raw (NEL, U+2028, U+2029;
the C0 controls \r, \v, \f, \x1c-\x1e are escaped by JSON itself), and `read_json_lines`
splits on ``b"\n"`` only, never `str.splitlines`. Text without those characters is written
byte for byte as before, so existing releases stay reproducible.

Streams: `unicode_stream` (can it encode all of Unicode?) and `tolerate_unencodable` (print
what it cannot as escapes), what the CLI's output needs in a Latin-1 locale.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import json
import os
import re
import secrets
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

from kbtools.errors import KbError

# Line breaks for str.splitlines (and, U+2028/U+2029, for JavaScript) that JSON keeps raw.
_RAW_BREAKS = re.compile("[\x85\u2028\u2029]")
# A lone surrogate (a str from `surrogateescape`/`surrogatepass` or a YAML "\ud800" escape)
# cannot be UTF-8; it is stored as U+FFFD, as undecodable bytes in a document are.
_SURROGATE = re.compile("[\ud800-\udfff]")
_NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC  # (sync_tree opens every file without following links)


def atomic_write_bytes(path: Path, data: bytes | memoryview, mode: int | None = None) -> None:
    """Write `path` whole or not at all (a temporary file renamed over it). Its mode: `mode`
    when given (set before the rename: a private key is never readable by others, not
    even for a moment), else the old file's, else the umask's."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        elif path.exists():
            shutil.copymode(path, tmp)
        else:  # mkstemp creates 0600; artifacts and documents are ordinary files
            os.chmod(tmp, 0o666 & ~current_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def current_umask() -> int:
    """The process's umask (read by setting it and putting it back)."""
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


def fsync_dir(path: Path) -> None:
    """Make the entries of directory `path` (names created, renamed or removed) durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@functools.cache
def libc_syncfs() -> Callable[[int], int] | None:
    """libc's ``syncfs`` (Linux), or None. ctypes loads on first use: a query never needs it."""
    import ctypes  # stdlib, but costly to import: only writers of trees need it

    try:
        fn: Callable[[int], int] = ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):  # not Linux (or no syncfs in its libc)
        return None
    return fn


# how `sync_tree` flushes a file system: "auto" = libc's syncfs where there is one; None =
# fsync each file (what tests set to take that path)
SYNCFS: Callable[[int], int] | None | Literal["auto"] = "auto"


def sync_tree(root: Path) -> None:
    """Make every file and directory under `root` durable before it is renamed into place.

    A rename (or a symlink switched to it) can reach the disk before the data of the files
    it names: after a power cut, ext4 (delayed allocation), XFS and F2FS may show such new
    files empty or short. One ``syncfs`` of the file system holding `root` flushes all of
    it (one journal commit, where fsyncing each of thousands of files costs one each);
    without ``syncfs``, or when it fails, every file and directory is fsynced. No link is
    followed."""
    syncfs = libc_syncfs() if SYNCFS == "auto" else SYNCFS
    if syncfs is not None:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            if syncfs(fd) == 0:
                return
        finally:
            os.close(fd)
    for top, _dirs, files in os.walk(root):
        for name in files:
            try:
                fd = os.open(os.path.join(top, name), os.O_RDONLY | _NOFOLLOW | os.O_NONBLOCK)
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    continue  # a symbolic link: nothing of ours to flush
                raise
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        fsync_dir(Path(top))


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def replace_dir(staging: Path, target: Path) -> None:
    """Move a fully written `staging` directory to `target`, replacing any old one.

    `target` is the old or the new tree at every moment, never a half-written one nor
    missing: the two are swapped by one atomic exchange (Linux `renameat2`), and the old tree,
    left at the staging name, is renamed aside (`.<name>.old-<random>`); where the system has
    no exchange, the old tree is renamed aside first. Writers of `target` swap one at a time
    (an flock on the parent directory), so two builds into one `dist/` each leave a whole tree
    and neither fails on the other's rename. Deleting the old tree is not waited for
    (`discard_dir`): a reader that opened it keeps its files.
    """
    target = target.resolve()
    old = target.with_name(f".{target.name}{TRASH_INFIX}{secrets.token_hex(6)}")
    parent = _dir_fd(target.parent)
    try:
        fcntl.flock(parent, fcntl.LOCK_EX)
        exchange_dirs(staging, target, old)  # (a crash leaves `old`, swept next time)
        if not os.path.lexists(staging):  # there was no old tree
            return
        os.replace(staging, old)  # the staging name now holds the old tree
    finally:
        os.close(parent)  # the lock goes with it
    discard_dir(old)


@functools.cache
def _renameat2() -> tuple[Callable[..., int], Callable[[], int]] | None:
    """glibc's renameat2 and ctypes' errno reader, or None (another C library, an older
    glibc). ctypes is imported here, by a build's swap, not by every `kb` that reads a file."""
    try:
        import ctypes  # noqa: PLC0415 - a standard module, ~2.5 ms a `kb query` need not pay

        call = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    except (ImportError, OSError):
        return None
    return None if call is None else (call, ctypes.get_errno)


_AT_FDCWD, _RENAME_EXCHANGE = -100, 2  # linux/fcntl.h, linux/fs.h


def _exchange(a: Path, b: Path) -> bool:
    """Swap directories `a` and `b` atomically; False where the system cannot (no renameat2,
    a file system without RENAME_EXCHANGE) or `b` does not exist."""
    found = _renameat2()
    if found is None:
        return False
    call, get_errno = found
    if call(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = get_errno()
    if err in (errno.ENOENT, errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EXDEV):
        return False
    raise OSError(err, os.strerror(err), str(b))


TRASH_INFIX = ".old-"


def exchange_dirs(new: Path, target: Path, aside: Path | None = None) -> None:
    """Give `target` the tree of directory `new`, and `new` the old one (one file system):
    one atomic exchange (Linux `renameat2`), so `target` is never a mix of the two; where
    there is none, renames through `aside`, `target` missing in between (the old tree put
    back when the new one cannot go in). A missing `target` just gets `new`'s tree."""
    if _exchange(new, target):
        return
    if not os.path.lexists(target):
        return os.rename(new, target)
    aside = aside or new.with_name(f".{new.name}{TRASH_INFIX}{secrets.token_hex(6)}")
    os.rename(target, aside)
    try:
        os.rename(new, target)
    except BaseException:
        if not os.path.lexists(target):  # not moved in (or Ctrl-C): the old tree back
            os.rename(aside, target)
        raise
    os.rename(aside, new)


def discard_dir(path: Path) -> None:
    """Delete a directory nobody will open again, off the caller's critical path: a detached
    `rm -rf` that outlives this process (a tree of thousands of files takes seconds to
    delete), or a daemon thread where there is no `rm`. What a crash leaves is found by the
    next `staging_dir` of the same target (`.<name>.old-*`)."""
    rm = shutil.which("rm")
    if rm is None:
        threading.Thread(target=shutil.rmtree, args=(path,), kwargs={"ignore_errors": True},
                         daemon=True).start()
        return
    # at the lowest CPU and I/O priority: the process that goes on (a device serving, the
    # next build) comes first
    lowest = [*([nice, "-n", "19"] if (nice := shutil.which("nice")) else []),
              *([ionice, "-c", "3"] if (ionice := shutil.which("ionice")) else [])]
    proc = subprocess.Popen([*lowest, rm, "-rf", "--", str(path)], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    # reaped by a daemon thread so a long-lived process (kb watch) leaves no zombies
    threading.Thread(target=proc.wait, daemon=True).start()


def discard_old_trees(target: Path) -> None:
    """`discard_dir` every `.<name>.old-*` directory left next to `target` (by a process
    that ended before its old tree was deleted); a symlink of that name is unlinked."""
    prefix = f".{target.name}{TRASH_INFIX}"
    with os.scandir(target.parent) as entries:
        old = sorted(e.name for e in entries if e.name.startswith(prefix))
    for name in old:
        path = target.parent / name
        if path.is_symlink() or not path.is_dir():
            path.unlink(missing_ok=True)
        else:
            discard_dir(path)


STAGING_INFIX = ".build-"
_TEMP_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def is_staging_dir(path: Path) -> bool:
    """`path` is named as a staging directory of `staging_dir` (never a finished tree):
    `.<name>.build-<mkdtemp letters>`."""
    head, sep, tail = path.name.rpartition(STAGING_INFIX)
    return bool(sep) and len(head) > 1 and head.startswith(".") and bool(tail) \
        and set(tail) <= _TEMP_CHARS


def _dir_fd(path: Path) -> int:
    return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)


def remove_stale_staging(target: Path) -> list[str]:
    """Remove the staging directories of `target` that no live writer holds (left by a
    killed one); returns their names. A symlink or file of that name is unlinked, never
    followed. Call with the parent directory locked (`staging_dir` does)."""
    prefix = f".{target.name}{STAGING_INFIX}"
    removed = []
    with os.scandir(target.parent) as entries:
        stale = sorted(e.name for e in entries
                       if e.name.startswith(prefix) and is_staging_dir(Path(e.name)))
    for name in stale:
        path = target.parent / name
        try:
            fd = _dir_fd(path)
        except FileNotFoundError:
            continue
        except OSError:  # not a directory (a symlink, a file): only the name is ours
            path.unlink(missing_ok=True)
            removed.append(name)
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            continue  # a live writer
        else:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(name)
        finally:
            os.close(fd)
    return removed


def exclusive_lock(path: Path) -> contextlib.AbstractContextManager[None]:
    """An exclusive lock on the file `path` (made, with its folder, if need be) for a `with`
    block, whoever holds it in any process: taken on entry (waiting for a holder), released
    on exit. The file is opened now, so a folder that cannot be written raises OSError
    here, not on entry."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return _held(os.open(path, os.O_RDWR | os.O_CREAT, 0o666))


@contextlib.contextmanager
def _held(fd: int) -> Iterator[None]:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # the lock goes with it


@contextlib.contextmanager
def staging_dir(target: Path) -> Iterator[Path]:
    """A new, empty staging directory next to `target`, locked while the `with` block runs;
    the stale staging directories of dead writers are removed first."""
    target.parent.mkdir(parents=True, exist_ok=True)
    parent = _dir_fd(target.parent)
    try:
        fcntl.flock(parent, fcntl.LOCK_EX)
        remove_stale_staging(target)
        discard_old_trees(target)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}{STAGING_INFIX}",
                                        dir=target.parent))
        # mkdtemp makes it 0700: the finished tree is an ordinary directory (its files follow
        # the umask), which another account (a web server, a container) may have to read
        os.chmod(staging, 0o777 & ~current_umask())
        held = _dir_fd(staging)
        fcntl.flock(held, fcntl.LOCK_EX)
    finally:
        os.close(parent)  # the parent's lock goes with it
    try:
        yield staging
    finally:
        os.close(held)


def json_line(obj: Any, *, sort_keys: bool = True,
              default: Callable[[Any], Any] | None = None, ascii_only: bool = False) -> str:
    """`obj` as one JSON Lines record (without the newline): never holds a line break;
    `ascii_only`: every non-ASCII character \\u-escaped."""
    line = json.dumps(obj, ensure_ascii=ascii_only, sort_keys=sort_keys, default=default)
    if not line.isascii():  # the raw characters can only sit inside JSON strings
        line = _RAW_BREAKS.sub(lambda m: f"\\u{ord(m[0]):04x}", line)
        line = _SURROGATE.sub("\ufffd", line)
    return line


def json_lines(rows: Iterable[Any], *, default: Callable[[Any], Any] | None = None) -> bytes:
    """The bytes of a JSON Lines file: one `json_line` (sorted keys) per row, each ending in \\n.

    The escapes of `json_line` are applied to the whole text at once, and only when it holds
    a character that needs one (they never touch the newlines between records)."""
    text = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True, default=default) + "\n"
                   for r in rows)
    if text.isascii():
        return text.encode("utf-8")
    if any(ch in text for ch in "\x85\u2028\u2029"):
        text = _RAW_BREAKS.sub(lambda m: f"\\u{ord(m[0]):04x}", text)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        return _SURROGATE.sub("\ufffd", text).encode("utf-8")


def read_json_lines(path: Path, *, error: type[KbError] = KbError) -> list[Any]:
    """The records of a JSON Lines file, split on \\n only; blank lines are skipped.

    A line that is not JSON raises `error` naming the file and line.
    """
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"not UTF-8 at byte {exc.start}; rebuild or re-fetch it",
                    path=str(path)) from None
    rows = []
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise error(f"not a JSON record ({exc.msg}, column {exc.colno}); rebuild or "
                        "re-fetch it", path=str(path), line=n) from None
    return rows


# --- no-follow I/O below a directory ----------------------------------------------------
def fresh_dir(path: Path) -> None:
    """Make `path` an empty real directory: a link there is an error, an old tree goes."""
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        raise OSError(errno.ELOOP, "is not a plain directory; refusing to write through it",
                      str(path))
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)


# Characters from every plane: a stream that can encode these can encode any text.
_UNICODE_PROBE = "\u00e9\u0080\u4e2d\u2028\U0001f600"


def unicode_stream(stream: Any) -> bool:
    """Whether `stream` encodes all of Unicode (UTF-8, UTF-16, GB18030, ...); False for a
    terminal or pipe in Latin-1, CP1252, ASCII and the like."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        _UNICODE_PROBE.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def tolerate_unencodable(stream: Any) -> None:
    """Make `stream` print what its encoding lacks as backslash escapes (Chinese text on a
    Latin-1 terminal) instead of failing the command; Python does so for stderr already."""
    if getattr(stream, "errors", None) != "strict" or unicode_stream(stream):
        return
    with contextlib.suppress(AttributeError, ValueError, OSError):  # not a TextIOWrapper
        stream.reconfigure(errors="backslashreplace")  # (or closed)
