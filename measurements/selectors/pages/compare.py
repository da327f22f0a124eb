"""Compare two or more instances side by side: each figure, its ratio to the first, and whether
the difference exceeds the figures' own uncertainty.

The instances come from the query string: ``a=kem-29:PolarKEM-128&b=kem-30:POLARLAC-128`` with
``system=arm_1``; an item may name its own system or campaign after ``@``
(``a=kem-29:PolarKEM-128@x86_1``, ``b=kem-29:PolarKEM-128@<campaign key>``), so one instance can
be compared on two systems or in two campaigns. Without either, an item uses the latest
campaign that measured it (measured campaigns before published pages).

Uncertainty is that of the median cycles per call: the stored 95 % interval over the per-batch
samples where the driver kept them, else the order-statistics interval over the trials'
cycles per call (as on the measurement page). Two figures with stored intervals differ beyond
their uncertainty by the rule the history page states
(`measurements.uncertainty.differ_beyond_uncertainty`): their half-widths combined, plus, for
figures from two different campaigns, the box's campaign-to-campaign spread (two figures of one
campaign share its shift, so it cancels). On one system that is the later campaign's spread, as
on the history page, so both pages judge the same pair alike; across two systems, the two boxes'
spreads combined (their root mean square, the rule's single s). Intervals from a few trials'
order statistics cover less than 95 % (75 % with three trials), so for them the test stays the
stricter one: the intervals do not overlap. Published-page figures have no trials, hence no
interval: the comparison says so instead of guessing.

Six queries whatever the number of items and operations.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Q

from measurements import formatting as fmt
from measurements.domain import CATEGORIES
from measurements.links import compare_url, measurement_url
from measurements.models import Campaign, Instance, Measurement, Trial
from measurements.provenance import is_published, provenance
from measurements.selectors.pages.common import operation_label, operation_sort_key
from measurements.selectors.pages.measurement import interval_from_trials
from measurements.selectors.pages.sizes import size_catalogs, size_figure
from measurements.uncertainty import Interval, differ_beyond_uncertainty

ITEM_KEYS = tuple("abcdefgh")
UNKNOWN = "unknown (no trials)"


@dataclass(frozen=True)
class CompareItem:
    """One column: an instance in one campaign."""

    param: str
    spec: str
    instance: Instance
    campaign: Campaign
    provenance: str
    published: bool

    @property
    def header(self) -> str:
        sub = self.instance.submission.key
        return f"{sub} {self.instance.label} on {self.campaign.system.key}"


@dataclass(frozen=True)
class CompareCell:
    text: str
    href: str = ""
    interval: Interval | None = None
    value: float | None = None
    #: the campaign the figure comes from, and its box's campaign-level relative spread
    campaign: Campaign | None = None
    campaign_spread: float = 0.0


@dataclass
class CompareRow:
    figure: str
    cells: list[CompareCell]
    ratios: list[str]
    beyond: list[str]  # per item after the first: yes / no / unknown


@dataclass
class ComparePage:
    items: list[CompareItem]
    rows: list[CompareRow]
    errors: list[str]
    system: str
    specs: list[tuple[str, str]]
    choices: list[str]
    systems: list[str]
    csv_url: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def slots(self) -> list[tuple[str, str]]:
        """(parameter, value) of every input of the form: the items, then one empty."""
        used = [k for k, _ in self.specs]
        free = [k for k in ITEM_KEYS if k not in used][:1]
        return self.specs + [(k, "") for k in free]

    @property
    def ratio_headers(self) -> list[str]:
        first = self.items[0].param if self.items else "a"
        return [f"{item.param} / {first}" for item in self.items[1:]]

    @property
    def beyond_headers(self) -> list[str]:
        first = self.items[0].param if self.items else "a"
        return [f"{item.param} ≠ {first} beyond uncertainty?" for item in self.items[1:]]


def _parse(spec: str) -> tuple[str, str, str] | None:
    """``kem-29:PolarKEM-128@x86_1`` → (submission, label, where)."""
    head, _, where = spec.partition("@")
    submission, sep, label = head.partition(":")
    if not sep or not submission or not label:
        return None
    return submission.strip(), label.strip(), where.strip()


def compare_page(params: dict[str, str]) -> ComparePage:
    """Everything the compare page shows for the query string `params`."""
    system = params.get("system", "").strip()
    specs = [(k, params[k].strip()) for k in ITEM_KEYS if params.get(k, "").strip()]
    parsed = {k: _parse(spec) for k, spec in specs}
    errors = [f"{k}={spec!r}: expected <candidate>:<instance>[@<system or campaign>]"
              for k, spec in specs if parsed[k] is None]  # fmt: skip
    wanted = [p for p in parsed.values() if p is not None]
    query = Q(pk__in=[])
    for submission, label, _ in wanted:
        query |= Q(submission__key=submission, label=label)
    instances = {
        (i.submission.key, i.label): i
        for i in Instance.objects.filter(query).select_related("submission")
    }
    measurements = list(
        Measurement.objects.filter(instance__in=list(instances.values()))
        .select_related("campaign__system")
        .defer("campaign__environment_at_start", "campaign__environment_at_end")
        .only(*_MEASUREMENT_FIELDS)
    )
    items = _items(specs, parsed, instances, measurements, system, errors)
    chosen = [m for m in measurements if any(_same(m, item) for item in items)]
    per_call: dict[int, list[float]] = defaultdict(list)
    for t in Trial.objects.filter(measurement__in=[m.pk for m in chosen]).values(
        "measurement_id", "cycles", "measurements"
    ):
        if t["measurements"]:
            per_call[t["measurement_id"]].append(t["cycles"] / t["measurements"])
    rows = _figure_rows(items, chosen, per_call) + _size_rows(items, chosen)
    choices = list(
        Instance.objects.filter(measurements__isnull=False)
        .distinct()
        .order_by("submission__key", "position", "label")
        .values_list("submission__key", "label")
    )
    return ComparePage(
        items=items,
        rows=rows,
        errors=errors,
        system=system,
        specs=specs,
        choices=[f"{s}:{label}" for s, label in choices],
        systems=sorted({m.campaign.system.key for m in measurements}),
        csv_url=_csv_url(specs, system),
    )


def _csv_url(specs: list[tuple[str, str]], system: str) -> str:
    return compare_url({**dict(specs), "system": system, "format": "csv"})


_MEASUREMENT_FIELDS = (
    "id",
    "instance_id",
    "operation",
    "input_bytes",
    "mean_cycles",
    "sizes",
    "sample_ci95_low_cycles",
    "sample_ci95_high_cycles",
    "sample_median_cycles",
    "campaign_spread",
    "campaign__id",
    "campaign__key",
    "campaign__source",
    "campaign__started_utc",
    "campaign__system__id",
    "campaign__system__key",
)


def _same(m: Measurement, item: CompareItem) -> bool:
    return m.instance_id == item.instance.pk and m.campaign_id == item.campaign.pk


def _items(
    specs: list[tuple[str, str]],
    parsed: dict[str, tuple[str, str, str] | None],
    instances: dict[tuple[str, str], Instance],
    measurements: list[Measurement],
    system: str,
    errors: list[str],
) -> list[CompareItem]:
    campaigns_of: dict[int, dict[int, Campaign]] = defaultdict(dict)
    for m in measurements:
        campaigns_of[m.instance_id][m.campaign_id] = m.campaign
    items = []
    for key, spec in specs:
        if parsed[key] is None:
            continue
        submission, label, where = parsed[key]
        instance = instances.get((submission, label))
        if instance is None:
            errors.append(f"{key}={spec!r}: no instance {label!r} of {submission!r}")
            continue
        campaign = _campaign(list(campaigns_of[instance.pk].values()), where or system)
        if campaign is None:
            errors.append(f"{key}={spec!r}: no measurement on {where or system or 'any system'}")
            continue
        items.append(
            CompareItem(key, spec, instance, campaign, provenance(campaign), is_published(campaign))
        )
    return items


def _campaign(campaigns: list[Campaign], where: str) -> Campaign | None:
    """The campaign named `where`, else the latest on system `where` (any system if empty),
    measured campaigns before published pages."""
    exact = [c for c in campaigns if c.key == where]
    if exact:
        return exact[0]
    pool = [c for c in campaigns if not where or c.system.key == where]
    pool.sort(
        key=lambda c: (not is_published(c), c.started_utc is not None, c.started_utc, c.pk),
        reverse=True,
    )
    return pool[0] if pool else None


def _interval(m: Measurement, per_call: dict[int, list[float]]) -> Interval | None:
    """The 95 % interval of the median cycles per call: stored, else from the trials."""
    low, high = m.sample_ci95_low_cycles, m.sample_ci95_high_cycles
    if low is not None and high is not None:
        median = m.sample_median_cycles if m.sample_median_cycles is not None else (low + high) / 2
        return Interval(median, low, high, 0, 0, "stored")
    trials = interval_from_trials(per_call.get(m.pk, []))
    if trials is None:
        return None
    return Interval(trials.median, trials.low, trials.high, trials.count, 0, "trials")


def _shared_spread(base: CompareCell, cell: CompareCell) -> float:
    """The campaign-level spread two figures allow for: none within one campaign (they share
    its shift); on one system the later campaign's (the history page's choice); across two
    systems the two boxes' spreads combined (the rule's single s, as a root mean square)."""
    a, b = base.campaign, cell.campaign  # set on every cell that has an interval
    if a.pk == b.pk:
        return 0.0
    if a.system_id == b.system_id:
        return max((base, cell), key=_campaign_order).campaign_spread
    return math.sqrt((base.campaign_spread**2 + cell.campaign_spread**2) / 2)


def _campaign_order(cell: CompareCell) -> tuple:
    """Campaigns in the order they ran (a campaign without a start date first)."""
    started = cell.campaign.started_utc
    return (started is not None, started, cell.campaign.pk)


def _differ(base: CompareCell, cell: CompareCell) -> bool:
    """Beyond the uncertainty: the history page's rule for stored intervals, no overlap for
    intervals from the trials' order statistics (their coverage is below 95 %)."""
    a, b = base.interval, cell.interval
    if a.method == b.method == "stored":
        return differ_beyond_uncertainty(a, b, _shared_spread(base, cell))
    return a.low > b.high or a.high < b.low


