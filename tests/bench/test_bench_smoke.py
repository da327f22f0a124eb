"""Every benchmark runs from a clone: each executable `bench/*` script, in its smoke mode
(`NGCC_BENCH_SMOKE=1`: a tiny budget, seconds), exits 0 and prints its figures.

Benchmarks assert nothing about speed; neither does this test — it checks that they run and
report, so none breaks silently. They use a temporary SQLite database of their own (the test
database settings are removed from their environment).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import SHARED_MISSING_REASON, SHARED_PRESENT

ROOT = Path(__file__).resolve().parents[2]
BENCHES = sorted(p for p in (ROOT / "bench").iterdir() if p.is_file() and os.access(p, os.X_OK))

#: Lines each known benchmark must print (regular expressions, one per figure line). A
#: benchmark not listed here (e.g. one added on another branch) is still run and must print at
#: least one line with a number; add its figure lines here.
FIGURES: dict[str, tuple[str, ...]] = {
    "harness_precision": (
        r"^example KEM kem-ex1/\S+ .*\[smoke run",
        *(rf"^{op}\s+\d+\.\d\d\s+ *(\d+\.\d\d%|n/a)" for op in ("keygen", "enc", "dec")),
        r"^total\s+\d+\.\d\d",
        r"^counter: \w+ at \d+\.\d MHz; read overhead \d+ counter units",
        r"^goal: adaptive time <= 1/3 of guide time per operation: worst ratio \d+\.\d{3}",
    ),
    "api_trials": (
        r"^database\s+sqlite3$",
        r"^trials stored\s+2000 ",
        r"^\s+page_size=100\s+2000\s",
        r"^\s+page_size=1000\s+2000\s",
        r"^CSV export \(streamed\)\s+2000\s",
        r"^goal >= 20,000 rows/s: JSON (met|NOT met)",
    ),
    "import": (
        r"^database\s+sqlite3$",
        r"^catalogs\s+\d+\.\d\d s$",
        r"^arm_1 dataset\s+\d+\.\d\d s  \(\d+ files\)$",
        r"^total import\s+\d+\.\d\d s  \(goal < 10 s: (met|NOT met)\)$",
        r"^rows written\s+[1-9]\d*  ",
    ),
    "page_render": (
        r"^database sqlite3, 1 renders per page after one warm-up$",
        *(
            rf"^{re.escape(page)}\s+\d+\.\dms\s+\d+\.\dms\s+\d+\s+\d+  \[200\]$"
            for page in (
                "candidate kem-29 (3 instances)",
                "candidate kem-30 (5 instances)",
                "evidence view (record JSON)",
                "evidence view (KAT log)",
                "system summary arm_1",
                "KAT overview",
            )
        ),
        r"^Markdown export \(4 pages, perf\.md\)\s+\d+\.\dms",
    ),
}


def _needs_shared(script: Path) -> bool:
    """Benchmarks that read the shared reference data name its setting."""
    return "NGCC_SHARED_DIR" in script.read_text()


def _run_smoke(script: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.pop("DJANGO_SETTINGS_MODULE", None)  # the bench sets its own, as from a shell
    env["NGCC_BENCH_SMOKE"] = "1"
    return subprocess.run(
        [str(script)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.slow
@pytest.mark.parametrize("script", BENCHES, ids=lambda p: p.name)
def test_benchmark_smoke_run_prints_its_figures(script: Path) -> None:
    if _needs_shared(script) and not SHARED_PRESENT:
        pytest.skip(SHARED_MISSING_REASON)
    result = _run_smoke(script)
    report = f"exit {result.returncode}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"
    assert result.returncode == 0, report
    lines = result.stdout.splitlines()
    expected = FIGURES.get(script.name, (r"\d",))
    missing = [p for p in expected if not any(re.search(p, line) for line in lines)]
    assert missing == [], report
