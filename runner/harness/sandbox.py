"""The one way NGCC Perf runs candidate code (and the compiler) as a process.

Each run goes through Debian's bubblewrap (``bwrap``):

- new user, PID, IPC, UTS, network and cgroup namespaces (``--unshare-all``): no
  network at all, and the child's tree is a PID namespace of its own, so when
  the step ends (normally or at the wall-clock limit) every process in it ends
  too, daemonised grandchildren included;
- a fixed unprivileged uid/gid (65534) inside, ``--die-with-parent``,
  ``--new-session``, a cleared environment with an explicit allow-list;
- a minimal filesystem: the toolchain and libc read-only (``/usr``, the
  ``/lib*`` and ``/bin`` links, ``/etc/ld.so.*``), the program itself and the
  paths the caller names read-only, one writable scratch directory (``cwd``),
  a private ``/proc`` and ``/dev``, ``/tmp`` as a tmpfs; no project folder, no
  database file, no home;
- the rlimits set before (address space, CPU time, file size, process count,
  no core dumps); when the worker runs as root (for whom the kernel does not
  enforce RLIMIT_NPROC) the process count is bounded by a pids cgroup where
  the host lets us create one;
- bounded capture of stdout/stderr, and the child's CPU time measured from
  outside (``wait4`` rusage of the whole tree) for the timing witness.

Where the kernel refuses namespaces, runs fail with ``spawnfail`` unless the
operator allowed unsandboxed runs (``NGCC_ALLOW_UNSANDBOXED=1``, set by the
runner for a system registered with ``--allow-unsandboxed``); they then run
with the rlimits only, and the system is flagged.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import cache
from pathlib import Path

from runner.harness.sandbox_limits import PidsCgroup, limit_setter, user_process_count

SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
SANDBOX_UID = 65534  # "nobody": fixed and unprivileged inside the user namespace
#: Read-only system paths every step sees (when they exist on the host).
SYSTEM_READ_ONLY = (
    "/usr",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
)
#: Top-level entries that are links into /usr on merged-/usr systems (bound when real dirs).
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
UNSANDBOXED_ENV = "NGCC_ALLOW_UNSANDBOXED"


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
    #: Bound the process count with a pids cgroup where RLIMIT_NPROC is not enforced (a root
    #: worker).  Attaching costs ~15 ms per run; the compiler, which runs no candidate code,
    #: does without.
    pids_cgroup: bool = True

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
    cpu_user_seconds: float = 0.0  # the whole tree, measured by the parent (wait4)
    cpu_system_seconds: float = 0.0
    sandboxed: bool = True
    channel: bytes = b""  # what arrived on the result channel (``result_option``)
    channel_bytes: int = 0

    @property
    def ok(self) -> bool:
        return self.status is Outcome.OK

    @property
    def cpu_seconds(self) -> float:
        return self.cpu_user_seconds + self.cpu_system_seconds

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

    def data(self) -> bytes:
        return b"".join(self.chunks)

    def text(self) -> str:
        data = self.data().decode("utf-8", errors="replace")
        if self.total > self.kept:
            data += f"\n[... {self.total - self.kept} more bytes dropped]\n"
        return data


def scrubbed_env(cwd: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {"PATH": SAFE_PATH, "LANG": "C", "LC_ALL": "C", "HOME": str(cwd), "TMPDIR": str(cwd)}
    env.update(extra or {})
    return env


def python_runtime() -> list[Path]:
    """What the running interpreter needs to start: its installation and its virtualenv."""
    paths = [Path(sys.base_prefix), Path(sys.prefix)]
    return list(dict.fromkeys(paths))


def _program_binds(program: str) -> list[Path]:
    """The program itself (absolute paths outside the system dirs), and Python's runtime."""
    path = Path(program)
    if not path.is_absolute():
        return []
    binds = [] if path.is_relative_to("/usr") else [path]
    if path == Path(sys.executable) or path.resolve() == Path(sys.executable).resolve():
        binds += python_runtime()
    return binds


