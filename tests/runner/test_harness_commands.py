"""The harness_build / harness_kat management commands (no database unless marked)."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_harness_build_prints_progress(tmp_path):
    out = StringIO()
    call_command("harness_build", str(EXAMPLES / "hash-ex1.toml"), build_root=tmp_path, stdout=out)
    text = out.getvalue()
    assert "hash-ex1: building 2 instance(s) with guide flags" in text
    assert "2 built, 0 failed" in text
    assert (tmp_path / "hash-ex1" / "guide" / "sha3-256-ex" / "libsha3-256-ex.so").is_file()


def test_harness_build_builds_only_the_named_instances(tmp_path):
    out = StringIO()
    call_command(
        "harness_build",
        str(EXAMPLES / "hash-ex1.toml"),
        "--instance",
        "sha3-512-ex",
        build_root=tmp_path,
        stdout=out,
    )
    assert "hash-ex1: building 1 instance(s) with guide flags, 2 job(s)" in out.getvalue()
    built = sorted(p.name for p in (tmp_path / "hash-ex1" / "guide").iterdir())
    assert built == ["sha3-512-ex"]


def test_harness_kat_runs_without_a_database(tmp_path):
    out = StringIO()
    call_command(
        "harness_kat",
        str(EXAMPLES / "faulty-missing-symbol.toml"),
        build_root=tmp_path,
        no_fallback=True,
        stdout=out,
    )
    assert "=> LOADFAIL" in out.getvalue() and "LOADFAIL 1" in out.getvalue()


def test_hostile_manifest_is_rejected_before_anything_runs(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(
        '[candidate]\nid = "kem-t1"\ncategory = "kem"\nalgorithm = "t"\n'
        '[[instance]]\nlabel = "x"\ndir = "../../etc"\n'
    )
    for command in ("harness_build", "harness_kat"):
        with pytest.raises(CommandError, match=r"manifest rejected: instance\[x\]\.dir: '\.\.'"):
            call_command(command, str(bad), build_root=tmp_path / "build")
    assert not (tmp_path / "build").exists()


@pytest.mark.django_db
def test_harness_kat_records_build_and_kat_results(tmp_path):
    from measurements.models import Build, Campaign, KATResult, System

    system = System.objects.create(key="test_box")
    Campaign.objects.create(system=system, key="harness-test", source="runner")
    out = StringIO()
    call_command(
        "harness_kat",
        str(EXAMPLES / "hash-ex1.toml"),
        build_root=tmp_path,
        instance=["sha3-256-ex"],
        campaign="harness-test",
        stdout=out,
    )
    build = Build.objects.get(campaign__key="harness-test", instance__label="sha3-256-ex")
    assert build.flags == "guide" and build.kat_status == "PASS"
    assert build.elf_load_bytes > 0 and len(build.library_sha256) == 64
    assert build.kat_log.content.decode().splitlines()[-1].startswith("RESULT hash-ex1")
    kinds = dict(KATResult.objects.filter(build=build).values_list("kind", "status"))
    assert kinds == {"official": "PASS", "functional": "PASS"}
    official = KATResult.objects.get(build=build, kind="official")
    # the comparison that decided PASS is the one stored: equal canonical digests
    assert official.comparison == "strict" and len(official.output_raw_sha256) == 64
    assert official.output_canonical_sha256 == official.reference_canonical_sha256
    assert len(official.reference_canonical_sha256) == 64


def test_harness_kat_with_the_default_build_root_passes_from_any_directory(tmp_path, monkeypatch):
    # The default --build-root is the relative var/build; compilers run elsewhere, so it must be
    # resolved against the caller's directory before use (issue 12).
    monkeypatch.chdir(tmp_path)
    out = StringIO()
    call_command("harness_kat", str(EXAMPLES / "kem-ex1.toml"), stdout=out)
    text = out.getvalue()
    assert text.count("=> PASS") == 3 and text.rstrip().endswith("PASS 3")
    for label in ("rlwe-lpr-256-toy", "rlwe-lpr-512-toy", "rlwe-lpr-256-vt"):
        lib = tmp_path / "var" / "build" / "kem-ex1" / "guide" / label / f"lib{label}.so"
        assert lib.is_file()


def test_harness_build_resolves_a_relative_build_root(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = StringIO()
    call_command("harness_build", str(EXAMPLES / "hash-ex1.toml"), build_root="rel", stdout=out)
    assert "2 built, 0 failed" in out.getvalue()
    assert f"OK   {tmp_path}/rel/hash-ex1/guide/" in out.getvalue()
