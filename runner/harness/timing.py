"""Timing plans and the timing step: run ``ngcc-time`` in fresh pinned processes.

Two planners (docs/timing.md):

* ``guide`` reproduces current practice exactly, for comparability: one uncalibrated call, then
  5 trials each in a fresh process, iterations chosen so that a trial lasts about 1 s, at least
  100 calls in all, at most 20 000 per trial, at most 900 s per operation, and 3/1/0 warm-up
  calls for calls under 0.05 s / under 5 s / longer.
* ``adaptive`` calibrates (one process, a few calls after a warm-up), then runs short trials,
  each in a fresh pinned process, until the 95 % confidence interval of the median per-call
  cycles (order statistics of the per-batch samples of all trials) is within ``precision`` of
  the median, or the operation's budget is spent.

Every process runs through `runner.harness.sandbox.run_sandboxed`: the driver is ours, the
library it loads is not.  A disturbed trial is re-run (up to ``max_disturbed_retries`` times),
counted and kept in the record with its reason (`disturbance_reason`): the OS preempted it often
(involuntary context switches) or kept it waiting for its core for more than a tenth of its wall
time (the scheduler's run delay), whatever the counter; or, with a core-cycle counter (perf) and
a known nominal clock, its cycles per second fell below 95 % of that clock.
"""

from __future__ import annotations

import hashlib
import math
import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from measurements.domain import MeasurementStatus
from measurements.records import TimingRecord
from measurements.uncertainty import batches_per_process, process_interval, variance_components
from runner.harness.driver_output import (
    DriverOutputError,
    DriverRun,
    build_timing_record,
    parse_driver_output,
    parse_probe_output,
    per_call_samples,
    process_entry,
)
from runner.harness.sandbox import Limits, Outcome, SandboxResult, run_sandboxed
from runner.harness.witness import InconsistentRecord, check_request, check_witness

NATIVE_DIR = Path(__file__).resolve().parents[2] / "native"
DRIVER_SOURCES = [
    *(
        NATIVE_DIR / "driver" / n
        for n in ("main.c", "cli.c", "ops_setup.c", "ops_calls.c", "ops_kex.c")
    ),
    *(NATIVE_DIR / "driver" / n for n in ("measure.c", "mem.c", "json.c")),
    NATIVE_DIR / "counter" / "counter.c",
]
DRIVER_HEADERS = sorted((NATIVE_DIR / "driver").glob("*.h")) + [
    NATIVE_DIR / "counter" / "counter.h"
]
#: The driver is harness code: strict C11, warnings are errors.
DRIVER_CFLAGS = ["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-Wpedantic"]
DRIVER_LIBS = ["-ldl", "-pthread"]
#: Counters whose units are core cycles, for which cycles/second says something about the clock.
CORE_CYCLE_COUNTERS = frozenset({"perf_cycles"})

Runner = Callable[[list[str], float], SandboxResult]


class TimingError(RuntimeError):
    """The timing step could not produce a measurement."""