def _bind_args(read_only: Sequence[Path], writable: Sequence[Path]) -> list[str]:
    """Bind options, parents before children (a writable scratch inside a read-only tree)."""
    ro = [Path(p) for p in dict.fromkeys(read_only)]
    # A read-only path under another read-only path is already visible.
    ro = [p for p in ro if not any(p != q and p.is_relative_to(q) for q in ro)]
    entries = [(p, "--ro-bind") for p in ro] + [(Path(p), "--bind") for p in writable]
    entries = [(p, opt) for p, opt in entries if os.path.lexists(p)]
    entries.sort(key=lambda e: (len(e[0].parts), e[1] == "--bind"))
    args: list[str] = []
    for path, opt in entries:
        args += [opt, str(path), str(path)]
    return args


def _system_args() -> list[str]:
    args: list[str] = []
    for link in SYSTEM_LINKS:
        if os.path.islink(link):
            args += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link):
            args += ["--ro-bind", link, link]
    return args


def bwrap_argv(
    argv: Sequence[str],
    *,
    workdir: Path,
    env: Mapping[str, str],
    read_only: Sequence[Path] = (),
    status_fd: int | None = None,
    as_pid_1: bool = False,
) -> list[str]:
    """The bubblewrap command line that runs ``argv`` confined to ``workdir``."""
    binds = [Path(p) for p in (*SYSTEM_READ_ONLY, *read_only, *_program_binds(argv[0]))]
    args = [shutil.which("bwrap") or "bwrap", "--unshare-all", "--die-with-parent"]
    args += ["--new-session", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID)]
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    args += _system_args() + _bind_args(binds, [workdir])
    args += ["--chdir", str(workdir), "--clearenv"]
    for key, value in env.items():
        args += ["--setenv", key, value]
    if status_fd is not None:
        args += ["--json-status-fd", str(status_fd)]
    if as_pid_1:
        args.append("--as-pid-1")
    return [*args, "--", *argv]


@cache
def namespaces_refused() -> str:
    """Why bubblewrap cannot confine a process here ('' when it can)."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    argv = bwrap_argv(["/bin/true"], workdir=Path("/tmp"), env={"PATH": SAFE_PATH})
    try:
        res = subprocess.run(argv, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bwrap cannot start: {exc}"
    if res.returncode != 0:
        return f"bwrap refused: {res.stderr.decode(errors='replace').strip()[:300]}"
    return ""


def unsandboxed_allowed() -> bool:
    return os.environ.get(UNSANDBOXED_ENV) == "1"


class _Waiter(threading.Thread):
    """``wait4`` on the child: its exit status and the rusage of its whole waited tree."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.status: int | None = None
        self.rusage: object | None = None

    def run(self) -> None:
        _, self.status, self.rusage = os.wait4(self.pid, 0)


class _StatusReader(threading.Thread):
    """bwrap's ``--json-status-fd``: the first object (written by bwrap before it runs
    the child, so the child cannot forge it) names the namespace's init pid."""

    def __init__(self, fd: int) -> None:
        super().__init__(daemon=True)
        self.fd = fd
        self.child_pid: int | None = None

    def run(self) -> None:
        with os.fdopen(self.fd, "rb") as stream:
            first = stream.readline(4096)
            try:
                self.child_pid = int(json.loads(first)["child-pid"])
            except (ValueError, KeyError, TypeError):
                pass
            while stream.read(65536):
                pass


@dataclass
class _Run:
    argv: list[str]
    workdir: Path
    limits: Limits
    started: float
    confined: bool
    single_process: bool = False
    result_option: str | None = None  # e.g. "--result-fd": a pipe for the record

    def result(self, status: Outcome, detail: str, **kw: object) -> SandboxResult:
        kw.setdefault("returncode", None)
        kw.setdefault("signal", None)
        return SandboxResult(
            argv=self.argv,
            cwd=str(self.workdir),
            status=status,
            stdout=str(kw.pop("stdout", "")),
            stderr=str(kw.pop("stderr", "")),
            wall_seconds=time.monotonic() - self.started,
            detail=detail,
            limits=_limits_dict(self.limits),
            sandboxed=self.confined,
            **kw,  # type: ignore[arg-type]
        )


def _limits_dict(limits: Limits) -> dict[str, object]:
    return {
        "address_space_bytes": limits.address_space_bytes,
        "cpu_seconds": limits.cpu_seconds,
        "file_size_bytes": limits.file_size_bytes,
        "processes": limits.processes,
        "wall_seconds": limits.wall_seconds,
    }


