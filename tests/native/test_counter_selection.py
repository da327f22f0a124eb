"""Counter choice at driver start: recorded with its frequency and read overhead."""

from __future__ import annotations

import json
import platform

import pytest

from runner.harness.driver_output import parse_driver_output
from runner.harness.timing import build_driver
from tests.native.fixtures.toy import build_toy, run_tool


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    base = tmp_path_factory.mktemp("counter")
    return build_driver(out_dir=base / "bin"), build_toy(base / "toy").library


def _run(tools, *extra, env=None):
    driver, lib = tools
    res = run_tool([driver, "--iterations", "32", *extra, lib, "keygen"], env=env)
    return res, json.loads(res.stdout)


def test_auto_counter_is_recorded_with_frequency_and_overhead(tools):
    res, out = _run(tools)
    assert res.ok, res.stderr
    counter = out["counter"]
    assert counter["name"] in {"perf_cycles", "tsc", "cntvct_el0", "monotonic_raw"}
    assert counter["hz"] > 1e6
    assert counter["overhead_cycles"] >= 0
    run = parse_driver_output(res.stdout)
    assert run.trials[0]["counter"] == counter["name"]


def test_forced_monotonic_counts_nanoseconds(tools):
    res, out = _run(tools, "--counter", "monotonic")
    assert res.ok
    assert out["counter"]["name"] == "monotonic_raw"
    assert out["counter"]["hz"] == 1e9
    trial = out["trials"][0]
    # Nanosecond units of the same clock as the wall time, whose two reads enclose the counter's
    # first and last: the total never exceeds the wall time (how much less depends on load).
    assert 0 < trial["cycles"] <= round(trial["seconds"] * 1e9) + 1


def test_counter_can_be_forced_by_environment(tools):
    res, out = _run(tools, env={"NGCC_COUNTER": "monotonic"})
    assert out["counter"]["name"] == "monotonic_raw"


@pytest.mark.skipif(platform.machine() not in ("x86_64", "aarch64"), reason="no TSC here")
def test_forced_timestamp_counter_has_measured_or_architectural_rate(tools):
    name = "tsc" if platform.machine() == "x86_64" else "cntvct_el0"
    res, out = _run(tools, "--counter", name)
    assert res.ok, res.stdout
    assert out["counter"]["name"] == name
    assert 1e6 < out["counter"]["hz"] < 1e10
    # A fenced read pair costs something, but far less than a microsecond's worth of ticks.
    assert 0 < out["counter"]["overhead_cycles"] < out["counter"]["hz"] * 1e-6 * 10


def test_forced_perf_either_counts_cycles_or_refuses(tools):
    res, out = _run(tools, "--counter", "perf")
    if out["status"] == "complete":
        assert out["counter"]["name"] == "perf_cycles"
        assert out["trials"][0]["cycles"] > 0
    else:  # virtual machines without a PMU: a forced counter never silently falls back
        assert res.returncode == 2
        assert "perf" in out["error"]
        assert out["trials"] == []


def test_unknown_counter_is_an_error(tools):
    res, out = _run(tools, "--counter", "sundial")
    assert out["status"] == "error"
    assert "sundial" in out["error"]
