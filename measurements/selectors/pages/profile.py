"""The candidate profile: one candidate on every system side by side.

Every instance × operation with the mean cycles on each system (the latest campaign with data
there, as the candidate pages choose it), the cycle ratio of each system to the first, KAT status
per system, sizes, security target per instance, survey verdict and symmetric shares, with links
to each §3.5 page, the campaigns and the API. Figures from a published page are marked.

Seven queries whatever the number of systems and instances.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.http import Http404

from measurements import formatting as fmt
from measurements.domain import CATEGORIES
from measurements.links import (
    api_url_for_candidate_page,
    api_url_for_submissions,
    campaign_url,
    candidate_url,
    compare_url,
    measurement_url,
    profile_url,
    rankings_url,
)
from measurements.models import Build, Campaign, HashProfile, Instance, Measurement, Submission
from measurements.provenance import is_published, provenance
from measurements.selectors.pages.candidate.data import campaigns_with_data
from measurements.selectors.pages.common import operation_label, operation_sort_key
from measurements.selectors.pages.sizes import size_catalogs, size_figure


@dataclass(frozen=True)
class ProfileSystem:
    key: str
    arch_label: str
    campaign: Campaign
    provenance: str
    published: bool
    page_url: str
    campaign_url: str
    api_url: str


@dataclass(frozen=True)
class Figure:
    text: str
    href: str = ""


@dataclass
class ProfileRow:
    instance: str
    target: str
    operation: str
    figures: list[Figure]  # one per system
    ratios: list[str]  # each system after the first, against the first
    shares: list[str]  # symmetric share per system
    compare_url: str = ""  # this instance on every system, in the compare page


@dataclass
class ProfilePage:
    submission: Submission
    category_label: str
    systems: list[ProfileSystem]
    rows: list[ProfileRow]
    kat_rows: list[tuple[str, str, list[str]]]  # instance, target, status per system
    size_headers: tuple[str, ...]
    size_rows: list[tuple[str, list[str]]]
    api_url: str
    csv_url: str
    #: The category's ranking ("" for a category without one, such as the ICCS helpers).
    rankings_url: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def ratio_headers(self) -> list[str]:
        first = self.systems[0].key if self.systems else ""
        return [f"{s.key} / {first}" for s in self.systems[1:]]


def _system(campaign: Campaign, submission_key: str) -> ProfileSystem:
    key = campaign.system.key
    return ProfileSystem(
        key=key,
        arch_label=campaign.system.arch_label,
        campaign=campaign,
        provenance=provenance(campaign),
        published=is_published(campaign),
        page_url=candidate_url(key, submission_key),
        campaign_url=campaign_url(campaign.key),
        api_url=api_url_for_candidate_page(key, submission_key),
    )


def profile_page(submission_key: str) -> ProfilePage:
    """Everything the profile of `submission_key` shows; `Http404` for an unknown candidate."""
    submission = Submission.objects.filter(key=submission_key).first()
    if submission is None:
        raise Http404(f"No submission {submission_key!r}.")
    campaigns = campaigns_with_data(submission)
    # Measured systems first, then published pages; by system key within each.
    campaigns.sort(key=lambda c: (is_published(c), c.system.key))
    systems = [_system(c, submission.key) for c in campaigns]
    column = {c.pk: i for i, c in enumerate(campaigns)}
    instances = list(Instance.objects.filter(submission=submission).order_by("position", "label"))
    measurements = list(
        Measurement.objects.filter(campaign__in=campaigns, instance__submission=submission).only(
            "id", "campaign_id", "instance_id", "operation", "input_bytes", "mean_cycles", "sizes"
        )
    )
    timing = {(m.campaign_id, m.instance_id, m.operation, m.input_bytes): m for m in measurements}
    shares = {
        (p.campaign_id, p.instance_id, p.operation, p.input_bytes): p.hash_share
        for p in HashProfile.objects.filter(
            campaign__in=campaigns, instance__submission=submission
        ).only("campaign_id", "instance_id", "operation", "input_bytes", "hash_share")
    }
    kat = {
        (b.campaign_id, b.instance_id): b.kat_status
        for b in Build.objects.filter(campaign__in=campaigns, instance__submission=submission).only(
            "campaign_id", "instance_id", "kat_status"
        )
    }
    used = {m.instance_id for m in measurements} | {i for _, i in kat}
    instances = [i for i in instances if i.pk in used]
    for instance in instances:
        instance.submission = submission  # already fetched: no query per instance
    points = sorted(
        {(m.operation, m.input_bytes) for m in measurements},
        key=lambda k: operation_sort_key(submission.category, *k),
    )
    rows = [
        _row(submission.category, instance, point, campaigns, timing, shares)
        for instance in instances
        for point in points
        if any((c.pk, instance.pk, *point) in timing for c in campaigns)
    ]
    kat_rows = [
        (
            i.label,
            fmt.format_int(i.security_target_bits),
            [kat.get((c.pk, i.pk)) or fmt.MISSING for c in campaigns],
        )
        for i in instances
    ]
    size_headers, size_rows = _sizes(submission, instances, measurements, column)
    detail = profile_url(submission.key)
    spec = CATEGORIES.get(submission.category)
    return ProfilePage(
        submission=submission,
        category_label=spec.label if spec else submission.category,
        systems=systems,
        rows=rows,
        kat_rows=kat_rows,
        size_headers=size_headers,
        size_rows=size_rows,
        api_url=api_url_for_submissions(submission.category),
        csv_url=f"{detail}?format=csv",
        rankings_url=rankings_url(submission.category) if spec and spec.summary else "",
    )


def _row(
    category: str,
    instance: Instance,
    point: tuple[str, int],
    campaigns: list[Campaign],
    timing: dict[tuple[int, int, str, int], Measurement],
    shares: dict[tuple[int, int, str, int], float | None],
) -> ProfileRow:
    found = [timing.get((c.pk, instance.pk, *point)) for c in campaigns]
    figures = [
        Figure(
            fmt.format_cycles(m.mean_cycles),
            measurement_url(m.pk),
        )
        if m is not None
        else Figure(fmt.MISSING)
        for m in found
    ]
    base = found[0].mean_cycles if found and found[0] is not None else None
    ratios = [
        fmt.format_ratio(m.mean_cycles / base)
        if m is not None and base and m.mean_cycles is not None
        else fmt.MISSING
        for m in found[1:]
    ]
    items = {
        key: f"{instance.submission.key}:{instance.label}@{c.key}"
        for key, c, m in zip("abcdefgh", campaigns, found, strict=False)
        if m is not None
    }
    return ProfileRow(
        compare_url=compare_url(items) if len(items) > 1 else "",
        instance=instance.label,
        target=fmt.format_int(instance.security_target_bits),
        operation=operation_label(category, *point),
        figures=figures,
        ratios=ratios,
        shares=[fmt.format_share(shares.get((c.pk, instance.pk, *point))) for c in campaigns],
    )


def _sizes(
    submission: Submission,
    instances: list[Instance],
    measurements: list[Measurement],
    column: dict[int, int],
) -> tuple[tuple[str, ...], list[tuple[str, list[str]]]]:
    spec = CATEGORIES.get(submission.category)
    section = spec.summary if spec else None
    if section is None or not section.size_keys:
        return (), []
    catalog, bandwidth = size_catalogs([submission.key])
    api: dict[int, dict] = {}
    for m in sorted(measurements, key=lambda m: column[m.campaign_id]):
        if m.sizes:
            api.setdefault(m.instance_id, m.sizes)
    rows = []
    for instance in instances:
        key = (submission.key, instance.label)
        rows.append(
            (
                instance.label,
                [
                    size_figure(
                        k, catalog.get(key), bandwidth.get(key), api.get(instance.pk, {})
                    ).text
                    for k in section.size_keys
                ],
            )
        )
    return section.size_headers, rows