def _missing_program(program: str) -> str:
    if os.path.isabs(program):
        return "" if os.access(program, os.X_OK) else f"{program}: not an executable file"
    return "" if shutil.which(program, path=SAFE_PATH) else f"{program}: not found on {SAFE_PATH}"


def run_sandboxed(
    argv: Sequence[str],
    *,
    cwd: Path | str | None = None,
    limits: Limits = DEFAULT_LIMITS,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
    read_only: Sequence[Path | str] = (),
    pass_fds: Sequence[int] = (),
    single_process: bool = False,
    result_option: str | None = None,
) -> SandboxResult:
    """Run ``argv`` confined and under ``limits``; never raises for anything the child does.

    ``cwd`` is the one writable directory (a fresh temporary one, removed
    afterwards, unless given); ``read_only`` are further paths the child may read
    (the program itself and the toolchain are always there); ``env`` adds
    variables to the allow-listed environment; ``pass_fds`` stay open in the child.
    ``single_process`` runs ``argv`` as the namespace's pid 1 (``--as-pid-1``), so
    that ``wait4`` sees its CPU time (a program that forks no orphans: the timing
    driver); otherwise bubblewrap's own init reaps orphans and the CPU time is
    bubblewrap's only.  ``result_option`` opens a pipe for the program's record and
    appends ``[result_option, <fd>]`` to ``argv``; what arrives is ``channel``.
    """
    own_tmp = cwd is None
    workdir = Path(tempfile.mkdtemp(prefix="ngcc-sbx-")) if own_tmp else Path(cwd)
    refused = namespaces_refused()
    run = _Run(
        [str(a) for a in argv],
        workdir,
        limits,
        time.monotonic(),
        not refused,
        single_process,
        result_option,
    )
    try:
        if refused and not unsandboxed_allowed():
            detail = f"cannot start: no sandbox here ({refused}); see --allow-unsandboxed"
            return run.result(Outcome.SPAWNFAIL, detail, stderr=refused)
        if missing := _missing_program(run.argv[0]):
            return run.result(Outcome.SPAWNFAIL, f"cannot start: {missing}", stderr=missing)
        return _execute(
            run, scrubbed_env(workdir, env), stdin, [Path(p) for p in read_only], pass_fds
        )
    finally:
        if own_tmp:
            shutil.rmtree(workdir, ignore_errors=True)


def _spawn(
    run: _Run,
    env: dict[str, str],
    stdin: bytes | None,
    read_only: list[Path],
    pass_fds: Sequence[int],
    cgroup: PidsCgroup,
) -> tuple[subprocess.Popen, _StatusReader | None, _Reader | None]:
    limits = run.limits
    nproc = user_process_count() + limits.processes if limits.processes else None
    status_r, status_w = os.pipe() if run.confined else (-1, -1)
    result_r, result_w = os.pipe() if run.result_option else (-1, -1)
    argv = [*run.argv, run.result_option, str(result_w)] if run.result_option else run.argv
    mine = [fd for fd in (status_w, result_w) if fd >= 0]
    if run.confined:
        command = bwrap_argv(
            argv,
            workdir=run.workdir,
            env=env,
            read_only=read_only,
            status_fd=status_w,
            as_pid_1=run.single_process,
        )
        env = {}  # bwrap itself (pid 1 inside, whose environ the child can read) gets none
    else:
        command = argv
    try:
        proc = subprocess.Popen(
            command,
            cwd=run.workdir,
            env=env,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            close_fds=True,
            pass_fds=(*pass_fds, *mine),
            preexec_fn=limit_setter(limits, nproc, cgroup.join_fn()),
        )
    except BaseException:
        for fd in (status_r, result_r):
            if fd >= 0:
                os.close(fd)
        raise
    finally:
        for fd in mine:
            os.close(fd)
    status = _StatusReader(status_r) if run.confined else None
    channel = _Reader(os.fdopen(result_r, "rb"), limits.output_bytes) if result_r >= 0 else None
    for thread in (status, channel):
        if thread is not None:
            thread.start()
    return proc, status, channel


