"""KAT checking of the example submissions, canonical text rules and the reference forms."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from runner.harness.kat import (
    KatStatus,
    canonical_digest,
    canonical_kat_text,
    check_instance,
    first_difference,
)
from runner.harness.manifest import load_manifest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ALL_EXAMPLES = [
    "rlwe-lpr-256-toy",
    "rlwe-lpr-512-toy",
    "rlwe-lpr-256-vt",
    "wots-sm3-w16",
    "wots-sm3-w4",
    "sha3-256-ex",
    "sha3-512-ex",
]


def test_canonical_text_rules():
    raw = (
        "Count = 0\r\nPK_Len = 2  \r\nPK = AB\t\n\n\n Count = 1\nPK_Len = 1\nPK = C\n\nCount = 2\n"
    )
    assert canonical_kat_text(raw) == (
        "Count = 0\nPK_Len = 2\nPK = AB\n Count = 1\nPK_Len = 1\nPK = C\nCount = 2\n"
    )
    assert canonical_kat_text(raw, nolen=True) == (
        "Count = 0\nPK = AB\n Count = 1\nPK = C\nCount = 2\n"
    )
    assert (
        canonical_kat_text(raw, records=2, nolen=True) == "Count = 0\nPK = AB\n Count = 1\nPK = C\n"
    )
    assert canonical_digest(raw) == hashlib.sha256(canonical_kat_text(raw).encode()).hexdigest()
    # "Len = " (no underscore, e.g. hash KATs) is not a *_Len line
    assert canonical_kat_text("Len = 8\nMsg = 00\n", nolen=True) == "Len = 8\nMsg = 00\n"


def test_first_difference():
    assert first_difference("a\nb\n", "a\nb\n") is None
    assert first_difference("a\nb\n", "a\nc\n") == "line 2: expected 'b' got 'c'"
    assert first_difference("a\n", "a\nz\n") == "line 2: expected '<end of file>' got 'z'"


@pytest.mark.parametrize("label", ALL_EXAMPLES)
def test_examples_pass_their_kats_with_guide_flags(example_checks, label):
    check = example_checks[label]
    kat = check.final
    assert kat.status is KatStatus.PASS, kat.detail
    assert kat.flags_label == "guide" and len(check.kats) == 1
    assert kat.functional.status == "PASS"
    assert kat.run["status"] == "ok" and kat.run["returncode"] == 0
    log = kat.log_path.read_text()
    assert log.splitlines()[-1].startswith(f"RESULT {check.build.candidate} {label} PASS")
    assert kat.log_sha256 == hashlib.sha256(kat.log_path.read_bytes()).hexdigest()
    assert f"manifest {kat.output_manifest}" in log


def test_reference_file_digest_matches_the_output_manifest_line(example_checks):
    kat = example_checks["rlwe-lpr-256-toy"].final
    ref = EXAMPLES / "kem-ex" / "test_vectors" / "KAT_KEM_rlwe-lpr-256-toy.txt"
    assert kat.output_manifest == (
        f"{canonical_digest(ref.read_bytes())} strict rlwe-lpr-256-toy/KAT_KEM_rlwe-lpr-256-toy.txt"
    )
    assert kat.reference == "kem-ex/test_vectors/KAT_KEM_rlwe-lpr-256-toy.txt"


@pytest.mark.parametrize(
    ("label", "comparison"),
    [("rlwe-lpr-256-toy", "strict"), ("rlwe-lpr-512-toy", "strict"), ("wots-sm3-w4", "nolen:5")],
)
def test_pass_shows_the_canonical_digests_that_were_compared(example_checks, label, comparison):
    kat = example_checks[label].final
    assert kat.status is KatStatus.PASS and kat.comparison == comparison
    assert kat.output_canonical_sha256 == kat.reference_canonical_sha256
    assert len(kat.output_canonical_sha256) == 64
    output = kat.log_path.parent / "run" / "output" / kat.output_file
    assert kat.output_raw_sha256 == hashlib.sha256(output.read_bytes()).hexdigest()


def test_digest_references_pass(example_checks):
    assert example_checks["rlwe-lpr-512-toy"].final.reference.endswith(
        "strict rlwe-lpr-512-toy/KAT_KEM_rlwe-lpr-512-toy.txt"
    )
    assert " nolen:5 " in example_checks["wots-sm3-w4"].final.reference


def test_kem_sizes_and_timings_are_logged(example_checks):
    kat = example_checks["rlwe-lpr-256-toy"].final
    assert kat.functional.sizes == {"pk_len": 416, "sk_len": 864, "ct_len": 768, "ss_len": 32}
    log = kat.log_path.read_text()
    assert "pk_len      = 416" in log
    # The functional check's single calls are labelled as such, never as a timing figure.
    cold = [line for line in log.splitlines() if "keygen" in line and " ms" in line]
    assert len(cold) == 1
    assert cold[0].startswith("one cold call (functional check, not a measurement): keygen ")
    assert set(kat.functional.timings_ms) == {"keygen", "enc", "dec"}
    assert not any(line.startswith("timing") for line in log.splitlines())


@pytest.mark.parametrize("bits", [256, 512])
def test_hash_example_reference_kat_is_real_sha3(bits):
    text = (EXAMPLES / "hash-ex" / "test_vectors" / f"KAT_CryptHash_sha3-{bits}-ex.txt").read_text()
    records = [
        dict(line.split(" = ") for line in rec.replace(" = \n", " = -\n").splitlines())
        for rec in text.strip().split("\n\n")
    ]
    assert len(records) == 10
    for rec in records:
        msg = b"" if rec["Msg"] in ("-", "") else bytes.fromhex(rec["Msg"])
        assert int(rec["Len"]) == 8 * len(msg)
        assert rec["MD"] == hashlib.new(f"sha3_{bits}", msg).hexdigest().upper()


def _copy_examples(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    shutil.copytree(EXAMPLES, root, ignore=shutil.ignore_patterns("faulty*"))
    return root


def test_missing_reference_is_nokat(tmp_path):
    root = _copy_examples(tmp_path)
    text = (root / "hash-ex1.toml").read_text()
    text = text.replace(
        'kat_reference = "hash-ex/test_vectors/KAT_CryptHash_sha3-256-ex.txt"\n', ""
    )
    (root / "hash-ex1.toml").write_text(text)
    m = load_manifest(root / "hash-ex1.toml")
    check = check_instance(m, m.instance("sha3-256-ex"), build_root=tmp_path / "b", fallback=False)
    assert check.final.status is KatStatus.NOKAT and check.final.output_manifest


def test_wrong_digest_is_mismatch_and_falls_back_to_harness_default(tmp_path):
    root = _copy_examples(tmp_path)
    text = (root / "kem-ex1.toml").read_text().replace('"95b8', '"95b9')
    (root / "kem-ex1.toml").write_text(text)
    m = load_manifest(root / "kem-ex1.toml")
    check = check_instance(m, m.instance("rlwe-lpr-512-toy"), build_root=tmp_path / "b")
    assert [k.status for k in check.kats] == [KatStatus.MISMATCH, KatStatus.MISMATCH]
    assert [b.flags_label for b in check.builds] == ["guide", "harness-default"]
    assert check.final.guide_result == "MISMATCH" and "strict digest" in check.final.detail
    final = check.final
    assert final.comparison == "strict" and final.reference_canonical_sha256.startswith("95b9")
    assert final.output_canonical_sha256.startswith("95b8")


def test_streamed_file_comparison_matches_the_text_rules(tmp_path):
    from runner.harness.kat import file_canonical_digest, first_file_difference

    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(b"Count = 0\r\nX_Len = 1\r\nX = 0A  \r\n\r\nCount = 1\r\nX = 0B\r\n")
    b.write_bytes(b"Count = 0\nX_Len = 1\nX = 0A\n\nCount = 1\nX = 0C\n")
    assert first_file_difference(a, b) == "line 5: expected 'X = 0B' got 'X = 0C'"
    assert file_canonical_digest(a, mode="nolen", records=1) == file_canonical_digest(
        b, mode="nolen", records=1
    )
    assert file_canonical_digest(a) == canonical_digest(a.read_bytes())
