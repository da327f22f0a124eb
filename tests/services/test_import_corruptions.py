"""Property: any corruption of a shared timing record either imports or fails cleanly.

A shared arm_1 record is dropped into a copy of the mini dataset, then corrupted at random (a
field replaced by arbitrary JSON, a byte changed, the file cut short). The import must either
succeed or raise `HarnessDataError` naming that file, and a failed import must leave every
counted table as it was. Never any other exception.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from measurements.harness_records import HarnessDataError
from measurements.services.evidence import EvidenceConflict
from measurements.services.imports import harness_dataset_import
from measurements.services.recording import RecordConflict
from tests.conftest import ARM1_DATA, SHARED_MISSING_REASON, SHARED_PRESENT
from tests.services.test_imports import MINI, row_counts

SHARED_RECORD = ARM1_DATA / "records" / "kem-29" / "PolarKEM-128__enc.json"
TARGET = Path("records/kem-29/PolarKEM-128__enc.json")

pytestmark = pytest.mark.skipif(not SHARED_PRESENT, reason=SHARED_MISSING_REASON)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=6,
)


def _paths(data, prefix=()):
    """Every key path of a JSON document (objects and lists)."""
    yield prefix
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _paths(value, (*prefix, index))


def _replace(data, path, value):
    if not path:
        return value
    target = data
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return data


@st.composite
def corrupted_records(draw) -> bytes:
    original = SHARED_RECORD.read_bytes()
    how = draw(st.sampled_from(["field", "byte", "truncate"]))
    if how == "field":
        data = json.loads(original)
        path = draw(st.sampled_from(list(_paths(data))))
        text = json.dumps(_replace(data, path, draw(json_values)), allow_nan=True)
        return text.encode()
    if how == "byte":
        position = draw(st.integers(min_value=0, max_value=len(original) - 1))
        byte = draw(st.integers(min_value=0, max_value=255))
        return original[:position] + bytes([byte]) + original[position + 1 :]
    return original[: draw(st.integers(min_value=0, max_value=len(original) - 1))]


@pytest.fixture
def dataset(tmp_path) -> Path:
    target = tmp_path / "dataset"
    shutil.copytree(MINI, target)
    (target / TARGET).parent.mkdir()
    return target


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(content=corrupted_records())
def test_corrupted_shared_record_imports_or_fails_cleanly(empty_db, dataset, content):
    (dataset / TARGET).write_bytes(content)
    before = row_counts()
    with transaction.atomic():
        try:
            harness_dataset_import(directory=dataset, system_key="fix_1")
        except (HarnessDataError, EvidenceConflict, RecordConflict) as error:
            assert "PolarKEM-128__enc.json" in str(error) or "kem-29" in str(error)
            assert row_counts() == before
        transaction.set_rollback(True)
