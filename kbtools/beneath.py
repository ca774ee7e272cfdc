"""No-follow I/O below a directory: what a device directory is read and written with.

Every path component below `root` is opened with O_NOFOLLOW, so a symbolic link anywhere
under root (shipped by a release or planted beside it) makes the call fail instead of
reaching outside; reads never block on a FIFO or device (O_NONBLOCK, then fstat must say
regular file) and stop at a byte limit. Also the bounded read of a regular file an operator
names (`read_regular`) and `write_all`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path

_NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC


def _segments(rel: str) -> list[str]:
    parts = rel.split("/")
    if "\0" in rel or any(p in ("", ".", "..") for p in parts):
        raise OSError(errno.EINVAL, "not a plain relative path", rel)
    return parts


def _refused(exc: OSError, shown: str) -> OSError:
    if exc.errno == errno.ELOOP:
        return OSError(errno.ELOOP, "is a symbolic link; refusing to follow it", shown)
    return OSError(exc.errno, exc.strerror, shown)


def _open_dir(root: Path, parts: list[str], *, create: bool, dir_fd: int | None = None) -> int:
    """An fd of root/parts[0]/..., each component opened without following links; from
    `dir_fd` instead of the name `root` when given (`root` then only names it in errors)."""
    fd = os.dup(dir_fd) if dir_fd is not None else os.open(
        root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    done = root
    try:
        for seg in parts:
            done = done / seg
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(seg, 0o777, dir_fd=fd)
            try:
                nxt = os.open(seg, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW, dir_fd=fd)
            except OSError as exc:
                raise _refused(exc, str(done)) from None
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_beneath(root: Path, rel: str, flags: int, mode: int = 0o666, *,
                 mkdirs: bool = False, dir_fd: int | None = None) -> int:
    """os.open of root/rel (rel: '/'-separated, no '.', '..' or empty parts) that follows no
    symbolic link below `root`; `mkdirs` creates missing parent directories. `dir_fd`: the
    directory `root` named when it was opened (held open: renamed since, it is still that
    one)."""
    parts = _segments(rel)
    dfd = _open_dir(root, parts[:-1], create=mkdirs, dir_fd=dir_fd)
    try:
        return os.open(parts[-1], flags | _NOFOLLOW, mode, dir_fd=dfd)
    except OSError as exc:
        raise _refused(exc, str(root / rel)) from None
    finally:
        os.close(dfd)


def mkdir_beneath(root: Path, rel: str) -> None:
    """Create root/rel and its parents as real directories (a link on the way is an error)."""
    os.close(_open_dir(root, _segments(rel), create=True))


def read_fd_regular(fd: int, limit: int, shown: str) -> bytes:
    """Read a regular file's fd to the end, at most `limit` bytes (else OSError EFBIG)."""
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        raise OSError(errno.EINVAL, "not a regular file", shown)
    if st.st_size > limit:
        raise OSError(errno.EFBIG, f"larger than {limit} bytes", shown)
    chunks: list[bytes] = []
    left = limit + 1
    while left > 0:
        block = os.read(fd, min(left, 1 << 20))
        if not block:
            break
        chunks.append(block)
        left -= len(block)
    if left <= 0:
        raise OSError(errno.EFBIG, f"larger than {limit} bytes", shown)
    return b"".join(chunks)


def read_beneath(root: Path, rel: str, limit: int, *, dir_fd: int | None = None) -> bytes:
    """The bytes of regular file root/rel (no link followed below root; never blocks);
    `dir_fd` as in `open_beneath`."""
    fd = open_beneath(root, rel, os.O_RDONLY | os.O_NONBLOCK, dir_fd=dir_fd)
    try:
        return read_fd_regular(fd, limit, str(root / rel))
    finally:
        os.close(fd)


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of a regular file an operator named (links followed, FIFOs and devices
    refused without blocking, at most `limit` bytes)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        return read_fd_regular(fd, limit, str(path))
    finally:
        os.close(fd)


def write_beneath(root: Path, rel: str, data: bytes) -> None:
    """Create root/rel (it must not exist yet) with `data`, parents made as needed."""
    fd = open_beneath(root, rel, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mkdirs=True)
    try:
        write_all(fd, data)
    finally:
        os.close(fd)


def atomic_write_beneath(root: Path, rel: str, data: bytes, mode: int = 0o666, *,
                         durable: bool = True) -> None:
    """Replace root/rel with `data` atomically (temp file + rename in its directory), durably
    (the file, then its directory fsynced: pinned keys must survive a power cut) unless not
    `durable` (`sync_tree` then flushes many at once); the temp file: `mode` less umask."""
    parts = _segments(rel)
    dfd = _open_dir(root, parts[:-1], create=True)
    tmp = f".{parts[-1]}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, mode, dir_fd=dfd)
        try:
            write_all(fd, data)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, parts[-1], src_dir_fd=dfd, dst_dir_fd=dfd)
        if durable:  # the rename itself, or a power cut may bring back the old file
            os.fsync(dfd)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dfd)
        if isinstance(exc, OSError):  # (a full disk) named as root/rel, not as the temp file
            raise _refused(exc, str(root / rel)) from None
        raise
    finally:
        os.close(dfd)


def append_beneath(root: Path, rel: str, data: bytes) -> None:
    """Append `data` to root/rel (created if missing) and fsync it; never through a link,
    never into a FIFO or device (opened non-blocking, so a FIFO cannot hang us) and never
    into a file with other names (a hard link planted there may lead anywhere)."""
    fd = open_beneath(root, rel, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK,
                      mkdirs=True)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
            raise OSError(errno.EPERM, "not a plain file of its own (a FIFO, device or hard "
                          "link); refusing to write to it", str(root / rel))
        write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes) -> None:
    """os.write until all of `data` is written."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
