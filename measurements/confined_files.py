"""Reading files of an imported folder without leaving it, blocking on it or exhausting memory.

Every path an importer reads goes through `read_confined`: each component is checked with
``lstat`` (never ``stat``, never ``open`` first), so a symlink, a FIFO, a device or a directory
where a file is expected is refused before anything is opened; the file is then opened with
``O_NOFOLLOW | O_NONBLOCK`` and checked again on the open descriptor (it may have been swapped
in between), and at most `limit` bytes are read. No Django here: the importer and the runner
can both use it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath

from measurements.harness_records import HarnessDataError

#: Default largest file an importer reads (the largest shared harness file is ~300 KB).
DEFAULT_MAX_FILE_BYTES = 16 * 1024 * 1024


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def relative_parts(rel: str, *, display: str, field: str) -> tuple[str, ...]:
    """The components of a dataset-relative path, refusing absolute paths, `..` and NUL."""
    if "\x00" in rel:
        raise HarnessDataError(display, field, "path contains a NUL byte")
    posix = PurePosixPath(rel)
    if not rel or posix.is_absolute() or ".." in posix.parts or "\\" in rel:
        raise HarnessDataError(display, field, f"{rel!r} is not a path inside the dataset folder")
    return posix.parts


def check_regular_file(root: Path, rel: str) -> os.stat_result:
    """lstat every component of `root/rel`: directories on the way, a regular file at the end."""
    display = str(root / rel)
    parts = relative_parts(rel, display=display, field="<file>")
    current = root
    for depth, part in enumerate(parts):
        current = current / part
        try:
            info = os.lstat(current)
        except FileNotFoundError as exc:
            raise HarnessDataError(display, "<file>", "missing from the dataset folder") from exc
        last = depth == len(parts) - 1
        wanted = stat.S_ISREG if last else stat.S_ISDIR
        if not wanted(info.st_mode):
            what = "a regular file" if last else "a directory"
            raise HarnessDataError(
                str(current), "<file>", f"is {_kind(info.st_mode)}, expected {what}; refused"
            )
    return info


def read_confined(root: Path, rel: str, *, limit: int = DEFAULT_MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file `root/rel`, refused if it escapes, is special or too big."""
    display = str(root / rel)
    info = check_regular_file(root, rel)
    if info.st_size > limit:
        raise HarnessDataError(
            display, "<file>", f"{info.st_size} bytes exceeds the import limit of {limit} bytes"
        )
    # O_NONBLOCK: should a FIFO be swapped in after the lstat, open() still returns at once.
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(root / rel, flags)
    except OSError as exc:
        raise HarnessDataError(display, "<file>", f"cannot be opened safely ({exc})") from exc
    with os.fdopen(fd, "rb") as handle:
        opened = os.fstat(handle.fileno())
        if not stat.S_ISREG(opened.st_mode) or opened.st_ino != info.st_ino:
            raise HarnessDataError(display, "<file>", "changed while being opened; refused")
        # Read one byte past the limit so that a file grown since the lstat is refused too.
        content = handle.read(limit + 1)
    if len(content) > limit:
        raise HarnessDataError(
            display, "<file>", f"more than {limit} bytes exceeds the import limit; refused"
        )
    return content


def list_regular_files(root: Path, sub: str, suffix: str) -> list[str]:
    """Dataset-relative paths of `root/sub/*/*suffix`, refusing anything but regular files.

    A directory named ``x.json``, a symlinked folder or a FIFO among the entries fails the whole
    import (with its name) rather than being skipped silently.
    """
    folder = root / sub
    try:
        top = os.lstat(folder)
    except FileNotFoundError:
        return []
    if not stat.S_ISDIR(top.st_mode):
        raise HarnessDataError(
            str(folder), "<file>", f"is {_kind(top.st_mode)}, expected a directory"
        )
    found: list[str] = []
    for group in sorted(os.scandir(folder), key=lambda e: e.name):
        if group.is_file(follow_symlinks=False):
            continue  # a note next to the per-candidate folders is not part of the data
        if not group.is_dir(follow_symlinks=False):
            raise HarnessDataError(group.path, "<file>", "is not a directory; refused")
        for entry in sorted(os.scandir(group.path), key=lambda e: e.name):
            if not entry.name.endswith(suffix):
                continue
            rel = f"{sub}/{group.name}/{entry.name}"
            check_regular_file(root, rel)
            found.append(rel)
    return found
