"""The input pool finds the example KEM's ciphertext-dependent decapsulation; the fixed input
cannot (it times one ciphertext in every process)."""

from __future__ import annotations

import pytest

from runner.harness.driver_output import per_call_samples
from runner.harness.input_pool import (
    InputPoolResult,
    InputTiming,
    measure_input_pool,
    process_spread_relative,
)
from runner.harness.timing import AdaptiveParams, measure_operation

pytestmark = pytest.mark.slow


def test_pool_reports_a_spread_the_fixed_input_figure_does_not(example_checks, timing_driver):
    library = example_checks["rlwe-lpr-256-vt"].build.library
    fixed = measure_operation(
        driver=timing_driver,
        library=library,
        operation="dec",
        planner="adaptive",
        adaptive=AdaptiveParams(budget_s=60.0, min_trials=3, max_trials=3, trial_target_s=0.02),
    )
    assert fixed.error is None and len(fixed.runs) == 3
    groups = [per_call_samples(run.trials) for run in fixed.runs]
    medians = [sorted(g)[len(g) // 2] for g in groups]

    pool = measure_input_pool(
        driver=timing_driver,
        library=library,
        operation="dec",
        iterations=32,
        batch=2,
        pool_size=8,
        process_spread_relative=process_spread_relative(medians),
    )

    assert [i.input_seed for i in pool.inputs] == list(range(1, 9))
    assert pool.pool_size == 8 and pool.first_input == 1
    # 0..7 extra polynomial products by construction: per-input medians differ by tens of %.
    assert pool.spread_relative > 0.2
    assert pool.input_dependent
    # The fixed-input figure times one ciphertext in every process: its processes agree far more
    # closely than the inputs of the pool do.
    assert process_spread_relative(medians) < pool.spread_relative / 2
    record = pool.as_dict()
    assert record["pool_size"] == 8 and record["input_dependent"] is True
    assert len(record["inputs"]) == 8


def test_spread_and_noise_arithmetic():
    inputs = tuple(
        InputTiming(k, median, median * 0.99, median * 1.01, 32)
        for k, median in enumerate((100.0, 100.0, 200.0, 200.0, 300.0), start=1)
    )
    pool = InputPoolResult("dec", 0, 1, inputs)
    assert pool.median == 200.0
    assert pool.spread_relative == pytest.approx((200.0 - 100.0) / 200.0)  # q3 - q1 over median
    assert pool.noise_relative == pytest.approx(0.01)
    assert pool.input_dependent
    flat = InputPoolResult("dec", 0, 1, inputs, process_spread_relative=0.5)
    assert not flat.input_dependent  # process-to-process spread explains it


def test_process_spread_of_one_process_is_zero():
    assert process_spread_relative([123.0]) == 0.0
    assert process_spread_relative([90.0, 100.0, 110.0]) == pytest.approx(10.0 / 100.0)
