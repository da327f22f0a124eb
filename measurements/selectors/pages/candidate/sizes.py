"""§6 transmission and storage overhead of a candidate page.

Public keys, ciphertexts and signatures follow the curated external size catalog where it has
an entry (≈ marks a nominal size of a variable-length object); secret keys and shared secrets
are the implementation's API figures; key exchange shows passes and bytes transferred; hashes
their digest length.
"""

from __future__ import annotations

from measurements import formatting as fmt
from measurements.domain import CATEGORIES
from measurements.models import Category, Instance, Measurement
from measurements.selectors.kex_transfer import kex_transfer
from measurements.selectors.pages.candidate.data import CandidateData
from measurements.selectors.pages.cells import Cell, Table, code, figure, text

Rows = list[tuple[Cell, ...]]


def sizes_table(data: CandidateData) -> Table:
    if data.category == Category.KEX:
        headers = ("instance", "passes", "public keys", "messages", "total", "source")
        rows = _kex_rows(data)
    elif data.is_hash:
        headers, rows = ("instance", "digest (bytes)"), _hash_rows(data)
    else:  # the registry's size fields (KEM, signature, and any category like them)
        fields = CATEGORIES[data.category].size_fields
        headers = ("instance", *(header for header, _ in fields))
        rows = _catalog_rows(data, tuple(key for _, key in fields))
    return Table("sizes", headers, tuple(rows))


def _first_sizes(measurements: list[Measurement]) -> dict[int, dict[str, int]]:
    """instance id → the API sizes of its first record that has any."""
    sizes: dict[int, dict[str, int]] = {}
    for m in measurements:
        if m.sizes and m.instance_id not in sizes:
            sizes[m.instance_id] = m.sizes
    return sizes


def _kex_rows(data: CandidateData) -> Rows:
    """Passes and bytes transferred: the catalog where it has a row, else what was measured."""
    exchange = {m.instance_id: m for m in data.measurements if m.operation == "exchange"}
    rows: Rows = []
    for instance in data.instances:
        m = exchange.get(instance.pk)
        t = kex_transfer(data.kex_bandwidth.get(instance.label), m.kex if m else None)
        rows.append(
            (
                code(instance.label),
                figure(fmt.format_int(t.passes)),
                figure(fmt.format_int(t.public_key_bytes)),
                figure(fmt.format_int(t.message_bytes)),
                figure(fmt.format_int(t.total_bytes)),
                text(t.source or fmt.MISSING),
            )
        )
    return rows


def _hash_rows(data: CandidateData) -> Rows:
    api = _first_sizes(data.measurements)
    return [
        (code(i.label), figure(fmt.format_int(api.get(i.pk, {}).get("digest_bytes") or None)))
        for i in data.instances
    ]


# Catalog field behind each API size that the catalog may override.
CATALOG_FIELDS = {
    "pk_bytes": "public_key_bytes",
    "ct_bytes": "ciphertext_bytes",
    "signature_bytes": "signature_bytes",
}


def _catalog_rows(data: CandidateData, api_keys: tuple[str, ...]) -> Rows:
    """KEM and signature rows, one cell per API size key; a size with a catalog field is taken
    from the catalog where it has an entry."""
    api = _first_sizes(data.measurements)

    def size(instance: Instance, api_key: str) -> Cell:
        api_value = api.get(instance.pk, {}).get(api_key) or None
        entry = data.external.get(instance.label)
        catalog_field = CATALOG_FIELDS.get(api_key)
        if catalog_field and entry is not None and getattr(entry, catalog_field) is not None:
            return figure(fmt.format_size(getattr(entry, catalog_field), entry.basis))
        return figure(fmt.format_size(api_value))

    return [(code(i.label), *(size(i, key) for key in api_keys)) for i in data.instances]
