"""The one parser of the harness data format.

Timing records (``records/<id>/<label>__<op>.json``), hash profiles (``profile/…``),
``build.json``, ``campaign.json`` and KAT logs are turned into plain dataclasses here, with every
problem reported as a `HarnessDataError` naming the file and the field. Records written by our
own timing driver (runner) have the same shape plus sample fields, so both go through this
module and the same services.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePosixPath
from typing import Any

from measurements.domain import SUBMISSION_ID, category_of
from measurements.stats import (
    aggregates_from_trials,
    hash_share,
    relative_difference,
    time_shares,
)

AGGREGATE_TOLERANCE = 1e-9
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


@dataclass
class TrialRow:
    index: int
    process_index: int
    measurements: int
    seconds: float
    cycles: int
    counter: str = ""
    cpu: int | None = None
    disturbed: bool = False
    samples: list[float] = field(default_factory=list)
    batch_calls: int | None = None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class TimingRecord:
    path: str
    schema: int
    status: str
    candidate: str
    label: str
    instance: str
    variant: str
    flags: str
    operation: str
    input_bytes: int
    plan: dict[str, Any]
    planner: str
    kat: str
    disturbed_retries: int
    started_utc: datetime | None
    ended_utc: datetime | None
    environment: dict[str, Any]
    cpu: int | None
    trials: list[TrialRow]
    aggregates: dict[str, float | int | None]
    throughput_mb_per_second: float | None
    sizes: dict[str, int]
    kex: dict[str, Any]
    build_flags: str
    baseline_rss_bytes: int | None
    peak_rss_bytes: int | None
    stack_high_water_bytes: int | None
    timing_scope: str
    counter: dict[str, Any]
    sample_stats: dict[str, float]


_AGGREGATE_FIELDS = (
    "mean_cycles",
    "mean_seconds",
    "operations_per_second",
    "median_trial_seconds",
    "median_trial_cycles",
    "min_trial_seconds",
    "max_trial_seconds",
)


def _parse_trial(path: str, raw: Any, name: str, index: int, process_index: int) -> TrialRow:
    r = _Reader(path, raw, name)
    samples = r.list("samples", required=False)
    for i, value in enumerate(samples):
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise HarnessDataError(path, r.name(f"samples[{i}]"), f"bad sample {value!r}")
    return TrialRow(
        index=index,
        process_index=process_index,
        measurements=r.int("measurements", minimum=1),
        seconds=r.float("seconds", minimum=0.0),
        cycles=r.int("cycles", minimum=0),
        counter=r.str("counter", required=False),
        cpu=r.int("cpu", required=False, minimum=None),
        disturbed=bool(r.raw("disturbed", required=False) or False),
        samples=[float(v) for v in samples],
        batch_calls=r.int("batch_calls", required=False, minimum=1),
    )


def _trials_with_processes(path: str, r: _Reader) -> list[TrialRow]:
    """Top-level trials, each tagged with the process that produced it (and its meta)."""
    trials = [
        _parse_trial(path, raw, f"trials[{i}]", i, 0) for i, raw in enumerate(r.list("trials"))
    ]
    processes = r.list("processes", required=False)
    owners: list[tuple[int, dict[str, Any]]] = []
    for p_index, raw in enumerate(processes):
        p = _Reader(path, raw, f"processes[{p_index}]")
        meta = p.raw("meta", required=False) or {}
        for _ in p.list("trials", required=False):
            owners.append((p_index, meta))
    if owners and len(owners) == len(trials):
        for trial, (p_index, meta) in zip(trials, owners, strict=True):
            trial.process_index = p_index
            trial.meta = meta
            if trial.cpu is None and isinstance(meta, dict) and "cpu" in meta:
                try:
                    trial.cpu = int(meta["cpu"])
                except (TypeError, ValueError):
                    pass
    return trials


def _check_aggregates(path: str, r: _Reader, trials: list[TrialRow]) -> dict[str, Any]:
    stored: dict[str, Any] = {"measurements": r.int("measurements", required=bool(trials))}
    for key in _AGGREGATE_FIELDS:
        stored[key] = r.float(key, required=False, minimum=0.0)
    if not trials:
        return stored
    recomputed = aggregates_from_trials(trials).as_dict()
    if stored["measurements"] != recomputed["measurements"]:
        raise r.fail(
            "measurements",
            f"stored {stored['measurements']} but the trials add up to "
            f"{recomputed['measurements']}",
        )
    for key in _AGGREGATE_FIELDS:
        if stored[key] is None or recomputed[key] is None:
            stored[key] = recomputed[key] if stored[key] is None else stored[key]
            continue
        if relative_difference(stored[key], recomputed[key]) > AGGREGATE_TOLERANCE:
            raise r.fail(
                key,
                f"stored {stored[key]!r} disagrees with {recomputed[key]!r} recomputed from "
                f"the trials (relative tolerance {AGGREGATE_TOLERANCE})",
            )
    return stored


def parse_timing_record(path: str, data: Any) -> TimingRecord:
    r = _Reader(path, data)
    status = r.str("status")
    trials = _trials_with_processes(path, r)
    if status == "complete" and not trials:
        raise r.fail("trials", "a complete record needs at least one trial")
    aggregates = _check_aggregates(path, r, trials)
    env = r.raw("environment", required=False) or {}
    if not isinstance(env, dict):
        raise r.fail("environment", "expected an object")
    cpu = env.get("cpu_number")
    sizes_reader = r.obj("sizes", required=False)
    sizes: dict[str, int] = {}
    if sizes_reader is not None:
        for key in sizes_reader.data:
            value = sizes_reader.int(key, required=False)
            if value is not None:
                sizes[key] = value
    plan = r.raw("plan", required=False) or {}
    if not isinstance(plan, dict):
        raise r.fail("plan", "expected an object")
    counter = r.raw("counter", required=False) or {}
    sample_stats = r.raw("sample_stats", required=False) or {}
    candidate = r.candidate()
    started_utc, ended_utc = r.time_range("started_utc", "ended_utc")
    return TimingRecord(
        path=path,
        schema=r.int("schema", required=False) or 2,
        status=status,
        candidate=candidate,
        label=r.label(),
        instance=r.str("instance", required=False),
        variant=r.str("variant", required=False, default="reference"),
        flags=r.str("flags", required=False),
        operation=r.operation(candidate),
        input_bytes=r.int("input_bytes"),
        plan=plan,
        planner=str(plan.get("planner", "guide")),
        kat=r.str("kat", required=False),
        disturbed_retries=r.int("disturbed_retries", required=False) or 0,
        started_utc=started_utc,
        ended_utc=ended_utc,
        environment=env,
        cpu=cpu if isinstance(cpu, int) else None,
        trials=trials,
        aggregates=aggregates,
        throughput_mb_per_second=r.float("throughput_MB_per_second", required=False),
        sizes=sizes,
        kex=r.raw("kex", required=False) or {},
        build_flags=r.str("build_flags", required=False),
        baseline_rss_bytes=r.int("baseline_rss_bytes", required=status == "complete"),
        peak_rss_bytes=r.int("peak_rss_bytes", required=status == "complete"),
        stack_high_water_bytes=r.int("stack_high_water_bytes", required=False),
        timing_scope=r.str("timing_scope", required=False),
        counter=counter if isinstance(counter, dict) else {},
        sample_stats=sample_stats if isinstance(sample_stats, dict) else {},
    )


# --- Hash profiles ----------------------------------------------------------------------------


@dataclass
class ProfileCall:
    fn: str
    in_bits: int
    out_bits: int
    calls: int
    ticks: int


@dataclass
class HashProfileRecord:
    path: str
    candidate: str
    label: str
    operation: str
    input_bytes: int
    status: str
    tick_source: str
    tick_hz: float | None
    warmups: int | None
    total_operations: int
    total_ticks: int
    calls: list[ProfileCall]
    share: dict[str, float]
    hash_share: float | None
    drng_share: float | None
    meta: dict[str, Any]


def parse_hash_profile(path: str, data: Any) -> HashProfileRecord:
    r = _Reader(path, data)
    status = r.str("status")
    meta = r.obj("meta", required=False)
    total = r.obj("total", required=status == "complete")
    calls: list[ProfileCall] = []
    for i, raw in enumerate(r.list("calls", required=status == "complete")):
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
    total_ops = total.int("operations", minimum=1) if total else 0
    total_ticks = total.int("ticks") if total else 0
    stored_share: dict[str, float] = {}
    share_reader = r.obj("share", required=False)
    if share_reader is not None:
        for key in share_reader.data:
            stored_share[key] = share_reader.float(key)
    recomputed = time_shares(((c.fn, c.ticks) for c in calls), total_ticks)
    for fn, value in stored_share.items():
        if relative_difference(value, recomputed.get(fn, 0.0)) > AGGREGATE_TOLERANCE:
            raise HarnessDataError(
                path,
                f"share.{fn}",
                f"stored {value!r} disagrees with {recomputed.get(fn, 0.0)!r} recomputed from "
                "the calls",
            )
    stored_hash = r.float("hash_share", required=False)
    recomputed_hash = hash_share(recomputed)
    if stored_hash is not None and relative_difference(stored_hash, recomputed_hash) > 1e-9:
        raise r.fail("hash_share", f"stored {stored_hash!r}, calls give {recomputed_hash!r}")
    tick_hz = None
    warmups = None
    meta_dict: dict[str, Any] = {}
    if meta is not None:
        meta_dict = meta.data
        if meta.has("tick_hz"):
            try:
                tick_hz = float(meta.data["tick_hz"])
            except (TypeError, ValueError) as exc:
                raise meta.fail("tick_hz", "not a number") from exc
            if not math.isfinite(tick_hz) or tick_hz <= 0:
                raise meta.fail("tick_hz", f"must be a positive finite number, got {tick_hz}")
        warmups = meta.int("warmups", required=False)
    candidate = r.candidate()
    return HashProfileRecord(
        path=path,
        candidate=candidate,
        label=r.label(),
        operation=r.operation(candidate),
        input_bytes=r.int("input_bytes"),
        status=status,
        tick_source=str(meta_dict.get("tick_source", "")),
        tick_hz=tick_hz,
        warmups=warmups,
        total_operations=total_ops,
        total_ticks=total_ticks,
        calls=calls,
        share=recomputed,
        hash_share=recomputed_hash if total_ticks else None,
        drng_share=recomputed.get("drng", 0.0) if total_ticks else None,
        meta=meta_dict,
    )


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
