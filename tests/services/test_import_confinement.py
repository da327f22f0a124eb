"""import_harness as an attacker would use it: links, FIFOs, huge or hostile files, bad fields.

Every case asserts the error text (file and field) and that the database is unchanged.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from django.conf import settings

from measurements.harness_records import HarnessDataError
from measurements.services.imports import harness_dataset_import
from tests.services.test_imports import MINI, row_counts

RECORD = Path("records/kem-90/MINI-1__enc.json")


@pytest.fixture
def dataset(tmp_path) -> Path:
    target = tmp_path / "dataset"
    shutil.copytree(MINI, target)
    return target


def _refused(dataset: Path, pattern: str, **kwargs) -> HarnessDataError:
    before = row_counts()
    with pytest.raises(HarnessDataError, match=pattern) as info:
        harness_dataset_import(directory=dataset, system_key="fix_1", **kwargs)
    assert row_counts() == before
    return info.value


def _rewrite(dataset: Path, rel: Path, text: str) -> Path:
    path = dataset / rel
    path.write_text(text)
    return path


def _edit(dataset: Path, rel: Path, edit) -> Path:
    data = json.loads((dataset / rel).read_text())
    edit(data)
    return _rewrite(dataset, rel, json.dumps(data))


# --- Files that are not regular files inside the folder ---------------------------------------


def test_symlinked_kat_log_to_etc_passwd_is_refused(empty_db, dataset):
    (dataset / "kat" / "kem-90" / "passwd.log").symlink_to("/etc/passwd")
    error = _refused(dataset, r"passwd\.log: field '<file>': is a symbolic link")
    assert error.field == "<file>"


def test_symlink_to_the_database_file_is_refused(empty_db, dataset):
    (dataset / "kat" / "kem-90" / "db.log").symlink_to(settings.DATABASES["default"]["NAME"])
    _refused(dataset, r"db\.log: field '<file>': is a symbolic link, expected a regular file")


def test_symlinked_candidate_folder_is_refused(empty_db, dataset, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (dataset / "records" / "kem-91").symlink_to(outside, target_is_directory=True)
    _refused(dataset, r"records/kem-91: field '<file>': is not a directory; refused")


def test_symlinked_campaign_json_is_refused(empty_db, dataset):
    real = dataset / "campaign.real"
    (dataset / "campaign.json").rename(real)
    (dataset / "campaign.json").symlink_to(real)
    _refused(dataset, r"campaign\.json: field '<file>': is a symbolic link")


def test_fifo_named_json_is_refused_without_opening_it(empty_db, dataset):
    os.mkfifo(dataset / "records" / "kem-90" / "MINI-1__dec.json")
    # A blocking open() of a FIFO with no writer would hang this test forever.
    _refused(dataset, r"MINI-1__dec\.json: field '<file>': is a FIFO, expected a regular file")


def test_directory_named_json_is_refused(empty_db, dataset):
    (dataset / "records" / "kem-90" / "x.json").mkdir()
    _refused(dataset, r"x\.json: field '<file>': is a directory, expected a regular file")


def test_missing_build_json_names_the_file(empty_db, dataset):
    (dataset / "build.json").unlink()
    _refused(dataset, r"build\.json: field '<file>': missing from the dataset folder")


# --- Size and shape limits --------------------------------------------------------------------


def test_oversized_record_names_file_and_limit(empty_db, dataset):
    with open(dataset / RECORD, "r+b") as handle:
        handle.truncate(200 * 1024 * 1024)  # sparse: 200 MB on paper, nothing read or written
    _refused(
        dataset,
        r"MINI-1__enc\.json: field '<file>': 209715200 bytes exceeds the import limit of "
        r"16777216 bytes",
    )


def test_limit_is_an_argument(empty_db, dataset):
    _refused(
        dataset,
        r"campaign\.json: field '<file>': \d+ bytes exceeds the import limit of 1000",
        max_file_bytes=1000,
    )


def test_limit_comes_from_settings(empty_db, dataset, settings):
    settings.NGCC_IMPORT_MAX_FILE_BYTES = 100
    _refused(dataset, r"campaign\.json: field '<file>': \d+ bytes exceeds the import limit of 100")


def test_deeply_nested_json_is_refused(empty_db, dataset):
    _rewrite(dataset, RECORD, "[" * 200_000 + "]" * 200_000)
    _refused(dataset, r"MINI-1__enc\.json: field '<file>': JSON nested deeper than 32 levels")


def test_duplicate_keys_are_refused(empty_db, dataset):
    text = (dataset / RECORD).read_text().replace('"status":', '"operation": "dec",\n "status":')
    _rewrite(dataset, RECORD, text)
    _refused(dataset, r"MINI-1__enc\.json: field '<file>': refused JSON: duplicate key 'operation'")


@pytest.mark.parametrize(
    ("literal", "problem"),
    [("1e400", "number 1e400 is out of range"), ("NaN", "NaN is not a finite number")],
)
def test_non_finite_numbers_are_refused(empty_db, dataset, literal, problem):
    text = (dataset / RECORD).read_text().replace('"input_bytes": 0', f'"input_bytes": {literal}')
    _rewrite(dataset, RECORD, text)
    _refused(dataset, rf"MINI-1__enc\.json: field '<file>': refused JSON: {problem}")


def test_huge_integer_is_refused(empty_db, dataset):
    _edit(dataset, RECORD, lambda d: d["trials"][0].__setitem__("cycles", 10**30))
    _refused(dataset, r"MINI-1__enc\.json: field 'trials\[0\]\.cycles': integer out of range")


def test_nul_in_json_text_is_refused(empty_db, dataset):
    _edit(dataset, RECORD, lambda d: d["environment"].__setitem__("os", "Linux\x00evil"))
    _refused(dataset, r"MINI-1__enc\.json: field 'environment\.os': text contains a NUL byte")


def test_nul_in_kat_log_is_refused(empty_db, dataset):
    log = dataset / "kat" / "kem-90" / "MINI-1.log"
    log.write_bytes(log.read_bytes() + b"trailing\x00junk\n")
    _refused(dataset, r"MINI-1\.log: field 'line \d+': text contains a NUL byte")


# --- Fields validated against the domain -----------------------------------------------------


def test_unknown_operation_is_refused(empty_db, dataset):
    _edit(dataset, RECORD, lambda d: d.__setitem__("operation", "rm -rf"))
    _refused(
        dataset,
        r"MINI-1__enc\.json: field 'operation': 'rm -rf' is not an operation of kem-90 "
        r"\(keygen, enc, dec\)",
    )


def test_operation_of_another_category_is_refused(empty_db, dataset):
    rel = Path("profile/kem-90/MINI-1__keygen.json")
    _edit(dataset, rel, lambda d: d.__setitem__("operation", "sign"))
    _refused(dataset, r"MINI-1__keygen\.json: field 'operation': 'sign' is not an operation")


def test_kat_log_path_escaping_the_dataset_is_refused(empty_db, dataset):
    rel = Path("build.json")
    _edit(
        dataset,
        rel,
        lambda d: d["instances"]["kem-90/MINI-1"].__setitem__("kat_log", "../../../../etc/passwd"),
    )
    _refused(
        dataset,
        r"build\.json: field 'instances\.kem-90/MINI-1\.kat_log': '\.\./\.\./\.\./\.\./etc/passwd'"
        r" is not a path inside the dataset folder",
    )


def test_end_before_start_is_refused(empty_db, dataset):
    _edit(dataset, RECORD, lambda d: d.__setitem__("ended_utc", "2026-01-02T03:09:00+00:00"))
    _refused(
        dataset,
        r"MINI-1__enc\.json: field 'ended_utc': 2026-01-02T03:09:00\+00:00 is before started_utc",
    )


def test_campaign_end_before_start_is_refused(empty_db, dataset):
    _edit(dataset, Path("campaign.json"), lambda d: d.__setitem__("ended_utc", "2000-01-01T00:00Z"))
    _refused(dataset, r"campaign\.json: field 'ended_utc': 2000-01-01T00:00:00\+00:00 is before")


def test_kat_folder_that_is_not_a_candidate_id_is_refused(empty_db, dataset):
    (dataset / "kat" / "evil folder").mkdir()
    (dataset / "kat" / "evil folder" / "MINI-1.log").write_text("RESULT x y PASS\n")
    _refused(dataset, r"MINI-1\.log: field '<path>': 'evil folder' is not a candidate id")


def test_valid_copy_still_imports(empty_db, dataset):
    summary = harness_dataset_import(directory=dataset, system_key="fix_1")
    assert summary.counts["measurements"] == 2 and summary.counts["trials"] == 6
