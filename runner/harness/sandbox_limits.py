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
import signal
import time
import uuid
from collections.abc import Callable
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
CGROUP_V1_PIDS = CGROUP_ROOT / "pids"
PREFIX = "ngcc-sbx-"


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
        for base in _own_pids_cgroups():
            # The creating process's pid is part of the name: only a cgroup whose creator is
            # gone is stale (`remove_stale_cgroups`), so two workers or two test suites on one
            # machine never empty each other's running steps.
            path = base / f"{PREFIX}{os.getpid()}-{uuid.uuid4().hex[:12]}"
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
        """Kill whatever is still in the cgroup, then remove it (bounded: 2 s)."""
        if self.path is None:
            return
        deadline = time.monotonic() + 2.0
        while True:
            for pid in self.pids():
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            if _remove(self.path) or time.monotonic() > deadline:
                return
            time.sleep(0.01)  # exiting processes leave the cgroup once reaped

    def pids(self) -> list[int]:
        try:
            text = (self.path / "cgroup.procs").read_text() if self.path else ""
        except OSError:
            return []
        return [int(x) for x in text.split()]


def _creator_alive(path: Path) -> bool:
    """Whether the process that created step cgroup `path` still runs (unknown: assume so)."""
    creator = path.name[len(PREFIX) :].split("-", 1)[0]
    if not creator.isdigit():
        return False  # a name from before the creator was recorded: a dead worker's
    try:
        os.kill(int(creator), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_cgroups() -> int:
    """Empty and remove the step cgroups a killed worker left behind; returns how many.

    At a worker's start: a step interrupted by a killed worker can leave bubblewrap's
    namespace init waiting for a parent that is gone. Only cgroups whose creating process is
    gone are touched, so the running steps of another worker on the same machine are safe.
    """
    removed = 0
    for base in _own_pids_cgroups():
        for path in base.glob(f"{PREFIX}*"):
            if _creator_alive(path):
                continue
            stale = PidsCgroup(None)
            stale.path = path
            stale.remove()
            removed += not path.exists()
    return removed


def _own_pids_cgroups() -> list[Path]:
    """Where this process may create a child pids cgroup: its own cgroup in the v1 ``pids``
    hierarchy, or in the v2 hierarchy when the pids controller is enabled below it."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "pids" in controllers.split(","):
            found.append(CGROUP_V1_PIDS / path.lstrip("/"))
        elif controllers == "":
            base = CGROUP_ROOT / path.lstrip("/")
            try:
                if "pids" in (base / "cgroup.subtree_control").read_text().split():
                    found.append(base)
            except OSError:
                pass
    return [p for p in found if p.is_dir()]


def _remove(path: Path) -> bool:
    try:
        path.rmdir()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True


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
