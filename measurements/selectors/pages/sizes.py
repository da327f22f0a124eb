"""The sizes the candidate page shows, for the pages that compare candidates (rankings,
profiles, compare): the curated catalog's size where it has one, else the implementation's API
size from a timing record; for key exchange, the bytes of all protocol messages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from measurements import formatting as fmt
from measurements.models import ExternalSize, KexBandwidth

#: Catalog attribute and API size key behind each size column (`SummarySection.size_keys`).
CATALOG_SIZES = {
    "pk": ("public_key_bytes", "pk_bytes"),
    "ct": ("ciphertext_bytes", "ct_bytes"),
    "sig": ("signature_bytes", "signature_bytes"),
}


@dataclass(frozen=True)
class SizeFigure:
    text: str
    value: int | None


def size_figure(
    size_key: str,
    catalog: ExternalSize | None,
    bandwidth: KexBandwidth | None,
    api_sizes: dict[str, Any],
) -> SizeFigure:
    """One size column's figure for one instance (formatted as on the candidate page)."""
    if size_key == "transferred":
        value = bandwidth.protocol_message_bytes if bandwidth else None
        return SizeFigure(fmt.format_size(value), value)
    attr, api_key = CATALOG_SIZES[size_key]
    if catalog is not None and getattr(catalog, attr) is not None:
        value = getattr(catalog, attr)
        return SizeFigure(fmt.format_size(value, catalog.basis), value)
    value = api_sizes.get(api_key) or None
    return SizeFigure(fmt.format_size(value), value)


def size_catalogs(
    candidates: list[str],
) -> tuple[dict[tuple[str, str], ExternalSize], dict[tuple[str, str], KexBandwidth]]:
    """Catalog entries of `candidates` by (candidate, instance label): two queries."""
    catalog = {
        (e.candidate, e.instance_label): e
        for e in ExternalSize.objects.filter(candidate__in=candidates)
    }
    bandwidth = {
        (k.candidate, k.instance_label): k
        for k in KexBandwidth.objects.filter(candidate__in=candidates)
    }
    return catalog, bandwidth
