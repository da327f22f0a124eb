"""The one parser (and writer) of the harness data format.

Timing records (``records/<id>/<label>__<op>.json``), hash profiles (``profile/…``),
``build.json``, ``campaign.json`` and KAT logs are turned into plain dataclasses here, with every
problem reported as a `HarnessDataError` naming the file and the field. Timing records and
profiles become the record types of `measurements.records`, the same ones the runner builds from
the driver output; `timing_record_json` / `hash_profile_json` write a record back in this shape
(the runner's evidence), with our sample fields beyond the harness shape.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import PurePosixPath
from typing import Any

from measurements.domain import SUBMISSION_ID, category_of
from measurements.records import (
    SCHEMA,
    HashProfileRecord,
    ProfileCall,
    TimingRecord,
    TimingTrial,
    hash_profile_mismatches,
    timing_record_mismatches,
    trials_with_processes,
)
from measurements.stats import (
    AGGREGATE_TOLERANCE,
    Aggregates,
    ProfileShares,
    SampleStats,
    calls_per_operation,
    profile_shares,
    throughput_mb_per_second,
    timing_aggregates,
)

# Candidate ids and instance labels become URL parts and export file names: keep them plain.
CANDIDATE_ID = SUBMISSION_ID
INSTANCE_LABEL = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+-]*$")


class HarnessDataError(ValueError):
    """A malformed harness file: names the file and the field."""

    def __init__(self, path: str, field_name: str, message: str) -> None:
        self.path = path
        self.field = field_name
        self.message = message
        super().__init__(f"{path}: field '{field_name}': {message}")


class _Reader:
    """Typed access to a JSON object, raising `HarnessDataError` with a field path."""

    def __init__(self, path: str, data: Any, prefix: str = "") -> None:
        self.path = path
        self.prefix = prefix
        if not isinstance(data, dict):
            raise HarnessDataError(path, prefix or "<root>", "expected a JSON object")
        self.data = data

    def name(self, key: str) -> str:
        return f"{self.prefix}.{key}" if self.prefix else key

    def fail(self, key: str, message: str) -> HarnessDataError:
        return HarnessDataError(self.path, self.name(key), message)

    def has(self, key: str) -> bool:
        return key in self.data and self.data[key] is not None

    def raw(self, key: str, required: bool = True) -> Any:
        if key not in self.data:
            if required:
                raise self.fail(key, "missing")
            return None
        return self.data[key]

    def str(self, key: str, required: bool = True, default: str = "") -> str:
        value = self.raw(key, required)
        if value is None:
            if required:
                raise self.fail(key, "must not be null")
            return default
        if not isinstance(value, str):
            raise self.fail(key, f"expected a string, got {type(value).__name__}")
        return value

    def candidate(self, key: str = "candidate") -> str:
        value = self.str(key)
        if not CANDIDATE_ID.match(value):
            raise self.fail(key, f"{value!r} is not a candidate id such as kem-29")
        return value

    def label(self, key: str = "label") -> str:
        value = self.str(key)
        if not INSTANCE_LABEL.match(value) or ".." in value:
            raise self.fail(key, f"{value!r} is not a plain instance label")
        return value

    def int(self, key: str, required: bool = True, minimum: int | None = 0) -> int | None:
        value = self.raw(key, required)
        if value is None:
            if required:
                raise self.fail(key, "must not be null")
            return None
        if isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"expected an integer, got {value!r}")
        if minimum is not None and value < minimum:
            raise self.fail(key, f"must be at least {minimum}, got {value}")
        if abs(value) > MAX_INTEGER:
            raise self.fail(key, f"integer out of range (|n| > {MAX_INTEGER})")
        return value

    def float(self, key: str, required: bool = True, minimum: float | None = 0.0) -> float | None:
        value = self.raw(key, required)
        if value is None:
            if required:
                raise self.fail(key, "must not be null")
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(key, f"expected a number, got {value!r}")
        value = float(value)
        if math.isnan(value) or math.isinf(value):
            raise self.fail(key, f"must be finite, got {value}")
        if minimum is not None and value < minimum:
            raise self.fail(key, f"must be at least {minimum}, got {value}")
        return value

    def obj(self, key: str, required: bool = True) -> _Reader | None:
        value = self.raw(key, required)
        if value is None:
            if required:
                raise self.fail(key, "must not be null")
            return None
        return _Reader(self.path, value, self.name(key))

    def list(self, key: str, required: bool = True) -> list[Any]:
        value = self.raw(key, required)
        if value is None:
            if required:
                raise self.fail(key, "must not be null")
            return []
        if not isinstance(value, list):
            raise self.fail(key, "expected a list")
        return value

    def operation(self, candidate: str, key: str = "operation") -> str:
        """An operation the candidate's category times (from `measurements.domain`)."""
        value = self.str(key)
        spec = category_of(candidate)
        if spec is None or value not in spec.operations:
            allowed = ", ".join(spec.operations) if spec else "none"
            raise self.fail(key, f"{value!r} is not an operation of {candidate} ({allowed})")
        return value

    def dataset_path(self, key: str) -> str:
        """A path relative to the dataset folder (may be empty), never escaping it."""
        value = self.str(key, required=False)
        parts = PurePosixPath(value).parts
        if value and (value.startswith("/") or ".." in parts or "\\" in value):
            raise self.fail(key, f"{value!r} is not a path inside the dataset folder")
        return value

    def time_range(self, start: str, end: str, required: bool = False) -> tuple:
        """(start, end) times, refusing an end before the start."""
        started = self.datetime(start, required)
        ended = self.datetime(end)
        if started and ended:
            if (started.tzinfo is None) != (ended.tzinfo is None):
                raise self.fail(end, "mixes a time zone with a time without one")
            if ended < started:
                raise self.fail(end, f"{ended.isoformat()} is before {start} {started.isoformat()}")
        return started, ended

    def datetime(self, key: str, required: bool = False) -> datetime | None:
        value = self.str(key, required)
        if not value:
            return None
        try:
            return datetime.fromisoformat(value)
        except ValueError as exc:
            raise self.fail(key, f"not an ISO 8601 time: {value!r}") from exc


