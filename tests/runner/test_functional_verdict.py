"""The parent decides the functional verdict from the data the child recorded.

Transcripts here are written as the child writes them (one JSON line per call); the real
child runs on every example and faulty fixture in test_kat.py / test_faulty_fixtures.py.
"""

from __future__ import annotations

import json

from runner.harness.functional_verdict import GUARD, PATTERN, functional_verdict


def buf(data: bytes, declared: int | None = None, after: bytes = b"") -> dict:
    declared = len(data) if declared is None else declared
    raw = bytes([PATTERN]) * GUARD + data + after + bytes([PATTERN]) * (GUARD - len(after))
    return {"declared": declared, "raw": raw.hex()}


def kem_round(ss_enc: bytes, ss_dec: bytes, ct_after: bytes = b"") -> list[dict]:
    pk, sk, ct = b"p" * 4, b"s" * 8, b"c" * 5
    return [
        {"op": "kem_keygen", "rc": 0, "round": 0, "buffers": {"pk": buf(pk), "sk": buf(sk)},
         "returned": {"pk": 4, "sk": 8}},
        {"op": "kem_enc", "rc": 0, "round": 0,
         "buffers": {"pk": buf(pk), "ss": buf(ss_enc), "ct": buf(ct, after=ct_after)},
         "returned": {"ss": len(ss_enc), "ct": 5}},
        {"op": "kem_dec", "rc": 0, "round": 0,
         "buffers": {"sk": buf(sk), "ct": buf(ct), "ss": buf(ss_dec)},
         "returned": {"ss": len(ss_dec)}},
    ]  # fmt: skip


def lines(*events: dict, end: bool = True) -> str:
    tail = [{"op": "end", "timings_ms": {"keygen": 0.1}}] if end else []
    return "".join(json.dumps(e) + "\n" for e in [*events, *tail])


def verdict(text: str, ok: bool = True):
    return functional_verdict(text, child_ok=ok, child_outcome="ok" if ok else "crash: x")


def test_agreeing_secrets_pass():
    v = verdict(lines({"op": "sizes", "sizes": {"ss_len": 4}}, *kem_round(b"abcd", b"abcd")))
    assert (v.status, v.sizes, v.timings_ms) == ("PASS", {"ss_len": 4}, {"keygen": 0.1})


def test_secrets_compared_by_the_parent():
    v = verdict(lines(*kem_round(b"abcd", b"abce")))
    assert (v.status, v.detail) == (
        "CRYPTOFAIL",
        "decapsulated shared secret differs from encapsulated",
    )


def test_guard_bytes_checked_by_the_parent():
    v = verdict(lines(*kem_round(b"abcd", b"abcd", ct_after=b"\0\0\0\0")))
    assert v.status == "OVERFLOW"
    assert (
        v.detail == "kem_enc wrote past the ct buffer (5 bytes declared, at least 4 more written)"
    )


def test_a_printed_verdict_is_not_a_record():
    v = verdict(json.dumps({"status": "PASS"}) + "\n")
    assert v.status == "CRASH" and v.detail.startswith("unreadable record line 1")


def test_a_child_that_stops_early_is_not_a_pass():
    assert verdict(lines(*kem_round(b"ab", b"ab"), end=False)).status == "CRASH"
    assert verdict(lines(*kem_round(b"ab", b"ab")), ok=False).status == "CRASH"


def test_signature_and_hash_checks():
    accepted = {"op": "sig_verify", "rc": 0, "case": "flipped-bit", "buffers": {}}
    assert verdict(lines(accepted)).detail == "sig_verify accepted a signature with a flipped bit"
    digests = [
        {"op": "CryptHash", "rc": 0, "message": m, "repeat": r, "buffers": {"digest": buf(d)}}
        for m, r, d in [(0, 0, b"x"), (0, 1, b"y")]
    ]
    assert verdict(lines(*digests)).detail == "CryptHash is not deterministic"
