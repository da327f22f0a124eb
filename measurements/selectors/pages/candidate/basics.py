"""§1 basic information and §2 assessment environment of a candidate page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from measurements import formatting as fmt
from measurements import links
from measurements.domain import CATEGORIES
from measurements.models import Campaign
from measurements.selectors.pages.candidate.data import CandidateData
from measurements.selectors.pages.cells import Cell, Table, text

CATEGORY_LINES: dict[str, str] = {key: spec.description for key, spec in CATEGORIES.items()}


@dataclass(frozen=True)
class SystemLink:
    key: str
    arch_label: str
    url: str
    current: bool


@dataclass(frozen=True)
class BasicInformation:
    """§1: what was measured, where, and the other systems with data for it."""

    title: str
    category_line: str
    algorithm: str
    versions: str
    parameter_sets: tuple[str, ...]
    systems: tuple[SystemLink, ...]


def basic_information(data: CandidateData) -> BasicInformation:
    submission, system = data.submission, data.campaign.system
    algorithm = submission.algorithm or submission.key
    systems = tuple(
        SystemLink(
            key=c.system.key,
            arch_label=c.system.arch_label,
            url=links.candidate_url(c.system.key, submission.key),
            current=c.system.key == system.key,
        )
        for c in data.campaigns
    )
    return BasicInformation(
        title=f"{submission.key} {algorithm} — performance on {system.arch_label} "
        f"(system {system.key})",
        category_line=CATEGORY_LINES.get(submission.category, submission.function_label),
        algorithm=algorithm,
        versions=", ".join(dict.fromkeys(i.variant or "reference" for i in data.instances))
        or fmt.MISSING,
        parameter_sets=tuple(i.label for i in data.instances),
        systems=systems,
    )


#: the build tool row of our own campaigns (runner.harness.build compiles each listed source)
MEASURED_BUILD_TOOL = "none (NGCC Perf compiles the listed sources directly)"


def _clock_and_build_tool(
    campaign: Campaign, env: dict[str, Any], recorded_build_tool: str
) -> tuple[str, str]:
    """Imported campaigns: as published. Our campaigns: the counter the driver chose and its
    measured rate belong with the clock, and no build tool is used (the harness compiles the
    listed sources itself)."""
    clock = fmt.format_clock(env)
    if campaign.source != "measured":
        return clock, recorded_build_tool
    counter = fmt.format_counter(campaign.counter or env.get("counter"))
    return (counter if clock == fmt.MISSING else f"{clock}; {counter}"), MEASURED_BUILD_TOOL


def environment_table(campaign: Campaign) -> Table:
    """§2: processor, clock, memory, OS and tools of the campaign's environment."""
    env = campaign.environment or {}

    def value(*names: str) -> str:
        for name in names:
            v = env.get(name)
            if v not in (None, ""):
                return str(v)
        return fmt.MISSING

    cpu = campaign.primary_cpu if campaign.primary_cpu is not None else env.get("cpu_number")
    processor = value("cpu_model")
    if processor != fmt.MISSING and cpu is not None:
        processor = f"{processor} (CPU {fmt.format_int(cpu)}, one core)"
    rows: list[tuple[Cell, ...]] = [(text("processor"), text(processor))]
    if env.get("machine") or campaign.system.machine:
        rows.append((text("machine"), text(str(env.get("machine") or campaign.system.machine))))
    memory = env.get("memory_total_kib")
    clock, build_tool = _clock_and_build_tool(campaign, env, value("cmake", "build_tool"))
    rows += [
        (text("clock"), text(clock)),
        (text("memory"), text(fmt.format_mib(int(memory) if memory is not None else None))),
        (text("OS / kernel"), text(f"{value('os')} / {value('kernel')}")),
        (text("compiler / build tool"), text(f"{value('compiler')} / {build_tool}")),
        (
            text("campaign start / end (UTC)"),
            text(f"{fmt.format_utc(campaign.started_utc)} / {fmt.format_utc(campaign.ended_utc)}"),
        ),
    ]
    return Table("environment", ("item", "value"), tuple(rows))
