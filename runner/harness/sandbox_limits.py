"""Resource bounds of a sandboxed run: rlimits set in the child, and a pids cgroup.

RLIMIT_NPROC counts every process of the real user, so the limit is the user's
current count plus ``Limits.processes``.  The kernel does not enforce it for
root (nor for a user namespace whose uid maps to root outside), so when the
worker runs as root the count is also bounded by a pids cgroup of its own,
where the host lets us create one (cgroup v1 ``pids`` hierarchy, or v2 with
the pids controller); :attr:`PidsCgroup.path` is None where it does not.
"""

from __future__ import annotations

import os
import resource
import uuid
from collections.abc import Callable
from pathlib import Path

CGROUP_ROOTS = (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup"))


def user_process_count() -> int:
    uid, count = os.getuid(), 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    count += 1
            except OSError:
                pass
    return count


class PidsCgroup:
    """A throw-away pids cgroup capping the number of processes of one run."""

    def __init__(self, max_pids: int | None) -> None:
        self.path: Path | None = None
        if max_pids and os.geteuid() == 0:
            self.path = self._create(max_pids)

    @staticmethod
    def _create(max_pids: int) -> Path | None:
        for root in CGROUP_ROOTS:
            if not (root / "pids.max").exists() and not _v2_has_pids(root):
                continue
            path = root / f"ngcc-sbx-{uuid.uuid4().hex[:12]}"
            try:
                path.mkdir()
                (path / "pids.max").write_text(str(max_pids))
                return path
            except OSError:
                _remove(path)
        return None

    def join_fn(self) -> Callable[[], None] | None:
        """For the child between fork and exec: move itself into the cgroup."""
        if self.path is None:
            return None
        procs = str(self.path / "cgroup.procs")

        def join() -> None:
            fd = os.open(procs, os.O_WRONLY)
            try:
                os.write(fd, b"0")
            finally:
                os.close(fd)

        return join

    def remove(self) -> None:
        if self.path is not None:
            _remove(self.path)


def _v2_has_pids(root: Path) -> bool:
    try:
        return "pids" in (root / "cgroup.subtree_control").read_text().split()
    except OSError:
        return False


def _remove(path: Path) -> None:
    try:
        path.rmdir()
    except OSError:
        pass


def limit_setter(limits, nproc: int | None, join: Callable[[], None] | None = None):
    """The callable run in the child before exec: joins the cgroup, sets the rlimits."""
    pairs: list[tuple[int, int, int]] = []
    if limits.address_space_bytes:
        pairs.append((resource.RLIMIT_AS, limits.address_space_bytes, limits.address_space_bytes))
    if limits.cpu_seconds:
        pairs.append((resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 2))
    if limits.file_size_bytes:
        pairs.append((resource.RLIMIT_FSIZE, limits.file_size_bytes, limits.file_size_bytes))
    if nproc:
        pairs.append((resource.RLIMIT_NPROC, nproc, nproc))
    pairs.append((resource.RLIMIT_CORE, 0, 0))

    def apply() -> None:  # runs in the child: a cgroup write and setrlimit calls only
        if join is not None:
            join()
        for which, soft, hard in pairs:
            cur_soft, cur_hard = resource.getrlimit(which)
            if cur_hard != resource.RLIM_INFINITY:
                hard = min(hard, cur_hard)
                soft = min(soft, hard)
            resource.setrlimit(which, (soft, hard))

    return apply