#: Deepest nesting of arrays/objects a harness JSON file may have (records use 4 levels).
MAX_JSON_DEPTH = 32
#: Integers are stored in 64-bit signed columns.
MAX_INTEGER = 2**63 - 1
_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _check_json_depth(path: str, text: str) -> None:
    """Refuse nesting deeper than MAX_JSON_DEPTH before the parser recurses into it."""
    depth = 0
    for match in _JSON_TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise HarnessDataError(
                    path, "<file>", f"JSON nested deeper than {MAX_JSON_DEPTH} levels"
                )
        elif token in "]}":
            depth -= 1


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r}")
        result[key] = value
    return result


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number {text} is out of range")
    return value


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a finite number")


def _first_bad_value(data: Any, name: str = "") -> tuple[str, str] | None:
    """(field, problem) of the first NUL-bearing text or out-of-range integer, walking `data`."""
    stack: list[tuple[str, Any]] = [(name, data)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, str) and "\x00" in value:
            return where or "<root>", "text contains a NUL byte"
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INTEGER:
            return where or "<root>", f"integer out of range (|n| > {MAX_INTEGER})"
        if isinstance(value, dict):
            for key, item in value.items():
                if "\x00" in key:
                    return where or "<root>", "a key contains a NUL byte"
                stack.append((f"{where}.{key}" if where else key, item))
        elif isinstance(value, list):
            stack.extend((f"{where}[{i}]", item) for i, item in enumerate(value))
    return None


