"""The timing step on real processes with tiny plans."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from measurements.harness_records import parse_timing_record, timing_record_json
from measurements.stats import aggregates_from_trials
from runner.harness.timing import (
    AdaptiveParams,
    GuideParams,
    InconsistentTiming,
    build_driver,
    measure_operation,
    sandbox_runner,
)
from tests.native.fixtures.toy import build_toy

TINY_GUIDE = GuideParams(trials=3, target_trial_s=0.02, min_total_calls=30)
TINY_ADAPTIVE = AdaptiveParams(trial_target_s=0.01, budget_s=5.0, calibration_s=0.005)


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    base = tmp_path_factory.mktemp("measure")
    return build_driver(out_dir=base / "bin"), build_toy(base / "toy").library


def _record(m):
    """The record built from the driver output, in its evidence (harness JSON) shape."""
    return timing_record_json(m.to_record(candidate="kem-toy", label="toy-1", instance="TOY_1"))


def test_guide_plan_runs_fresh_pinned_processes_and_aggregates_recompute(toy):
    driver, lib = toy
    m = measure_operation(driver=driver, library=lib, operation="enc", guide=TINY_GUIDE, cpu=0)
    assert m.error is None
    assert m.plan["planner"] == "guide" and m.plan["trials"] == 3
    assert len(m.runs) == 3 and len(m.processes) == 3  # one process per trial
    for p in m.processes:
        assert p["command"][p["command"].index("--cpu") + 1] == "0"
        assert p["meta"]["pinned_cpu"] == 0
        assert len(p["trials"]) == 1 and p["trials"][0]["cpu"] == 0
    record = _record(m)
    assert record["status"] == "complete"
    assert record["measurements"] == 3 * m.plan["iterations_per_trial"]
    assert record["counter"]["name"] and record["counter"]["hz"] > 0
    assert record["counter"]["overhead_cycles"] >= 0
    assert record["stack_high_water_bytes"] > 0
    assert record["peak_rss_bytes"] >= record["baseline_rss_bytes"] > 0
    st = record["sample_stats"]
    # One sample per full batch, as planned (how many calls the plan asks for depends on speed).
    assert st["count"] == 3 * (m.plan["iterations_per_trial"] // m.plan["batch_calls"])
    assert st["ci95_low"] <= st["median"] <= st["ci95_high"]
    assert st["q1"] <= st["median"] <= st["q3"]
    # Every aggregate recomputes from the trials (and the shared parser agrees).
    recomputed = aggregates_from_trials(parse_timing_record("r.json", record).trials)
    for key, value in recomputed.as_dict().items():
        assert record[key] == pytest.approx(value, rel=1e-12)
    assert record["mean_cycles"] == pytest.approx(
        sum(t["cycles"] for t in record["trials"]) / record["measurements"]
    )
    # Built from the driver output or read back from its evidence: the same record.
    built = m.to_record(candidate="kem-toy", label="toy-1", instance="TOY_1")
    evidence = json.loads(json.dumps(timing_record_json(built)))
    assert parse_timing_record(built.path, evidence) == built


def test_adaptive_plan_stops_on_precision(toy):
    driver, lib = toy
    m = measure_operation(
        driver=driver, library=lib, operation="keygen", planner="adaptive", adaptive=TINY_ADAPTIVE
    )
    assert m.error is None
    # Which rule stops it depends on how many trials fit in the budget; each rule's promise holds.
    assert m.plan["stopped_by"] in ("precision", "budget")
    if m.plan["stopped_by"] == "precision":
        assert len(m.runs) >= TINY_ADAPTIVE.min_trials
        assert m.precision_reached <= 0.01
    else:
        assert len(m.runs) >= 1
        assert m.plan["elapsed_at_stop_s"] + m.plan["trial_estimate_s"] > TINY_ADAPTIVE.budget_s
    assert m.plan["precision_reached"] == pytest.approx(m.precision_reached)
    assert _record(m)["plan"]["planner"] == "adaptive"


def test_adaptive_plan_respects_its_budget(toy):
    driver, lib = toy
    params = replace(TINY_ADAPTIVE, precision=1e-9, budget_s=0.5)
    m = measure_operation(
        driver=driver, library=lib, operation="enc", planner="adaptive", adaptive=params
    )
    # An unreachable precision: the budget stops it, before a trial that would not fit.
    assert m.plan["stopped_by"] == "budget" and len(m.runs) >= 1
    assert m.plan["elapsed_at_stop_s"] + m.plan["trial_estimate_s"] > 0.5
    assert m.plan["precision_reached"] > 1e-9


def test_a_later_inconsistent_process_voids_the_measurement(toy):
    """An input-pool process failing the witness leaves no figure of the operation standing."""
    driver, lib = toy
    m = measure_operation(driver=driver, library=lib, operation="keygen", guide=TINY_GUIDE)
    assert m.error is None and m.runs
    evidence = {"command": ["ngcc-time", "--input-seed", "3"], "status": "INCONSISTENT"}
    m.discard_as_inconsistent(InconsistentTiming("keygen: forged", evidence))
    record = _record(m)
    assert (record["status"], record["error"], record["trials"]) == (
        "INCONSISTENT",
        "keygen: forged",
        [],
    )
    assert record["processes"][-1]["command"] == ["ngcc-time", "--input-seed", "3"]
    assert record.get("mean_cycles") is None
    assert parse_timing_record("r.json", record).aggregates is None


def test_refused_decapsulation_is_a_failed_measurement(toy):
    driver, lib = toy

    bad_dec = sandbox_runner(env={"NGCC_TOY_BAD_DEC": "1"})

    m = measure_operation(
        driver=driver, library=lib, operation="dec", guide=TINY_GUIDE, run=bad_dec
    )
    assert "shared secret mismatch" in m.error
    assert m.runs == [] and len(m.processes) == 1
    record = _record(m)
    assert record["status"] == "failed" and record["trials"] == []
    assert record["processes"][0]["exit_code"] == 2
    assert parse_timing_record("r.json", record).status == "failed"


def _as_core_cycles(scale_calls: set[int]):
    """Real runs, relabelled as a core-cycle counter; selected processes run 'slow'."""
    real = sandbox_runner()
    seen = {"n": 0}

    def run(argv, timeout_s):
        res = real(argv, timeout_s)
        seen["n"] += 1
        out = json.loads(res.channel)
        out["counter"]["name"] = "perf_cycles"
        if seen["n"] in scale_calls:
            for t in out["trials"]:
                t["cycles"] //= 2
                t["samples"] = [s // 2 for s in t["samples"]]
        res.channel = json.dumps(out).encode()
        return res

    return run


def test_disturbed_trial_is_rerun_counted_and_recorded(toy):
    driver, lib = toy
    hz = json.loads(sandbox_runner()([str(driver), str(lib), "keygen"], 60).channel)["counter"]
    m = measure_operation(
        driver=driver,
        library=lib,
        operation="keygen",
        guide=TINY_GUIDE,
        nominal_hz=hz["hz"] * 0.99,
        preemption=None,  # the clock rule alone (preemption on a loaded machine would add re-runs)
        run=_as_core_cycles({2}),  # call 1 = calibration
    )
    record = _record(m)
    assert record["disturbed_retries"] == 1
    first = record["processes"][0]
    assert first["disturbed_retries"] == 1 and len(first["disturbed_trials"]) == 1
    assert len(record["trials"]) == 3
    assert not any(t.get("disturbed") for t in record["trials"])


def test_disturbed_retries_are_bounded(toy):
    driver, lib = toy
    m = measure_operation(
        driver=driver,
        library=lib,
        operation="keygen",
        guide=replace(TINY_GUIDE, trials=1),
        nominal_hz=1e15,
        preemption=None,
        run=_as_core_cycles(set()),
        max_disturbed_retries=2,
    )
    record = _record(m)
    assert record["disturbed_retries"] == 2
    assert record["trials"][0]["disturbed"] is True


#: A competitor for the driver's core: pinned to it, it says so, then spins.
_SPINNER = (
    "import os\nos.sched_setaffinity(0, {0})\nprint('pinned', flush=True)\nwhile True:\n    pass\n"
)


def _competitor_during_first_trial():
    """Real runs; the first trial process (call 2, after the uncalibrated call) shares its core
    with a spinning process, which forces involuntary context switches on it and keeps it waiting
    for the core about half its wall time (more on a machine whose other tasks share that core
    too: the switches then come rarer and the wait grows, which is why the rule reads both)."""
    import subprocess
    import sys

    real = sandbox_runner()
    seen = {"n": 0}

    def run(argv, timeout_s):
        seen["n"] += 1
        if seen["n"] != 2:
            return real(argv, timeout_s)
        spinner = subprocess.Popen([sys.executable, "-c", _SPINNER], stdout=subprocess.PIPE)
        try:
            assert spinner.stdout.readline() == b"pinned\n"  # on the core before the trial starts
            return real(argv, timeout_s)
        finally:
            spinner.kill()
            spinner.wait()

    return run


def test_trial_with_forced_involuntary_switches_is_rerun_and_kept_with_its_reason(toy):
    driver, lib = toy
    guide = GuideParams(trials=2, target_trial_s=0.2, min_total_calls=10)
    m = measure_operation(
        driver=driver,
        library=lib,
        operation="enc",
        guide=guide,
        cpu=0,
        run=_competitor_during_first_trial(),
    )
    record = _record(m)
    first = record["processes"][0]
    assert first["disturbed_retries"] >= 1 and record["disturbed_retries"] >= 1
    discarded = first["disturbed_trials"][0]
    count, seconds = discarded["involuntary_switches"], discarded["seconds"]
    share = discarded["wait_seconds"] / seconds
    # Sharing the core, the trial waited for it about half the time it was timed, or longer.
    assert count >= 1 and share > 0.25
    if count >= 3 and count / seconds > 100:
        expected = f"{count} involuntary context switches in {seconds:.3g} s (over 100/s)"
    else:  # a crowded core: rarer, longer preemptions
        expected = f"waited for its core {share:.0%} of {seconds:.3g} s (over 10%)"
    assert discarded["disturbed_reason"] == expected
    assert discarded["loadavg_start"] is not None and discarded["loadavg_end"] is not None
    # The re-run replaced it: the record keeps the planned trials, each once.
    assert len(record["trials"]) == 2 and first["trials"][0] is not discarded
    kept = first["trials"][0]
    if kept.get("disturbed"):  # a loaded machine may disturb the re-runs too: bounded, flagged
        assert first["disturbed_retries"] == 2 and kept["disturbed_reason"]
    else:
        assert "disturbed_reason" not in kept


def _rewriting(edit):
    """Real runs whose records are rewritten by `edit(record, sandbox_result)` before the
    parent reads them (a forged record, as a hostile library could write on the channel)."""
    real = sandbox_runner()

    def run(argv, timeout_s):
        res = real(argv, timeout_s)
        out = json.loads(res.channel)
        edit(out, res)
        res.channel = json.dumps(out).encode()
        return res

    return run


def _claiming(**changes):
    """Each trial's fields replaced by what `changes` computes from the trial."""

    def edit(out, _res):
        for t in out["trials"]:
            t.update({key: change(t) for key, change in changes.items()})

    return _rewriting(edit)


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"cpu_seconds": lambda t: t["seconds"] + 0.5}, "s on the CPU in"),
        ({"wait_seconds": lambda t: t["seconds"] + 0.5}, "s waiting for its core in"),
    ],
)
def test_a_trial_claiming_more_time_than_its_window_is_inconsistent(toy, changes, error):
    driver, lib = toy
    m = measure_operation(
        driver=driver, library=lib, operation="keygen", guide=TINY_GUIDE, run=_claiming(**changes)
    )
    assert m.inconsistent and m.runs == []
    assert error in m.error


def test_trials_claiming_more_cpu_time_than_the_process_used_are_inconsistent(toy):
    driver, lib = toy
    # Each trial within its own window, but 5 s of them in a process that used far less.
    guide = replace(TINY_GUIDE, trials=1)

    def edit(out, res):
        trial = out["trials"][0]
        out["trials"] = [{**trial, "seconds": 0.5, "cpu_seconds": 0.5} for _ in range(10)]
        res.wall_seconds = 10.0  # so the timed seconds fit the process's life

    run = _rewriting(edit)
    m = measure_operation(driver=driver, library=lib, operation="keygen", guide=guide, run=run)
    assert m.inconsistent and "s of its trials on the CPU in a process that used" in m.error


def test_every_trial_records_its_time_on_and_waiting_for_the_core(toy):
    driver, lib = toy
    m = measure_operation(driver=driver, library=lib, operation="enc", guide=TINY_GUIDE, cpu=0)
    for run in m.runs:
        for t in run.trials:
            # Both windows enclose the wall window; neither outlasts it.
            assert 0 < t["cpu_seconds"] <= t["seconds"] + 0.001
            assert 0 <= t["wait_seconds"] <= t["seconds"] + 0.001
