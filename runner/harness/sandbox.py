"""The one way NGCC Perf runs candidate code (and the compiler) as a process.

Each run gets:
- its own session and process group (``start_new_session``), so a wall-clock
  timeout kills every process the candidate started;
- rlimits on address space, CPU time, file size and process count (set in the
  child between fork and exec; the callable only calls ``setrlimit``);
- a scratch working directory (a fresh temporary one unless the caller gives
  one) and a scrubbed environment (PATH, LANG/LC_ALL=C, HOME/TMPDIR = cwd);
- bounded capture of stdout/stderr (the rest is drained and counted).

The outcome is mapped to an :class:`Outcome`.  RLIMIT_NPROC counts every
process of the real user, so the limit is set to the user's current count plus
``Limits.processes``; it is not enforced for root.
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path

SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"


class Outcome(StrEnum):
    OK = "ok"  # exit status 0
    EXIT = "exit"  # non-zero exit status
    TIMEOUT = "timeout"  # wall-clock or CPU-time limit
    CRASH = "crash"  # killed by a signal (SIGSEGV, SIGABRT, SIGKILL, ...)
    LIMIT = "limit"  # file-size limit (SIGXFSZ)
    SPAWNFAIL = "spawnfail"  # could not be started at all


@dataclass(frozen=True)
class Limits:
    address_space_bytes: int | None = 4 << 30
    cpu_seconds: int | None = 900
    file_size_bytes: int | None = 4 << 30
    processes: int | None = 64
    wall_seconds: float = 900.0
    output_bytes: int = 1 << 20  # kept per stream

    def but(self, **changes: object) -> Limits:
        return replace(self, **changes)  # type: ignore[arg-type]


DEFAULT_LIMITS = Limits()


@dataclass
class SandboxResult:
    argv: list[str]
    cwd: str
    status: Outcome
    returncode: int | None  # exit status, None when killed by a signal
    signal: int | None
    stdout: str
    stderr: str
    wall_seconds: float
    detail: str = ""
    stdout_bytes: int = 0  # total produced, including what was dropped
    stderr_bytes: int = 0
    limits: dict[str, object] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status is Outcome.OK

    def describe(self) -> str:
        return f"{self.status.value}: {self.detail}" if self.detail else self.status.value


class _Reader(threading.Thread):
    """Drain a pipe, keeping at most ``keep`` bytes."""

    def __init__(self, stream, keep: int) -> None:
        super().__init__(daemon=True)
        self.stream, self.keep = stream, keep
        self.chunks: list[bytes] = []
        self.kept = 0
        self.total = 0

    def run(self) -> None:
        try:
            while chunk := self.stream.read1(65536):
                self.total += len(chunk)
                if self.kept < self.keep:
                    part = chunk[: self.keep - self.kept]
                    self.chunks.append(part)
                    self.kept += len(part)
        except (OSError, ValueError):
            pass

    def text(self) -> str:
        data = b"".join(self.chunks).decode("utf-8", errors="replace")
        if self.total > self.kept:
            data += f"\n[... {self.total - self.kept} more bytes dropped]\n"
        return data


def _user_process_count() -> int:
    uid, count = os.getuid(), 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    count += 1
            except OSError:
                pass
    return count


def _limit_setter(limits: Limits, nproc: int | None):
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

    def apply() -> None:  # runs in the child: setrlimit calls only
        for which, soft, hard in pairs:
            cur_soft, cur_hard = resource.getrlimit(which)
            if cur_hard != resource.RLIM_INFINITY:
                hard = min(hard, cur_hard)
                soft = min(soft, hard)
            resource.setrlimit(which, (soft, hard))

    return apply


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def scrubbed_env(cwd: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {"PATH": SAFE_PATH, "LANG": "C", "LC_ALL": "C", "HOME": str(cwd), "TMPDIR": str(cwd)}
    env.update(extra or {})
    return env


def run_sandboxed(
    argv: Sequence[str],
    *,
    cwd: Path | str | None = None,
    limits: Limits = DEFAULT_LIMITS,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
) -> SandboxResult:
    """Run ``argv`` under ``limits``; never raises for anything the child does.

    ``cwd`` is the scratch directory; when omitted a temporary one is created
    and removed afterwards.  ``env`` adds variables to the scrubbed environment.
    """
    own_tmp = cwd is None
    workdir = Path(tempfile.mkdtemp(prefix="ngcc-sbx-")) if own_tmp else Path(cwd)
    argv = [str(a) for a in argv]
    nproc = _user_process_count() + limits.processes if limits.processes else None
    started = time.monotonic()
    try:
        try:
            proc = subprocess.Popen(
                argv,
                cwd=workdir,
                env=scrubbed_env(workdir, env),
                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                close_fds=True,
                preexec_fn=_limit_setter(limits, nproc),
            )
        except (OSError, subprocess.SubprocessError) as exc:
            return SandboxResult(
                argv,
                str(workdir),
                Outcome.SPAWNFAIL,
                None,
                None,
                "",
                str(exc),
                time.monotonic() - started,
                detail=f"cannot start: {exc}",
            )
        readers = [
            _Reader(proc.stdout, limits.output_bytes),
            _Reader(proc.stderr, limits.output_bytes),
        ]
        for r in readers:
            r.start()
        if stdin is not None:
            try:
                proc.stdin.write(stdin)
                proc.stdin.close()
            except OSError:
                pass
        timed_out = False
        try:
            proc.wait(timeout=limits.wall_seconds)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc.pid)
            proc.wait()
        wall = time.monotonic() - started
        _kill_group(proc.pid)  # stray children left in the group
        for r in readers:
            r.join(timeout=5)
        for stream in (proc.stdout, proc.stderr):
            stream.close()
        return _classify(proc.returncode, timed_out, wall, argv, workdir, limits, readers)
    finally:
        if own_tmp:
            shutil.rmtree(workdir, ignore_errors=True)


def _classify(
    rc: int,
    timed_out: bool,
    wall: float,
    argv: list[str],
    workdir: Path,
    limits: Limits,
    readers: list[_Reader],
) -> SandboxResult:
    sig = -rc if rc < 0 else None
    if timed_out:
        status, detail = Outcome.TIMEOUT, f"wall-clock limit of {limits.wall_seconds:g} s"
    elif sig == signal.SIGXCPU or (sig == signal.SIGKILL and _cpu_exhausted(wall, limits)):
        status, detail = Outcome.TIMEOUT, f"CPU-time limit of {limits.cpu_seconds} s"
    elif sig == signal.SIGXFSZ:
        status, detail = Outcome.LIMIT, f"file-size limit of {limits.file_size_bytes} bytes"
    elif sig is not None:
        try:
            name = signal.Signals(sig).name
        except ValueError:  # e.g. a real-time signal
            name = f"signal {sig}"
        status, detail = Outcome.CRASH, f"killed by {name}"
    elif rc != 0:
        status, detail = Outcome.EXIT, f"exit status {rc}"
    else:
        status, detail = Outcome.OK, ""
    return SandboxResult(
        argv=argv,
        cwd=str(workdir),
        status=status,
        returncode=None if sig is not None else rc,
        signal=sig,
        stdout=readers[0].text(),
        stderr=readers[1].text(),
        wall_seconds=wall,
        detail=detail,
        stdout_bytes=readers[0].total,
        stderr_bytes=readers[1].total,
        limits={
            "address_space_bytes": limits.address_space_bytes,
            "cpu_seconds": limits.cpu_seconds,
            "file_size_bytes": limits.file_size_bytes,
            "processes": limits.processes,
            "wall_seconds": limits.wall_seconds,
        },
    )


def _cpu_exhausted(wall: float, limits: Limits) -> bool:
    # SIGKILL at the hard CPU limit: only plausible once that much time passed.
    return bool(limits.cpu_seconds) and wall >= limits.cpu_seconds
