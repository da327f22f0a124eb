"""The method page of a system's campaign: planning constants, arch config, environment, counters,
tick sources and host checks, from what the campaign stored. Five queries."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count

from measurements import formatting as fmt
from measurements import links
from measurements.models import Campaign, HashProfile, Measurement, System
from measurements.selectors.pages.common import campaign_for_system

MISSING = fmt.MISSING
PLANNING_LABELS = {  # constant → (meaning, "s" for a duration in seconds)
    "trials": ("trials per operation", ""),
    "trial_target_s": ("target duration of one trial", "s"),
    "min_total": ("minimum timed calls in total", ""),
    "max_iters_per_trial": ("maximum calls per trial", ""),
    "op_budget_s": ("time budget of one operation", "s"),
    "separate_process_setup_s": ("setup time above which trials share one process", "s"),
}
CAMPAIGN_SPREAD_MEANING = (
    "the box's campaign-to-campaign spread every interval allows for (docs/timing.md)"
)
# Environment fields shown as they are, after the formatted ones.
PLAIN_ENVIRONMENT_KEYS = (
    "perf_event_paranoid",
    "cpufreq_driver",
    "logical_cpus_online",
    "virtualized",
)


@dataclass
class MethodPage:
    system: System
    campaign: Campaign | None
    planning_rows: list[tuple[str, str, str]]  # (constant, meaning, value)
    planning: dict[str, str]  # constant → formatted value, for the prose
    arch_rows: list[tuple[str, str]]
    environment_rows: list[tuple[str, str]]
    clock: str
    counter_rows: list[tuple[str, str]]
    tick_rows: list[tuple[str, str]]
    host_checks: list[dict[str, Any]]
    host_checks_with_problems: int
    host_problems: list[Any]
    unfixed_host: bool
    timing_records: int
    profiles: int
    cpus: list[tuple[int | None, int]]  # (cpu, number of records)
    shard_cpus: list[tuple[str, Any]]
    summary_url: str
    other_systems: list[System]
    api_url: str = ""


@dataclass
class _CampaignRecords:
    """What the campaign's timing records and profiles say about how they were measured."""

    counters: list[dict[str, Any]] = field(default_factory=list)
    cpus: list[tuple[int | None, int]] = field(default_factory=list)
    tick_rows: list[tuple[str, str]] = field(default_factory=list)
    timing_records: int = 0
    profiles: int = 0


def plain(value: Any) -> str:
    """A planning constant or flag as text (numbers through the formatter)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return fmt.format_int(value)
    if isinstance(value, float):
        return fmt.format_general(value)
    if isinstance(value, list | tuple):
        return ", ".join(plain(v) for v in value) if value else "none"
    if value is None or value == "":
        return MISSING
    return str(value)


def _counter_value(key: str, value: Any) -> str:
    """One counter field as text: frequencies, cycles and durations through the formatter."""
    if not isinstance(value, int | float):
        return plain(value)
    if key.endswith("_hz"):
        return fmt.format_frequency(value)
    if "cycles" in key:
        return fmt.format_cycles(value)
    if key.endswith("_ns"):
        return fmt.format_seconds(value / 1e9)
    if key.endswith(("_s", "_seconds")):
        return fmt.format_seconds(value)
    return plain(value)


def _counter_rows(counters: Iterable[dict[str, Any]]) -> list[tuple[str, str]]:
    """Counter name, overhead and frequency from our driver's counter records (merged)."""
    seen: dict[str, set[str]] = defaultdict(set)
    for counter in counters:
        for key, value in (counter or {}).items():
            if not isinstance(value, dict | list):
                seen[key].add(_counter_value(key, value))
    return [(key.replace("_", " "), " / ".join(sorted(seen[key]))) for key in sorted(seen)]


def method_page(system: System, campaign_key: str | None = None) -> MethodPage:
    """The method page of a system's campaign, from its stored constants. Five queries."""
    campaign = campaign_for_system(system, campaign_key)
    planning_rows = _planning_rows(campaign)
    env = dict(campaign.environment or campaign.environment_at_start or {}) if campaign else {}
    records = _campaign_records(campaign) if campaign is not None else _CampaignRecords()
    host_checks = (
        [c for c in (campaign.host_checks or []) if isinstance(c, dict)] if campaign else []
    )
    return MethodPage(
        system=system,
        campaign=campaign,
        planning_rows=planning_rows,
        planning={key: value for key, _, value in planning_rows},
        arch_rows=_arch_rows(campaign),
        environment_rows=_environment_rows(env, campaign),
        clock=fmt.format_clock(env) if env else MISSING,
        counter_rows=_counter_rows(records.counters),
        tick_rows=records.tick_rows,
        host_checks=[
            {
                "phase": c.get("phase", ""),
                "cpu": c.get("cpu"),
                "utc": c.get("utc", ""),
                "shard": c.get("shard", ""),
                "problems": list(c.get("problems") or []),
            }
            for c in host_checks
        ],
        host_checks_with_problems=sum(1 for c in host_checks if c.get("problems")),
        host_problems=list(campaign.host_problems or []) if campaign else [],
        unfixed_host=bool(campaign and campaign.unfixed_host),
        timing_records=records.timing_records,
        profiles=records.profiles,
        cpus=records.cpus,
        shard_cpus=sorted(((campaign.settings or {}).get("shard_cpus") or {}).items())
        if campaign
        else [],
        summary_url=links.summary_url(system.key),
        other_systems=list(System.objects.exclude(pk=system.pk).order_by("key")),
        api_url=links.api_url_for_system_campaigns(system.key),
    )


