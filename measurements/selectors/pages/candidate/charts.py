"""Chart inputs of a candidate page (values, not strings: `measurements.charts` draws them)."""

from __future__ import annotations

from measurements.selectors.pages.candidate.data import CandidateData
from measurements.selectors.pages.cells import ChartBar, ChartData, ChartGroup
from measurements.selectors.pages.common import operation_label


def cycles_chart(data: CandidateData) -> ChartData:
    """Mean cycles of every operation, one group per instance, on the page's system."""
    series = tuple(operation_label(data.category, op, n) for op, n in data.row_keys)
    groups = []
    for instance in data.instances:
        bars = []
        for (op, n), name in zip(data.row_keys, series, strict=True):
            m = data.by_key.get((instance.pk, op, n))
            bars.append(ChartBar(series=name, value=m.mean_cycles if m else None))
        groups.append(ChartGroup(label=instance.label, bars=tuple(bars)))
    return ChartData(
        title=f"Mean cycles per operation on {data.campaign.system.key} (log scale)",
        series=series,
        groups=tuple(groups),
    )


def systems_chart(data: CandidateData) -> ChartData | None:
    """Mean cycles of every instance and operation, systems side by side; None for one system
    or where no operation was measured on any."""
    if len(data.campaigns) < 2:
        return None
    system_of = {c.pk: c.system.key for c in data.campaigns}
    series = tuple(system_of.values())
    values = {
        (system_of[m.campaign_id], m.instance_id, m.operation, m.input_bytes): m
        for m in data.all_measurements
    }
    groups = []
    for instance in data.instances:
        for op, n in data.row_keys:
            bars = []
            for key in series:
                m = values.get((key, instance.pk, op, n))
                bars.append(ChartBar(series=key, value=m.mean_cycles if m else None))
            if any(b.value is not None for b in bars):
                groups.append(
                    ChartGroup(
                        label=f"{instance.label} {operation_label(data.category, op, n)}",
                        bars=tuple(bars),
                    )
                )
    if not groups:
        return None
    return ChartData(
        title="Mean cycles per operation, systems side by side (log scale)",
        series=series,
        groups=tuple(groups),
    )
