"""ngcc-time and ngcc-prof on key exchanges: one exchange per call, message lengths, refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from measurements.stats import calls_per_operation
from runner.harness.build import build_instance
from runner.harness.driver_output import DriverOutputError, parse_driver_output
from runner.harness.manifest import load_manifest
from runner.harness.profile import build_profile_tools, link_profile_library, run_profile
from runner.harness.timing import build_driver
from tests.native.fixtures.toy import run_tool

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _library(manifest: str, out: Path, label: str | None = None):
    m = load_manifest(EXAMPLES / manifest)
    inst = next(i for i in m.instances if label in (None, i.label))
    build = build_instance(m, inst, build_root=out)
    assert build.ok, build.error
    return build


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    base = tmp_path_factory.mktemp("kexdriver")
    return {
        "driver": build_driver(out_dir=base / "bin"),
        "base": base,
        "two": _library("kex-ex1.toml", base, "dh3-2pass-toy"),
        "three": _library("kex-ex1.toml", base, "dh3-3pass-toy"),
        "unequal": _library("faulty-kex-unequal.toml", base),
        "passes": _library("faulty-kex-wrong-passes.toml", base),
    }


def _time(env, lib: str, *extra: str):
    res = run_tool([env["driver"], *extra, env[lib].library, "exchange"])
    return res, json.loads(res.stdout)


@pytest.mark.parametrize(
    ("lib", "kex"),
    [
        (
            "two",
            {"passes": 2, "pk_a_bytes": 32, "pk_b_bytes": 32, "sk_bytes": 32, "sta_bytes": 128,
             "stb_bytes": 128, "ss_bytes": 32, "msg_capacity_bytes": 64, "messages": [32, 32]},
        ),
        (
            "three",
            {"passes": 3, "pk_a_bytes": 64, "pk_b_bytes": 64, "sk_bytes": 64, "sta_bytes": 160,
             "stb_bytes": 160, "ss_bytes": 32, "msg_capacity_bytes": 96,
             "messages": [64, 96, 32]},
        ),
    ],
)  # fmt: skip
def test_exchange_is_timed_with_its_message_lengths(env, lib, kex):
    res, out = _time(env, lib, "--iterations", "40", "--trials", "2", "--warmups", "1")
    assert res.ok, res.stdout
    run = parse_driver_output(res.stdout)
    assert run.category == "kex" and run.operation == "exchange"
    assert run.kex == kex
    assert run.sizes["pk_bytes"] == kex["pk_a_bytes"] and run.sizes["ss_bytes"] == 32
    assert [t["measurements"] for t in run.trials] == [40, 40]
    assert all(0 < sum(t["samples"]) <= t["cycles"] for t in run.trials)
    assert run.stack_high_water_bytes > 0


@pytest.mark.parametrize(
    ("lib", "error"),
    [
        ("unequal", "exchange: the secrets of A and B differ, refusing to time"),
        ("passes", "a pass returned 1 before or after pass 3 declared by kex_get_passes_num"),
    ],
)
def test_broken_protocols_are_refused_not_timed(env, lib, error):
    res, out = _time(env, lib, "--iterations", "10")
    assert res.returncode == 2
    assert out["status"] == "error" and error in out["error"]
    assert out["trials"] == []


def test_message_longer_than_capacity_is_rejected_by_the_parser(env):
    _, out = _time(env, "two", "--iterations", "5")
    out["kex"]["messages"] = [32, 65]
    with pytest.raises(DriverOutputError) as err:
        parse_driver_output(json.dumps(out))
    assert err.value.field == "kex.messages[1]"
    out["kex"]["messages"] = [32]
    with pytest.raises(DriverOutputError, match="a list of 2 lengths"):
        parse_driver_output(json.dumps(out))


def test_profile_counts_each_exchange_exactly(env):
    tools = build_profile_tools(out_dir=env["base"] / "prof")
    expected = {
        "three": {"drng": 4.0, "pseudohash": 2.0, "pseudoXOF": 2.0, "sm3hash": 6.0},
        "two": {"drng": 4.0, "pseudohash": 2.0, "pseudoXOF": 2.0, "sm3hash": 2.0},
    }
    for lib, calls_each in expected.items():
        wrapped, _, _ = link_profile_library(
            objects=[*env[lib].objects, env[lib].shim_object],
            out=env["base"] / "wrapped" / lib / "libkex.so",
            tools=tools,
        )
        run, _, _ = run_profile(
            tools=tools, library=wrapped, operation="exchange", operations=25, warmups=1
        )
        assert run.status == "complete", run.error
        calls = [(c["fn"], c["calls"]) for c in run.calls]
        assert calls_per_operation(calls, run.operations) == calls_each
