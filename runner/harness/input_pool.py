"""Timing over a pool of inputs: how much an operation's time depends on its data.

The comparable figure times every process on the one input the guide's fixed seed produces. Some
operations take data-dependent time (decapsulation of different ciphertexts, signing with
rejection sampling), so NGCC Perf also times a pool of inputs drawn from the seeded DRNG: input
``k`` is the driver's ``--input-seed k`` (its own key pair, ciphertext, signature or message).
Each input runs in its own sandboxed process; the result separates the spread *across inputs*
(interquartile range of the per-input medians) from measurement *noise* (the typical within-input
95 % interval), so a page can say when an operation's time depends on its input.
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
    #: processes' medians), given by the caller from the fixed-input measurement: every input
    #: runs in its own process, so this much spread appears even for a constant-time operation.
    process_spread_relative: float = 0.0

    @property
    def pool_size(self) -> int:
        return len(self.inputs)

    @property
    def median(self) -> float:
        return statistics.median(i.median for i in self.inputs)

    @property
    def spread_relative(self) -> float:
        """Interquartile range of the per-input medians, relative to their median."""
        medians = sorted(i.median for i in self.inputs)
        if len(medians) < 2 or not self.median:
            return 0.0
        q1, _, q3 = statistics.quantiles(medians, n=4, method="inclusive")
        return (q3 - q1) / self.median

    @property
    def noise_relative(self) -> float:
        """The typical (median) within-input 95 % interval half-width, relative."""
        return statistics.median(i.noise_relative for i in self.inputs)

    @property
    def input_dependent(self) -> bool:
        """True when the time varies across inputs by more than measurement noise explains.

        Noise is the larger of the within-input interval and the fixed input's process-to-process
        spread; "more than" means over twice that.
        """
        return self.spread_relative > 2 * max(self.noise_relative, self.process_spread_relative)

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
            "input_dependent": self.input_dependent,
            "inputs": [asdict(i) for i in self.inputs],
        }


def input_timing(input_seed: int, samples: Sequence[float]) -> InputTiming:
    stats = sample_stats(samples)
    return InputTiming(input_seed, stats.median, stats.ci95_low, stats.ci95_high, stats.count)


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
    """Time inputs ``first_input .. first_input + pool_size - 1``, one process each.

    Raises `TimingError` (from the driver's own message) when a process fails or refuses, e.g. a
    decapsulation that does not return the encapsulated secret for one of the inputs.
    """
    run = sandbox_runner(limits)
    inputs = []
    for k in range(first_input, first_input + pool_size):
        ctx = _context(
            driver=driver,
            library=library,
            operation=operation,
            input_bytes=input_bytes,
            cpu=cpu,
            counter=counter,
            digest_bits=None,
            input_seed=k,
            run=run,
        )
        result, _ = ctx.once(
            ctx.argv(iterations=iterations, warmups=warmups, batch=batch), timeout_s
        )
        inputs.append(input_timing(k, per_call_samples(result.trials)))
    return InputPoolResult(
        operation, input_bytes, first_input, tuple(inputs), process_spread_relative
    )


def process_spread_relative(process_medians: Sequence[float]) -> float:
    """Relative interquartile range of per-process medians of one input (0 below 2 processes)."""
    values = sorted(process_medians)
    if len(values) < 2:
        return 0.0
    q1, centre, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return (q3 - q1) / centre if centre else 0.0
