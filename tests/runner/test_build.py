"""Building example instances into shared libraries with the fixed flag sets (real gcc)."""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from runner.harness.build import (
    FLAG_SETS,
    build_instance,
    build_instances,
    elf_load_bytes,
    exported_symbols,
)
from runner.harness.manifest import load_manifest
from runner.harness.sandbox import run_sandboxed

GUIDE = (
    "-std=c99 -Wpedantic -Wall -Wextra -O2 -fPIC -D_GNU_SOURCE "
    "-Wno-error=implicit-function-declaration -Wno-error=incompatible-pointer-types "
    "-Wno-error=int-conversion -Wno-error=implicit-int"
)
HARNESS_DEFAULT = (
    "-std=gnu11 -O2 -fPIC -fwrapv -fno-strict-aliasing -fno-omit-frame-pointer -D_GNU_SOURCE"
)
ALLOWED_EXPORT = re.compile(
    r"^(kem_\w+|sig_\w+|kex_\w+|CryptHash|sm3hash|pseudohash|pseudoXOF|init_random_number|"
    r"get_random_number|drng_algorithm|ngcc_\w+)$"
)


def test_flag_sets_are_exactly_the_documented_ones():
    assert " ".join(FLAG_SETS["guide"]) == GUIDE
    assert " ".join(FLAG_SETS["harness-default"]) == HARNESS_DEFAULT


@pytest.mark.parametrize(
    "label",
    [
        "rlwe-lpr-256-toy",
        "rlwe-lpr-512-toy",
        "rlwe-lpr-256-vt",
        "wots-sm3-w16",
        "wots-sm3-w4",
        "sha3-256-ex",
        "sha3-512-ex",
    ],
)
def test_examples_build_with_guide_flags_and_no_warnings(example_checks, label):
    build = example_checks[label].build
    assert build.ok and build.flags_label == "guide" and build.build_flags == GUIDE
    assert build.library.name == f"lib{label}.so" and build.library.is_file()
    assert build.library_sha256 == hashlib.sha256(build.library.read_bytes()).hexdigest()
    assert build.warnings == []
    assert build.compiler_version.startswith("gcc ") and build.compiler_version[4].isdigit()


def test_build_records_every_command_source_and_object(example_checks):
    build = example_checks["rlwe-lpr-256-toy"].build
    paths = [s.path for s in build.sources]
    assert paths == [
        "kem-ex/common/kem.c",
        "kem-ex/common/poly.c",
        "api/drng.c",
        "api/auxfunc.c",
        "<harness>/native/shim/ngcc_shim.c",
    ]
    root = Path(__file__).resolve().parents[2] / "examples"
    for rec in build.sources[:-1]:
        assert rec.sha256 == hashlib.sha256((root / rec.path).read_bytes()).hexdigest()
        assert rec.command[: len(FLAG_SETS["guide"]) + 1] == ["gcc", *FLAG_SETS["guide"]]
        assert rec.returncode == 0
    assert len(build.commands) == len(build.sources) + 1
    assert all(o.is_file() and o.suffix == ".o" for o in build.objects)
    assert len(build.objects) == 4 and build.shim_object.name == "ngcc_shim.o"
    link = build.link_command
    assert link[:4] == ["gcc", "-shared", "-Wl,-Bsymbolic", "-Wl,--no-undefined"]
    assert any(a.startswith("-Wl,--version-script=") for a in link)
    assert (build.build_dir / "build.json").is_file() and (build.build_dir / "build.log").is_file()


def test_elf_load_bytes_is_the_sum_of_pt_load_memsz(example_checks):
    lib = example_checks["wots-sm3-w16"].build.library
    out = subprocess.run(["readelf", "-lW", str(lib)], capture_output=True, text=True).stdout
    memsz = [
        int(line.split()[5], 16) for line in out.splitlines() if line.strip().startswith("LOAD")
    ]
    assert elf_load_bytes(lib) == sum(memsz) > 0
    assert example_checks["wots-sm3-w16"].build.elf_load_bytes == sum(memsz)


@pytest.mark.parametrize("label", ["rlwe-lpr-256-toy", "wots-sm3-w4", "sha3-512-ex"])
def test_version_script_exports_only_the_api_iccs_and_shim(example_checks, label):
    names = exported_symbols(example_checks[label].build.library)
    assert names and all(ALLOWED_EXPORT.match(n) for n in names), names
    assert {"ngcc_seed", "ngcc_candidate", "drng_algorithm", "sm3hash"} <= names
    assert not {"poly_uniform", "iccs_sm3_init", "keccak_f"} & names


