"""The parent's verdict on a functional check, from the data the child recorded.

``functional_check.py`` runs in the sandbox with the candidate loaded and decides nothing:
it writes one JSON line per call (return code, every buffer with its guard zones, returned
lengths).  Here, outside, the parent reads those lines and decides:

- a changed guard byte or a returned length above the declared one → ``OVERFLOW``;
- an operation returning non-zero, a decapsulated secret differing from the encapsulated
  one, an honest signature rejected, a flipped-bit signature or modified message accepted,
  a hash that is not deterministic or gives equal digests for different messages, a key
  exchange whose honest run fails a call, ends a pass out of turn or leaves A and B with
  different secrets, or whose run with a flipped bit in a message still agrees →
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
#: Most passes a key exchange may declare (as the timing driver, native/driver/ops_kex.h).
KEX_MAX_PASSES = 16
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
class KexProtocolRun:
    """One recorded key-exchange run: why it stopped (``None``: it did not) and the secrets."""

    flip: int | None
    problem: str | None = None
    secrets: dict[str, bytes] = field(default_factory=dict)  # party ("a"/"b") -> secret

    def outcome(self) -> str | None:
        """What is wrong with this run for the verdict; ``None`` when it behaved as it must."""
        agree = self.problem is None and self.secrets.get("a") == self.secrets.get("b")
        if self.flip is not None:
            return (
                None
                if not agree
                else f"a flipped bit in message {self.flip} left both secrets equal"
            )
        if self.problem is not None:
            return self.problem
        if len(self.secrets) != 2:
            return "a key-exchange run stopped before both derivations"
        return None if agree else "the shared secrets of A and B differ"


@dataclass
class Transcript:
    """What the child recorded, accumulated call by call."""

    sizes: dict[str, int] = field(default_factory=dict)
    timings_ms: dict[str, float] = field(default_factory=dict)
    ended: bool = False
    secrets: dict[int, dict[str, bytes]] = field(default_factory=dict)  # round -> enc/dec ss
    digests: dict[tuple[int, int], bytes] = field(default_factory=dict)  # (message, repeat)
    kex_runs: dict[int, KexProtocolRun] = field(default_factory=dict)  # in the child's order


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


def _kex_problem(op: str, rc: int, event: dict[str, Any], passes: int) -> str | None:
    """Why this call ends the protocol run (the child stops the run there too)."""
    if op.startswith("kex_generate_pass"):
        if rc < 0:
            return f"{op} returned {rc}"
        if (rc == 1) != (event["pass"] == passes):
            return f"{op} returned {rc} but kex_get_passes_num() = {passes}"
        return None
    if rc == 0:
        return None
    return f"{op} failed" if op.startswith("kex_init_") else "a key derivation failed"


def _kex_finish(t: Transcript, upto: int | None = None) -> None:
    """Judge the recorded runs before run ``upto`` (all when ``None``), in order."""
    for n, run in t.kex_runs.items():
        if upto is not None and n >= upto:
            break
        problem = run.outcome()
        if problem:
            raise Failure("CRYPTOFAIL", problem)


def _kex_collect(t: Transcript, op: str, event: dict[str, Any]) -> None:
    n = int(event["kex_run"])
    if n not in t.kex_runs:
        _kex_finish(t, upto=n)  # an honest run that failed decides before later calls
        t.kex_runs[n] = KexProtocolRun(flip=event["flip"])
    run = t.kex_runs[n]
    if run.problem is not None:
        return
    run.problem = _kex_problem(op, int(event["rc"]), event, t.sizes["passes"])
    if run.problem is None and op.startswith("kex_derive_ss_"):
        party = op[-1]
        data, _ = _data(event, f"ss{party}")
        run.secrets[party] = data[: min(event["returned"][f"ss{party}"], len(data))]


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
        if "passes" in t.sizes and not 1 <= t.sizes["passes"] <= KEX_MAX_PASSES:
            raise Failure("CRYPTOFAIL", f"kex_get_passes_num() = {t.sizes['passes']}")
    elif op == "end":
        t.timings_ms, t.ended = dict(event["timings_ms"]), True
    elif "kex_run" in event:  # return codes judged per protocol run
        _kex_collect(t, op, event)
        _check_guards(op, event)
        _check_returned(op, event)
    else:
        _check_rc(op, event)
        _check_guards(op, event)
        _check_returned(op, event)
        _collect(t, op, event)


def _check_results(t: Transcript) -> None:
    if "passes" in t.sizes and not any(r.flip is None for r in t.kex_runs.values()):
        raise Failure("CRASH", "no key-exchange run recorded")
    _kex_finish(t)
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
