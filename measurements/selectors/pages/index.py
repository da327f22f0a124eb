"""The performance index: systems with their campaigns, submissions with links per system."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Count

from measurements import links
from measurements.domain import CATEGORIES, category_label
from measurements.models import Build, Campaign, Measurement, Submission, System
from measurements.selectors.pages.common import category_rank


@dataclass
class IndexSystem:
    system: System
    campaigns: list[Campaign]
    candidates_measured: int
    candidates_built: int
    summary_url: str
    method_url: str
    api_url: str


@dataclass
class IndexSubmission:
    submission: Submission
    instances: int
    links: list[tuple[str, str | None]]  # (system key, candidate page URL or None)


@dataclass
class IndexPage:
    systems: list[IndexSystem]
    submissions_by_category: list[tuple[str, list[IndexSubmission]]]
    submission_count: int
    api_url: str = ""
    api_submissions_url: str = ""

    @property
    def ranking_categories(self) -> list[tuple[str, str]]:
        """(category key, label) of every category with a summary section (and a ranking)."""
        return [(key, spec.label) for key, spec in CATEGORIES.items() if spec.summary is not None]


def index_page() -> IndexPage:
    """Systems with their campaigns and candidate counts; submissions with links to their
    candidate pages on every system where they were built or measured. Five queries."""
    systems = list(System.objects.order_by("key"))
    campaigns = list(Campaign.objects.order_by("-started_utc", "-id"))
    submissions = list(Submission.objects.annotate(n_instances=Count("instances")).order_by("key"))
    built = set(
        Build.objects.values_list("campaign__system_id", "instance__submission_id").distinct()
    )
    measured = set(
        Measurement.objects.values_list("campaign__system_id", "instance__submission_id").distinct()
    )
    return IndexPage(
        systems=_index_systems(systems, campaigns, built, measured),
        submissions_by_category=_submissions_by_category(systems, submissions, built | measured),
        submission_count=len(submissions),
        api_url=links.api_url_for_index(),
        api_submissions_url=links.api_url_for_submissions(),
    )


def _index_systems(
    systems: list[System],
    campaigns: list[Campaign],
    built: set[tuple[int, int]],
    measured: set[tuple[int, int]],
) -> list[IndexSystem]:
    campaigns_by_system: dict[int, list[Campaign]] = defaultdict(list)
    for c in campaigns:
        campaigns_by_system[c.system_id].append(c)
    return [
        IndexSystem(
            system=s,
            campaigns=campaigns_by_system.get(s.id, []),
            candidates_measured=len({sub for sys_id, sub in measured if sys_id == s.id}),
            candidates_built=len({sub for sys_id, sub in built if sys_id == s.id}),
            summary_url=links.summary_url(s.key),
            method_url=links.method_url(s.key),
            api_url=links.api_url_for_system_summary(s.key),
        )
        for s in systems
    ]


def _submissions_by_category(
    systems: list[System], submissions: list[Submission], with_data: set[tuple[int, int]]
) -> list[tuple[str, list[IndexSubmission]]]:
    """(category label, its submissions) in category order; a link where built or measured."""
    grouped: dict[str, list[IndexSubmission]] = defaultdict(list)
    for sub in submissions:
        system_links = [
            (s.key, links.candidate_url(s.key, sub.key) if (s.id, sub.id) in with_data else None)
            for s in systems
        ]
        grouped[sub.category].append(
            IndexSubmission(submission=sub, instances=sub.n_instances, links=system_links)
        )
    return [(category_label(cat), grouped[cat]) for cat in sorted(grouped, key=category_rank)]
