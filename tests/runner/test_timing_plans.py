"""Planning arithmetic (no processes)."""

from __future__ import annotations

import math

import pytest

from runner.harness.driver_output import per_call_samples
from runner.harness.timing import (
    AdaptiveParams,
    GuideParams,
    disturbance_reason,
    is_disturbed,
    plan_adaptive_trial,
    plan_guide,
    precision_reached,
    warmups_for,
)


def test_guide_targets_one_second_trials():
    plan = plan_guide(call_s=1e-4)
    assert plan.planner == "guide"
    assert plan.trials == 5 and plan.iterations_per_trial == 10_000 and plan.warmups == 3
    assert plan.batch_calls == 10_000 // 16
    assert plan.separate_processes


def test_guide_at_least_100_calls_and_at_most_20000_per_trial():
    assert plan_guide(call_s=0.1).iterations_per_trial == 20  # 100 calls over 5 trials
    assert plan_guide(call_s=1e-7).iterations_per_trial == 20_000


def test_guide_900_s_cap_wins_over_the_100_call_minimum():
    plan = plan_guide(call_s=24.7)
    assert plan.iterations_per_trial == math.floor(900 / (5 * 24.7)) == 7
    assert plan.warmups == 0
    assert plan_guide(call_s=1000.0).iterations_per_trial == 1  # never below one call


@pytest.mark.parametrize(("call_s", "warm"), [(0.01, 3), (0.0499, 3), (0.05, 1), (4.99, 1), (5, 0)])
def test_guide_warmups_3_1_0(call_s, warm):
    assert plan_guide(call_s=call_s).warmups == warm
    assert warmups_for(call_s, GuideParams().warmup_rules, 0) == warm


def test_guide_constants_are_parameters():
    tiny = GuideParams(trials=2, target_trial_s=0.01, min_total_calls=4, max_calls_per_trial=50)
    plan = plan_guide(call_s=1e-5, params=tiny)
    assert plan.trials == 2 and plan.iterations_per_trial == 50
    assert plan.estimated_s == pytest.approx(2 * (50 + 3) * 1e-5)


def test_adaptive_trial_has_enough_calls_for_samples():
    plan = plan_adaptive_trial(call_s=1.0)
    assert plan.iterations_per_trial == AdaptiveParams().min_calls_per_trial
    plan = plan_adaptive_trial(call_s=1e-5)
    assert plan.iterations_per_trial == 10_000
    assert plan.batch_calls == 10_000 // 32


def _trial(samples, batch=1, counter="tsc", seconds=1.0, cycles=None):
    return {
        "samples": samples,
        "batch_calls": batch,
        "counter": counter,
        "seconds": seconds,
        "cycles": cycles if cycles is not None else sum(samples),
        "measurements": len(samples) * batch,
    }


def test_precision_reached_uses_per_call_samples_grouped_by_process():
    tight = per_call_samples([_trial([1000 + (i % 3) for i in range(64)], batch=10)])
    # one process: its batches' interval, √2 wider for the next campaign (≈ 0.1 % · √2)
    assert precision_reached([tight]) < 0.002 * math.sqrt(2)
    wide = per_call_samples([_trial([1000 * (1 + i % 2) for i in range(16)])])
    assert precision_reached([wide]) > 0.2
    assert precision_reached([[5.0]]) == math.inf
    # two processes that agree within a process but differ by 10 %: t(1) over their medians
    # (12.706 · 50 / √2 around 1050) dominates, √2 wider for the next campaign.
    a, b = [1000.0] * 32, [1100.0] * 32
    expected = math.sqrt(2) * 12.706 * (100 / math.sqrt(2)) / math.sqrt(2) / 1050
    assert precision_reached([a, b]) == pytest.approx(expected)


def test_disturbed_only_with_a_core_cycle_counter_and_a_nominal_clock():
    slow = _trial([1], counter="perf_cycles", seconds=1.0, cycles=2_000_000_000)
    assert is_disturbed(slow, nominal_hz=2.7e9)
    assert not is_disturbed(slow, nominal_hz=2.0e9)
    assert not is_disturbed(slow, nominal_hz=None)
    assert not is_disturbed({**slow, "counter": "tsc"}, nominal_hz=2.7e9)


def test_driver_options_name_each_setting_once():
    """ngcc-time and ngcc-prof get the same options, built in one place."""
    from runner.harness.timing import driver_options

    assert driver_options(cpu=3, counter="tsc", input_bytes=1024, digest_bits=512) == [
        "--cpu",
        "3",
        "--digest-bits",
        "512",
        "--counter",
        "tsc",
        "--input-bytes",
        "1024",
    ]
    assert driver_options(cpu=1, counter=None, input_bytes=0, digest_bits=None) == ["--cpu", "1"]


def test_disturbance_reason_names_frequent_preemption_or_a_slow_clock():
    quiet = {**_trial([1], seconds=0.1, cycles=10), "involuntary_switches": 2}
    assert disturbance_reason(quiet, nominal_hz=None) is None  # a few switches happen anywhere
    busy = {**quiet, "involuntary_switches": 25}
    assert disturbance_reason(busy, nominal_hz=None) == (
        "25 involuntary context switches in 0.1 s (over 100/s)"
    )
    assert disturbance_reason(busy, nominal_hz=None, preemption=None) is None
    long_trial = {**busy, "seconds": 1.0}  # 25 in a second: below the rate
    assert disturbance_reason(long_trial, nominal_hz=None) is None
    # A crowded core: few switches per second, but the trial waited 70 % of its second for it.
    crowded = {**long_trial, "wait_seconds": 0.7}
    assert disturbance_reason(crowded, nominal_hz=None) == (
        "waited for its core 70% of 1 s (over 10%)"
    )
    assert disturbance_reason({**crowded, "wait_seconds": 0.05}, nominal_hz=None) is None
    # A library sleeping of its own accord waits for nothing: no switches, no run delay.
    sleeper = {**long_trial, "involuntary_switches": 0, "cpu_seconds": 0.3, "wait_seconds": 0.0}
    assert disturbance_reason(sleeper, nominal_hz=None) is None
    # Not recorded (an older driver, or a kernel without schedstat): the switch rate alone.
    assert disturbance_reason({**crowded, "wait_seconds": None}, nominal_hz=None) is None
    slow = _trial([1], counter="perf_cycles", seconds=1.0, cycles=2_000_000_000)
    assert disturbance_reason(slow, nominal_hz=2.5e9) == "clock 80.0% of nominal (below 95 %)"
