"""The external size audit: API sizes against the curated catalog, disagreements first."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from measurements import formatting as fmt
from measurements import links
from measurements.models import SizeAudit, System

MISSING = fmt.MISSING


@dataclass
class AuditRow:
    submission_key: str
    label: str
    field: str
    api: str
    catalog: str
    basis: str
    state: str  # differs | api-missing | catalog-missing | agrees
    difference: str


@dataclass
class SizeAuditPage:
    rows: list[AuditRow]
    counts: list[tuple[str, str, int]]  # (state, label, rows) in AUDIT_STATE_ORDER
    total: int
    systems: list[str]
    candidates: list[str]
    selected_system: str
    selected_candidate: str
    selected_state: str
    api_url: str = ""


AUDIT_STATE_ORDER = ("differs", "api-missing", "catalog-missing", "agrees")
AUDIT_STATE_LABELS = {
    "differs": "API and catalog differ",
    "api-missing": "no API size measured",
    "catalog-missing": "not in the catalog",
    "agrees": "agree",
}


def _audit_state(audit: SizeAudit) -> str:
    if audit.agrees:
        return "agrees"
    if audit.api_bytes is None:
        return "api-missing"
    if audit.catalog_bytes is None:
        return "catalog-missing"
    return "differs"


def size_audit_page(system: str = "", candidate: str = "", state: str = "") -> SizeAuditPage:
    """SizeAudit rows, disagreements first, optionally restricted to the instances built on a
    system, to one candidate or to one state. Three queries."""
    qs = SizeAudit.objects.select_related("instance__submission").order_by(
        "instance__submission__key", "instance__position", "instance__label", "field"
    )
    systems = list(System.objects.order_by("key").values_list("key", flat=True))
    if system:
        qs = qs.filter(instance__builds__campaign__system__key=system).distinct()
    if candidate:
        qs = qs.filter(instance__submission__key=candidate)
    audits = list(qs)
    candidates = sorted(
        SizeAudit.objects.order_by("instance__submission__key")
        .values_list("instance__submission__key", flat=True)
        .distinct()
    )
    counts: Counter = Counter()
    rows = []
    for audit in audits:
        row_state = _audit_state(audit)
        counts[row_state] += 1
        if state and row_state != state:
            continue
        diff = MISSING
        if audit.api_bytes is not None and audit.catalog_bytes is not None:
            delta = int(audit.api_bytes) - int(audit.catalog_bytes)
            diff = f"{delta:+d}" if delta else "0"
        rows.append(
            AuditRow(
                submission_key=audit.instance.submission.key,
                label=audit.instance.label,
                field=audit.field.replace("_", " "),
                api=fmt.format_int(audit.api_bytes),
                catalog=fmt.format_size(audit.catalog_bytes, audit.basis),
                basis=audit.basis or MISSING,
                state=row_state,
                difference=diff,
            )
        )
    rows.sort(key=lambda r: AUDIT_STATE_ORDER.index(r.state))  # stable: catalog order inside
    return SizeAuditPage(
        rows=rows,
        counts=[(key, AUDIT_STATE_LABELS[key], counts.get(key, 0)) for key in AUDIT_STATE_ORDER],
        total=len(audits),
        systems=systems,
        candidates=candidates,
        selected_system=system,
        selected_candidate=candidate,
        selected_state=state,
        api_url=links.api_url_for_sizes(candidate or None),
    )
