"""The input pool finds the example KEM's ciphertext-dependent decapsulation; the fixed input
cannot (it times one ciphertext in every process)."""

from __future__ import annotations

import pytest

from runner.harness.driver_output import per_call_samples
from runner.harness.input_pool import (
    InputPoolResult,
    InputTiming,
    floor_of,
    measure_input_pool,
    process_spread_relative,
    relative_iqr,
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
    floors = [floor_of(g) for g in groups]

    pool = measure_input_pool(
        driver=timing_driver,
        library=library,
        operation="dec",
        iterations=32,
        batch=2,
        pool_size=8,
        process_spread_relative=process_spread_relative(floors),
    )

    assert [i.input_seed for i in pool.inputs] == list(range(1, 9))
    assert pool.pool_size == 8 and pool.first_input == 1
    # 0..127 extra polynomial products by construction: per-input costs differ many times over,
    # which the pool sees whatever the machine is doing: the dearest input costs several times
    # its reference, while two consecutive references (the same input twice) never differ so much.
    assert pool.paired and len(pool.reference_floors) == 9
    assert pool.spread_relative > 0.2
    assert max(pool.input_ratios) > 3 * max(max(pool.reference_ratios), 1.0)
    # The verdict follows the rule on what was measured: on a quiet box, the references agree
    # within a few % and the pool is input-dependent; on a box whose speed swings by 2x from one
    # process to the next, the noise can hide it, and the verdict says so rather than guess.
    assert pool.noise_relative == pytest.approx(relative_iqr(pool.reference_ratios))
    assert pool.input_dependent == (pool.spread_relative > 2 * pool.noise_relative)
    record = pool.as_dict()
    assert record["pool_size"] == 8 and record["input_dependent"] is pool.input_dependent
    assert len(record["inputs"]) == 8


def test_spread_and_noise_arithmetic():
    inputs = tuple(
        InputTiming(k, median, median * 0.99, median * 1.01, 32, floor=median)
        for k, median in enumerate((100.0, 100.0, 200.0, 200.0, 300.0), start=1)
    )
    pool = InputPoolResult("dec", 0, 1, inputs)
    assert pool.median == 200.0
    assert pool.spread_relative == pytest.approx((200.0 - 100.0) / 200.0)  # q3 - q1 over median
    assert pool.noise_relative == pytest.approx(0.01)
    assert pool.input_dependent
    flat = InputPoolResult("dec", 0, 1, inputs, process_spread_relative=0.5)
    assert not flat.input_dependent  # process-to-process spread explains it


def test_paired_references_cancel_a_box_that_changes_speed():
    # A constant-time operation (every input costs 100) on a box that runs at 1x, then 1.7x
    # slower for a while, then 1x again: the floors alone spread widely, the ratios do not.
    speed = (1.0, 1.0, 1.7, 1.7, 1.7, 1.0)
    inputs = tuple(
        InputTiming(k, 100 * speed[k - 1], 0, 0, 32, floor=100 * speed[k - 1]) for k in range(1, 6)
    )
    references = tuple(80.0 * s for s in speed)  # one before each input, one after the last
    flat = InputPoolResult("dec", 0, 1, inputs, reference_floors=references)
    assert flat.paired
    assert relative_iqr([i.floor for i in inputs]) > 0.3  # what unpaired floors would say
    assert flat.spread_relative == pytest.approx(0.0)  # each input is 1.25 x its reference
    assert not flat.input_dependent
    # An input-dependent operation on the same box: costs 100, 200, 100, 300, 100.
    costs = (100, 200, 100, 300, 100)
    varied = InputPoolResult(
        "dec",
        0,
        1,
        tuple(
            InputTiming(k, c * speed[k - 1], 0, 0, 32, floor=c * speed[k - 1])
            for k, c in enumerate(costs, start=1)
        ),
        reference_floors=references,
    )
    assert varied.input_ratios == pytest.approx([1.25, 2.5, 1.25, 3.75, 1.25])
    assert varied.spread_relative == pytest.approx((2.5 - 1.25) / 1.25)
    # consecutive references: 1, 1.7, 1, 1, 1/1.7 -> IQR (1 - 1) over the median 1
    assert varied.noise_relative == pytest.approx(0.0)
    assert varied.input_dependent
    assert varied.as_dict()["reference_floors"] == list(references)


def test_process_spread_of_one_process_is_zero():
    assert process_spread_relative([123.0]) == 0.0
    assert process_spread_relative([90.0, 100.0, 110.0]) == pytest.approx(10.0 / 100.0)
