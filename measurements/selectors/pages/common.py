"""Query helpers and small shared pieces of the page builders.

Kept small on purpose: a helper lives here only once two pages use it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import TypeVar

from measurements import formatting as fmt
from measurements.domain import CATEGORIES, CATEGORY_OPERATIONS, HASH_CATEGORIES
from measurements.label_patterns import (
    CompiledLabelPattern,
    LabelPatternError,
    compile_label_pattern,
)
from measurements.models import Campaign, KatIssue, SummaryNote, System

#: A catalog row matched by label regex (`SummaryNote`, `KatIssue`).
CatalogRow = TypeVar("CatalogRow", SummaryNote, KatIssue)

#: Category order of every page (the summary order), from the domain registry.
CATEGORY_ORDER = tuple(CATEGORIES)


def category_rank(category: str) -> int:
    """Position of a category in page order; unknown categories come last."""
    return CATEGORY_ORDER.index(category) if category in CATEGORY_ORDER else len(CATEGORY_ORDER)


def operation_sort_key(category: str, operation: str, input_bytes: int) -> tuple[int, str, int]:
    """Operations in their natural order (keygen, enc, dec; …); others follow by name."""
    order = CATEGORY_OPERATIONS.get(category, ())
    rank = order.index(operation) if operation in order else len(order)
    return (rank, operation, input_bytes)


def operation_label(category: str, operation: str, input_bytes: int) -> str:
    """`keygen`; hash rows are named by their message length (`64 B`)."""
    if category in HASH_CATEGORIES:
        return fmt.format_message_length(input_bytes)
    return operation


def length_label(n: int) -> str:
    """A message length as the summary headers write it: `32 B`, `64 KiB`."""
    if n >= 1024 and n % 1024 == 0:
        return f"{n // 1024} KiB"
    return f"{n} B"


def campaign_for_system(system: System, campaign_key: str | None = None) -> Campaign | None:
    """The campaign a system's pages show: the requested one, else the latest that is not merely
    planned or failed (imported, complete, running or paused), else the latest of any status.
    One query."""
    campaigns = list(Campaign.objects.filter(system=system).order_by("-started_utc", "-id"))
    if campaign_key:
        return next((c for c in campaigns if c.key == campaign_key), None)
    useful = [
        c for c in campaigns if c.status not in (Campaign.Status.PLANNED, Campaign.Status.FAILED)
    ]
    return (useful or campaigns or [None])[0]


def compiled_or_none(pattern: str) -> CompiledLabelPattern | None:
    """A catalog's label regex compiled with RE2 (linear time: curator input, never Python `re`),
    or None where it does not compile (the row is skipped)."""
    try:
        return compile_label_pattern(pattern)
    except LabelPatternError:
        return None


def regex_catalog(
    rows: Iterable[CatalogRow],
) -> dict[str, list[tuple[CompiledLabelPattern, CatalogRow]]]:
    """candidate → [(compiled label regex, row)] in catalog order; invalid regexes are skipped."""
    out: dict[str, list[tuple[CompiledLabelPattern, CatalogRow]]] = defaultdict(list)
    for row in rows:
        compiled = compiled_or_none(row.label_regex)
        if compiled is not None:
            out[row.candidate].append((compiled, row))
    return out


def catalog_matches(
    catalog: dict[str, list[tuple[CompiledLabelPattern, CatalogRow]]], candidate: str, label: str
) -> list[CatalogRow]:
    """The catalog rows of `candidate` whose label regex matches `label`, in catalog order."""
    return [row for regex, row in catalog.get(candidate, []) if regex.search(label)]
