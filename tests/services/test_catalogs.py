"""Catalog imports merge by key, validate every row, and exports round-trip exactly."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command

from measurements.harness_records import HarnessDataError
from measurements.models import ExternalSize, KatIssue, SummaryNote
from measurements.services.catalogs import (
    EXTERNAL_SIZES_HEADER,
    CatalogErrors,
    catalogs_import,
    external_sizes_csv,
    external_sizes_upload,
)

HEADER = EXTERNAL_SIZES_HEADER + "\n"


def _catalog_rows() -> list[tuple]:
    return list(
        ExternalSize.objects.order_by("candidate", "instance_label").values_list(
            "candidate",
            "instance_label",
            "public_key_bytes",
            "ciphertext_bytes",
            "signature_bytes",
            "basis",
        )
    )


def _folder(tmp_path: Path, name: str, text: str) -> Path:
    (tmp_path / name).write_text(text)
    return tmp_path


def test_a_partial_folder_merges_and_reports_what_it_would_remove(arm1, tmp_path, capsys):
    before = ExternalSize.objects.count()
    assert before == 394
    folder = _folder(
        tmp_path, "external_sizes.csv", HEADER + "kem-29;PolarKEM-128;1024;770;;encoded\n"
    )
    call_command("import_catalogs", str(folder))
    out = capsys.readouterr().out
    assert (
        "external_sizes.csv: 0 added, 1 changed, 393 not in the file would be removed "
        "(use --replace to remove them)" in out
    )
    assert ExternalSize.objects.count() == before
    entry = ExternalSize.objects.get(candidate="kem-29", instance_label="PolarKEM-128")
    assert entry.ciphertext_bytes == 770


def test_replace_removes_the_rows_the_file_lacks(arm1, tmp_path, capsys):
    folder = _folder(tmp_path, "external_sizes.csv", HEADER + "kem-90;NEW-1;1;2;;encoded\n")
    call_command("import_catalogs", str(folder), "--replace")
    assert "external_sizes.csv: 1 added, 0 changed, 394 not in the file removed" in (
        capsys.readouterr().out
    )
    assert _catalog_rows() == [("kem-90", "NEW-1", 1, 2, None, "encoded")]


def test_shared_catalog_export_imports_back_exactly(arm1):
    rows = _catalog_rows()
    exported = external_sizes_csv()
    ExternalSize.objects.all().delete()
    summary = external_sizes_upload(name="export.csv", text=exported)
    assert summary.counts["external sizes"] == 394
    assert _catalog_rows() == rows
    assert external_sizes_csv() == exported


def test_hostile_cells_are_quoted_and_neutralised_and_round_trip(empty_db):
    odd = [
        ("=cmd|' /C calc'!A0", "+1", "encoded"),
        ("@SUM(A1)", "-x", "encoded"),
        ("kem-90", 'quote"and;semicolon', "encoded"),
        ("'=already", "plain", "encoded"),
    ]
    for candidate, label, basis in odd:
        ExternalSize.objects.create(
            candidate=candidate, instance_label=label, public_key_bytes=1, basis=basis
        )
    rows = _catalog_rows()
    exported = external_sizes_csv()
    lines = exported.splitlines()
    assert "'=cmd|' /C calc'!A0;'+1;1;;;encoded" in lines
    assert "'@SUM(A1);'-x;1;;;encoded" in lines
    assert 'kem-90;"quote""and;semicolon";1;;;encoded' in lines
    assert "''=already;plain;1;;;encoded" in lines
    assert not any(line.startswith(("=", "+", "-", "@")) for line in lines)
    ExternalSize.objects.all().delete()
    external_sizes_upload(name="export.csv", text=exported)
    assert _catalog_rows() == rows


@pytest.mark.parametrize(
    ("line", "error"),
    [
        (
            "kem-90;A;1000000000000000000000000000000;2;;encoded",
            "external_sizes.csv:3: field 'PublicKeyBytes': not an integer",
        ),
        (
            "kem-90;A;4294967297;2;;encoded",
            "external_sizes.csv:3: field 'PublicKeyBytes': 4294967297 is above the limit "
            "4294967296",
        ),
        (
            "kem-90;OK;5;6;;encoded",
            "external_sizes.csv:3: field '<key>': kem-90/OK already given on line 2",
        ),
        (
            "kem-90;A\x07B;1;2;;encoded",
            "external_sizes.csv:3: field '<row>': contains the control character U+0007",
        ),
    ],
)
def test_bad_upload_rows_name_their_line_and_write_nothing(arm1, line, error):
    before = _catalog_rows()
    text = HEADER + f"kem-90;OK;1;2;;encoded\n{line}\n"
    with pytest.raises(CatalogErrors) as info:
        external_sizes_upload(name="external_sizes.csv", text=text)
    assert str(info.value).startswith(error)
    assert _catalog_rows() == before


def test_rows_with_valid_shape_report_every_field_error(empty_db):
    text = HEADER + "kem-90;A;x;2;;encoded\nkem-90;B;1;2;;wrong\n"
    with pytest.raises(CatalogErrors) as info:
        external_sizes_upload(name="e.csv", text=text)
    assert [(e.path, e.field) for e in info.value.errors] == [
        ("e.csv:2", "PublicKeyBytes"),
        ("e.csv:3", "Basis"),
    ]
    assert ExternalSize.objects.count() == 0


def test_duplicate_pattern_key_in_kat_issues_is_refused(empty_db, tmp_path):
    _folder(
        tmp_path,
        "kat_issues.csv",
        "ID;Label;Action;Cause\nkem-90;^A;measure;x\nkem-90;^A;exclude;y\n",
    )
    with pytest.raises(
        HarnessDataError, match=r"kat_issues\.csv:3: field '<key>': kem-90/\^A already"
    ):
        catalogs_import(directory=tmp_path)
    assert KatIssue.objects.count() == 0


def test_symlinked_catalog_is_refused(empty_db, tmp_path):
    (tmp_path / "summary_notes.csv").symlink_to("/etc/passwd")
    with pytest.raises(
        HarnessDataError, match=r"summary_notes\.csv: field '<file>': is a symbolic link"
    ):
        catalogs_import(directory=tmp_path)
    assert SummaryNote.objects.count() == 0


def test_every_catalog_change_is_kept_in_its_history(empty_db, tmp_path):
    _folder(tmp_path, "external_sizes.csv", HEADER + "kem-90;A;1;2;;encoded\n")
    catalogs_import(directory=tmp_path)
    _folder(tmp_path, "external_sizes.csv", HEADER + "kem-90;A;1;3;;encoded\n")
    catalogs_import(directory=tmp_path)
    _folder(tmp_path, "external_sizes.csv", HEADER + "kem-90;B;1;3;;encoded\n")
    catalogs_import(directory=tmp_path, replace=True)
    history = ExternalSize.history.filter(instance_label="A").order_by("history_id")
    assert [(h.history_type, h.ciphertext_bytes) for h in history] == [
        ("+", 2),
        ("~", 3),
        ("-", 3),
    ]
    # Undo the removal: the last state before it is kept whole.
    history.last().instance.save()
    assert ExternalSize.objects.get(instance_label="A").ciphertext_bytes == 3
