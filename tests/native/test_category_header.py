"""The C driver's categories come from the registry: `native/driver/categories.h` is what
`runner.harness.native_tables` generates from `measurements.domain`, and the driver refuses an
operation its category does not have."""

from __future__ import annotations

import json
import re

import pytest

from measurements.domain import CATEGORIES
from runner.harness.native_tables import CATEGORY_HEADER, category_header
from runner.harness.timing import build_driver
from tests.native.fixtures.toy import build_toy, run_tool


def test_checked_in_header_matches_the_registry():
    """Regenerate with `.venv/bin/python -m runner.harness.native_tables` when this fails."""
    assert CATEGORY_HEADER.read_text() == category_header()


def test_header_tables_list_every_submitted_category_and_its_operations():
    rows = re.findall(r'^    \{"(\w+)", \{(.*), NULL\}\},$', category_header(), re.MULTILINE)
    table = {key: tuple(re.findall(r'"(\w+)"', names)) for key, names in rows}
    assert table == {
        "sign": ("keygen", "sign", "verify"),
        "kem": ("keygen", "enc", "dec"),
        "kex": ("exchange",),
        "hash": ("hash",),
    }
    assert table == {k: c.operations for k, c in CATEGORIES.items() if c.submitted}


def test_header_usage_names_the_hash_message_lengths():
    text = category_header()
    assert '"32 128 512 1024 4096 8192 16384 65536"' in text
    assert '"keygen sign verify | keygen enc dec | exchange | hash"' in text


@pytest.fixture(scope="module")
def driver_and_kem(tmp_path_factory):
    base = tmp_path_factory.mktemp("categories")
    return build_driver(out_dir=base / "bin"), build_toy(base / "kem").library


def test_driver_refuses_an_operation_its_category_does_not_have(driver_and_kem):
    driver, kem = driver_and_kem
    res = run_tool([driver, "--iterations", "1", kem, "sign"])
    out = json.loads(res.stdout)
    assert out["status"] == "error"
    assert out["error"] == "unknown kem operation sign"


def test_driver_refuses_a_category_the_registry_does_not_have(driver_and_kem):
    driver, kem = driver_and_kem
    res = run_tool([driver, "--category", "iccs", "--iterations", "1", kem, "hash"])
    out = json.loads(res.stdout)
    assert out["status"] == "error"
    assert out["error"] == "unknown category iccs"


def test_driver_usage_lists_the_registry_operations(driver_and_kem):
    driver, _kem = driver_and_kem
    res = run_tool([driver])
    assert "OPERATION: keygen sign verify | keygen enc dec | exchange | hash" in res.stderr
    assert "32 128 512 1024 4096 8192 16384 65536" in res.stderr
