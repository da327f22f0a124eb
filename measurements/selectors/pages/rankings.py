"""The rankings page: one row per candidate of a category at one security target on one system.

Columns are those of the per-system summary for the category (`measurements.domain`): the cycles
of each timed operation, then the sizes, then KAT status and survey verdict. Each figure is the
same value, formatted by the same function, as on the candidate's own page. Sorting and filtering
happen here, on the server, so the page works without JavaScript and its state lives in the URL.

Seven queries whatever the number of candidates.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlencode

from django.core.exceptions import BadRequest
from django.http import Http404

from measurements import formatting as fmt
from measurements.domain import CATEGORIES, CategorySpec, KatStatus
from measurements.label_patterns import label_matches
from measurements.links import (
    api_url_for_rankings,
    candidate_url,
    compare_url,
    profile_url,
    rankings_url,
)
from measurements.models import (
    Build,
    Campaign,
    ExternalSize,
    Instance,
    KatIssue,
    KexBandwidth,
    Measurement,
    System,
)
from measurements.selectors.pages.common import campaign_for_system
from measurements.selectors.pages.sizes import size_figure

DEFAULT_TARGET = 128
RULE = (
    "Where a candidate has several instances at the chosen target, its row shows the one with "
    "the most operations measured on this system and, among those, the smallest sum of the "
    "cycle columns."
)
NO_LIBRARY = {KatStatus.BUILDFAIL.value, KatStatus.LOADFAIL.value}


@dataclass(frozen=True)
class RankingColumn:
    key: str
    header: str
    numeric: bool
    #: Link that sorts by this column (the reverse direction when it is the current sort).
    sort_url: str = ""
    #: "asc"/"desc" when the table is sorted by this column, else "".
    sorted: str = ""


@dataclass(frozen=True)
class RankingCell:
    text: str
    value: float | str | None
    href: str = ""
    numeric: bool = False


@dataclass
class RankingRow:
    submission_key: str
    algorithm: str
    instance_label: str
    target_bits: int | None
    kat_status: str
    verdict: str
    candidate_url: str
    cells: dict[str, RankingCell] = field(default_factory=dict)

    def ordered(self, columns: tuple[RankingColumn, ...]) -> list[RankingCell]:
        return [self.cells[c.key] for c in columns]


@dataclass(frozen=True)
class UnrankedRow:
    submission_key: str
    algorithm: str
    instance_labels: tuple[str, ...]
    kat_status: str
    verdict: str
    reason: str
    candidate_url: str


@dataclass(frozen=True)
class RankingFilters:
    """The page state, as read from and written to the URL."""

    category: str
    system: str = ""
    target: int | None = DEFAULT_TARGET
    kat: str = ""
    verdict: str = ""
    q: str = ""
    sort: str = ""
    descending: bool = False

    def query(self, **changes: Any) -> str:
        state = replace(self, **changes)
        params = {
            "target": "any" if state.target is None else state.target,
            "system": state.system,
            "kat": state.kat,
            "verdict": state.verdict,
            "q": state.q,
            "sort": state.sort,
            "dir": "desc" if state.descending else "",
        }
        return urlencode({k: v for k, v in params.items() if v not in ("", None)})

    def url(self, **changes: Any) -> str:
        path = rankings_url(self.category)
        return f"{path}?{self.query(**changes)}"


@dataclass
class RankingsPage:
    spec: CategorySpec
    filters: RankingFilters
    campaign: Campaign | None
    systems: list[str]
    targets: list[int]
    kat_statuses: list[str]
    verdicts: list[str]
    columns: tuple[RankingColumn, ...]
    rows: list[RankingRow]
    unranked: list[UnrankedRow]
    without_target: int
    rule: str = RULE
    categories: tuple[tuple[str, str], ...] = ()

    @property
    def figure_keys(self) -> list[str]:
        """Keys of the cycle columns, in column order."""
        assert self.spec.summary is not None
        return [_figure_key(op, n) for op, n in self.spec.summary.figure_points()]

    @property
    def compare_url(self) -> str:
        """Compare the first two rows (empty with fewer than two)."""
        if len(self.rows) < 2:
            return ""
        params = {
            key: f"{row.submission_key}:{row.instance_label}"
            for key, row in zip("ab", self.rows[:2], strict=True)
        }
        return compare_url({**params, "system": self.filters.system})

    @property
    def api_url(self) -> str:
        return api_url_for_rankings(self.spec.key, self.filters.query())

    @property
    def csv_url(self) -> str:
        return f"{self.filters.url()}&format=csv"

    @property
    def title(self) -> str:
        target = "every target" if self.filters.target is None else f"{self.filters.target} bits"
        return f"Rankings — {self.spec.label}, {target}, system {self.filters.system or '–'}"


#: The query parameters of the rankings page (``format=csv`` is read by the view).
QUERY_PARAMS = frozenset(
    {"system", "target", "kat", "verdict", "q", "sort", "dir", "format", "table"}
)


def _check_query(params: dict[str, str]) -> None:
    """A malformed query string is a 400 naming the parameter (never silently another page)."""
    unknown = sorted(set(params) - QUERY_PARAMS)
    if unknown:
        allowed = ", ".join(sorted(QUERY_PARAMS))
        raise BadRequest(f"Unknown query parameter {unknown[0]!r}; allowed: {allowed}.")
    target = params.get("target", "").strip()
    if target not in ("", "any") and not (target.isascii() and target.isdigit()):
        raise BadRequest(f"target: {target!r} is neither a number of bits nor 'any'.")
    if params.get("dir", "") not in ("", "asc", "desc"):
        raise BadRequest("dir: 'asc' or 'desc'.")
    if params.get("format", "") not in ("", "csv"):
        raise BadRequest("format: only 'csv'.")
    if any("\x00" in value for value in params.values()):
        raise BadRequest("A query parameter contains a NUL character.")


def read_filters(category: str, params: dict[str, str]) -> RankingFilters:
    """The page state from the query string; unknown categories are a 404, a malformed query
    string a 400 (`BadRequest`)."""
    spec = CATEGORIES.get(category)
    if spec is None or spec.summary is None:
        raise Http404(f"No ranked category {category!r}.")
    _check_query(params)
    raw_target = params.get("target", "").strip()
    target: int | None = DEFAULT_TARGET
    if raw_target == "any":
        target = None
    elif raw_target:
        target = int(raw_target)
    return RankingFilters(
        category=category,
        system=params.get("system", "").strip(),
        target=target,
        kat=params.get("kat", "").strip(),
        verdict=params.get("verdict", "").strip(),
        q=params.get("q", "").strip(),
        sort=params.get("sort", "").strip(),
        descending=params.get("dir", "") == "desc",
    )


def _base_columns(spec: CategorySpec) -> list[tuple[str, str, bool]]:
    section = spec.summary
    assert section is not None
    figures = [
        (_figure_key(op, n), header.replace(" (sym %)", "").replace(" (× pseudoXOF)", ""), True)
        for (op, n), header in zip(section.figure_points(), section.figure_headers, strict=True)
    ]
    sizes = list(zip(section.size_keys, section.size_headers, (True,) * 9, strict=False))
    return [
        ("id", "id", False),
        ("algorithm", "algorithm", False),
        ("instance", "instance", False),
        ("target", "target (bits)", True),
        *figures,
        *sizes,
        ("kat", "KAT", False),
        ("verdict", "survey verdict", False),
    ]


def _figure_key(operation: str, message_bytes: int) -> str:
    return f"{operation}-{message_bytes}" if message_bytes else operation


def rankings_page(category: str, params: dict[str, str]) -> RankingsPage:
    """Everything the rankings page shows for the query string `params`."""
    filters = read_filters(category, params)
    spec = CATEGORIES[category]
    systems = list(System.objects.order_by("key"))
    system = next((s for s in systems if s.key == filters.system), None)
    if system is None and systems and not filters.system:
        system = systems[0]
    if system is None and filters.system:
        raise Http404(f"No system {filters.system!r}.")
    filters = replace(filters, system=system.key if system else "")
    campaign = campaign_for_system(system) if system else None
    base = _base_columns(spec)
    keys = [k for k, _, _ in base]
    if filters.sort and filters.sort not in keys:
        raise BadRequest(f"sort: {filters.sort!r} is not a column; columns: {', '.join(keys)}.")
    if not filters.sort:
        filters = replace(filters, sort=_figure_key(*spec.summary.figure_points()[0]))
    data = _RankingData.load(spec, campaign)
    if "target" not in params and data.targets and filters.target not in data.targets:
        # No instance claims the default target: start from the lowest claimed one.
        filters = replace(filters, target=data.targets[0])
    rows, unranked, without_target = data.rows(filters)
    rows = [r for r in rows if _matches(filters, r.submission_key, r.algorithm, r)]
    unranked = [u for u in unranked if _matches(filters, u.submission_key, u.algorithm, u)]
    _sort(rows, filters.sort, filters.descending)
    columns = tuple(
        RankingColumn(
            key=key,
            header=header,
            numeric=numeric,
            sort_url=filters.url(
                sort=key, descending=(key == filters.sort and not filters.descending)
            ),
            sorted=("desc" if filters.descending else "asc") if key == filters.sort else "",
        )
        for key, header, numeric in base
    )
    return RankingsPage(
        spec=spec,
        filters=filters,
        campaign=campaign,
        systems=[s.key for s in systems],
        targets=data.targets,
        kat_statuses=data.kat_statuses,
        verdicts=data.verdicts,
        columns=columns,
        rows=rows,
        unranked=unranked,
        without_target=without_target,
        categories=tuple((key, s.label) for key, s in CATEGORIES.items() if s.summary is not None),
    )


def _matches(filters: RankingFilters, key: str, algorithm: str, row: Any) -> bool:
    if filters.kat and row.kat_status != filters.kat:
        return False
    if filters.verdict and (row.verdict or "none") != filters.verdict:
        return False
    needle = filters.q.lower()
    return not needle or needle in key.lower() or needle in algorithm.lower()


def _sort(rows: list[RankingRow], key: str, descending: bool) -> None:
    """Sort in place by column `key`; rows without a value stay last in either direction."""
    present = [r for r in rows if r.cells[key].value not in (None, "")]
    missing = [r for r in rows if r.cells[key].value in (None, "")]
    present.sort(key=lambda r: (r.submission_key, r.instance_label))
    present.sort(key=lambda r: _sort_value(r.cells[key].value), reverse=descending)
    rows[:] = present + sorted(missing, key=lambda r: r.submission_key)


def _sort_value(value: float | str | None) -> float | str:
    return value.lower() if isinstance(value, str) else value  # type: ignore[return-value]


@dataclass
class _RankingData:
    """The rows fetched for one category and campaign (six queries), joined in Python."""

    spec: CategorySpec
    campaign: Campaign | None
    instances: list[Instance]
    builds: dict[int, str]
    timing: dict[tuple[int, str, int], dict[str, Any]]
    api_sizes: dict[int, dict[str, Any]]
    catalog: dict[tuple[str, str], ExternalSize]
    bandwidth: dict[tuple[str, str], KexBandwidth]
    excluded: dict[str, list[str]]

    @classmethod
    def load(cls, spec: CategorySpec, campaign: Campaign | None) -> _RankingData:
        instances = list(
            Instance.objects.filter(submission__category=spec.key)
            .select_related("submission")
            .order_by("submission__key", "position", "label")
        )
        builds: dict[int, str] = {}
        timing: dict[tuple[int, str, int], dict[str, Any]] = {}
        api_sizes: dict[int, dict[str, Any]] = {}
        if campaign is not None:
            builds = dict(
                Build.objects.filter(
                    campaign=campaign, instance__submission__category=spec.key
                ).values_list("instance_id", "kat_status")
            )
            for m in Measurement.objects.filter(
                campaign=campaign, instance__submission__category=spec.key
            ).values("id", "instance_id", "operation", "input_bytes", "mean_cycles", "sizes"):
                timing[(m["instance_id"], m["operation"], m["input_bytes"])] = m
                if m["sizes"]:
                    api_sizes.setdefault(m["instance_id"], m["sizes"])
        prefix = f"{spec.key}-"
        catalog = {
            (e.candidate, e.instance_label): e
            for e in ExternalSize.objects.filter(candidate__startswith=prefix)
        }
        bandwidth = {
            (k.candidate, k.instance_label): k
            for k in KexBandwidth.objects.filter(candidate__startswith=prefix)
        }
        excluded: dict[str, list[str]] = defaultdict(list)
        for issue in KatIssue.objects.filter(
            candidate__startswith=prefix, action=KatIssue.Action.EXCLUDE
        ):
            excluded[issue.candidate].append(issue.label_regex)
        return cls(
            spec, campaign, instances, builds, timing, api_sizes, catalog, bandwidth, excluded
        )

    @property
    def targets(self) -> list[int]:
        return sorted({i.security_target_bits for i in self.instances if i.security_target_bits})

    @property
    def kat_statuses(self) -> list[str]:
        return sorted({s for s in self.builds.values() if s})

    @property
    def verdicts(self) -> list[str]:
        return sorted({i.submission.survey_verdict or "none" for i in self.instances})

    def rows(self, filters: RankingFilters) -> tuple[list[RankingRow], list[UnrankedRow], int]:
        by_submission: dict[str, list[Instance]] = defaultdict(list)
        for instance in self.instances:
            by_submission[instance.submission.key].append(instance)
        ranked, unranked, without_target = [], [], 0
        for instances in by_submission.values():
            at_target = [
                i
                for i in instances
                if filters.target is None or i.security_target_bits == filters.target
            ]
            if not at_target:
                without_target += 1
                continue
            scored = [(self._score(i), i) for i in at_target]
            measured = [(score, i) for score, i in scored if score[0] < 0]
            if measured:
                best = min(measured, key=lambda pair: (pair[0], pair[1].position))[1]
                ranked.append(self._row(best, filters.system))
            else:
                unranked.append(self._unranked(at_target, filters.system))
        return ranked, unranked, without_target

    def _score(self, instance: Instance) -> tuple[int, float]:
        """(−number of figure columns measured, sum of their cycles): smaller is preferred."""
        values = [
            m["mean_cycles"]
            for point in self.spec.summary.figure_points()
            if (m := self.timing.get((instance.pk, *point))) and m["mean_cycles"] is not None
        ]
        return (-len(values), sum(values))

    def _row(self, instance: Instance, system_key: str) -> RankingRow:
        sub = instance.submission
        status = self.builds.get(instance.pk, "")
        row = RankingRow(
            submission_key=sub.key,
            algorithm=sub.algorithm,
            instance_label=instance.label,
            target_bits=instance.security_target_bits,
            kat_status=status,
            verdict=sub.survey_verdict,
            candidate_url=candidate_url(system_key, sub.key),
        )
        cells = row.cells
        cells["id"] = RankingCell(sub.key, sub.key, href=row.candidate_url)
        cells["algorithm"] = RankingCell(
            sub.algorithm or fmt.MISSING,
            sub.algorithm,
            href=profile_url(sub.key),
        )
        cells["instance"] = RankingCell(instance.label, instance.label)
        cells["target"] = RankingCell(
            fmt.format_int(instance.security_target_bits),
            instance.security_target_bits,
            numeric=True,
        )
        for op, n in self.spec.summary.figure_points():
            m = self.timing.get((instance.pk, op, n))
            cycles = m["mean_cycles"] if m else None
            cells[_figure_key(op, n)] = RankingCell(fmt.format_cycles(cycles), cycles, numeric=True)
        for size_key in self.spec.summary.size_keys:
            cells[size_key] = self._size_cell(instance, size_key)
        cells["kat"] = RankingCell(status or fmt.MISSING, status)
        cells["verdict"] = RankingCell(sub.survey_verdict or fmt.MISSING, sub.survey_verdict)
        return row

    def _size_cell(self, instance: Instance, size_key: str) -> RankingCell:
        """The size the candidate page shows: the curated catalog's, else the API's."""
        key = (instance.submission.key, instance.label)
        figure = size_figure(
            size_key,
            self.catalog.get(key),
            self.bandwidth.get(key),
            self.api_sizes.get(instance.pk, {}),
        )
        return RankingCell(figure.text, figure.value, numeric=True)

    def _unranked(self, instances: list[Instance], system_key: str) -> UnrankedRow:
        sub = instances[0].submission
        statuses = [self.builds[i.pk] for i in instances if i.pk in self.builds]
        return UnrankedRow(
            submission_key=sub.key,
            algorithm=sub.algorithm,
            instance_labels=tuple(i.label for i in instances),
            kat_status=statuses[0] if statuses else "",
            verdict=sub.survey_verdict,
            reason=self._reason(instances, statuses),
            candidate_url=candidate_url(system_key, sub.key) if statuses else "",
        )

    def _reason(self, instances: list[Instance], statuses: list[str]) -> str:
        if self.campaign is None:
            return "no campaign on this system"
        if not statuses:
            return "not measured on this system"
        if all(s in NO_LIBRARY for s in statuses):
            return f"build failed ({statuses[0]})"
        patterns = self.excluded.get(instances[0].submission.key, [])
        if patterns and all(
            any(_search(p, i.label) for p in patterns) for i in instances if i.pk in self.builds
        ):
            return "excluded by a KAT issue (not timed)"
        return f"built (KAT {statuses[0] or '–'}), not timed in campaign {self.campaign.key}"


def _search(pattern: str, label: str) -> bool:
    """RE2, never Python `re`: the pattern is curator input (an invalid one matches itself)."""
    return label_matches(pattern, label) or pattern == label