def _planning_rows(campaign: Campaign | None) -> list[tuple[str, str, str]]:
    """(constant, meaning, formatted value) for every planning constant the campaign stored."""
    rows = []
    for key, value in (campaign.planning or {}).items() if campaign else ():
        if key == "campaign_spread" and isinstance(value, dict):
            rows.append((key, CAMPAIGN_SPREAD_MEANING, fmt.format_campaign_spread(value)))
            continue
        meaning, unit = PLANNING_LABELS.get(key, (key.replace("_", " "), ""))
        is_number = isinstance(value, int | float) and not isinstance(value, bool)
        text = fmt.format_seconds(value) if unit == "s" and is_number else plain(value)
        rows.append((key, meaning, text))
    return rows


def _arch_rows(campaign: Campaign | None) -> list[tuple[str, str]]:
    if campaign is None:
        return []
    rows = [
        (key.replace("_", " "), plain(value)) for key, value in (campaign.arch_config or {}).items()
    ]
    if campaign.harness_additions:
        rows.append(("harness additions", campaign.harness_additions))
    return rows


def _campaign_records(campaign: Campaign) -> _CampaignRecords:
    """Records per CPU, the distinct counters and the tick sources of profiles. Three queries."""
    records = _CampaignRecords()
    if campaign.counter:
        records.counters.append(campaign.counter)
    per_cpu = (
        Measurement.objects.filter(campaign=campaign)
        .values("cpu")
        .annotate(n=Count("id"))
        .order_by("cpu")
    )
    records.cpus = [(row["cpu"], row["n"]) for row in per_cpu]
    records.timing_records = sum(n for _, n in records.cpus)
    records.counters.extend(
        Measurement.objects.filter(campaign=campaign)
        .exclude(counter={})
        .values_list("counter", flat=True)
        .distinct()[:50]
    )
    ticks = list(
        HashProfile.objects.filter(campaign=campaign)
        .values("tick_source", "tick_hz")
        .annotate(n=Count("id"))
        .order_by("tick_source", "tick_hz")
    )
    records.profiles = sum(t["n"] for t in ticks)
    records.tick_rows = _tick_rows(ticks)
    return records


def _tick_rows(ticks: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """One row per tick source; its calibrated frequency varies slightly between profiles."""
    by_source: dict[str, list[tuple[float | None, int]]] = defaultdict(list)
    for t in ticks:
        by_source[t["tick_source"] or "unknown tick source"].append((t["tick_hz"], t["n"]))
    rows = []
    for source, counts in by_source.items():
        rates = [hz for hz, _ in counts if hz]
        n = sum(count for _, count in counts)
        if rates:
            low, high = min(rates), max(rates)
            rate = fmt.format_frequency(low)
            if fmt.format_frequency(high) != rate:
                rate = f"{rate} – {fmt.format_frequency(high)}"
            text = f"{rate} (one tick ≈ {fmt.format_seconds(1 / high)}; {n} profiles)"
        else:
            text = f"{MISSING} ({n} profiles)"
        rows.append((source, text))
    return rows


def _environment_rows(env: dict[str, Any], campaign: Campaign | None) -> list[tuple[str, str]]:
    if not env:
        return []
    cpu = env.get("cpu_model") or MISSING
    core = campaign.primary_cpu if campaign and campaign.primary_cpu is not None else None
    rows = [("processor", f"{cpu} (CPU {core})" if core is not None else str(cpu))]
    if env.get("machine"):
        rows.append(("machine", str(env["machine"])))
    rows.append(("clock", fmt.format_clock(env)))
    if env.get("core_clock_hz"):
        rows.append(("measured core clock", fmt.format_frequency(env["core_clock_hz"])))
    if env.get("memory_total_kib"):
        rows.append(("memory", fmt.format_mib(int(env["memory_total_kib"]))))
    for label, keys in (
        ("OS / kernel", ("os", "kernel")),
        ("compiler / build tool", ("compiler", "cmake")),
    ):
        joined = " / ".join(str(env[k]) for k in keys if env.get(k))
        if joined:
            rows.append((label, joined))
    for key in PLAIN_ENVIRONMENT_KEYS:
        if key in env and env[key] not in (None, ""):
            rows.append((key.replace("_", " "), plain(env[key])))
    if campaign is not None:
        started, ended = fmt.format_utc(campaign.started_utc), fmt.format_utc(campaign.ended_utc)
        rows.append(("campaign start / end (UTC)", f"{started} / {ended}"))
    return rows