def load_json(path: str, content: bytes) -> Any:
    """Decode JSON bytes strictly, naming the file (and line or field) on failure.

    Refused: nesting deeper than MAX_JSON_DEPTH, duplicate keys, NaN/Infinity and numbers that
    overflow a double (``1e400``), integers beyond 64 bits and text holding a NUL byte.
    """
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HarnessDataError(path, "<file>", f"not UTF-8 text ({exc})") from exc
    _check_json_depth(path, text)
    try:
        data = json.loads(
            text,
            object_pairs_hook=_unique_object,
            parse_float=_finite_float,
            parse_constant=_reject_constant,
        )
    except json.JSONDecodeError as exc:
        raise HarnessDataError(
            path, "<file>", f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from exc
    except (ValueError, RecursionError) as exc:
        raise HarnessDataError(path, "<file>", f"refused JSON: {exc}") from exc
    bad = _first_bad_value(data)
    if bad is not None:
        raise HarnessDataError(path, bad[0], bad[1])
    return data


# --- Timing records ---------------------------------------------------------------------------

_AGGREGATE_FIELDS = (
    "mean_cycles",
    "mean_seconds",
    "operations_per_second",
    "median_trial_seconds",
    "median_trial_cycles",
    "min_trial_seconds",
    "max_trial_seconds",
)
_SAMPLE_FIELDS = ("median", "q1", "q3", "ci95_low", "ci95_high")


def _parse_trial(path: str, raw: Any, name: str, index: int) -> TimingTrial:
    r = _Reader(path, raw, name)
    samples = r.list("samples", required=False)
    for i, value in enumerate(samples):
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise HarnessDataError(path, r.name(f"samples[{i}]"), f"bad sample {value!r}")
    return TimingTrial(
        index=index,
        process_index=0,
        measurements=r.int("measurements", minimum=1),
        seconds=r.float("seconds", minimum=0.0),
        cycles=r.int("cycles", minimum=0),
        counter=r.str("counter", required=False),
        cpu=r.int("cpu", required=False, minimum=None),
        disturbed=bool(r.raw("disturbed", required=False) or False),
        samples=[float(v) for v in samples],
        batch_calls=r.int("batch_calls", required=False, minimum=1),
    )


def _processes(path: str, r: _Reader) -> list[dict[str, Any]]:
    """The ``processes[]`` entries, each an object whose ``trials`` (if any) is a list."""
    processes = r.list("processes", required=False)
    for p_index, raw in enumerate(processes):
        _Reader(path, raw, f"processes[{p_index}]").list("trials", required=False)
    return processes


def _stated_aggregates(r: _Reader, computed: Aggregates | None) -> Aggregates | None:
    """The file's aggregates; one it leaves out is taken from the trials."""
    measurements = r.int("measurements", required=computed is not None)
    stated = {key: r.float(key, required=False, minimum=0.0) for key in _AGGREGATE_FIELDS}
    if computed is None:
        for key, value in {"measurements": measurements or None, **stated}.items():
            if value is not None:
                raise r.fail(key, f"states {value!r} but the record has no trials")
        return None
    filled = {k: getattr(computed, k) if v is None else v for k, v in stated.items()}
    return Aggregates(measurements=measurements, **filled)


def _stated_sample_stats(r: _Reader, computed: SampleStats | None) -> SampleStats | None:
    """The file's sample statistics, or those of the trials' samples when it states none."""
    stated = r.obj("sample_stats", required=False)
    if stated is None:
        return computed
    values = {key: stated.float(key, minimum=None) for key in _SAMPLE_FIELDS}
    return SampleStats(count=stated.int("count"), **values)


def _object(r: _Reader, key: str) -> dict[str, Any]:
    value = r.raw(key, required=False) or {}
    if not isinstance(value, dict):
        raise r.fail(key, "expected an object")
    return value


def _sizes(r: _Reader) -> dict[str, int]:
    reader = r.obj("sizes", required=False)
    if reader is None:
        return {}
    sizes = {key: reader.int(key, required=False) for key in reader.data}
    return {key: value for key, value in sizes.items() if value is not None}


def _refuse_mismatches(path: str, mismatches: list[tuple[str, Any, Any]], source: str) -> None:
    if mismatches:
        name, stated, expected = mismatches[0]
        raise HarnessDataError(
            path,
            name,
            f"stored {stated!r} disagrees with {expected!r} recomputed from the {source} "
            f"(relative tolerance {AGGREGATE_TOLERANCE})",
        )


def parse_timing_record(path: str, data: Any) -> TimingRecord:
    """A timing record from a harness ``records/…`` file; its stated aggregates verified."""
    r = _Reader(path, data)
    status = r.str("status")
    processes = _processes(path, r)
    trials = trials_with_processes(
        [_parse_trial(path, raw, f"trials[{i}]", i) for i, raw in enumerate(r.list("trials"))],
        processes,
    )
    if status == "complete" and not trials:
        raise r.fail("trials", "a complete record needs at least one trial")
    aggregates, samples = timing_aggregates(trials)
    input_bytes = r.int("input_bytes")
    throughput = r.float("throughput_MB_per_second", required=False)
    if throughput is None:  # left out: the trials give it
        ops = aggregates.operations_per_second if aggregates else None
        throughput = throughput_mb_per_second(input_bytes, ops)
    candidate = r.candidate()
    started_utc, ended_utc = r.time_range("started_utc", "ended_utc")
    record = TimingRecord(
        path=path,
        schema=r.int("schema", required=False) or SCHEMA,
        status=status,
        candidate=candidate,
        label=r.label(),
        instance=r.str("instance", required=False),
        variant=r.str("variant", required=False, default="reference"),
        flags=r.str("flags", required=False),
        operation=r.operation(candidate),
        input_bytes=input_bytes,
        plan=_object(r, "plan"),
        kat=r.str("kat", required=False),
        disturbed_retries=r.int("disturbed_retries", required=False) or 0,
        started_utc=started_utc,
        ended_utc=ended_utc,
        environment=_object(r, "environment"),
        trials=trials,
        aggregates=_stated_aggregates(r, aggregates),
        sample_stats=_stated_sample_stats(r, samples),
        throughput_mb_per_second=throughput,
        sizes=_sizes(r),
        kex=r.raw("kex", required=False) or {},
        input_pool=r.raw("input_pool", required=False) or {},
        build_flags=r.str("build_flags", required=False),
        baseline_rss_bytes=r.int("baseline_rss_bytes", required=status == "complete"),
        peak_rss_bytes=r.int("peak_rss_bytes", required=status == "complete"),
        stack_high_water_bytes=r.int("stack_high_water_bytes", required=False),
        timing_scope=r.str("timing_scope", required=False),
        counter=_object(r, "counter"),
        processes=processes,
        library=r.str("library", required=False),
        library_sha256=r.str("library_sha256", required=False),
        error=r.str("error", required=False, default="") or None,
    )
    _refuse_mismatches(path, timing_record_mismatches(record), "trials")
    return record


def _trial_json(trial: TimingTrial) -> dict[str, Any]:
    data: dict[str, Any] = {
        "measurements": trial.measurements,
        "seconds": trial.seconds,
        "cycles": trial.cycles,
        "samples": list(trial.samples),
        "batch_calls": trial.batch_calls,
        "counter": trial.counter,
        "cpu": trial.cpu,
    }
    if trial.disturbed:
        data["disturbed"] = True
    return data


def _aggregates_json(record: TimingRecord) -> dict[str, Any]:
    agg = record.aggregates
    data: dict[str, Any] = {"measurements": record.measurements}
    data.update({key: getattr(agg, key) if agg else None for key in _AGGREGATE_FIELDS})
    data["guide_100_measurements_met"] = record.measurements >= 100
    data["throughput_MB_per_second"] = record.throughput_mb_per_second
    return data


def _sample_stats_json(stats: SampleStats) -> dict[str, Any]:
    data: dict[str, Any] = {"count": stats.count}
    data.update({key: getattr(stats, key) for key in _SAMPLE_FIELDS})
    data["ci95_half_width_relative"] = stats.ci95_half_width_relative
    return data


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def timing_record_json(record: TimingRecord) -> dict[str, Any]:
    """The one serialiser of a timing record: the harness ``records/…`` shape, which
    `parse_timing_record` reads back into an equal record."""
    data: dict[str, Any] = {
        "schema": record.schema,
        "status": record.status,
        "candidate": record.candidate,
        "label": record.label,
        "instance": record.instance,
        "variant": record.variant,
        "flags": record.flags,
        "operation": record.operation,
        "input_bytes": record.input_bytes,
        "plan": record.plan,
        "kat": record.kat,
        "disturbed_retries": record.disturbed_retries,
        "library": record.library,
        "library_sha256": record.library_sha256,
        "started_utc": _iso(record.started_utc),
        "ended_utc": _iso(record.ended_utc),
        "environment": record.environment,
        "processes": record.processes,
        "trials": [_trial_json(t) for t in record.trials],
        "build_flags": record.build_flags,
        "timing_scope": record.timing_scope,
        "kex": record.kex,
    }
    if record.input_pool:
        data["input_pool"] = record.input_pool
    if record.error is not None:
        data["error"] = record.error
    data.update(_aggregates_json(record))
    data.update(
        sizes=record.sizes,
        baseline_rss_bytes=record.baseline_rss_bytes,
        peak_rss_bytes=record.peak_rss_bytes,
        stack_high_water_bytes=record.stack_high_water_bytes,
        counter=record.counter,
    )
    if record.sample_stats is not None:
        data["sample_stats"] = _sample_stats_json(record.sample_stats)
    return data


# --- Hash profiles ----------------------------------------------------------------------------


def _parse_calls(path: str, r: _Reader, required: bool) -> list[ProfileCall]:
    calls = []
    for i, raw in enumerate(r.list("calls", required=required)):
        c = _Reader(path, raw, f"calls[{i}]")
        calls.append(
            ProfileCall(
                fn=c.str("fn"),
                in_bits=c.int("in_bits"),
                out_bits=c.int("out_bits"),
                calls=c.int("calls"),
                ticks=c.int("ticks"),
            )
        )
    return calls


def _stated_shares(r: _Reader, computed: ProfileShares) -> ProfileShares:
    """The file's shares over the computed ones (the file may name fewer functions)."""
    share = dict(computed.share)
    reader = r.obj("share", required=False)
    if reader is not None:
        share.update({key: reader.float(key) for key in reader.data})
    stated_hash = r.float("hash_share", required=False)
    hash_value = computed.hash_share if stated_hash is None else stated_hash
    return replace(computed, share=share, hash_share=hash_value)


def _profile_meta(r: _Reader) -> tuple[dict[str, Any], float | None, int | None]:
    """(meta, tick_hz, warmups): the harness writes numbers in meta as strings."""
    meta = r.obj("meta", required=False)
    if meta is None:
        return {}, None, None
    tick_hz = None
    if meta.has("tick_hz"):
        try:
            tick_hz = float(meta.data["tick_hz"])
        except (TypeError, ValueError) as exc:
            raise meta.fail("tick_hz", "not a number") from exc
        if not math.isfinite(tick_hz) or tick_hz <= 0:
            raise meta.fail("tick_hz", f"must be a positive finite number, got {tick_hz}")
    return meta.data, tick_hz, meta.int("warmups", required=False)


def parse_hash_profile(path: str, data: Any) -> HashProfileRecord:
    """A hash profile from a harness ``profile/…`` file; its stated shares verified."""
    r = _Reader(path, data)
    status = r.str("status")
    total = r.obj("total", required=status == "complete")
    calls = _parse_calls(path, r, required=status == "complete")
    total_ticks = total.int("ticks") if total else 0
    shares = _stated_shares(r, profile_shares(((c.fn, c.ticks) for c in calls), total_ticks))
    meta, tick_hz, warmups = _profile_meta(r)
    command = r.list("command", required=False)
    candidate = r.candidate()
    profile = HashProfileRecord(
        path=path,
        schema=r.int("schema", required=False) or SCHEMA,
        candidate=candidate,
        label=r.label(),
        operation=r.operation(candidate),
        input_bytes=r.int("input_bytes"),
        status=status,
        tick_source=str(meta.get("tick_source", "")),
        tick_hz=tick_hz,
        warmups=warmups,
        total_operations=total.int("operations", minimum=1) if total else 0,
        total_ticks=total_ticks,
        calls=calls,
        share=shares.share,
        hash_share=shares.hash_share,
        drng_share=shares.drng_share,
        meta=meta,
        command=[str(part) for part in command],
        stderr=r.str("stderr", required=False),
        error=r.str("error", required=False, default="") or None,
    )
    _refuse_mismatches(path, hash_profile_mismatches(profile), "calls")
    return profile


def hash_profile_json(profile: HashProfileRecord) -> dict[str, Any]:
    """The one serialiser of a hash profile: the harness ``profile/…`` shape, which
    `parse_hash_profile` reads back into an equal profile."""
    data: dict[str, Any] = {
        "schema": profile.schema,
        "candidate": profile.candidate,
        "label": profile.label,
        "operation": profile.operation,
        "input_bytes": profile.input_bytes,
        "status": profile.status,
        "command": profile.command,
        "stderr": profile.stderr,
    }
    if profile.error is not None:
        data["error"] = profile.error
    if profile.status != "complete":
        return data
    calls = [dataclasses.asdict(c) for c in profile.calls]
    data.update(
        meta=profile.meta,
        total={"operations": profile.total_operations, "ticks": profile.total_ticks},
        calls=calls,
        share=profile.share,
        hash_share=profile.hash_share,
        calls_per_operation=calls_per_operation(
            ((c.fn, c.calls) for c in profile.calls), profile.total_operations
        ),
    )
    return data


# --- build.json, campaign.json, KAT logs ------------------------------------------------------


@dataclass
class BuildEntry:
    candidate: str
    label: str
    api_instance: str
    variant: str
    flags: str
    kat: str
    guide_result: str
    library: str
    library_sha256: str
    elf_load_bytes: int | None
    kat_log: str
    kat_log_sha256: str


def parse_build_index(path: str, data: Any) -> list[BuildEntry]:
    r = _Reader(path, data)
    instances = r.obj("instances")
    entries: list[BuildEntry] = []
    for key in instances.data:
        e = instances.obj(key)
        candidate = e.candidate()
        label = e.label()
        if key != f"{candidate}/{label}":
            raise e.fail("label", f"key {key!r} does not match candidate/label")
        entries.append(
            BuildEntry(
                candidate=candidate,
                label=label,
                api_instance=e.str("instance", required=False),
                variant=e.str("variant", required=False, default="reference"),
                flags=e.str("flags", required=False),
                kat=e.str("kat"),
                guide_result=e.str("guide_result", required=False),
                library=e.str("library", required=False),
                library_sha256=e.str("library_sha256", required=False),
                elf_load_bytes=e.int("elf_load_bytes", required=False),
                kat_log=e.dataset_path("kat_log"),
                kat_log_sha256=e.str("kat_log_sha256", required=False),
            )
        )
    return entries


@dataclass
class CampaignInfo:
    system_id: str
    started_utc: datetime | None
    ended_utc: datetime | None
    environment_at_start: dict[str, Any]
    environment_at_end: dict[str, Any]
    host_checks: list[Any]
    host_problems: list[Any]
    arch_config: dict[str, Any]
    harness_additions: str
    planning: dict[str, Any]
    shard_cpus: dict[str, int]
    history_note: str


def parse_campaign(path: str, data: Any) -> CampaignInfo:
    r = _Reader(path, data)
    shard_cpus = r.raw("shard_cpus", required=False) or {}
    if not isinstance(shard_cpus, dict):
        raise r.fail("shard_cpus", "expected an object")
    started_utc, ended_utc = r.time_range("started_utc", "ended_utc", required=True)
    return CampaignInfo(
        system_id=r.str("system_id"),
        started_utc=started_utc,
        ended_utc=ended_utc,
        environment_at_start=r.raw("environment_at_start", required=False) or {},
        environment_at_end=r.raw("environment_at_end", required=False) or {},
        host_checks=r.list("host_checks", required=False),
        host_problems=r.list("host_problems", required=False),
        arch_config=r.raw("arch_config", required=False) or {},
        harness_additions=r.str("harness_additions", required=False),
        planning=r.raw("planning", required=False) or {},
        shard_cpus=shard_cpus,
        history_note=r.str("history_note", required=False),
    )


@dataclass
class KatLog:
    fields: dict[str, str]
    result_status: str

    @property
    def algorithm(self) -> str:
        return self.fields.get("algorithm", "")


def parse_kat_log(path: str, content: bytes) -> KatLog:
    if b"\x00" in content:
        line = content[: content.index(b"\x00")].count(b"\n") + 1
        raise HarnessDataError(path, f"line {line}", "text contains a NUL byte")
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        text = content.decode("latin-1")
    fields: dict[str, str] = {}
    status = ""
    for line in text.splitlines():
        match = re.match(r"^([A-Za-z_][\w]*)\s*=\s*(.*)$", line)
        if match and match.group(1) not in fields:
            fields[match.group(1)] = match.group(2).strip()
        if line.startswith("RESULT "):
            parts = line.split()
            status = parts[-1] if len(parts) >= 4 else ""
    return KatLog(fields=fields, result_status=status)
