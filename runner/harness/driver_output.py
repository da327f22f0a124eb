"""The one parser of native driver output (``ngcc-time`` and ``ngcc-prof``).

Each driver process writes exactly one JSON object to the result descriptor the parent opened
(``--result-fd``; stdout only for the counter probe, which loads no candidate code).  This
module validates it (every problem is a `DriverOutputError` naming the field) and builds, from
the output of several processes, the record types of `measurements.records` (`TimingRecord`,
`HashProfileRecord`) — the same types the importer builds from harness files, handed to the
same services.  Beyond the harness data, our records carry per-trial ``samples`` (counter units
per batch), ``batch_calls``, ``counter`` and ``cpu``, and record-level ``counter``,
``stack_high_water_bytes`` and sample statistics.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from datetime import datetime
from types import SimpleNamespace
from typing import Any

from measurements import stats
from measurements.records import (
    HashProfileRecord,
    ProfileCall,
    TimingRecord,
    TimingTrial,
    hash_profile_record,
    record_path,
    timing_record,
    trials_with_processes,
)
from measurements.stats import HASH_FUNCTIONS

PROFILE_FUNCTIONS = (*HASH_FUNCTIONS, "drng")
SIZE_KEYS = (
    "input_bytes",
    "pk_bytes",
    "sk_bytes",
    "ct_bytes",
    "ss_bytes",
    "signature_bytes",
    "digest_bytes",
)
#: Byte counts of a key-exchange run (``kex`` object of ``ngcc-time``; see native/driver/ops_kex.c).
KEX_SIZE_KEYS = (
    "passes",
    "pk_a_bytes",
    "pk_b_bytes",
    "sk_bytes",
    "sta_bytes",
    "stb_bytes",
    "ss_bytes",
    "msg_capacity_bytes",
)


class DriverOutputError(ValueError):
    """Malformed driver output; ``field`` names the offending field."""

    def __init__(self, field_name: str, message: str) -> None:
        self.field = field_name
        self.message = message
        super().__init__(f"driver output: field '{field_name}': {message}")


# --- low-level typed access -----------------------------------------------------------------


def _get(obj: dict[str, Any], key: str, path: str, *, required: bool = True) -> Any:
    if key not in obj or obj[key] is None:
        if required:
            raise DriverOutputError(path, "missing")
        return None
    return obj[key]


def _int(obj: dict[str, Any], key: str, path: str, *, required: bool = True, minimum: int = 0):
    value = _get(obj, key, path, required=required)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise DriverOutputError(path, f"expected an integer, got {value!r}")
    if value < minimum:
        raise DriverOutputError(path, f"must be at least {minimum}, got {value}")
    return value


def _num(obj: dict[str, Any], key: str, path: str, *, required: bool = True) -> float | None:
    value = _get(obj, key, path, required=required)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise DriverOutputError(path, f"expected a finite number, got {value!r}")
    if value < 0:
        raise DriverOutputError(path, f"must not be negative, got {value}")
    return float(value)


def _str(obj: dict[str, Any], key: str, path: str, *, required: bool = True) -> str | None:
    value = _get(obj, key, path, required=required)
    if value is None:
        return None
    if not isinstance(value, str):
        raise DriverOutputError(path, f"expected a string, got {value!r}")
    return value


def _obj(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise DriverOutputError(path, "expected a JSON object")
    return value


def _load(stdout: str, driver: str) -> dict[str, Any]:
    text = stdout.strip()
    if not text:
        raise DriverOutputError("<stdout>", "empty: the driver printed nothing")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DriverOutputError(
            "<stdout>", f"not one JSON object ({exc.msg} at line {exc.lineno})"
        ) from exc
    data = _obj(data, "<root>")
    if data.get("driver") != driver:
        raise DriverOutputError("driver", f"expected {driver!r}, got {data.get('driver')!r}")
    if data.get("status") not in ("complete", "error"):
        raise DriverOutputError("status", f"expected complete|error, got {data.get('status')!r}")
    if data["status"] == "error":
        _str(data, "error", "error")
    return data


# --- ngcc-time --------------------------------------------------------------------------------


@dataclass
class DriverRun:
    """One ``ngcc-time`` process, validated."""

    status: str
    error: str | None
    operation: str
    category: str | None
    input_bytes: int
    cpu: int | None
    pinned_cpu: int | None
    iterations: int
    warmups: int
    counter: dict[str, Any]
    sizes: dict[str, int]
    setup_seconds: float | None
    baseline_rss_bytes: int | None
    peak_rss_bytes: int | None
    stack_high_water_bytes: int | None
    trials: list[dict[str, Any]]
    raw: dict[str, Any] = field(repr=False, default_factory=dict)
    #: Key exchange only: passes, key/state/secret sizes and ``messages`` (bytes of each pass).
    kex: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == "complete"


def _parse_counter(data: dict[str, Any], *, required: bool) -> dict[str, Any]:
    raw = _get(data, "counter", "counter", required=required)
    if raw is None:
        return {}
    c = _obj(raw, "counter")
    return {
        "name": _str(c, "name", "counter.name"),
        "hz": _num(c, "hz", "counter.hz"),
        "overhead_cycles": _num(c, "overhead_cycles", "counter.overhead_cycles"),
    }


def _parse_trial(raw: Any, i: int, counter_name: str) -> dict[str, Any]:
    path = f"trials[{i}]"
    t = _obj(raw, path)
    samples = _get(t, "samples", f"{path}.samples")
    if not isinstance(samples, list):
        raise DriverOutputError(f"{path}.samples", "expected a list")
    for j, s in enumerate(samples):
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise DriverOutputError(f"{path}.samples[{j}]", f"bad sample {s!r}")
    trial = {
        "measurements": _int(t, "measurements", f"{path}.measurements", minimum=1),
        "seconds": _num(t, "seconds", f"{path}.seconds"),
        "cycles": _int(t, "cycles", f"{path}.cycles"),
        "samples": samples,
        "batch_calls": _int(t, "batch_calls", f"{path}.batch_calls", minimum=1),
        "counter": counter_name,
        "cpu": _int(t, "cpu", f"{path}.cpu", required=False, minimum=-1),
    }
    # What the OS says about interference (absent from older drivers; -1: not available).
    for key in ("involuntary_switches", "voluntary_switches"):
        value = _int(t, key, f"{path}.{key}", required=False, minimum=-1)
        if value is not None:
            trial[key] = None if value < 0 else value
    for key in ("loadavg_start", "loadavg_end", "cpu_seconds", "wait_seconds"):
        if key in t:
            trial[key] = _num(t, key, f"{path}.{key}", required=False)
    if len(samples) * trial["batch_calls"] > trial["measurements"]:
        raise DriverOutputError(f"{path}.samples", "more calls in samples than in the trial")
    if sum(samples) > trial["cycles"]:
        raise DriverOutputError(f"{path}.samples", "samples add up to more than the trial")
    return trial


def _parse_kex(data: dict[str, Any]) -> dict[str, Any]:
    raw = _get(data, "kex", "kex", required=False)
    if raw is None:
        return {}
    k = _obj(raw, "kex")
    kex: dict[str, Any] = {key: _int(k, key, f"kex.{key}") for key in KEX_SIZE_KEYS}
    messages = _get(k, "messages", "kex.messages")
    if not isinstance(messages, list) or len(messages) != kex["passes"]:
        raise DriverOutputError("kex.messages", f"expected a list of {kex['passes']} lengths")
    for i, n in enumerate(messages):
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= kex["msg_capacity_bytes"]:
            raise DriverOutputError(f"kex.messages[{i}]", f"bad message length {n!r}")
    kex["messages"] = list(messages)
    return kex


def parse_probe_output(stdout: str) -> dict[str, Any]:
    """The counter reported by ``ngcc-time --probe`` (name, hz, overhead_cycles)."""
    data = _load(stdout, "ngcc-time")
    if data["status"] != "complete":
        raise DriverOutputError("error", str(data.get("error")))
    return _parse_counter(data, required=True)


def parse_driver_output(stdout: str) -> DriverRun:
    """Validate the JSON printed by one ``ngcc-time`` process."""
    data = _load(stdout, "ngcc-time")
    ok = data["status"] == "complete"
    counter = _parse_counter(data, required=ok)
    sizes_raw = _get(data, "sizes", "sizes", required=ok) or {}
    sizes = {
        k: _int(_obj(sizes_raw, "sizes"), k, f"sizes.{k}")
        for k in SIZE_KEYS
        if ok or k in sizes_raw
    }
    trials_raw = _get(data, "trials", "trials")
    if not isinstance(trials_raw, list):
        raise DriverOutputError("trials", "expected a list")
    trials = [_parse_trial(t, i, counter.get("name", "")) for i, t in enumerate(trials_raw)]
    if ok and not trials:
        raise DriverOutputError("trials", "a complete run has at least one trial")
    cpu = _int(data, "cpu", "cpu", required=False, minimum=-1)
    pinned = _int(data, "pinned_cpu", "pinned_cpu", required=False, minimum=-1)
    return DriverRun(
        status=data["status"],
        error=data.get("error"),
        operation=_str(data, "operation", "operation"),
        category=_str(data, "category", "category", required=False),
        input_bytes=_int(data, "input_bytes", "input_bytes"),
        cpu=cpu,
        pinned_cpu=None if pinned is None or pinned < 0 else pinned,
        iterations=_int(data, "iterations", "iterations", minimum=1),
        warmups=_int(data, "warmups", "warmups"),
        counter=counter,
        sizes=sizes,
        setup_seconds=_num(data, "setup_seconds", "setup_seconds", required=False),
        baseline_rss_bytes=_int(data, "baseline_rss_bytes", "baseline_rss_bytes", required=ok),
        peak_rss_bytes=_int(data, "peak_rss_bytes", "peak_rss_bytes", required=ok),
        stack_high_water_bytes=_int(
            data, "stack_high_water_bytes", "stack_high_water_bytes", required=False
        ),
        trials=trials,
        raw=data,
        kex=_parse_kex(data),
    )


def per_call_samples(trials: list[dict[str, Any]]) -> list[float]:
    """Per-call counter units of every batch sample of validated driver ``trials``."""
    return stats.per_call_samples(SimpleNamespace(**t) for t in trials)


def process_entry(
    *,
    run: DriverRun | None,
    command: list[str],
    exit_code: int | None,
    stderr: str,
    wall_s: float,
    status: str | None = None,
    disturbed_trials: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """One ``processes[]`` entry of a record (the harness shape plus our raw driver meta)."""
    meta: dict[str, Any] = {}
    if run is not None:
        meta = {k: v for k, v in run.raw.items() if k != "trials"}
    return {
        "status": status or (run.status if run is not None else "failed"),
        "exit_code": exit_code,
        "meta": meta,
        "trials": list(run.trials) if run is not None and run.ok else [],
        "stderr": stderr,
        "command": list(command),
        "wall_s": wall_s,
        "disturbed_retries": len(disturbed_trials or []),
        "disturbed_trials": list(disturbed_trials or []),
    }


def _max_of(values: list[int | None]) -> int | None:
    present = [v for v in values if v is not None]
    return max(present) if present else None


def _timing_trial(index: int, trial: dict[str, Any]) -> TimingTrial:
    """A validated driver trial (see `_parse_trial`) as a record trial."""
    return TimingTrial(
        index=index,
        process_index=0,
        measurements=trial["measurements"],
        seconds=trial["seconds"],
        cycles=trial["cycles"],
        counter=trial.get("counter") or "",
        cpu=trial.get("cpu"),
        disturbed=bool(trial.get("disturbed")),
        samples=[float(s) for s in trial.get("samples") or ()],
        batch_calls=trial.get("batch_calls"),
    )


def _moment(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def _run_figures(runs: list[DriverRun]) -> dict[str, Any]:
    """Sizes and counter of the first run; the largest memory figures of all runs."""
    if not runs:
        return {}
    return {
        "sizes": dict(runs[0].sizes),
        "kex": dict(runs[0].kex),
        "counter": dict(runs[0].counter),
        "baseline_rss_bytes": _max_of([r.baseline_rss_bytes for r in runs]),
        "peak_rss_bytes": _max_of([r.peak_rss_bytes for r in runs]),
        "stack_high_water_bytes": _max_of([r.stack_high_water_bytes for r in runs]),
    }


def build_timing_record(
    *,
    candidate: str,
    label: str,
    operation: str,
    input_bytes: int,
    plan: dict[str, Any],
    processes: list[dict[str, Any]],
    runs: list[DriverRun],
    instance: str = "",
    variant: str = "reference",
    flags: str = "",
    build_flags: str = "",
    kat: str = "",
    library: str = "",
    library_sha256: str = "",
    started_utc: str | None = None,
    ended_utc: str | None = None,
    environment: dict[str, Any] | None = None,
    error: str | None = None,
    input_pool: dict[str, Any] | None = None,
    status: str | None = None,
) -> TimingRecord:
    """The timing record of the accepted runs (one per trial process), built once, here.

    ``status`` overrides the derived complete/failed (``INCONSISTENT``: no runs accepted, the
    record keeps its processes as evidence and carries no figures).

    Its aggregates are computed by `measurements.stats.timing_aggregates` (the guide's
    Σcycles / Σcalls, and order statistics of the per-call values of every batch sample); each
    trial is tagged with the process that produced it. ``timing_record_json`` writes it as
    evidence in the harness shape.
    """
    raw_trials = [t for run in runs for t in run.trials]
    trials = trials_with_processes(
        [_timing_trial(i, t) for i, t in enumerate(raw_trials)], processes
    )
    return timing_record(
        path=record_path("records", candidate, label, operation, input_bytes),
        status=status or ("complete" if trials and error is None else "failed"),
        candidate=candidate,
        label=label,
        operation=operation,
        input_bytes=input_bytes,
        trials=trials,
        instance=instance,
        variant=variant,
        flags=flags,
        build_flags=build_flags,
        kat=kat,
        plan=plan,
        disturbed_retries=sum(p.get("disturbed_retries", 0) for p in processes),
        started_utc=_moment(started_utc),
        ended_utc=_moment(ended_utc),
        environment=environment or {},
        timing_scope="loop",
        processes=processes,
        library=library,
        library_sha256=library_sha256,
        error=error,
        input_pool=input_pool or {},
        **_run_figures(runs if trials else []),
    )


# --- ngcc-prof --------------------------------------------------------------------------------


@dataclass
class ProfileRun:
    """One ``ngcc-prof`` process, validated."""

    status: str
    error: str | None
    operation: str
    input_bytes: int
    meta: dict[str, Any]
    operations: int
    ticks: int
    calls: list[dict[str, Any]]
    raw: dict[str, Any] = field(repr=False, default_factory=dict)


def parse_profile_output(stdout: str) -> ProfileRun:
    """Validate the JSON printed by one ``ngcc-prof`` process."""
    data = _load(stdout, "ngcc-prof")
    ok = data["status"] == "complete"
    operation = _str(data, "operation", "operation")
    if not ok:
        return ProfileRun("error", data["error"], operation, 0, {}, 0, 0, [], data)
    meta = _obj(_get(data, "meta", "meta"), "meta")
    _str(meta, "tick_source", "meta.tick_source")
    _num(meta, "tick_hz", "meta.tick_hz")
    _int(meta, "overflow_calls", "meta.overflow_calls")
    total = _obj(_get(data, "total", "total"), "total")
    calls_raw = _get(data, "calls", "calls")
    if not isinstance(calls_raw, list):
        raise DriverOutputError("calls", "expected a list")
    calls = []
    for i, raw in enumerate(calls_raw):
        c = _obj(raw, f"calls[{i}]")
        fn = _str(c, "fn", f"calls[{i}].fn")
        if fn not in PROFILE_FUNCTIONS:
            raise DriverOutputError(f"calls[{i}].fn", f"unknown function {fn!r}")
        calls.append(
            {
                "fn": fn,
                "in_bits": _int(c, "in_bits", f"calls[{i}].in_bits"),
                "out_bits": _int(c, "out_bits", f"calls[{i}].out_bits"),
                "calls": _int(c, "calls", f"calls[{i}].calls", minimum=1),
                "ticks": _int(c, "ticks", f"calls[{i}].ticks"),
            }
        )
    return ProfileRun(
        status="complete",
        error=None,
        operation=operation,
        input_bytes=_int(data, "input_bytes", "input_bytes"),
        meta=meta,
        operations=_int(total, "operations", "total.operations", minimum=1),
        ticks=_int(total, "ticks", "total.ticks"),
        calls=calls,
        raw=data,
    )


def build_profile_record(
    *,
    run: ProfileRun,
    candidate: str,
    label: str,
    command: list[str],
    stderr: str = "",
    instance: str = "",
) -> HashProfileRecord:
    """The hash profile of one ``ngcc-prof`` run, its shares computed once, here."""
    complete = run.status == "complete"
    meta = run.meta or {}
    if complete:
        meta = {"id": candidate, "instance": instance or label, "operation": run.operation} | meta
    tick_hz, warmups = meta.get("tick_hz"), meta.get("warmups")
    return hash_profile_record(
        path=record_path("profile", candidate, label, run.operation, run.input_bytes),
        status=run.status,
        candidate=candidate,
        label=label,
        operation=run.operation,
        input_bytes=run.input_bytes,
        total_operations=run.operations,
        total_ticks=run.ticks,
        calls=[ProfileCall(**c) for c in run.calls],
        tick_source=str(meta.get("tick_source", "")),
        tick_hz=None if tick_hz is None else float(tick_hz),
        warmups=None if warmups is None else int(warmups),
        meta=meta,
        command=[str(part) for part in command],
        stderr=stderr,
        error=run.error,
    )
