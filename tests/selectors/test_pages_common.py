"""The page builders' shared helpers: page order and label-regex catalogs."""

from __future__ import annotations

import pytest

from measurements.models import SummaryNote
from measurements.selectors.pages.common import (
    catalog_matches,
    category_rank,
    length_label,
    operation_label,
    operation_sort_key,
    regex_catalog,
)


def test_operations_sort_in_their_natural_order_then_by_name():
    keys = [("verify", 0), ("extra", 0), ("keygen", 0), ("sign", 0)]
    ordered = sorted(keys, key=lambda k: operation_sort_key("sign", *k))
    assert ordered == [("keygen", 0), ("sign", 0), ("verify", 0), ("extra", 0)]
    hashes = sorted([("hash", 4096), ("hash", 32)], key=lambda k: operation_sort_key("hash", *k))
    assert hashes == [("hash", 32), ("hash", 4096)]


def test_labels_and_category_order():
    assert operation_label("hash", "hash", 64) == "64 B"
    assert operation_label("kem", "enc", 0) == "enc"
    assert [length_label(n) for n in (32, 1000, 1024, 65536)] == [
        "32 B",
        "1000 B",
        "1 KiB",
        "64 KiB",
    ]
    ranks = [category_rank(c) for c in ("sign", "kem", "kex", "hash", "iccs", "other")]
    assert ranks == [0, 1, 2, 3, 4, 5]


@pytest.mark.django_db
def test_a_regex_catalog_keeps_catalog_order_and_skips_invalid_patterns(empty_db):
    SummaryNote.objects.create(candidate="kem-90", label_regex="^TEST-", note="first", position=1)
    SummaryNote.objects.create(candidate="kem-90", label_regex="[", note="invalid", position=2)
    SummaryNote.objects.create(candidate="kem-90", label_regex="-0$", note="second", position=3)
    catalog = regex_catalog(SummaryNote.objects.order_by("candidate", "position"))
    assert [n.note for n in catalog_matches(catalog, "kem-90", "TEST-0")] == ["first", "second"]
    assert [n.note for n in catalog_matches(catalog, "kem-90", "TEST-1")] == ["first"]
    assert catalog_matches(catalog, "kem-91", "TEST-0") == []
