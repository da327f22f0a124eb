"""Session fixtures for the native harness tests: every example and faulty fixture is built
and checked once per session (real gcc, real sandboxed processes) into a temporary dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from runner.harness.kat import InstanceCheck, check_instance
from runner.harness.manifest import Manifest, load_manifest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
EXAMPLE_MANIFESTS = ["kem-ex1.toml", "sign-ex1.toml", "hash-ex1.toml"]

#: fixture manifest -> final status expected after the guide + harness-default attempts
FAULTY_EXPECTED = {
    "toykem-ok": "PASS",
    "segv-dec": "CRASH",
    "loop-keygen": "TIMEOUT",
    "malloc-10g": "CRASH",
    "overflow-ct": "OVERFLOW",
    "kat-mismatch": "MISMATCH",
    "missing-symbol": "LOADFAIL",
    "undefined-reference": "BUILDFAIL",
    "non-compiling": "BUILDFAIL",
}


@pytest.fixture(scope="session")
def harness_build_root(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("harness-build")


@pytest.fixture(scope="session")
def example_manifests() -> dict[str, Manifest]:
    return {name: load_manifest(EXAMPLES / name) for name in EXAMPLE_MANIFESTS}


@pytest.fixture(scope="session")
def example_checks(example_manifests, harness_build_root) -> dict[str, InstanceCheck]:
    """label -> guide-only build + KAT of every example instance."""
    checks = {}
    for manifest in example_manifests.values():
        for inst in manifest.instances:
            checks[inst.label] = check_instance(
                manifest, inst, build_root=harness_build_root, fallback=False
            )
    return checks


@pytest.fixture(scope="session")
def faulty_checks(harness_build_root) -> dict[str, InstanceCheck]:
    """fixture name -> full check (guide, then harness-default) of every faulty fixture."""
    checks = {}
    for name in FAULTY_EXPECTED:
        manifest = load_manifest(EXAMPLES / f"faulty-{name}.toml")
        inst = manifest.instances[0]
        checks[name] = check_instance(
            manifest,
            inst,
            build_root=harness_build_root,
            timeout=2.0 if name == "loop-keygen" else None,
        )
    return checks


@pytest.fixture(scope="session")
def timing_driver(harness_build_root) -> Path:
    """The ngcc-time driver, built once per session."""
    from runner.harness.timing import build_driver

    return build_driver(out_dir=harness_build_root / "driver-bin")