def _execute(
    run: _Run,
    env: dict[str, str],
    stdin: bytes | None,
    read_only: list[Path],
    pass_fds: Sequence[int],
) -> SandboxResult:
    limits = run.limits
    # The namespace's own init and bwrap count too.
    cgroup = PidsCgroup(limits.processes + 2 if limits.processes and limits.pids_cgroup else None)
    try:
        try:
            proc, status, channel = _spawn(run, env, stdin, read_only, pass_fds, cgroup)
        except (OSError, ValueError, subprocess.SubprocessError) as exc:
            return run.result(Outcome.SPAWNFAIL, f"cannot start: {exc}", stderr=str(exc))
        readers = [
            _Reader(proc.stdout, limits.output_bytes),
            _Reader(proc.stderr, limits.output_bytes),
        ]
        for r in readers:
            r.start()
        _feed(proc, stdin)
        waiter = _Waiter(proc.pid)
        waiter.start()
        waiter.join(limits.wall_seconds)
        timed_out = waiter.is_alive()
        if timed_out:
            _kill_tree(proc.pid, status)
            waiter.join()
        proc.returncode = os.waitstatus_to_exitcode(waiter.status or 0)
        _kill_group(proc.pid)  # strays of an unconfined run
        readers += [channel] if channel is not None else []
        for r in readers:
            r.join(timeout=5)
            r.stream.close()
        return _classify(run, proc.returncode, timed_out, readers, waiter.rusage)
    finally:
        cgroup.remove()


def _feed(proc: subprocess.Popen, stdin: bytes | None) -> None:
    if stdin is None:
        return
    try:
        proc.stdin.write(stdin)
        proc.stdin.close()
    except OSError:
        pass


def _kill_tree(pid: int, status: _StatusReader | None) -> None:
    """Kill the namespace's init (the kernel then kills everything in it), then the group."""
    inner = status.child_pid if status is not None else None
    if inner is not None and _parent_of(inner) == pid:
        try:
            os.kill(inner, signal.SIGKILL)
        except ProcessLookupError:
            pass
    _kill_group(pid)


def _parent_of(pid: int) -> int | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[1])
    except (OSError, IndexError, ValueError):
        return None


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _signal_of(rc: int, confined: bool) -> int | None:
    if rc < 0:
        return -rc
    # bwrap reports a child killed by signal N as exit status 128 + N.
    if confined and 128 < rc <= 128 + 64:
        return rc - 128
    return None


def _classify(
    run: _Run,
    rc: int,
    timed_out: bool,
    readers: list[_Reader],
    rusage: object | None,
) -> SandboxResult:
    limits = run.limits
    sig = _signal_of(rc, run.confined)
    wall = time.monotonic() - run.started
    if timed_out:
        status, detail = Outcome.TIMEOUT, f"wall-clock limit of {limits.wall_seconds:g} s"
    elif sig == signal.SIGXCPU or (sig == signal.SIGKILL and _cpu_exhausted(wall, limits)):
        status, detail = Outcome.TIMEOUT, f"CPU-time limit of {limits.cpu_seconds} s"
    elif sig == signal.SIGXFSZ:
        status, detail = Outcome.LIMIT, f"file-size limit of {limits.file_size_bytes} bytes"
    elif sig is not None:
        status, detail = Outcome.CRASH, f"killed by {_signal_name(sig)}"
    elif rc != 0:
        status, detail = Outcome.EXIT, f"exit status {rc}"
    else:
        status, detail = Outcome.OK, ""
    return run.result(
        status,
        detail,
        returncode=None if sig is not None else rc,
        signal=sig,
        stdout=readers[0].text(),
        stderr=readers[1].text(),
        stdout_bytes=readers[0].total,
        stderr_bytes=readers[1].total,
        channel=readers[2].data() if len(readers) > 2 else b"",
        channel_bytes=readers[2].total if len(readers) > 2 else 0,
        cpu_user_seconds=getattr(rusage, "ru_utime", 0.0),
        cpu_system_seconds=getattr(rusage, "ru_stime", 0.0),
    )


def _signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:  # e.g. a real-time signal
        return f"signal {sig}"


def _cpu_exhausted(wall: float, limits: Limits) -> bool:
    # SIGKILL at the hard CPU limit: only plausible once that much time passed.
    return bool(limits.cpu_seconds) and wall >= limits.cpu_seconds
