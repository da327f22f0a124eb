"""ngcc-time on real processes: samples, memory, stack, refusal, categories."""

from __future__ import annotations

import json

import pytest

from runner.harness.driver_output import parse_driver_output
from runner.harness.timing import build_driver
from tests.native.fixtures.toy import HASH_SOURCES, build_toy, run_tool


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    base = tmp_path_factory.mktemp("driver")
    return {
        "driver": build_driver(out_dir=base / "bin"),
        "kem": build_toy(base / "kem").library,
        "probe": build_toy(base / "probe", defines=("TOY_NO_CATEGORY",)).library,
        "hash": build_toy(
            base / "hash", sources=HASH_SOURCES, defines=("TOY_NO_CATEGORY",)
        ).library,
    }


def _time(env, lib, op, *extra, run_env=None):
    res = run_tool([env["driver"], *extra, env[lib], op], env=run_env)
    return res, json.loads(res.stdout)


@pytest.mark.parametrize("op", ["keygen", "enc", "dec"])
def test_kem_operation_gives_samples_memory_and_stack(env, op):
    res, out = _time(env, "kem", op, "--iterations", "200", "--warmups", "3", "--trials", "2")
    assert res.ok, res.stdout
    run = parse_driver_output(res.stdout)
    assert run.category == "kem"
    assert run.sizes["pk_bytes"] == 64 and run.sizes["ss_bytes"] == 32
    assert len(run.trials) == 2
    for t in run.trials:
        assert t["measurements"] == 200
        assert len(t["samples"]) >= 16
        assert t["batch_calls"] * len(t["samples"]) <= 200
        assert 0 < sum(t["samples"]) <= t["cycles"]
        assert t["seconds"] > 0
    assert run.baseline_rss_bytes > 0
    assert run.peak_rss_bytes >= run.baseline_rss_bytes
    assert run.stack_high_water_bytes > 0
    assert run.setup_seconds is not None


def test_fewer_calls_than_samples_gives_one_call_per_batch(env):
    _, out = _time(env, "kem", "enc", "--iterations", "5")
    assert out["trials"][0]["batch_calls"] == 1
    assert len(out["trials"][0]["samples"]) == 5


def test_explicit_batch_and_remainder(env):
    _, out = _time(env, "kem", "enc", "--iterations", "50", "--batch", "3")
    t = out["trials"][0]
    assert t["measurements"] == 50 and t["batch_calls"] == 3 and len(t["samples"]) == 16


def test_dec_refuses_when_shared_secret_differs(env):
    res, out = _time(env, "kem", "dec", "--iterations", "10", run_env={"NGCC_TOY_BAD_DEC": "1"})
    assert res.returncode == 2
    assert out["status"] == "error"
    assert "shared secret" in out["error"]
    assert out["trials"] == []


def test_category_falls_back_to_symbol_probing(env):
    res, out = _time(env, "probe", "enc", "--iterations", "20")
    assert res.ok
    assert out["category"] == "kem"


def test_hash_uses_digest_getter_and_input_length(env):
    res, out = _time(env, "hash", "hash", "--iterations", "20", "--input-bytes", "4096")
    assert res.ok, res.stdout
    assert out["category"] == "hash"
    assert out["digest_bits"] == 384 and out["sizes"]["digest_bytes"] == 48
    assert out["sizes"]["input_bytes"] == 4096 and out["input_bytes"] == 4096
    assert out["hash_fn"] == "CryptHash"


def test_hash_digest_bits_from_command_line_and_iccs_entry_point(env):
    res, out = _time(
        env,
        "hash",
        "hash",
        "--iterations",
        "8",
        "--input-bytes",
        "32",
        "--digest-bits",
        "256",
        "--hash-fn",
        "sm3hash",
    )
    assert res.ok and out["digest_bits"] == 256 and out["hash_fn"] == "sm3hash"


def test_time_limit_ends_a_calibration_trial_early(env):
    res, out = _time(
        env, "kem", "enc", "--iterations", "10000000", "--batch", "1", "--time-limit", "0.01"
    )
    t = out["trials"][0]
    assert res.ok and 1 <= t["measurements"] < 10000000
    assert len(t["samples"]) == t["measurements"]


def test_unknown_operation_and_missing_library_are_errors(env):
    _, out = _time(env, "kem", "sign")
    assert out["status"] == "error" and "sign" in out["error"]
    res = run_tool([env["driver"], "/nonexistent/lib.so", "enc"])
    assert json.loads(res.stdout)["error"].startswith("dlopen")


def test_bad_command_line_prints_usage(env):
    res = run_tool([env["driver"], "--iterations", "x", env["kem"], "enc"])
    assert res.returncode == 64 and "usage" in res.stderr
