"""Every faulty fixture ends with its status and a log, and the test process survives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.runner.conftest import FAULTY_EXPECTED


@pytest.mark.parametrize("name,expected", sorted(FAULTY_EXPECTED.items()))
def test_fixture_final_status_and_log(faulty_checks, name, expected):
    check = faulty_checks[name]
    final = check.final
    assert final.status.value == expected, final.detail
    assert final.log_path is not None and final.log_path.is_file()
    last = final.log_path.read_text().splitlines()[-1]
    assert last.startswith(f"RESULT {final.candidate} {name} {expected}")
    if expected != "PASS":  # the guide failure was retried with harness-default
        assert [b.flags_label for b in check.builds] == ["guide", "harness-default"]
        assert final.guide_result == expected
    assert os.getpid() > 0  # still here


def test_fixture_details(faulty_checks):
    assert faulty_checks["segv-dec"].final.detail == "killed by SIGSEGV"
    assert faulty_checks["malloc-10g"].final.run["limits"]["address_space_bytes"] < 10 << 30
    assert "wall-clock" in faulty_checks["loop-keygen"].final.detail
    assert "wrote past the ct buffer" in faulty_checks["overflow-ct"].final.detail
    assert faulty_checks["overflow-ct"].final.functional.status == "OVERFLOW"
    mismatch = faulty_checks["kat-mismatch"].final
    assert mismatch.first_difference.startswith("line 11: expected 'SS = ")
    assert faulty_checks["missing-symbol"].final.detail == "library does not export kem_dec"
    assert "undefined reference" in faulty_checks["undefined-reference"].final.detail
    assert "broken.c" in faulty_checks["non-compiling"].final.detail


def test_no_fixture_process_survives(faulty_checks):
    assert faulty_checks  # all fixtures have run
    leftovers = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmd = (proc / "cmdline").read_bytes()
            except OSError:
                continue
            if b"KAT_loop-keygen" in cmd or b"KAT_segv-dec" in cmd:
                leftovers.append(cmd)
    assert leftovers == []
