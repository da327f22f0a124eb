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


def kex_call(op: str, run: int, rc: int = 0, flip: int | None = None, **extra) -> dict:
    """One recorded key-exchange call (buffers of both parties and the messages, abridged)."""
    buffers = {"ssa": buf(extra.pop("ssa", b"\0\0")), "ssb": buf(extra.pop("ssb", b"\0\0"))}
    buffers["m1"] = buf(b"m" * 3, after=extra.pop("m1_after", b""))
    returned = {"ssa": 2, "ssb": 2, "m1": 3}
    return (
        {"op": op, "rc": rc, "kex_run": run, "flip": flip, "buffers": buffers}
        | {"returned": returned}
        | extra
    )


def kex_run(run: int, ssa: bytes, ssb: bytes, flip: int | None = None, pass_rc: int = 1):
    """A one-pass protocol run: both inits, pass 1 (returns 1: the last), both derivations."""
    return [
        kex_call("kex_init_a", run, flip=flip),
        kex_call("kex_init_b", run, flip=flip),
        kex_call("kex_generate_pass1_msg_a", run, rc=pass_rc, flip=flip, **{"pass": 1}),
        kex_call("kex_derive_ss_a", run, flip=flip, ssa=ssa),
        kex_call("kex_derive_ss_b", run, flip=flip, ssa=ssa, ssb=ssb),
    ]


KEX_SIZES = {"op": "sizes", "sizes": {"passes": 1, "ss_len": 2, "msg_len": 3}}


def test_key_exchange_verdict_is_the_parents():
    honest = [*kex_run(0, b"ok", b"ok"), *kex_run(1, b"OK", b"OK")]
    flipped = kex_run(2, b"ok", b"no", flip=1)
    v = verdict(lines(KEX_SIZES, *honest, *flipped))
    assert (v.status, v.sizes) == ("PASS", {"passes": 1, "ss_len": 2, "msg_len": 3})
    unequal = verdict(lines(KEX_SIZES, *kex_run(0, b"ok", b"no"), *flipped))
    assert (unequal.status, unequal.detail) == (
        "CRYPTOFAIL",
        "the shared secrets of A and B differ",
    )
    blind = verdict(lines(KEX_SIZES, *honest, *kex_run(2, b"ok", b"ok", flip=1)))
    assert blind.detail == "a flipped bit in message 1 left both secrets equal"


def test_key_exchange_pass_count_and_overflow():
    early = verdict(lines(KEX_SIZES, *kex_run(0, b"ok", b"ok", pass_rc=0)))
    assert early.detail == "kex_generate_pass1_msg_a returned 0 but kex_get_passes_num() = 1"
    # a failing honest run decides before anything a later run did
    overflow_later = kex_call("kex_init_a", 1, m1_after=b"\0")
    stopped = verdict(lines(KEX_SIZES, kex_call("kex_init_a", 0, rc=-1), overflow_later))
    assert (stopped.status, stopped.detail) == ("CRYPTOFAIL", "kex_init_a failed")
    overflow = verdict(lines(KEX_SIZES, overflow_later))
    assert overflow.detail == (
        "kex_init_a wrote past the m1 buffer (3 bytes declared, at least 1 more written)"
    )
    zero = {"op": "sizes", "sizes": {"passes": 0}}
    assert verdict(lines(zero)).detail == "kex_get_passes_num() = 0"
    assert verdict(lines(KEX_SIZES)).status == "CRASH"  # no run recorded is not a pass
