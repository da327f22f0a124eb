"""Timing over a pool of inputs: how much an operation's time depends on its data.

The comparable figure times every process on the one input the guide's fixed seed produces. Some
operations take data-dependent time (decapsulation of different ciphertexts, signing with
rejection sampling), so NGCC Perf also times a pool of inputs drawn from the seeded DRNG: input
``k`` is the driver's ``--input-seed k`` (its own key pair, ciphertext, signature or message).
Each input runs in its own sandboxed process, right after a process of the fixed input (input
0, the *reference*), and one more reference process closes the pool. A box that changes speed for
seconds at a time (frequency, neighbours) moves a process and its neighbour together, so each
input is judged by the ratio of its floor to the reference just before it: the spread *across
inputs* is the interquartile range of those ratios, and the measurement *noise* is that of the
ratios of consecutive reference processes (the same input twice, so whatever spread they show is
noise). A page can then say when an operation's time depends on its input, and that verdict does
not depend on how busy the machine was.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from measurements.stats import sample_stats
from runner.harness.driver_output import per_call_samples
from runner.harness.sandbox import Limits
from runner.harness.timing import _context, sandbox_runner

#: Inputs 1..16 by default (input 0 is the fixed input of the comparable figure).
DEFAULT_POOL_SIZE = 16
DEFAULT_FIRST_INPUT = 1


@dataclass(frozen=True)
class InputTiming:
    input_seed: int
    median: float
    ci95_low: float
    ci95_high: float
    samples: int
    #: The 10th percentile of the per-call samples: interference only ever makes a batch
    #: slower, so the fastest batches are the least disturbed measure of an input's own cost.
    floor: float = 0.0

    @property
    def noise_relative(self) -> float:
        return (self.ci95_high - self.ci95_low) / 2 / self.median if self.median else math.inf


@dataclass(frozen=True)
class InputPoolResult:
    """Per-input medians (counter units per call) and their spread against the noise."""

    operation: str
    input_bytes: int
    first_input: int
    inputs: tuple[InputTiming, ...]
    #: Process-to-process spread of the fixed input (relative interquartile range of its
    #: processes' floors), given by the caller from the fixed-input measurement: every input
    #: runs in its own process, so this much spread appears even for a constant-time operation.
    #: The noise of a pool measured without references (older records).
    process_spread_relative: float = 0.0
    #: Floors of the reference (fixed-input) processes: one before each input and one after the
    #: last, so ``reference_floors[i]`` ran just before ``inputs[i]``.
    reference_floors: tuple[float, ...] = ()

    @property
    def paired(self) -> bool:
        return len(self.reference_floors) == len(self.inputs) + 1 and all(self.reference_floors)

    @property
    def input_ratios(self) -> list[float]:
        """Each input's floor over the reference process just before it."""
        return [i.floor / ref for i, ref in zip(self.inputs, self.reference_floors, strict=False)]

    @property
    def reference_ratios(self) -> list[float]:
        """Each reference floor over the one before it: the same input twice, pure noise."""
        refs = self.reference_floors
        return [b / a for a, b in zip(refs, refs[1:], strict=False)]

    @property
    def pool_size(self) -> int:
        return len(self.inputs)

    @property
    def median(self) -> float:
        return statistics.median(i.median for i in self.inputs)

    @property
    def spread_relative(self) -> float:
        """Interquartile range of the per-input floors (over the reference just before each, when
        measured paired), relative to their median: how much an input's own cost varies, robust
        to a loaded machine (which inflates medians and moves neighbouring processes together)."""
        if self.paired:
            return relative_iqr(self.input_ratios)
        return relative_iqr([i.floor for i in self.inputs])

    @property
    def noise_relative(self) -> float:
        """The spread a constant-time operation would show across the pool: the relative
        interquartile range of consecutive reference ratios where the pool was measured paired;
        else the fixed input's process-to-process spread of floors where that was measured, else
        the typical (median) within-input 95 % interval half-width."""
        if self.paired:
            return relative_iqr(self.reference_ratios)
        if self.process_spread_relative:
            return self.process_spread_relative
        return statistics.median(i.noise_relative for i in self.inputs)

    @property
    def input_dependent(self) -> bool:
        """True when the time varies across inputs by more than twice the noise."""
        return self.spread_relative > 2 * self.noise_relative

    def as_dict(self) -> dict[str, Any]:
        return {
            "operation": self.operation,
            "input_bytes": self.input_bytes,
            "pool_size": self.pool_size,
            "first_input": self.first_input,
            "median": self.median,
            "spread_relative": self.spread_relative,
            "noise_relative": self.noise_relative,
            "process_spread_relative": self.process_spread_relative,
            "reference_floors": list(self.reference_floors),
            "input_dependent": self.input_dependent,
            "inputs": [asdict(i) for i in self.inputs],
        }


def relative_iqr(values: Sequence[float]) -> float:
    """Interquartile range over the median (0 below 2 values or with a zero median)."""
    data = sorted(values)
    if len(data) < 2:
        return 0.0
    q1, centre, q3 = statistics.quantiles(data, n=4, method="inclusive")
    return (q3 - q1) / centre if centre else 0.0


def floor_of(samples: Sequence[float]) -> float:
    """The 10th percentile of per-call samples (the least disturbed batches)."""
    data = sorted(samples)
    if len(data) < 2:
        return float(data[0]) if data else 0.0
    return statistics.quantiles(data, n=10, method="inclusive")[0]


def input_timing(input_seed: int, samples: Sequence[float]) -> InputTiming:
    stats = sample_stats(samples)
    return InputTiming(
        input_seed, stats.median, stats.ci95_low, stats.ci95_high, stats.count, floor_of(samples)
    )


def measure_input_pool(
    *,
    driver: Path,
    library: Path,
    operation: str,
    iterations: int,
    batch: int,
    input_bytes: int = 0,
    warmups: int = 1,
    pool_size: int = DEFAULT_POOL_SIZE,
    first_input: int = DEFAULT_FIRST_INPUT,
    cpu: int | None = None,
    counter: str | None = None,
    limits: Limits | None = None,
    timeout_s: float = 300.0,
    process_spread_relative: float = 0.0,
) -> InputPoolResult:
    """Time inputs ``first_input .. first_input + pool_size - 1``, one process each, each right
    after a process of the fixed input (the reference; one more closes the pool).

    Raises `TimingError` (from the driver's own message) when a process fails or refuses, e.g. a
    decapsulation that does not return the encapsulated secret for one of the inputs.
    """
    run = sandbox_runner(limits)

    def floor_and_samples(input_seed: int) -> list[float]:
        ctx = _context(
            driver=driver,
            library=library,
            operation=operation,
            input_bytes=input_bytes,
            cpu=cpu,
            counter=counter,
            digest_bits=None,
            input_seed=input_seed,
            run=run,
        )
        result, _ = ctx.once(
            ctx.argv(iterations=iterations, warmups=warmups, batch=batch), timeout_s
        )
        return per_call_samples(result.trials)

    inputs, references = [], []
    for k in range(first_input, first_input + pool_size):
        references.append(floor_of(floor_and_samples(0)))
        inputs.append(input_timing(k, floor_and_samples(k)))
    references.append(floor_of(floor_and_samples(0)))
    return InputPoolResult(
        operation,
        input_bytes,
        first_input,
        tuple(inputs),
        process_spread_relative,
        tuple(references),
    )


def process_spread_relative(process_floors: Sequence[float]) -> float:
    """Relative interquartile range of per-process floors of one input (0 below 2 processes)."""
    return relative_iqr(process_floors)
