"""The per-candidate performance page (§3.5 (1)–(7)) of one system, one builder per section.

`candidate_page` assembles the sections in the order of the published pages: instances in
`Instance.position` order (the order of ``build.json``), then operations in their natural order
(keygen, enc, dec; keygen, sign, verify; exchange first for key exchange; hash rows by message
length). The web template and the Markdown rendering both consume these rows, so the two can
never disagree. Missing records or profiles are shown as `MISSING` (``–``), never estimated.

The number of queries is fixed (at most 9), whatever the number of instances or operations:
`data.candidate_data` fetches every row once; the section modules only join and format.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from measurements import links
from measurements.domain import HASH_CATEGORIES
from measurements.models import Campaign, Category, Submission, System
from measurements.selectors.kex_transfer import KEX_SIZES_NOTE
from measurements.selectors.pages.candidate.basics import (
    SystemLink,
    basic_information,
    environment_table,
)
from measurements.selectors.pages.candidate.charts import cycles_chart, systems_chart
from measurements.selectors.pages.candidate.data import candidate_data
from measurements.selectors.pages.candidate.evidence import evidence_table
from measurements.selectors.pages.candidate.kat import kat_section
from measurements.selectors.pages.candidate.performance import performance_table, resources_table
from measurements.selectors.pages.candidate.sizes import sizes_table
from measurements.selectors.pages.candidate.symmetric import symmetric_table
from measurements.selectors.pages.cells import ChartData, Table


@dataclass
class CandidatePage:
    system: System
    submission: Submission
    campaign: Campaign
    title: str
    category_line: str
    algorithm: str
    versions: str
    parameter_sets: tuple[str, ...]
    systems: tuple[SystemLink, ...]
    environment: Table
    kat: Table
    kat_notes: tuple[tuple[int, str, str], ...]  # (number, action, cause)
    kat_manifest: str  # imported campaigns: the harness manifest the published page cites
    kat_logs: tuple[tuple[str, str], ...]  # our campaigns: (path, url) of each stored KAT log
    sizes_from_catalog: bool  # §6: does the curated catalog have a row for any instance?
    performance: Table
    resources: Table
    sizes: Table
    symmetric: Table
    evidence: Table
    survey_verdict: str
    survey_note: str
    cycles_chart: ChartData
    systems_chart: ChartData | None
    urls: dict[str, str] = field(default_factory=dict)
    #: How §6 is sourced, where it differs from the size-catalog sentence (key exchange).
    sizes_note: str = ""

    @property
    def is_hash(self) -> bool:
        return self.submission.category in HASH_CATEGORIES

    @property
    def tables(self) -> tuple[Table, ...]:
        return (
            self.environment,
            self.kat,
            self.performance,
            self.resources,
            self.sizes,
            self.symmetric,
            self.evidence,
        )


def candidate_page(system_key: str, submission_key: str) -> CandidatePage:
    """Everything the candidate page shows, formatted; `Http404` for unknown keys."""
    data = candidate_data(system_key, submission_key)
    submission, campaign = data.submission, data.campaign
    basics = basic_information(data)
    kat = kat_section(data)
    return CandidatePage(
        system=campaign.system,
        submission=submission,
        campaign=campaign,
        title=basics.title,
        category_line=basics.category_line,
        algorithm=basics.algorithm,
        versions=basics.versions,
        parameter_sets=basics.parameter_sets,
        systems=basics.systems,
        environment=environment_table(campaign),
        kat=kat.table,
        kat_notes=kat.notes,
        kat_manifest=kat.manifest,
        kat_logs=kat.logs,
        sizes_from_catalog=any(
            i.label in data.external or i.label in data.kex_bandwidth for i in data.instances
        ),
        performance=performance_table(data),
        resources=resources_table(data),
        sizes=sizes_table(data),
        symmetric=symmetric_table(data),
        evidence=evidence_table(data),
        survey_verdict=submission.survey_verdict,
        survey_note=submission.survey_note,
        cycles_chart=cycles_chart(data),
        systems_chart=systems_chart(data),
        urls=_page_urls(campaign.system.key, submission),
        sizes_note=KEX_SIZES_NOTE if submission.category == Category.KEX else "",
    )


def _page_urls(system_key: str, submission: Submission) -> dict[str, str]:
    return {
        "summary": links.summary_url(system_key),
        "method": links.method_url(system_key),
        "survey": links.survey_url(),
        "size_audit": links.size_audit_url(),
        "api": links.api_url_for_candidate_page(system_key, submission.key),
        "history": links.candidate_history_url(system_key, submission.key),
        "profile": links.profile_url(submission.key),
        "niccs": submission.niccs_url,
        "security_report": submission.security_report_url,
        "spec": submission.spec_url,
    }
