"""import_harness / import_catalogs: real values, idempotence, atomic failure on bad input."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from measurements.harness_records import HarnessDataError
from measurements.models import (
    Build,
    Campaign,
    EvidenceFile,
    ExternalSize,
    HashProfile,
    HashProfileCall,
    Instance,
    KATResult,
    Measurement,
    SizeAudit,
    Submission,
    Trial,
)
from measurements.services.imports import catalogs_import, harness_dataset_import
from measurements.stats import aggregates_from_trials

MINI = Path(__file__).resolve().parent.parent / "fixtures" / "harness-mini"
COUNTED = (
    Campaign,
    Submission,
    Instance,
    Build,
    KATResult,
    Measurement,
    Trial,
    HashProfile,
    HashProfileCall,
    EvidenceFile,
    ExternalSize,
    SizeAudit,
)


def row_counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in COUNTED}


# --- The shared arm_1 dataset ------------------------------------------------------------------


def test_kem29_measurements_equal_record_files(arm1, shared_arm1_dir):
    files = sorted((shared_arm1_dir / "records" / "kem-29").glob("*.json"))
    assert len(files) == 9
    for path in files:
        record = json.loads(path.read_text())
        m = Measurement.objects.get(
            campaign=arm1,
            instance__submission__key="kem-29",
            instance__label=record["label"],
            operation=record["operation"],
        )
        assert m.mean_cycles == record["mean_cycles"]
        assert m.mean_seconds == record["mean_seconds"]
        assert m.median_trial_seconds == record["median_trial_seconds"]
        assert m.operations_per_second == record["operations_per_second"]
        assert m.measurements == record["measurements"]
        assert m.plan["trials"] * m.plan["iterations_per_trial"] == record["measurements"]
        stored = list(m.trials.values_list("measurements", "seconds", "cycles"))
        assert stored == [(t["measurements"], t["seconds"], t["cycles"]) for t in record["trials"]]


def test_every_stored_aggregate_recomputes_from_its_trials(arm1):
    measurements = Measurement.objects.filter(campaign=arm1).prefetch_related("trials")
    assert measurements.count() == 45
    for m in measurements:
        agg = aggregates_from_trials(m.trials.all())
        assert agg.measurements == m.measurements
        assert agg.mean_cycles == pytest.approx(m.mean_cycles, rel=1e-9)
        assert agg.mean_seconds == pytest.approx(m.mean_seconds, rel=1e-9)
        assert agg.median_trial_seconds == pytest.approx(m.median_trial_seconds, rel=1e-9)
        assert agg.operations_per_second == pytest.approx(m.operations_per_second, rel=1e-9)


def test_page_figures_derivable_from_database(arm1):
    """kem-29 arm_1 page figures: environment, ELF image, RSS, sizes, shares, calls."""
    assert arm1.primary_cpu == 2
    env = arm1.environment
    assert (env["cpu_model"], env["machine"]) == ("Qualcomm Oryon", "ASUS Vivobook S 15")
    assert env["memory_total_kib"] // 1024 == 30562
    build = Build.objects.get(campaign=arm1, instance__label="PolarKEM-128")
    assert (build.flags, build.kat_status, build.elf_load_bytes) == ("guide", "PASS", 23948)
    assert build.kat_log.sha256.startswith("c2502fa32beacfb5")
    enc = Measurement.objects.get(campaign=arm1, instance__label="PolarKEM-128", operation="enc")
    assert (enc.baseline_rss_bytes // 1024, enc.peak_rss_bytes // 1024) == (1424, 1492)
    assert enc.sizes["sk_bytes"] == 2048 and enc.sizes["ss_bytes"] == 16
    profile = HashProfile.objects.get(
        campaign=arm1, instance__label="PolarKEM-128", operation="enc"
    )
    assert round(profile.hash_share * 100) == 94
    assert round(profile.drng_share * 100, 1) == 0.8
    per_op: dict[str, float] = {}
    for call in profile.calls.all():
        per_op[call.fn] = per_op.get(call.fn, 0) + call.calls / profile.total_operations
    assert per_op == {"drng": 1.0, "pseudoXOF": 6.0, "sm3hash": 3.0}
    assert Submission.objects.get(key="kem-29").algorithm == "Polar-KEM"
    catalog = ExternalSize.objects.get(candidate="kem-29", instance_label="PolarKEM-128")
    assert (catalog.public_key_bytes, catalog.ciphertext_bytes) == (1024, 768)


def test_evidence_is_byte_exact(arm1, shared_arm1_dir):
    for rel in (
        "campaign.json",
        "kat/kem-29/PolarKEM-128.log",
        "records/kem-38/UVW-KEM-512__dec.json",
    ):
        content = (shared_arm1_dir / rel).read_bytes()
        evidence = EvidenceFile.objects.get(campaign=arm1, relative_path=rel)
        assert bytes(evidence.content) == content
        assert evidence.sha256 == hashlib.sha256(content).hexdigest()
        assert evidence.size == len(content)


def test_reimport_changes_nothing(arm1, shared_arm1_dir, shared_catalog_dir):
    before = row_counts()
    summary = harness_dataset_import(directory=shared_arm1_dir, system_key="arm_1")
    assert not summary.changed
    assert summary.files_unchanged == summary.files_seen == 107
    assert "no changes" in summary.describe()
    catalogs = catalogs_import(directory=shared_catalog_dir)
    assert not catalogs.changed
    assert row_counts() == before


def test_import_command_reports_no_changes(arm1, shared_arm1_dir, capsys):
    call_command("import_harness", str(shared_arm1_dir), "--system", "arm_1", "--quiet-progress")
    assert "no changes: all 107 files were already imported" in capsys.readouterr().out


# --- Corrupted datasets (a copy of the repository's own mini dataset) ---------------------------


@pytest.fixture
def mini_copy(tmp_path) -> Path:
    target = tmp_path / "dataset"
    shutil.copytree(MINI, target)
    return target


def _edit_record(dataset: Path, edit) -> Path:
    path = dataset / "records" / "kem-90" / "MINI-1__enc.json"
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    return path


def test_mini_dataset_imports_with_real_values(empty_db):
    summary = harness_dataset_import(directory=MINI, system_key="fix_1")
    assert summary.counts["measurements"] == 2 and summary.counts["trials"] == 6
    keygen = Measurement.objects.get(instance__label="MINI-1", operation="keygen")
    assert keygen.mean_cycles == pytest.approx(123_000_000 / 600)
    assert keygen.measurements == 600
    assert Build.objects.get(instance__label="MINI-2").kat_status == "BUILDFAIL"
    assert Build.objects.get(instance__label="MINI-1").kat_log.relative_path == (
        "kat/kem-90/MINI-1.log"
    )
    assert HashProfile.objects.get().share == {"pseudoXOF": 0.6, "drng": 0.05}
    assert not harness_dataset_import(directory=MINI, system_key="fix_1").changed


@pytest.mark.parametrize(
    ("corrupt", "field"),
    [
        (lambda d: d["trials"][1].__setitem__("cycles", -5), "trials[1].cycles"),
        (lambda d: d.__setitem__("mean_cycles", d["mean_cycles"] * 1.001), "mean_cycles"),
        (lambda d: d.pop("operation"), "operation"),
        (lambda d: d["trials"][0].pop("seconds"), "trials[0].seconds"),
        (lambda d: d.__setitem__("measurements", 7), "measurements"),
        (lambda d: d.__setitem__("label", "../../evil"), "label"),
        (lambda d: d.__setitem__("candidate", "kem-29/x"), "candidate"),
    ],
)
def test_corrupted_record_fails_naming_file_and_field(empty_db, mini_copy, corrupt, field):
    before = row_counts()
    path = _edit_record(mini_copy, corrupt)
    with pytest.raises(HarnessDataError) as info:
        harness_dataset_import(directory=mini_copy, system_key="fix_1")
    assert info.value.field == field
    assert str(path) in str(info.value) and field in str(info.value)
    assert row_counts() == before


def test_truncated_json_fails_with_line_and_leaves_database(empty_db, mini_copy):
    before = row_counts()
    path = mini_copy / "profile" / "kem-90" / "MINI-1__keygen.json"
    path.write_bytes(path.read_bytes()[:120])
    with pytest.raises(HarnessDataError, match=r"malformed JSON at line \d+"):
        harness_dataset_import(directory=mini_copy, system_key="fix_1")
    assert row_counts() == before


def test_import_command_error_names_file(empty_db, mini_copy):
    _edit_record(mini_copy, lambda d: d["trials"][2].__setitem__("cycles", -1))
    with pytest.raises(CommandError, match=r"MINI-1__enc\.json: field 'trials\[2\]\.cycles'"):
        call_command("import_harness", str(mini_copy), "--system", "fix_1", "--quiet-progress")
    assert Measurement.objects.count() == 0


def test_wrong_system_is_refused(empty_db):
    with pytest.raises(HarnessDataError, match="system_id"):
        harness_dataset_import(directory=MINI, system_key="x86_1")


# --- Catalogs ---------------------------------------------------------------------------------


def _write(dir_: Path, name: str, text: str) -> Path:
    path = dir_ / name
    path.write_text(text)
    return path


def test_catalog_rows_and_free_text_with_semicolons(empty_db, tmp_path):
    _write(
        tmp_path,
        "external_sizes.csv",
        "# comment\nID;Instance;PublicKeyBytes;CiphertextBytes;SignatureBytes;Basis\n"
        "kem-90;MINI-1;32;48;;encoded\nsign-90;S-1;64;;2420;nominal-variable\n",
    )
    _write(tmp_path, "kat_issues.csv", "ID;Label;Action;Cause\nkem-90;^MINI-;measure;a; b; c\n")
    summary = catalogs_import(directory=tmp_path)
    assert summary.counts["external sizes"] == 2
    assert ExternalSize.objects.get(candidate="sign-90").signature_bytes == 2420
    from measurements.models import KatIssue

    assert KatIssue.objects.get().cause == "a; b; c"
    assert not catalogs_import(directory=tmp_path).changed


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ("kem-90;MINI-1;-3;48;;encoded", "PublicKeyBytes"),
        ("kem-90;MINI-1;32;x;;encoded", "CiphertextBytes"),
        ("kem-90;MINI-1;32;48;;approximate", "Basis"),
        ("kem-90;MINI-1;32;48", "<row>"),
    ],
)
def test_bad_catalog_row_names_line_and_field(empty_db, tmp_path, line, field):
    _write(
        tmp_path,
        "external_sizes.csv",
        "ID;Instance;PublicKeyBytes;CiphertextBytes;SignatureBytes;Basis\n"
        f"kem-90;OK;1;2;;encoded\n{line}\n",
    )
    with pytest.raises(HarnessDataError) as info:
        catalogs_import(directory=tmp_path)
    assert info.value.path.endswith("external_sizes.csv:3")
    assert info.value.field == field
    assert ExternalSize.objects.count() == 0


def test_size_audit_follows_catalog(empty_db):
    harness_dataset_import(directory=MINI, system_key="fix_1")
    ExternalSize.objects.create(
        candidate="kem-90",
        instance_label="MINI-1",
        public_key_bytes=32,
        ciphertext_bytes=50,
        basis="encoded",
    )
    from measurements.services.size_audit import size_audit_recompute

    size_audit_recompute()
    audits = {a.field: a for a in SizeAudit.objects.filter(instance__label="MINI-1")}
    assert audits["public_key"].agrees and audits["public_key"].api_bytes == 32
    assert not audits["ciphertext"].agrees
    assert (audits["ciphertext"].api_bytes, audits["ciphertext"].catalog_bytes) == (48, 50)


def test_catalog_label_pattern_that_does_not_compile_names_line(empty_db, tmp_path):
    _write(tmp_path, "summary_notes.csv", "ID;Label;Note\nkem-90;^MINI-;fine\nkem-90;(;broken\n")
    with pytest.raises(HarnessDataError) as info:
        catalogs_import(directory=tmp_path)
    assert str(info.value).endswith(
        "summary_notes.csv:3: field 'Label': '(': not a valid pattern: missing ): ("
    )
    from measurements.models import SummaryNote

    assert SummaryNote.objects.count() == 0
