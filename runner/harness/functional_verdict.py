"""The parent's verdict on a functional check, from the data the child recorded.

``functional_check.py`` runs in the sandbox with the candidate loaded and decides nothing:
it writes one JSON line per call (return code, every buffer with its guard zones, returned
lengths).  Here, outside, the parent reads those lines and decides:

- a changed guard byte or a returned length above the declared one → ``OVERFLOW``;
- an operation returning non-zero, a decapsulated secret differing from the encapsulated
  one, an honest signature rejected, a flipped-bit signature or modified message accepted,
  a hash that is not deterministic or gives equal digests for different messages →
  ``CRYPTOFAIL``;
- the library not loading or missing a symbol → ``LOADFAIL``;
- lines that are not the records we expect → ``CRASH`` (unreadable), as is a child that
  stopped before its last record.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

GUARD = 64
PATTERN = 0xA5
#: sig_verify cases that must be rejected (non-zero), with what accepting them means.
MUST_REJECT = {
    "flipped-bit": "sig_verify accepted a signature with a flipped bit",
    "modified-message": "sig_verify accepted a modified message",
}


class Failure(Exception):
    def __init__(self, status: str, detail: str) -> None:
        super().__init__(detail)
        self.status, self.detail = status, detail


@dataclass
class Transcript:
    """What the child recorded, accumulated call by call."""

    sizes: dict[str, int] = field(default_factory=dict)
    timings_ms: dict[str, float] = field(default_factory=dict)
    ended: bool = False
    secrets: dict[int, dict[str, bytes]] = field(default_factory=dict)  # round -> enc/dec ss
    digests: dict[tuple[int, int], bytes] = field(default_factory=dict)  # (message, repeat)


@dataclass
class Verdict:
    status: str
    detail: str = ""
    sizes: dict[str, int] = field(default_factory=dict)
    timings_ms: dict[str, float] = field(default_factory=dict)


def _data(event: dict[str, Any], name: str) -> tuple[bytes, int]:
    buf = event["buffers"][name]
    raw = bytes.fromhex(buf["raw"])
    return raw[GUARD : GUARD + buf["declared"]], buf["declared"]


def _check_guards(op: str, event: dict[str, Any]) -> None:
    for name, buf in event.get("buffers", {}).items():
        raw, size = bytes.fromhex(buf["raw"]), int(buf["declared"])
        if len(raw) != GUARD + size + GUARD:
            raise Failure("CRASH", f"unreadable record of {op}: {name} has {len(raw)} bytes")
        if raw[:GUARD] != bytes([PATTERN]) * GUARD:
            raise Failure("OVERFLOW", f"{op} wrote before the {name} buffer")
        after = raw[GUARD + size :]
        if after != bytes([PATTERN]) * GUARD:
            n = max(i + 1 for i, b in enumerate(after) if b != PATTERN)
            raise Failure(
                "OVERFLOW",
                f"{op} wrote past the {name} buffer ({size} bytes declared, "
                f"at least {n} more written)",
            )


def _check_returned(op: str, event: dict[str, Any]) -> None:
    for name, got in event.get("returned", {}).items():
        declared = event["buffers"][name]["declared"]
        if got > declared:
            raise Failure("OVERFLOW", f"{op} returned {name} length {got} > declared {declared}")


def _check_rc(op: str, event: dict[str, Any]) -> None:
    rc, case = event["rc"], event.get("case")
    if case in MUST_REJECT:
        if rc == 0:
            raise Failure("CRYPTOFAIL", MUST_REJECT[case])
    elif rc != 0:
        if op == "sig_verify":
            raise Failure("CRYPTOFAIL", f"sig_verify rejected an honest signature ({rc})")
        if op == "ngcc_seed":
            raise Failure("CRYPTOFAIL", "ngcc_seed (init_random_number) failed")
        raise Failure("CRYPTOFAIL", f"{op} returned {rc}")


def _collect(t: Transcript, op: str, event: dict[str, Any]) -> None:
    if op in ("kem_enc", "kem_dec"):
        data, _ = _data(event, "ss")
        n = min(event["returned"]["ss"], len(data))
        t.secrets.setdefault(event["round"], {})[op] = data[:n]
    elif op == "CryptHash":
        t.digests[(event["message"], event["repeat"])] = _data(event, "digest")[0]


def _apply(t: Transcript, event: dict[str, Any]) -> None:
    op = event["op"]
    if op == "load":
        raise Failure("LOADFAIL", event["error"])
    if op == "sizes":
        t.sizes = {k: int(v) for k, v in event["sizes"].items()}
    elif op == "end":
        t.timings_ms, t.ended = dict(event["timings_ms"]), True
    else:
        _check_rc(op, event)
        _check_guards(op, event)
        _check_returned(op, event)
        _collect(t, op, event)


def _check_results(t: Transcript) -> None:
    for secrets in t.secrets.values():
        if secrets.get("kem_enc") != secrets.get("kem_dec"):
            raise Failure("CRYPTOFAIL", "decapsulated shared secret differs from encapsulated")
    messages = sorted({m for m, _ in t.digests})
    if any(t.digests.get((m, 0)) != t.digests.get((m, 1)) for m in messages):
        raise Failure("CRYPTOFAIL", "CryptHash is not deterministic")
    firsts = [t.digests[(m, 0)] for m in messages]
    if len(set(firsts)) != len(firsts):
        raise Failure("CRYPTOFAIL", "CryptHash gives equal digests for different messages")


def judge(text: str) -> tuple[Transcript, Failure | None]:
    """Read the child's lines in order; the first failing call decides."""
    t = Transcript()
    try:
        for n, line in enumerate(text.splitlines(), 1):
            try:
                event = json.loads(line)
                _apply(t, event)
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                raise Failure("CRASH", f"unreadable record line {n}: {exc!r}"[:300]) from exc
        if t.ended:
            _check_results(t)
    except Failure as failure:
        return t, failure
    return t, None


def functional_verdict(text: str, *, child_ok: bool, child_outcome: str) -> Verdict:
    """PASS only when the child ran to its end and every recorded call checks out."""
    t, failure = judge(text)
    if failure is not None:
        return Verdict(failure.status, failure.detail, t.sizes, t.timings_ms)
    if not child_ok:
        status = "TIMEOUT" if child_outcome.startswith("timeout") else "CRASH"
        return Verdict(status, f"functional check {child_outcome}", t.sizes, t.timings_ms)
    if not t.ended:
        return Verdict("CRASH", "functional check stopped before its last record", t.sizes)
    return Verdict("PASS", "", t.sizes, t.timings_ms)