def _figure_rows(
    items: list[CompareItem], chosen: list[Measurement], per_call: dict[int, list[float]]
) -> list[CompareRow]:
    by_key = {(m.campaign_id, m.instance_id, m.operation, m.input_bytes): m for m in chosen}
    categories = {item.instance.submission.category for item in items}
    category = categories.pop() if len(categories) == 1 else ""
    points = sorted(
        {(m.operation, m.input_bytes) for m in chosen},
        key=lambda p: operation_sort_key(category, *p),
    )
    rows = []
    for point in points:
        cells = []
        for item in items:
            m = by_key.get((item.campaign.pk, item.instance.pk, *point))
            cells.append(
                CompareCell(
                    fmt.format_cycles(m.mean_cycles),
                    measurement_url(m.pk),
                    _interval(m, per_call),
                    m.mean_cycles,
                    campaign=m.campaign,
                    campaign_spread=m.campaign_spread or 0.0,
                )
                if m is not None
                else CompareCell(fmt.MISSING)
            )
        label = operation_label(category, *point) if category else f"{point[0]} {point[1] or ''}"
        rows.append(_row(f"{label.strip()} cycles", cells, uncertain=True))
    return rows


def _row(figure: str, cells: list[CompareCell], *, uncertain: bool) -> CompareRow:
    base = cells[0] if cells else None
    ratios, beyond = [], []
    for cell in cells[1:]:
        if base is None or not base.value or cell.value is None:
            ratios.append(fmt.MISSING)
            beyond.append(fmt.MISSING)
            continue
        ratios.append(fmt.format_ratio(cell.value / base.value))
        if not uncertain:
            beyond.append("yes (exact)" if cell.value != base.value else "no (equal)")
        elif base.interval is None or cell.interval is None:
            beyond.append(UNKNOWN)
        else:
            beyond.append("yes" if _differ(base, cell) else "no")
    return CompareRow(figure, cells, ratios, beyond)


def _size_rows(items: list[CompareItem], chosen: list[Measurement]) -> list[CompareRow]:
    categories = {item.instance.submission.category for item in items}
    spec = CATEGORIES.get(categories.pop()) if len(categories) == 1 else None
    if spec is None or spec.summary is None or not spec.summary.size_keys:
        return []
    catalog, bandwidth = size_catalogs(sorted({i.instance.submission.key for i in items}))
    api: dict[tuple[int, int], dict] = {}
    for m in chosen:
        if m.sizes:
            api.setdefault((m.campaign_id, m.instance_id), m.sizes)
    rows = []
    for size_key, header in zip(spec.summary.size_keys, spec.summary.size_headers, strict=True):
        cells = []
        for item in items:
            key = (item.instance.submission.key, item.instance.label)
            sizes = api.get((item.campaign.pk, item.instance.pk), {})
            figure = size_figure(size_key, catalog.get(key), bandwidth.get(key), sizes)
            cells.append(CompareCell(figure.text, value=figure.value))
        rows.append(_row(header, cells, uncertain=False))
    return rows
