"""The symmetric survey: verdict per candidate and the measured mean ICCS hash share per system."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from django.db.models import Avg, Count

from measurements import formatting as fmt
from measurements import links
from measurements.models import Category, HashProfile, Submission, System
from measurements.selectors.pages.common import category_rank

NOT_SURVEYED = "not surveyed"


@dataclass
class SurveyRow:
    submission: Submission
    verdict: str
    note: str
    shares: list[tuple[str, str, int]]  # per system: (system key, mean hash share, profiles)


@dataclass
class SurveyPage:
    verdict_counts: list[tuple[str, int]]
    rows: list[SurveyRow]
    systems: list[str]
    surveyed: int
    api_url: str = ""


def survey_page() -> SurveyPage:
    """Survey verdicts per candidate and the measured mean ICCS hash share per system (mean over
    every profiled operation of every instance). Three queries."""
    submissions = sorted(
        Submission.objects.exclude(category=Category.ICCS),
        key=lambda sub: (category_rank(sub.category), sub.key),
    )
    systems = list(System.objects.order_by("key").values_list("key", flat=True))
    shares = {
        (row["instance__submission_id"], row["campaign__system__key"]): (row["mean"], row["n"])
        for row in HashProfile.objects.filter(hash_share__isnull=False)
        .values("instance__submission_id", "campaign__system__key")
        .annotate(mean=Avg("hash_share"), n=Count("id"))
    }
    measured_systems = [s for s in systems if any(k[1] == s for k in shares)]
    counts: Counter = Counter()
    rows = []
    for sub in submissions:
        verdict = sub.survey_verdict.strip() or NOT_SURVEYED
        counts[verdict] += 1
        row_shares = []
        for s in measured_systems:
            mean, n = shares.get((sub.id, s), (None, 0))
            row_shares.append((s, fmt.format_share(mean), n))
        rows.append(
            SurveyRow(submission=sub, verdict=verdict, note=sub.survey_note, shares=row_shares)
        )
    ordered = sorted(counts.items(), key=lambda kv: (kv[0] == NOT_SURVEYED, -kv[1], kv[0]))
    return SurveyPage(
        verdict_counts=ordered,
        rows=rows,
        systems=measured_systems,
        surveyed=sum(n for v, n in counts.items() if v != NOT_SURVEYED),
        api_url=links.api_url_for_submissions(),
    )
