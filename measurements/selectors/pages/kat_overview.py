"""The KAT overview: status counts per campaign and category, and every non-PASS build with its
cause (the KAT issue catalog, else the KAT log, else the build log). Five queries."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from django.db.models import Count

from measurements import links
from measurements.domain import category_label
from measurements.models import Build, Campaign, KatIssue, KATResult, KatStatus
from measurements.selectors.pages.common import catalog_matches, category_rank, regex_catalog


@dataclass
class KatCountRow:
    campaign_key: str
    system_key: str
    category: str
    counts: list[int]  # per status in KatOverview.statuses
    total: int


@dataclass
class KatProblem:
    system_key: str
    campaign_key: str
    submission_key: str
    category: str
    label: str
    status: str
    flags: str
    action: str
    cause: str
    cause_source: str  # catalog | log | build log | none
    kat_log_url: str | None
    candidate_url: str


@dataclass
class KatOverview:
    statuses: list[str]
    count_rows: list[KatCountRow]
    problems: list[KatProblem]
    totals: list[tuple[str, int]]  # (status, builds) in status order


def _log_excerpt(result: dict[str, Any] | None, lines: int = 3) -> str:
    """The first informative lines of a KAT log: not its `key = value` header, not blank."""
    if not result:
        return ""
    if result.get("first_difference"):
        return str(result["first_difference"]).strip()
    kept = []
    for line in str(result.get("log") or "").splitlines():
        text = line.strip()
        if not text or re.match(r"^[A-Za-z_]+\s+=\s", text):
            continue
        kept.append(text)
        if len(kept) == lines:
            break
    return "\n".join(kept)


def kat_overview() -> KatOverview:
    """KAT status counts per campaign and category, and every non-PASS build with its cause
    (the KAT issue catalog, else the log). Five queries."""
    campaigns = {c.id: c for c in Campaign.objects.select_related("system")}
    grouped = list(
        Build.objects.values("campaign_id", "instance__submission__category", "kat_status")
        .annotate(n=Count("id"))
        .order_by()
    )
    present = {g["kat_status"] or "unknown" for g in grouped}
    statuses = [s for s in KatStatus.values if s in present] + sorted(
        present - set(KatStatus.values)
    )
    table: dict[tuple[int, str], Counter] = defaultdict(Counter)
    totals: Counter = Counter()
    for g in grouped:
        status = g["kat_status"] or "unknown"
        table[(g["campaign_id"], g["instance__submission__category"])][status] += g["n"]
        totals[status] += g["n"]
    return KatOverview(
        statuses=statuses,
        count_rows=_count_rows(table, campaigns, statuses),
        problems=_problems(),
        totals=[(status, totals[status]) for status in statuses],
    )


def _count_rows(
    table: dict[tuple[int, str], Counter], campaigns: dict[int, Campaign], statuses: list[str]
) -> list[KatCountRow]:
    """One row per (campaign, category), by system, campaign and category order."""

    def order(item: tuple[tuple[int, str], Counter]) -> tuple[str, int, int]:
        (campaign_id, category), _ = item
        system_key = campaigns[campaign_id].system.key if campaign_id in campaigns else ""
        return (system_key, campaign_id, category_rank(category))

    rows = []
    for (campaign_id, category), counter in sorted(table.items(), key=order):
        campaign = campaigns.get(campaign_id)
        rows.append(
            KatCountRow(
                campaign_key=campaign.key if campaign else str(campaign_id),
                system_key=campaign.system.key if campaign else "",
                category=category_label(category),
                counts=[counter.get(s, 0) for s in statuses],
                total=sum(counter.values()),
            )
        )
    return rows


def _problems() -> list[KatProblem]:
    """Every build whose KAT is not PASS, with its cause. Three queries."""
    bad = list(
        Build.objects.exclude(kat_status=KatStatus.PASS)
        .select_related("instance__submission", "campaign__system")
        .order_by(
            "campaign__system__key",
            "instance__submission__key",
            "instance__position",
            "instance__label",
        )
    )
    catalog = regex_catalog(KatIssue.objects.order_by("candidate", "position"))
    results = {
        r["build_id"]: r
        for r in KATResult.objects.filter(kind="official")
        .exclude(build__kat_status=KatStatus.PASS)
        .values("build_id", "first_difference", "log")
    }
    problems = []
    for b in bad:
        sub = b.instance.submission
        issue = next(iter(catalog_matches(catalog, sub.key, b.instance.label)), None)
        cause, source, action = _cause(b, issue, results.get(b.id))
        problems.append(
            KatProblem(
                system_key=b.campaign.system.key,
                campaign_key=b.campaign.key,
                submission_key=sub.key,
                category=sub.category,
                label=b.instance.label,
                status=b.kat_status or "unknown",
                flags=b.flags,
                action=action,
                cause=cause,
                cause_source=source,
                kat_log_url=links.evidence_url(b.kat_log_id) if b.kat_log_id else None,
                candidate_url=links.candidate_url(b.campaign.system.key, sub.key),
            )
        )
    return problems


def _cause(
    build: Build, issue: KatIssue | None, result: dict[str, Any] | None
) -> tuple[str, str, str]:
    """(cause, where it comes from, action) of a non-PASS build."""
    if issue is not None:
        return issue.cause, "catalog", issue.action
    excerpt = _log_excerpt(result)
    source = "log" if excerpt else "none"
    if not excerpt and (build.log or build.warnings):
        excerpt = _log_excerpt({"log": build.log or build.warnings})
        source = "build log" if excerpt else "none"
    return excerpt or "cause not recorded", source, ""
