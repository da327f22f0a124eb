"""ICCS profile: exact call counts per operation, nested calls once, only while enabled."""

from __future__ import annotations

import json

import pytest

from measurements.harness_records import hash_profile_json, parse_hash_profile
from measurements.stats import calls_per_operation
from runner.harness.profile import (
    build_profile_tools,
    link_profile_library,
    profile_operation,
    run_profile,
    wrappable_functions,
)
from tests.native.fixtures.toy import HASH_SOURCES, build_toy, run_tool

# toykem/README.md: calls per operation (pseudoXOF's own sm3hash call is nested).
EXPECTED = {
    "keygen": {"drng": 1.0, "pseudoXOF": 1.0},
    "enc": {"drng": 1.0, "pseudoXOF": 3.0, "sm3hash": 1.0},
    "dec": {"pseudoXOF": 3.0, "sm3hash": 1.0},
}


@pytest.fixture(scope="module")
def prof(tmp_path_factory):
    base = tmp_path_factory.mktemp("prof")
    tools = build_profile_tools(out_dir=base / "bin")
    toy = build_toy(base / "toy")
    lib, wrapped, cmd = link_profile_library(
        objects=toy.objects, out=base / "wrapped" / "libtoy.so", tools=tools
    )
    return {"tools": tools, "toy": toy, "lib": lib, "wrapped": wrapped, "cmd": cmd, "base": base}


def test_only_functions_the_objects_define_are_wrapped(prof, tmp_path):
    assert prof["wrapped"] == ["pseudohash", "pseudoXOF", "sm3hash", "get_random_number"]
    assert "-Wl,--wrap=pseudoXOF" in prof["cmd"]
    hash_toy = build_toy(tmp_path / "h", sources=HASH_SOURCES, defines=("TOY_NO_CATEGORY",))
    assert wrappable_functions(hash_toy.objects) == ["pseudohash", "sm3hash", "get_random_number"]
    # and such a library links (no undefined __real_pseudoXOF)
    link_profile_library(objects=hash_toy.objects, out=tmp_path / "libh.so", tools=prof["tools"])


@pytest.mark.parametrize("op", ["keygen", "enc", "dec"])
def test_calls_per_operation_are_exact(prof, op):
    run, argv, _ = run_profile(
        tools=prof["tools"], library=prof["lib"], operation=op, operations=50, warmups=1
    )
    assert run.status == "complete", run.error
    assert run.operations == 50
    # Exact: setup (keygen+enc+dec for dec) and the warm-up ran with profiling off.
    calls = [(c["fn"], c["calls"]) for c in run.calls]
    assert calls_per_operation(calls, run.operations) == EXPECTED[op]
    assert run.meta["overflow_calls"] == 0
    assert sum(c["ticks"] for c in run.calls) <= run.ticks


def test_profile_record_has_the_shared_shape(prof):
    profile = profile_operation(
        tools=prof["tools"],
        library=prof["lib"],
        operation="enc",
        candidate="kem-toy",
        label="toy-1",
        call_s=1e-4,
    )
    record = hash_profile_json(profile)
    assert record["total"]["operations"] == 1000  # capped, like the reference profiles
    assert set(record["share"]) == {"drng", "pseudoXOF", "sm3hash"}
    assert record["hash_share"] == pytest.approx(
        record["share"]["pseudoXOF"] + record["share"]["sm3hash"]
    )
    assert 0 < record["hash_share"] <= 1
    assert record["meta"]["tick_source"] in {"tsc", "cntvct_el0", "monotonic_raw"}
    parsed = parse_hash_profile("profile/kem-toy/toy-1__enc.json", json.loads(json.dumps(record)))
    assert parsed == profile
    assert parsed.total_operations == 1000
    assert parsed.hash_share == pytest.approx(record["hash_share"])
    by_fn = {}
    for c in parsed.calls:
        by_fn[c.fn] = by_fn.get(c.fn, 0) + c.calls
    assert by_fn == {"drng": 1000, "pseudoXOF": 3000, "sm3hash": 1000}


def test_input_and_output_bits_are_recorded_per_call_shape(prof):
    run, _, _ = run_profile(
        tools=prof["tools"], library=prof["lib"], operation="enc", operations=10, warmups=0
    )
    shapes = {(c["fn"], c["in_bits"], c["out_bits"]): c["calls"] for c in run.calls}
    assert shapes == {
        ("drng", 0, 256): 10,
        ("pseudoXOF", 512, 256): 10,  # mask from the 64-byte public key
        ("pseudoXOF", 256, 256): 20,
        ("sm3hash", 256, 256): 10,
    }


def test_unwrapped_library_is_rejected(prof):
    res = run_tool([prof["tools"].prof_driver, "--iterations", "3", prof["toy"].library, "enc"])
    out = json.loads(res.stdout)
    assert out["status"] == "error" and "profile wrappers" in out["error"]
