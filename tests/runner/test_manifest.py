"""Manifest loading: schema, source selection, KAT references and path confinement."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from runner.harness.manifest import DRIVER_PATTERN, KatDigest, ManifestError, load_manifest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"

MINIMAL = """
[candidate]
id = "kem-t1"
category = "kem"
algorithm = "test"
{candidate_extra}

[[instance]]
label = "one"
dir = "{dir}"
{instance_extra}
"""


def write(tmp_path: Path, *, dir: str = "src", candidate_extra: str = "", instance_extra: str = ""):
    (tmp_path / "src").mkdir(exist_ok=True)
    (tmp_path / "src" / "kem.c").write_text("int x;\n")
    path = tmp_path / "m.toml"
    path.write_text(
        MINIMAL.format(dir=dir, candidate_extra=candidate_extra, instance_extra=instance_extra)
    )
    return path


def test_example_kem_manifest_resolves_sources_includes_and_driver():
    m = load_manifest(EXAMPLES / "kem-ex1.toml")
    assert (m.candidate, m.category, len(m.instances)) == ("kem-ex1", "kem", 3)
    inst = m.instance("rlwe-lpr-256-toy")
    rel = [m.rel(p) for p in inst.sources]
    # instance dir holds only the header; common sources come from extra_sources and the
    # official drng.c/auxfunc.c from the API package
    assert rel == ["kem-ex/common/kem.c", "kem-ex/common/poly.c", "api/drng.c", "api/auxfunc.c"]
    assert [m.rel(p) for p in inst.include_dirs] == [
        "kem-ex/rlwe-lpr-256-toy",
        "kem-ex/common",
        "api",
    ]
    assert m.rel(inst.kat_driver) == "api/KAT_KEM.c"
    assert m.rel(inst.kat_reference) == "kem-ex/test_vectors/KAT_KEM_rlwe-lpr-256-toy.txt"
    digest = m.instance("rlwe-lpr-512-toy").kat_digest
    assert (digest.mode, digest.records, digest.label) == ("strict", None, "rlwe-lpr-512-toy")
    assert len(m.sha256) == 64


def test_every_shipped_manifest_loads():
    paths = sorted(EXAMPLES.glob("*.toml"))
    # 4 examples (kem, sign, hash, kex), 12 faulty fixtures and 9 hostile fixtures
    assert len(paths) == 16 + 9
    ids = [load_manifest(p).candidate for p in paths]
    assert len(set(ids)) == len(ids)
    assert not any(i.split("-")[1].isdigit() for i in ids)  # never a real kem-NN id


@pytest.mark.parametrize(
    "name,excluded",
    [
        ("KAT_KEM", True),
        ("PQCgenKAT_sign", True),
        ("test_poly", True),
        ("poly_test", True),
        ("bench", True),
        ("speed_kem", True),
        ("main", True),
        ("kem_main", True),
        ("genkat", True),
        ("poly", False),
        ("kem", False),
        ("katana", False),
        ("testament_free", False),
        ("contest", False),
        ("drng", False),
        ("auxfunc", False),
    ],
)
def test_driver_pattern(name, excluded):
    assert bool(DRIVER_PATTERN.match(name)) is excluded


def test_default_selection_skips_drivers_and_keeps_all_source_kinds(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for name in ["a.c", "b.cc", "c.cpp", "d.S", "e.h", "KAT_KEM.c", "test_a.c", "notes.txt"]:
        (src / name).write_text("")
    m = load_manifest(write(tmp_path))
    assert sorted(p.name for p in m.instances[0].sources) == [
        "a.c",
        "b.cc",
        "c.cpp",
        "d.S",
        "kem.c",
    ]


def test_explicit_sources_include_and_exclude(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "sub").mkdir()
    for name in ["a.c", "b.c", "sub/c.c", "speed.c"]:
        (src / name).write_text("")
    m = load_manifest(write(tmp_path, instance_extra='sources = ["a.c", "sub/c.c"]'))
    assert [p.name for p in m.instances[0].sources] == ["a.c", "c.c"]
    m = load_manifest(write(tmp_path, instance_extra='include = ["sub/*.c"]\nexclude = ["b.c"]'))
    assert sorted(p.name for p in m.instances[0].sources) == ["a.c", "c.c", "kem.c"]


@pytest.mark.parametrize(
    "kwargs,field",
    [
        ({"dir": "../outside"}, "instance[one].dir"),
        ({"dir": "src/../src"}, "instance[one].dir"),
        ({"dir": "/etc"}, "instance[one].dir"),
        ({"instance_extra": 'kat_reference = "/etc/passwd"'}, "instance[one].kat_reference"),
        ({"instance_extra": 'kat_driver = "../KAT_KEM.c"'}, "instance[one].kat_driver"),
        ({"instance_extra": 'sources = ["../../x.c"]'}, "instance[one].sources"),
        (
            {"instance_extra": 'extra_sources = ["/usr/include/stdio.h"]'},
            "instance[one].extra_sources",
        ),
        ({"instance_extra": 'include_dirs = ["/usr/include"]'}, "instance[one].include_dirs"),
        ({"instance_extra": 'include = ["../*.c"]'}, "instance[one].include"),
        ({"candidate_extra": 'api_dir = "/tmp"'}, "candidate.api_dir"),
        ({"candidate_extra": 'root = ".."'}, "candidate.root"),
    ],
)
def test_hostile_paths_are_rejected_naming_the_field(tmp_path, kwargs, field):
    with pytest.raises(ManifestError) as err:
        load_manifest(write(tmp_path, **kwargs))
    assert str(err.value).startswith(field)


def test_escaping_symlinked_dir_is_rejected(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "evil.c").write_text("int evil;\n")
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "link").symlink_to(outside, target_is_directory=True)
    path = write(sub, dir="link")
    with pytest.raises(ManifestError, match=r"instance\[one\]\.dir: .*escaping symlink"):
        load_manifest(path)


def test_escaping_symlinked_source_in_the_instance_dir_is_rejected(tmp_path):
    outside = tmp_path / "outside.c"
    outside.write_text("int evil;\n")
    sub = tmp_path / "sub"
    sub.mkdir()
    path = write(sub)
    (sub / "src" / "evil.c").symlink_to(outside)
    with pytest.raises(ManifestError, match=r"evil\.c resolves to .*escaping symlink"):
        load_manifest(path)


def test_symlink_inside_the_root_is_fine(tmp_path):
    path = write(tmp_path)
    os.symlink(tmp_path / "src", tmp_path / "alias")
    m = load_manifest(path)
    assert m.instances[0].dir == (tmp_path / "src").resolve()


@pytest.mark.parametrize(
    "extra,message",
    [
        ('defines = ["-o/tmp/x"]', "defines"),
        ('libs = ["/usr/lib/libm.so"]', "libs"),
        ('colour = "red"', "unknown key"),
        ('kat_digest = "abc strict x.txt"', "kat_digest"),
        ("kat_timeout = -1", "kat_timeout"),
        ("kat_timeout = inf", "kat_timeout"),
        ("kat_timeout = nan", "kat_timeout"),
        ('kat_output = "../x.txt"', "kat_output"),
    ],
)
def test_malformed_fields_are_rejected(tmp_path, extra, message):
    with pytest.raises(ManifestError, match=message):
        load_manifest(write(tmp_path, instance_extra=extra))


def test_candidate_checks(tmp_path):
    path = write(tmp_path)
    for old, new in [('"kem-t1"', '"KEM 1"'), ('"kem"\n', '"cipher"\n')]:
        path.write_text(path.read_text().replace(old, new, 1))
        with pytest.raises(ManifestError, match="candidate"):
            load_manifest(path)
        path = write(tmp_path)


def test_root_override_is_trusted_and_everything_else_confined(tmp_path):
    sub = tmp_path / "tree"
    shutil.copytree(EXAMPLES, sub, ignore=shutil.ignore_patterns("faulty*"))
    manifest_dir = tmp_path / "manifests"
    manifest_dir.mkdir()
    (manifest_dir / "kem.toml").write_text((EXAMPLES / "kem-ex1.toml").read_text())
    m = load_manifest(manifest_dir / "kem.toml", root=sub)
    assert m.root == sub.resolve() and m.instances[0].dir.is_relative_to(sub.resolve())


def test_digest_line_parsing_and_round_trip():
    sha = "ab" * 32
    d = KatDigest.parse(f"{sha} nolen:3 lbl/KAT_KEM_x.txt")
    assert (d.mode, d.records, d.label, d.file) == ("nolen", 3, "lbl", "KAT_KEM_x.txt")
    assert d.line() == f"{sha} nolen:3 lbl/KAT_KEM_x.txt"
    assert KatDigest.parse(f"{sha} strict KAT.txt").label is None
    for bad in [f"{sha} loose lbl/x", f"{sha[:-1]} strict lbl/x", f"{sha} strict:x lbl/x"]:
        with pytest.raises(ManifestError):
            KatDigest.parse(bad)


def test_manifest_cannot_raise_its_kat_timeout_above_the_operator_maximum(tmp_path, monkeypatch):
    monkeypatch.delenv("NGCC_MAX_KAT_TIMEOUT", raising=False)
    inst = load_manifest(write(tmp_path, instance_extra="kat_timeout = 1e12")).instances[0]
    assert (inst.kat_timeout, inst.kat_timeout_requested) == (900.0, 1e12)
    monkeypatch.setenv("NGCC_MAX_KAT_TIMEOUT", "5")
    inst = load_manifest(write(tmp_path, instance_extra="kat_timeout = 1e12")).instances[0]
    assert inst.kat_timeout == 5.0
    # Lowering is the manifest's right; the default is the operator's maximum.
    inst = load_manifest(write(tmp_path, instance_extra="kat_timeout = 2")).instances[0]
    assert inst.kat_timeout == 2.0
    assert load_manifest(write(tmp_path)).instances[0].kat_timeout == 5.0