class InconsistentTiming(TimingError):
    """A process's record disagrees with the request or the parent's witness (INCONSISTENT).

    ``evidence`` is that process's entry (command, stdout, result channel, witness)."""

    def __init__(self, message: str, evidence: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.evidence = evidence


# --- building the driver ----------------------------------------------------------------------


def _sources_digest(paths: Sequence[Path], flags: Sequence[str]) -> str:
    h = hashlib.sha256(" ".join(flags).encode())
    for p in sorted(paths):
        h.update(p.name.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:16]


def compile_native(
    *,
    name: str,
    sources: Sequence[Path],
    headers: Sequence[Path],
    out_dir: Path,
    cflags: Sequence[str] = DRIVER_CFLAGS,
    libs: Sequence[str] = DRIVER_LIBS,
    compiler: str = "gcc",
) -> Path:
    """Compile a harness binary once per source digest (through the sandbox, like every build)."""
    from runner.harness.build import run_compile  # the one compile path (sandboxed)

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    binary = out_dir / f"{name}-{_sources_digest([*sources, *headers], [*cflags, *libs])}"
    if binary.exists():
        return binary
    tmp = binary.with_suffix(".tmp")
    cmd = [compiler, *cflags, "-o", str(tmp), *map(str, sources), *libs]
    rc, stderr = run_compile(cmd, out_dir)
    if rc != 0:
        raise TimingError(f"cannot build {name}: {stderr.strip()}")
    os.replace(tmp, binary)
    return binary


def build_driver(*, out_dir: Path, compiler: str = "gcc") -> Path:
    """Build (or reuse) ``ngcc-time`` in ``out_dir``; returns its path."""
    return compile_native(
        name="ngcc-time",
        sources=DRIVER_SOURCES,
        headers=DRIVER_HEADERS,
        out_dir=out_dir,
        compiler=compiler,
    )


# --- plans ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GuideParams:
    """Current practice; every constant is a parameter so tests can use tiny budgets."""

    trials: int = 5
    target_trial_s: float = 1.0
    min_total_calls: int = 100
    max_calls_per_trial: int = 20_000
    max_operation_s: float = 900.0
    warmup_rules: tuple[tuple[float, int], ...] = ((0.05, 3), (5.0, 1))
    warmups_otherwise: int = 0
    samples_per_trial: int = 16
    timeout_base_s: float = 300.0
    timeout_factor: float = 0.6


@dataclass(frozen=True)
class AdaptiveParams:
    precision: float = 0.01  # target 95 % CI half-width of the median, relative
    budget_s: float = 120.0  # wall time per operation, calibration included
    calibration_calls: int = 8
    calibration_s: float = 0.05  # calibration stops early after this much timed work
    trial_target_s: float = 0.1
    min_trials: int = 3
    max_trials: int = 200
    min_calls_per_trial: int = 16
    max_calls_per_trial: int = 20_000
    samples_per_trial: int = 32
    warmup_rules: tuple[tuple[float, int], ...] = ((0.05, 3), (5.0, 1))
    warmups_otherwise: int = 0
    timeout_base_s: float = 300.0
    timeout_factor: float = 3.0


@dataclass(frozen=True)
class TrialPlan:
    planner: str
    iterations_per_trial: int
    warmups: int
    trials: int
    batch_calls: int
    estimated_s: float
    timeout_per_process_s: float
    separate_processes: bool = True

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def warmups_for(call_s: float, rules: Sequence[tuple[float, int]], otherwise: int) -> int:
    """Warm-up calls for an operation whose single call takes ``call_s``."""
    for below, count in rules:
        if call_s < below:
            return count
    return otherwise


def plan_guide(*, call_s: float, params: GuideParams = GuideParams()) -> TrialPlan:
    """The guide's plan from one uncalibrated call of ``call_s`` seconds."""
    call_s = max(call_s, 1e-9)
    n = max(
        math.ceil(params.min_total_calls / params.trials), round(params.target_trial_s / call_s)
    )
    n = min(n, params.max_calls_per_trial)
    if params.trials * n * call_s > params.max_operation_s:
        # The time cap wins over the 100-call minimum, never below one call per trial.
        n = max(1, math.floor(params.max_operation_s / (params.trials * call_s)))
    warm = warmups_for(call_s, params.warmup_rules, params.warmups_otherwise)
    estimated = params.trials * (n + warm) * call_s
    return TrialPlan(
        planner="guide",
        iterations_per_trial=n,
        warmups=warm,
        trials=params.trials,
        batch_calls=max(1, n // params.samples_per_trial),
        estimated_s=estimated,
        timeout_per_process_s=params.timeout_base_s + params.timeout_factor * estimated,
    )


def plan_adaptive_trial(*, call_s: float, params: AdaptiveParams = AdaptiveParams()) -> TrialPlan:
    """Size of one adaptive trial; the number of trials is decided while measuring."""
    call_s = max(call_s, 1e-9)
    n = max(params.min_calls_per_trial, round(params.trial_target_s / call_s))
    n = min(n, params.max_calls_per_trial)
    warm = warmups_for(call_s, params.warmup_rules, params.warmups_otherwise)
    per_trial = (n + warm) * call_s
    return TrialPlan(
        planner="adaptive",
        iterations_per_trial=n,
        warmups=warm,
        trials=params.min_trials,
        batch_calls=max(1, n // params.samples_per_trial),
        estimated_s=params.min_trials * per_trial,
        timeout_per_process_s=params.timeout_base_s + params.timeout_factor * per_trial,
    )


def precision_reached(groups: Sequence[Sequence[float]]) -> float:
    """How far (relative) the next campaign's figure may land, from per-call samples grouped by
    process: the next-campaign half-width of `measurements.uncertainty.process_interval` (inf
    with fewer than two samples). The adaptive planner stops on it; the record stores the same
    interval."""
    groups = [g for g in groups if g]
    if sum(len(g) for g in groups) < 2:
        return math.inf
    return process_interval(groups).next_campaign_half_width_relative


def run_samples(runs: Sequence[DriverRun]) -> list[list[float]]:
    """Per-call samples of each run (one run is one process)."""
    return [per_call_samples(r.trials) for r in runs]


def is_disturbed(
    trial: dict[str, Any], *, nominal_hz: float | None, threshold: float = 0.95
) -> bool:
    """True when a core-cycle trial ran below ``threshold`` × the nominal clock."""
    if not nominal_hz or trial.get("counter") not in CORE_CYCLE_COUNTERS:
        return False
    seconds = trial["seconds"]
    return seconds > 0 and trial["cycles"] / seconds < threshold * nominal_hz


@dataclass(frozen=True)
class PreemptionRule:
    """When the OS kept a trial off its core often or long enough to call the trial disturbed.

    Two readings, either suffices.  *Switches*: each involuntary context switch hands the core
    to another task for up to a time slice and evicts part of the caches; a few per trial happen
    on any machine (timer and kernel work), a sustained rate means a competing task.  *Waiting*:
    the scheduler's own account of the time the trial's thread was runnable but not running
    (`wait_seconds`), against the trial's wall time.  The rate alone misses a crowded core (with
    k tasks sharing it each preemption lasts about k slices, so the more competitors the fewer
    switches per second); the wait does not, and it is what a cycle counter that keeps running
    while the trial waits (the TSC) actually suffers.  A library that sleeps of its own accord
    does not wait for the core, so it is slow, not disturbed.
    """

    min_switches: int = 3
    max_per_second: float = 100.0
    max_wait_share: float = 0.1


def wait_share(trial: dict[str, Any]) -> float | None:
    """The share of a trial's wall time its thread waited for its core (None: not recorded)."""
    wait, seconds = trial.get("wait_seconds"), trial["seconds"]
    if wait is None or seconds <= 0:
        return None
    return wait / seconds


def disturbance_reason(
    trial: dict[str, Any],
    *,
    nominal_hz: float | None,
    preemption: PreemptionRule | None = PreemptionRule(),
) -> str | None:
    """Why ``trial`` counts as disturbed, or None (the reason is kept with a discarded trial)."""
    count, seconds = trial.get("involuntary_switches"), trial["seconds"]
    if preemption is not None:
        if count is not None and count >= preemption.min_switches and seconds > 0:
            if count / seconds > preemption.max_per_second:
                return (
                    f"{count} involuntary context switches in {seconds:.3g} s "
                    f"(over {preemption.max_per_second:g}/s)"
                )
        share = wait_share(trial)
        if share is not None and share > preemption.max_wait_share:
            return (
                f"waited for its core {share:.0%} of {seconds:.3g} s "
                f"(over {preemption.max_wait_share:.0%})"
            )
    if is_disturbed(trial, nominal_hz=nominal_hz):
        return f"clock {trial['cycles'] / seconds / nominal_hz:.1%} of nominal (below 95 %)"
    return None


# --- running processes ------------------------------------------------------------------------


def _arg(argv: Sequence[str], option: str) -> int:
    """The value of ``option`` in a driver command line we built."""
    return int(argv[list(argv).index(option) + 1])


def default_cpu() -> int:
    """The highest CPU this process may use (away from CPU 0's interrupts)."""
    return max(os.sched_getaffinity(0))


def driver_options(
    *,
    cpu: int | None,
    counter: str | None,
    input_bytes: int,
    digest_bits: int | None,
    input_seed: int = 0,
) -> list[str]:
    """Options shared by ``ngcc-time`` and ``ngcc-prof``: pinning, counter, message length,
    (hash instances) the output length from the manifest and (input pools) the input index."""
    options = ["--cpu", str(default_cpu() if cpu is None else cpu)]
    if digest_bits:
        options += ["--digest-bits", str(digest_bits)]
    if counter:
        options += ["--counter", counter]
    if input_bytes:
        options += ["--input-bytes", str(input_bytes)]
    if input_seed:
        options += ["--input-seed", str(input_seed)]
    return options


def sandbox_runner(limits: Limits | None = None, env: dict[str, str] | None = None) -> Runner:
    base = limits or Limits()

    def run(argv: list[str], timeout_s: float) -> SandboxResult:
        # The library under test is the one argument naming a file: readable, nothing else.
        files = [Path(a) for a in argv[1:] if a.startswith("/") and Path(a).is_file()]
        # The driver is pid 1 of its namespace (wait4 sees its CPU time) and reports over
        # its own pipe (--result-fd), never stdout.
        return run_sandboxed(
            argv,
            limits=base.but(wall_seconds=timeout_s),
            read_only=files,
            single_process=True,
            result_option="--result-fd",
            env=env,
        )

    return run


def probe_counter(*, driver: Path, limits: Limits | None = None) -> dict[str, Any]:
    """The cycle counter the driver picks on this machine (name, hz, overhead_cycles), from
    ``ngcc-time --probe`` in the sandbox; ``{"error", "stderr"}`` when it cannot say."""
    res = run_sandboxed([str(driver), "--probe"], limits=limits or Limits(wall_seconds=60))
    try:
        return parse_probe_output(res.stdout)
    except ValueError:  # DriverOutputError, or no JSON at all
        return {"error": res.describe(), "stderr": res.stderr[-500:]}


@dataclass
class _Context:
    driver: Path
    library: Path
    operation: str
    common: list[str]
    run: Runner
    nominal_hz: float | None
    max_disturbed_retries: int
    preemption: PreemptionRule | None = None
    processes: list[dict[str, Any]] = field(default_factory=list)
    runs: list[DriverRun] = field(default_factory=list)

    def argv(
        self, *, iterations: int, warmups: int, batch: int, time_limit_s: float | None = None
    ) -> list[str]:
        """The command line of one driver process (options first, then library and operation)."""
        options = [*self.common, "--iterations", str(iterations)]
        options += ["--warmups", str(warmups), "--batch", str(batch)]
        if time_limit_s is not None:
            options += ["--time-limit", repr(time_limit_s)]
        return [str(self.driver), *options, str(self.library), self.operation]

    def _failed(self, argv: list[str], res: SandboxResult, run: DriverRun | None, **kw) -> None:
        entry = process_entry(
            run=run,
            command=argv,
            exit_code=res.returncode,
            stderr=res.stderr,
            wall_s=res.wall_seconds,
            **kw,
        )
        entry["stdout"] = res.stdout[-4000:]  # evidence: what the process printed
        entry["witness"] = {"cpu_s": res.cpu_seconds, "wall_s": res.wall_seconds}
        entry["channel"] = res.channel[:4000].decode("utf-8", errors="replace")
        self.processes.append(entry)

    @staticmethod
    def _witness(argv: list[str], run: DriverRun, res: SandboxResult) -> dict[str, float]:
        """Check a complete record against the request and the parent's witness."""
        if not run.ok:  # an error record carries no figures
            return {}
        check_request(run, iterations=_arg(argv, "--iterations"), warmups=_arg(argv, "--warmups"))
        return check_witness(run, res)

    def once(self, argv: list[str], timeout_s: float) -> tuple[DriverRun, SandboxResult]:
        res = self.run(argv, timeout_s)
        try:
            run = parse_driver_output(res.channel.decode("utf-8", errors="replace"))
            witness = self._witness(argv, run, res)
        except DriverOutputError as exc:
            self._failed(argv, res, None, status=res.status.value)
            if res.status is Outcome.OK:  # the driver always reports; something else ended it
                raise InconsistentTiming(
                    f"{self.operation}: exited without one valid record on the result "
                    f"channel: {exc}",
                    self.processes[-1],
                ) from exc
            raise TimingError(f"{self.operation}: {res.describe()}: {exc}") from exc
        except InconsistentRecord as exc:
            self._failed(argv, res, None, status="INCONSISTENT")
            raise InconsistentTiming(f"{self.operation}: {exc}", self.processes[-1]) from exc
        run.raw["witness"] = witness
        if not run.ok:
            self.processes.append(
                process_entry(
                    run=run,
                    command=argv,
                    exit_code=res.returncode,
                    stderr=res.stderr,
                    wall_s=res.wall_seconds,
                )
            )
            raise TimingError(f"{self.operation}: {run.error}")
        return run, res

    def trial(self, *, iterations: int, warmups: int, batch: int, timeout_s: float) -> DriverRun:
        """One trial process, re-run while disturbed (up to the retry limit)."""
        argv = self.argv(iterations=iterations, warmups=warmups, batch=batch)
        disturbed: list[dict[str, Any]] = []
        while True:
            run, res = self.once(argv, timeout_s)
            bad = []
            for t in run.trials:
                reason = disturbance_reason(
                    t, nominal_hz=self.nominal_hz, preemption=self.preemption
                )
                if reason:
                    t["disturbed_reason"] = reason
                    bad.append(t)
            if not bad or len(disturbed) >= self.max_disturbed_retries:
                for t in bad:
                    t["disturbed"] = True  # kept, but flagged: retries exhausted
                break
            disturbed.extend(bad)  # discarded, kept in the process entry with their reason
        self.processes.append(
            process_entry(
                run=run,
                command=argv,
                exit_code=res.returncode,
                stderr=res.stderr,
                wall_s=res.wall_seconds,
                disturbed_trials=disturbed,
            )
        )
        self.runs.append(run)
        return run


@dataclass
class MeasuredOperation:
    """Result of the timing step for one operation (input of `build_timing_record`)."""

    operation: str
    input_bytes: int
    plan: dict[str, Any]
    runs: list[DriverRun]
    processes: list[dict[str, Any]]
    started_utc: str
    ended_utc: str
    wall_s: float
    calibration: dict[str, Any]
    error: str | None = None
    inconsistent: bool = False  # a record failed the witness: stored as INCONSISTENT

    @property
    def precision_reached(self) -> float:
        """The next campaign's half-width, relative (see `precision_reached`)."""
        return precision_reached(run_samples(self.runs))

    def discard_as_inconsistent(self, exc: InconsistentTiming) -> None:
        """A later process of this operation (e.g. of its input pool) failed the witness: no
        figure of the operation stands; that process's entry joins the evidence."""
        self.error, self.inconsistent, self.runs = str(exc), True, []
        if exc.evidence is not None:
            self.processes.append(exc.evidence)

    def to_record(self, *, candidate: str, label: str, **extra: Any) -> TimingRecord:
        """The timing record of this operation, built from the driver output."""
        return build_timing_record(
            candidate=candidate,
            label=label,
            operation=self.operation,
            input_bytes=self.input_bytes,
            plan=self.plan,
            processes=self.processes,
            runs=self.runs,
            started_utc=self.started_utc,
            ended_utc=self.ended_utc,
            error=self.error,
            status=MeasurementStatus.INCONSISTENT.value if self.inconsistent else None,
            **extra,
        )


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _call_seconds(run: DriverRun, *, skip_first: bool) -> float:
    """Seconds per call from a calibration run's per-call samples (counter units → s)."""
    trial = run.trials[0]
    hz = run.counter.get("hz") or 0.0
    samples = trial["samples"][1:] if skip_first and len(trial["samples"]) > 1 else trial["samples"]
    if hz > 0 and samples and trial["batch_calls"] == 1:
        return sorted(samples)[len(samples) // 2] / hz
    return trial["seconds"] / trial["measurements"]


def measure_operation(
    *,
    driver: Path,
    library: Path,
    operation: str,
    input_bytes: int = 0,
    planner: str = "guide",
    guide: GuideParams = GuideParams(),
    adaptive: AdaptiveParams = AdaptiveParams(),
    cpu: int | None = None,
    counter: str | None = None,
    nominal_hz: float | None = None,
    max_disturbed_retries: int = 2,
    digest_bits: int | None = None,
    preemption: PreemptionRule | None = PreemptionRule(),
    limits: Limits | None = None,
    run: Runner | None = None,
    calibration_call_s: float | None = None,
) -> MeasuredOperation:
    """Time one operation of ``library`` with the ``guide`` or ``adaptive`` planner.

    ``calibration_call_s`` is the seconds of an uncalibrated call made beforehand (the campaign's
    calibrate step, `calibrate_operation`); the guide plan then does not make its own.

    Every trial is a fresh ``ngcc-time`` process pinned to ``cpu`` (default: `default_cpu`).
    ``run`` replaces the sandbox runner (tests only).  When a process fails or refuses (e.g.
    decapsulation does not return the encapsulated secret) the result has ``error`` set, no
    runs, and the failed process in ``processes``.
    """
    if planner not in ("guide", "adaptive"):
        raise ValueError(f"unknown planner {planner!r}")
    ctx = _context(
        driver=driver,
        library=library,
        operation=operation,
        input_bytes=input_bytes,
        cpu=cpu,
        counter=counter,
        digest_bits=digest_bits,
        run=run or sandbox_runner(limits),
        nominal_hz=nominal_hz,
        max_disturbed_retries=max_disturbed_retries,
        preemption=preemption,
    )
    started, t0 = _now(), time.monotonic()
    error, inconsistent = None, False
    try:
        if planner == "guide":
            plan, calibration = _run_guide(ctx, guide, call_s=calibration_call_s)
        else:
            plan, calibration = _run_adaptive(ctx, adaptive, t0)
    except TimingError as exc:
        # Kept as a failed measurement: its processes (stdout, stderr, command) are the evidence.
        plan, calibration, error = {"planner": planner}, {}, str(exc)
        inconsistent = isinstance(exc, InconsistentTiming)
        ctx.runs.clear()
    return MeasuredOperation(
        operation=operation,
        input_bytes=input_bytes,
        plan=plan,
        runs=ctx.runs,
        processes=ctx.processes,
        started_utc=started,
        ended_utc=_now(),
        wall_s=time.monotonic() - t0,
        calibration=calibration,
        error=error,
        inconsistent=inconsistent,
    )


def _context(
    *,
    driver: Path,
    library: Path,
    operation: str,
    input_bytes: int,
    cpu: int | None,
    counter: str | None,
    digest_bits: int | None,
    run: Runner,
    nominal_hz: float | None = None,
    max_disturbed_retries: int = 0,
    input_seed: int = 0,
    preemption: PreemptionRule | None = None,
) -> _Context:
    common = driver_options(
        cpu=cpu,
        counter=counter,
        input_bytes=input_bytes,
        digest_bits=digest_bits,
        input_seed=input_seed,
    )
    return _Context(
        driver=Path(driver),
        library=Path(library),
        operation=operation,
        common=common,
        run=run,
        nominal_hz=nominal_hz,
        max_disturbed_retries=max_disturbed_retries,
        preemption=preemption,
    )


def _uncalibrated_call(ctx: _Context, timeout_s: float) -> tuple[float, dict[str, Any]]:
    """One uncalibrated call: no warm-up, a single timed call, in its own process."""
    first, _ = ctx.once(ctx.argv(iterations=1, warmups=0, batch=1), timeout_s)
    return first.trials[0]["seconds"], first.counter


def calibrate_operation(
    *,
    driver: Path,
    library: Path,
    operation: str,
    input_bytes: int = 0,
    cpu: int | None = None,
    counter: str | None = None,
    digest_bits: int | None = None,
    limits: Limits | None = None,
    timeout_s: float = GuideParams.timeout_base_s,
) -> tuple[float, dict[str, Any]]:
    """Seconds of one uncalibrated call and the counter the driver chose.

    Raises `TimingError` (with the driver's own message) when the call fails or is refused.
    """
    ctx = _context(
        driver=driver,
        library=library,
        operation=operation,
        input_bytes=input_bytes,
        cpu=cpu,
        counter=counter,
        digest_bits=digest_bits,
        run=sandbox_runner(limits),
    )
    return _uncalibrated_call(ctx, timeout_s)


def _run_guide(
    ctx: _Context, params: GuideParams, *, call_s: float | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    counter: dict[str, Any] = {}
    if call_s is None:
        call_s, counter = _uncalibrated_call(ctx, params.timeout_base_s)
    plan = plan_guide(call_s=call_s, params=params)
    for _ in range(plan.trials):
        ctx.trial(
            iterations=plan.iterations_per_trial,
            warmups=plan.warmups,
            batch=plan.batch_calls,
            timeout_s=plan.timeout_per_process_s,
        )
    calibration = {"call_s": call_s, "counter": counter or ctx.runs[0].counter}
    return plan.as_dict() | {"calibration_call_s": call_s}, calibration


def _calls_per_process(
    ctx: _Context, plan: TrialPlan, call_s: float, params: AdaptiveParams
) -> int:
    """Calls per process for the rest of an adaptive measurement, from the variance measured so
    far: more batches per process where batches vary more than processes, more processes (and
    shorter ones) where processes differ (`measurements.uncertainty.batches_per_process`)."""
    components = variance_components(run_samples(ctx.runs))
    batch_cost = plan.batch_calls * call_s
    walls = [p["wall_s"] for p in ctx.processes if p.get("wall_s")]
    timed = (plan.iterations_per_trial + plan.warmups) * call_s
    process_cost = max(1e-3, statistics.median(walls) - timed) if walls else 1e-3
    batches = batches_per_process(
        components,
        process_cost_s=process_cost,
        batch_cost_s=batch_cost,
        minimum=params.samples_per_trial,
        maximum=max(params.samples_per_trial, params.max_calls_per_trial // plan.batch_calls),
    )
    calls = batches * plan.batch_calls
    return max(params.min_calls_per_trial, min(params.max_calls_per_trial, calls))


def _run_adaptive(
    ctx: _Context, params: AdaptiveParams, t0: float
) -> tuple[dict[str, Any], dict[str, Any]]:
    # Calibration: the first call is a warm-up (dropped), the median of the rest is the call time.
    calls = max(2, params.calibration_calls)
    argv = ctx.argv(iterations=calls, warmups=0, batch=1, time_limit_s=params.calibration_s)
    cal, _ = ctx.once(argv, params.timeout_base_s)
    call_s = _call_seconds(cal, skip_first=True)
    plan = plan_adaptive_trial(call_s=call_s, params=params)
    per_trial_s = (plan.iterations_per_trial + plan.warmups) * call_s
    iterations = plan.iterations_per_trial
    half = math.inf
    stop = "max_trials"
    for i in range(params.max_trials):
        elapsed = time.monotonic() - t0
        # Stop before a trial that would end past the budget (the first trial always runs);
        # the check's inputs are kept in the plan, so the decision can be verified afterwards.
        if i >= 1 and elapsed + per_trial_s > params.budget_s:
            stop = "budget"
            break
        ctx.trial(
            iterations=iterations,
            warmups=plan.warmups,
            batch=plan.batch_calls,
            timeout_s=plan.timeout_per_process_s,
        )
        half = precision_reached(run_samples(ctx.runs))
        if i + 1 >= params.min_trials and half <= params.precision:
            stop = "precision"
            break
        if i + 1 == params.min_trials:
            iterations = _calls_per_process(ctx, plan, call_s, params)
            per_trial_s = (iterations + plan.warmups) * call_s
    plan_dict = plan.as_dict() | {
        "trials": len(ctx.runs),
        "calibration_call_s": call_s,
        "precision": params.precision,
        "budget_s": params.budget_s,
        "precision_reached": half if math.isfinite(half) else None,
        "iterations_after_first_trials": iterations,
        "stopped_by": stop,
        "trial_estimate_s": per_trial_s,
        "elapsed_at_stop_s": time.monotonic() - t0,
    }
    return plan_dict, {"call_s": call_s, "counter": cal.counter}