def test_shim_metadata_and_seeding(example_checks):
    """dlopen in a sandboxed child: metadata strings and ngcc_seed -> deterministic keygen."""
    lib = example_checks["rlwe-lpr-256-toy"].build.library
    code = f"""
import cffi
ffi = cffi.FFI()
ffi.cdef('''const char *ngcc_candidate(void); const char *ngcc_instance(void);
const char *ngcc_category(void); const char *ngcc_flags(void); int ngcc_shim_abi(void);
int ngcc_seed(const unsigned char *, unsigned long long);
int kem_keygen(unsigned char *, unsigned long long *, unsigned char *, unsigned long long *);''')
lib = ffi.dlopen({str(lib)!r})
s = lambda f: ffi.string(f()).decode()
print(s(lib.ngcc_candidate), s(lib.ngcc_instance), s(lib.ngcc_category), s(lib.ngcc_flags),
      lib.ngcc_shim_abi())
def keygen(seed):
    assert lib.ngcc_seed(seed, len(seed)) == 0
    pk, sk = ffi.new('unsigned char[416]'), ffi.new('unsigned char[864]')
    n1, n2 = ffi.new('unsigned long long *'), ffi.new('unsigned long long *')
    assert lib.kem_keygen(pk, n1, sk, n2) == 0
    return bytes(pk)
print(keygen(b'a' * 64) == keygen(b'a' * 64), keygen(b'a' * 64) == keygen(b'b' * 64))
"""
    import sys

    res = run_sandboxed([sys.executable, "-I", "-c", code], read_only=[lib])
    assert res.ok, res.stderr
    assert res.stdout.split() == [
        "kem-ex1",
        "rlwe-lpr-256-toy",
        "kem",
        "guide",
        "1",
        "True",
        "False",
    ]


def test_objects_can_be_relinked_by_the_profiler(example_checks, tmp_path):
    build = example_checks["sha3-256-ex"].build
    out = tmp_path / "relinked.so"
    cmd = [
        build.compiler,
        "-shared",
        "-o",
        str(out),
        *map(str, build.objects),
        str(build.shim_object),
        *build.link_libs,
    ]
    assert subprocess.run(cmd, capture_output=True).returncode == 0
    assert "CryptHash" in exported_symbols(out)


def test_parallel_build_of_several_instances_and_harness_default(tmp_path):
    m = load_manifest(Path(__file__).resolve().parents[2] / "examples" / "sign-ex1.toml")
    results = build_instances(m, flags_label="harness-default", build_root=tmp_path, jobs=2)
    assert [r.label for r in results] == ["wots-sm3-w16", "wots-sm3-w4"]
    assert all(r.ok and r.build_flags == HARNESS_DEFAULT for r in results)
    assert results[0].build_dir == tmp_path / "sign-ex1" / "harness-default" / "wots-sm3-w16"


def test_warnings_are_recorded(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "hash.c").write_text(
        "int CryptHash(int d, const unsigned char *m, unsigned long long n, unsigned char *o)\n"
        "{ int unused; (void)m; (void)n; o[0] = 0; return d - d; }\n"
    )
    (tmp_path / "m.toml").write_text(
        '[candidate]\nid = "hash-t1"\ncategory = "hash"\nalgorithm = "t"\n'
        '[[instance]]\nlabel = "t"\ndir = "src"\n'
    )
    m = load_manifest(tmp_path / "m.toml")
    res = build_instance(m, m.instances[0], build_root=tmp_path / "b")
    # drng.c/auxfunc.c are missing and no API package is given: the shim's reference to
    # init_random_number is undefined, and --no-undefined turns that into a link failure
    assert not res.ok and "init_random_number" in res.error
    assert any("unused variable" in w for w in res.warnings)


def test_a_submission_defining_drng_algorithm_itself_still_links(tmp_path):
    root = Path(__file__).resolve().parents[2] / "examples"
    tree = tmp_path / "tree"
    shutil.copytree(root, tree)
    own = tree / "faulty" / "toykem-ok" / "own_drng.c"
    own.write_text('#include "drng.h"\nDRNG_ctx drng_algorithm;\n')
    m = load_manifest(tree / "faulty-toykem-ok.toml")
    res = build_instance(m, m.instances[0], build_root=tmp_path / "b")
    assert res.ok, res.error
    assert "faulty/toykem-ok/own_drng.c" in [s.path for s in res.sources]
