"""The sandbox: limits, process-group kill, scrubbed env, bounded output, outcome mapping.

Real child processes (the test interpreter itself and /bin/sh), no mocks.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

from runner.harness.sandbox import Limits, Outcome, run_sandboxed

PY = sys.executable


def py(code: str, **kw):
    return run_sandboxed([PY, "-I", "-c", code], **kw)


def test_ok_run_captures_output_in_a_scratch_dir(tmp_path):
    res = py("import os,sys; print('hi'); print(os.getcwd(), file=sys.stderr)", cwd=tmp_path)
    assert res.status is Outcome.OK and res.returncode == 0 and res.signal is None
    assert res.stdout == "hi\n" and res.stderr.strip() == str(tmp_path)
    assert res.wall_seconds > 0


def test_temporary_scratch_dir_is_removed():
    res = py("import os; print(os.getcwd())")
    scratch = Path(res.stdout.strip())
    assert scratch.name.startswith("ngcc-sbx-") and not scratch.exists()


def test_environment_is_scrubbed(tmp_path, monkeypatch):
    monkeypatch.setenv("NGCC_SECRET_TOKEN", "leak")
    res = py(
        "import os, json; print(json.dumps(dict(os.environ)))", cwd=tmp_path, env={"EXTRA": "1"}
    )
    import json

    env = json.loads(res.stdout)
    assert "NGCC_SECRET_TOKEN" not in env
    assert env["HOME"] == str(tmp_path) and env["LC_ALL"] == "C" and env["EXTRA"] == "1"
    assert env["PATH"] == "/usr/local/bin:/usr/bin:/bin"


def test_rlimits_are_applied_in_the_child():
    limits = Limits(
        address_space_bytes=1 << 31, cpu_seconds=7, file_size_bytes=1 << 20, processes=16
    )
    res = py(
        "import resource as r; print(*[r.getrlimit(x)[0] for x in "
        "(r.RLIMIT_AS, r.RLIMIT_CPU, r.RLIMIT_FSIZE, r.RLIMIT_CORE)])",
        limits=limits,
    )
    assert res.stdout.split() == [str(1 << 31), "7", str(1 << 20), "0"]


def test_own_session_and_process_group():
    res = py("import os; print(os.getpgid(0) == os.getpid(), os.getsid(0) == os.getpid())")
    assert res.stdout.split() == ["True", "True"]


def test_wall_clock_timeout_kills_the_whole_group(tmp_path):
    res = run_sandboxed(
        ["/bin/sh", "-c", "sleep 60 & echo $! > child.pid; sleep 60"],
        cwd=tmp_path,
        limits=Limits(wall_seconds=1),
    )
    assert res.status is Outcome.TIMEOUT and "wall-clock" in res.detail
    child = int((tmp_path / "child.pid").read_text())

    def gone() -> bool:
        stat = Path(f"/proc/{child}/stat")
        return not stat.exists() or ") Z " in stat.read_text()

    # The grandchild was killed with the group; wait (bounded) for the kernel to reap it.
    deadline = time.monotonic() + 30
    while not gone() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone()


def test_cpu_limit_maps_to_timeout():
    res = py("while True: pass", limits=Limits(cpu_seconds=1, wall_seconds=30))
    assert res.status is Outcome.TIMEOUT and "CPU-time" in res.detail


def test_address_space_limit_makes_big_allocations_fail():
    res = py("b = bytearray(3 << 30)", limits=Limits(address_space_bytes=1 << 30))
    assert res.status is Outcome.EXIT and res.returncode == 1 and "MemoryError" in res.stderr


def test_file_size_limit_maps_to_limit(tmp_path):
    # (Python ignores SIGXFSZ, so a plain C tool writes the file)
    res = run_sandboxed(
        ["/bin/sh", "-c", "exec head -c 4194304 /dev/zero > big"],
        cwd=tmp_path,
        limits=Limits(file_size_bytes=1 << 20),
    )
    assert res.status is Outcome.LIMIT and res.signal == signal.SIGXFSZ


def test_signal_maps_to_crash():
    res = py("import os; os.kill(os.getpid(), 11)")
    assert res.status is Outcome.CRASH and res.signal == 11 and res.returncode is None
    assert res.detail == "killed by SIGSEGV"


def test_nonzero_exit_maps_to_exit():
    res = py("raise SystemExit(253)")
    assert res.status is Outcome.EXIT and res.returncode == 253


def test_output_is_bounded_but_drained():
    res = py("import sys; sys.stdout.write('x' * (5 << 20))", limits=Limits(output_bytes=1000))
    assert res.ok and res.stdout_bytes == 5 << 20
    assert res.stdout.startswith("x" * 1000) and "more bytes dropped" in res.stdout
    assert len(res.stdout) < 2000


def test_stdin_is_passed():
    res = py("import sys; print(sys.stdin.read().upper())", stdin=b"abc")
    assert res.stdout == "ABC\n"


def test_unstartable_program_is_reported_not_raised():
    res = run_sandboxed(["/nonexistent/program"])
    assert res.status is Outcome.SPAWNFAIL and "cannot start" in res.detail
    assert os.getpid() > 0
