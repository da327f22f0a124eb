"""Exercise one candidate library and record what it produced, run as a sandboxed child.

Usage: python functional_check.py LIBRARY CATEGORY --result FILE [--digest-bits N] [--rounds N]

Standalone on purpose (no Django, no project imports): runner.harness.kat starts it with
the project's interpreter in the sandbox, so a crashing or hanging library only takes this
child down.  This process loads the candidate, so it decides nothing: it calls the API
and appends one JSON line per call to FILE (written as it goes, so a crash keeps what came
before): the return code, every buffer handed to the library *with* its guard zones (hex),
and the lengths the library returned.  The parent (``runner/harness/functional_verdict.py``)
reads those lines and decides PASS, OVERFLOW or CRYPTOFAIL itself.

Every buffer has GUARD bytes of a known pattern on each side.  KEM: keygen/enc/dec per
round.  Signature: keygen, sign, then verify of the honest signature, of one with a flipped
bit and of a modified message.  Hash: each message twice.  Key exchange: whole protocol runs
(both inits, the declared passes, both derivations; every buffer of both parties and every
message recorded after each call), ``--rounds`` honest ones over fresh randomness, then one
with a flipped bit in the first and one in the last message.  A returned length is clamped
to the buffer before it is passed on (the parent still sees the value the library returned).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import cffi

GUARD = 64
PATTERN = 0xA5

CDEFS = {
    "kem": """
        unsigned long long kem_get_pk_len_bytes(void);
        unsigned long long kem_get_sk_len_bytes(void);
        unsigned long long kem_get_ss_len_bytes(void);
        unsigned long long kem_get_ct_len_bytes(void);
        int kem_keygen(unsigned char *, unsigned long long *, unsigned char *,
                       unsigned long long *);
        int kem_enc(unsigned char *, unsigned long long, unsigned char *, unsigned long long *,
                    unsigned char *, unsigned long long *);
        int kem_dec(unsigned char *, unsigned long long, unsigned char *, unsigned long long,
                    unsigned char *, unsigned long long *);
    """,
    "sign": """
        unsigned long long sig_get_pk_len_bytes(void);
        unsigned long long sig_get_sk_len_bytes(void);
        unsigned long long sig_get_sn_len_bytes(void);
        int sig_keygen(unsigned char *, unsigned long long *, unsigned char *,
                       unsigned long long *);
        int sig_sign(unsigned char *, unsigned long long, unsigned char *, unsigned long long,
                     unsigned char *, unsigned long long *);
        int sig_verify(unsigned char *, unsigned long long, unsigned char *, unsigned long long,
                       unsigned char *, unsigned long long);
    """,
    "hash": "int CryptHash(int, const unsigned char *, unsigned long long, unsigned char *);",
    "kex": """
        unsigned long long kex_get_passes_num(void);
        unsigned long long kex_get_pk_len_bytes(void);
        unsigned long long kex_get_sk_len_bytes(void);
        unsigned long long kex_get_sta_len_bytes(void);
        unsigned long long kex_get_stb_len_bytes(void);
        unsigned long long kex_get_ss_len_bytes(void);
        unsigned long long kex_get_total_msg_len_bytes(void);
        int kex_init_a(unsigned char *, unsigned long long *, unsigned char *,
                       unsigned long long *, unsigned char *, unsigned long long *);
        int kex_init_b(unsigned char *, unsigned long long *, unsigned char *,
                       unsigned long long *, unsigned char *, unsigned long long *);
        int kex_generate_pass1_msg_a(unsigned char *, unsigned long long, unsigned char *,
                                     unsigned long long, unsigned char *, unsigned long long *,
                                     unsigned char *, unsigned long long *);
        int kex_derive_ss_a(unsigned char *, unsigned long long, unsigned char *,
                            unsigned long long, unsigned char *, unsigned long long,
                            unsigned char *, unsigned long long, unsigned char *,
                            unsigned long long *);
        int kex_derive_ss_b(unsigned char *, unsigned long long, unsigned char *,
                            unsigned long long, unsigned char *, unsigned long long,
                            unsigned char *, unsigned long long, unsigned char *,
                            unsigned long long *);
    """
    # Passes 2.. share one argument pattern: own sk, peer pk, previous message, own state, out.
    + "".join(
        f"int kex_generate_pass{p}_msg_{'a' if p % 2 else 'b'}(unsigned char *,"
        " unsigned long long, unsigned char *, unsigned long long, unsigned char *,"
        " unsigned long long, unsigned char *, unsigned long long *, unsigned char *,"
        " unsigned long long *);\n"
        for p in range(2, 17)
    ),
}
#: Most passes the key-exchange check drives (as the timing driver, native/driver/ops_kex.h).
KEX_MAX_PASSES = 16
SHIM_CDEF = "int ngcc_seed(const unsigned char *, unsigned long long);"
TIMING_NAMES = {
    "kem_keygen": "keygen",
    "kem_enc": "enc",
    "kem_dec": "dec",
    "sig_keygen": "keygen",
    "sig_sign": "sign",
    "sig_verify": "verify",
    "CryptHash": "hash",
}


class Guarded:
    """A buffer of ``size`` bytes with guard zones on both sides."""

    def __init__(self, ffi: cffi.FFI, name: str, size: int, data: bytes | None = None) -> None:
        self.ffi, self.name, self.size = ffi, name, size
        self.raw = ffi.new("unsigned char[]", GUARD + size + GUARD)
        ffi.memmove(self.raw, bytes([PATTERN]) * (GUARD + size + GUARD), GUARD + size + GUARD)
        if data is not None:
            ffi.memmove(self.raw + GUARD, data, len(data))
        self.ptr = self.raw + GUARD

    def dump(self) -> dict:
        raw = bytes(self.ffi.buffer(self.raw, GUARD + self.size + GUARD))
        return {"declared": self.size, "raw": raw.hex()}

    def bytes(self, n: int | None = None) -> bytes:
        n = self.size if n is None else min(n, self.size)
        return bytes(self.ffi.buffer(self.ptr, n))


class Recorder:
    """Appends one JSON line per call to the result file (flushed: survives a crash)."""

    def __init__(self, path: str) -> None:
        self.out = open(path, "w", encoding="utf-8")  # noqa: SIM115 (closed in main)
        self.ms: dict[str, float] = {}

    def write(self, event: dict) -> None:
        self.out.write(json.dumps(event) + "\n")
        self.out.flush()

    def call(self, op: str, fn, *args, buffers=(), lengths=None, **extra) -> int:
        t0 = time.perf_counter()
        rc = fn(*args)
        if op != "ngcc_seed":
            # Only the first call of each operation is kept: one cold call, labelled so in the
            # KAT log (not a measurement).
            self.ms.setdefault(
                TIMING_NAMES.get(op, op), round((time.perf_counter() - t0) * 1000, 3)
            )
        returned = {name: int(p[0]) for name, p in (lengths or {}).items()}
        self.write(
            {"op": op, "rc": int(rc), "buffers": {b.name: b.dump() for b in buffers}}
            | {"returned": returned}
            | extra
        )
        return rc


def _len(ffi: cffi.FFI, value: int) -> object:
    p = ffi.new("unsigned long long *")
    p[0] = value
    return p


def run_kem(ffi: cffi.FFI, lib, rec: Recorder, rounds: int) -> None:
    sizes = {
        "pk": lib.kem_get_pk_len_bytes(),
        "sk": lib.kem_get_sk_len_bytes(),
        "ct": lib.kem_get_ct_len_bytes(),
        "ss": lib.kem_get_ss_len_bytes(),
    }
    rec.write({"op": "sizes", "sizes": {f"{k}_len": v for k, v in sizes.items()}})
    for r in range(rounds):
        pk, sk = Guarded(ffi, "pk", sizes["pk"]), Guarded(ffi, "sk", sizes["sk"])
        pkl, skl = _len(ffi, sizes["pk"]), _len(ffi, sizes["sk"])
        rec.call(
            "kem_keygen",
            lib.kem_keygen,
            pk.ptr,
            pkl,
            sk.ptr,
            skl,
            buffers=(pk, sk),
            lengths={"pk": pkl, "sk": skl},
            round=r,
        )
        pk_n, sk_n = min(pkl[0], pk.size), min(skl[0], sk.size)
        ss, ct = Guarded(ffi, "ss", sizes["ss"]), Guarded(ffi, "ct", sizes["ct"])
        ssl, ctl = _len(ffi, sizes["ss"]), _len(ffi, sizes["ct"])
        rec.call(
            "kem_enc",
            lib.kem_enc,
            pk.ptr,
            pk_n,
            ss.ptr,
            ssl,
            ct.ptr,
            ctl,
            buffers=(pk, ss, ct),
            lengths={"ss": ssl, "ct": ctl},
            round=r,
        )
        ct_n = min(ctl[0], ct.size)
        ss2, ssl2 = Guarded(ffi, "ss", sizes["ss"]), _len(ffi, sizes["ss"])
        rec.call(
            "kem_dec",
            lib.kem_dec,
            sk.ptr,
            sk_n,
            ct.ptr,
            ct_n,
            ss2.ptr,
            ssl2,
            buffers=(sk, ct, ss2),
            lengths={"ss": ssl2},
            round=r,
        )


def run_sign(ffi: cffi.FFI, lib, rec: Recorder, rounds: int) -> None:
    sizes = {
        "pk": lib.sig_get_pk_len_bytes(),
        "sk": lib.sig_get_sk_len_bytes(),
        "sn": lib.sig_get_sn_len_bytes(),
    }
    rec.write({"op": "sizes", "sizes": {f"{k}_len": v for k, v in sizes.items()}})
    for r in range(rounds):
        msg = bytes((7 * i + r) & 0xFF for i in range(33 * (r + 1)))
        pk, sk = Guarded(ffi, "pk", sizes["pk"]), Guarded(ffi, "sk", sizes["sk"])
        pkl, skl = _len(ffi, sizes["pk"]), _len(ffi, sizes["sk"])
        rec.call(
            "sig_keygen",
            lib.sig_keygen,
            pk.ptr,
            pkl,
            sk.ptr,
            skl,
            buffers=(pk, sk),
            lengths={"pk": pkl, "sk": skl},
            round=r,
        )
        pk_n, sk_n = min(pkl[0], pk.size), min(skl[0], sk.size)
        m = Guarded(ffi, "message", len(msg), msg)
        sn, snl = Guarded(ffi, "signature", sizes["sn"]), _len(ffi, sizes["sn"])
        rec.call(
            "sig_sign",
            lib.sig_sign,
            sk.ptr,
            sk_n,
            m.ptr,
            len(msg),
            sn.ptr,
            snl,
            buffers=(sk, m, sn),
            lengths={"signature": snl},
            round=r,
        )
        _verify_cases(ffi, lib, rec, r, pk, pk_n, sn, min(snl[0], sn.size), msg)


def _verify_cases(ffi, lib, rec: Recorder, r: int, pk, pk_n: int, sn, sn_n: int, msg: bytes):
    bad = bytearray(sn.bytes(sn_n))
    if bad:
        bad[len(bad) // 2] ^= 0x01
    cases = [
        ("honest", sn, Guarded(ffi, "message", len(msg), msg)),
        ("flipped-bit", Guarded(ffi, "signature", sn_n, bytes(bad)), None),
        (
            "modified-message",
            sn,
            Guarded(ffi, "message", len(msg), bytes([msg[0] ^ 0x80]) + msg[1:]),
        ),
    ]
    for case, sig, message in cases:
        message = message or Guarded(ffi, "message", len(msg), msg)
        rec.call(
            "sig_verify",
            lib.sig_verify,
            pk.ptr,
            pk_n,
            sig.ptr,
            sn_n,
            message.ptr,
            len(msg),
            buffers=(pk, sig, message),
            round=r,
            case=case,
        )


def run_hash(ffi: cffi.FFI, lib, rec: Recorder, digest_bits: int) -> None:
    n = (digest_bits + 7) // 8
    rec.write({"op": "sizes", "sizes": {"digest_len": n}})
    for i, msg in enumerate((b"", b"abc", b"abd", bytes(range(256)) * 4)):
        for repeat in range(2):
            m, md = Guarded(ffi, "message", len(msg), msg), Guarded(ffi, "digest", n)
            rec.call(
                "CryptHash",
                lib.CryptHash,
                digest_bits,
                m.ptr,
                8 * len(msg),
                md.ptr,
                buffers=(m, md),
                message=i,
                repeat=repeat,
            )


def _n(buf: Guarded, length) -> int:
    """A length the library returned, clamped to its buffer before it is passed on."""
    return min(int(length[0]), buf.size)


class KexParty:
    """One side of a key exchange: guarded key pair, state and secret buffers."""

    def __init__(self, ffi: cffi.FFI, name: str, sizes: dict[str, int], state_key: str) -> None:
        self.name = name
        self.pk = Guarded(ffi, f"pk{name}", sizes["pk_len"])
        self.sk = Guarded(ffi, f"sk{name}", sizes["sk_len"])
        self.st = Guarded(ffi, f"st{name}", sizes[state_key])
        self.ss = Guarded(ffi, f"ss{name}", sizes["ss_len"])
        self.pk_len, self.sk_len = _len(ffi, sizes["pk_len"]), _len(ffi, sizes["sk_len"])
        self.st_len, self.ss_len = _len(ffi, sizes[state_key]), _len(ffi, sizes["ss_len"])

    def buffers(self) -> tuple[Guarded, ...]:
        return (self.pk, self.sk, self.st, self.ss)

    def lengths(self) -> dict[str, object]:
        n = self.name
        return {f"pk{n}": self.pk_len, f"sk{n}": self.sk_len, f"st{n}": self.st_len} | {
            f"ss{n}": self.ss_len
        }


class KexRun:
    """One protocol run, every call recorded with all buffers; ``flip`` = the pass whose
    message gets one bit flipped after it is made.  The run stops at the first call that
    does not continue the protocol; the parent reads why from the return codes."""

    def __init__(self, ffi: cffi.FFI, lib, sizes: dict[str, int], rec: Recorder, **tag) -> None:
        self.ffi, self.lib, self.sizes, self.rec, self.tag = ffi, lib, sizes, rec, tag
        self.a = KexParty(ffi, "a", sizes, "sta_len")
        self.b = KexParty(ffi, "b", sizes, "stb_len")
        self.msgs = [Guarded(ffi, f"m{p}", sizes["msg_len"]) for p in range(sizes["passes"] + 1)]
        self.msg_lens = [_len(ffi, 0) for _ in self.msgs]

    def call(self, op: str, *args, **extra) -> int:
        lengths = self.a.lengths() | self.b.lengths()
        lengths |= {m.name: n for m, n in zip(self.msgs, self.msg_lens, strict=True)}
        return self.rec.call(
            op,
            getattr(self.lib, op),
            *args,
            buffers=(*self.a.buffers(), *self.b.buffers(), *self.msgs),
            lengths=lengths,
            **self.tag,
            **extra,
        )

    def inits(self) -> bool:
        for party in (self.a, self.b):
            args = (party.pk.ptr, party.pk_len, party.sk.ptr, party.sk_len, party.st.ptr)
            if self.call(f"kex_init_{party.name}", *args, party.st_len) != 0:
                return False
        return True

    def passes(self) -> bool:
        last = self.sizes["passes"]
        for p in range(1, last + 1):
            me, peer = (self.a, self.b) if p % 2 else (self.b, self.a)
            self.msg_lens[p][0] = self.sizes["msg_len"]
            args = [me.sk.ptr, _n(me.sk, me.sk_len), peer.pk.ptr, _n(peer.pk, peer.pk_len)]
            if p > 1:
                args += [self.msgs[p - 1].ptr, _n(self.msgs[p - 1], self.msg_lens[p - 1])]
            args += [me.st.ptr, me.st_len, self.msgs[p].ptr, self.msg_lens[p]]
            rc = self.call(f"kex_generate_pass{p}_msg_{me.name}", *args, **{"pass": p})
            if rc < 0 or (rc == 1) != (p == last):
                return False
            if self.tag.get("flip") == p and self.msg_lens[p][0]:
                altered = bytearray(self.msgs[p].bytes(self.msg_lens[p][0]))
                altered[len(altered) // 2] ^= 0x01
                self.ffi.memmove(self.msgs[p].ptr, bytes(altered), len(altered))
        return True

    def derive(self) -> None:
        last = self.sizes["passes"]
        last_a, last_b = (last, last - 1) if last % 2 else (last - 1, last)
        for party, peer, m in ((self.a, self.b, last_b), (self.b, self.a, last_a)):
            msg_len = _n(self.msgs[m], self.msg_lens[m]) if m else 0
            rc = self.call(
                f"kex_derive_ss_{party.name}",
                party.sk.ptr,
                _n(party.sk, party.sk_len),
                peer.pk.ptr,
                _n(peer.pk, peer.pk_len),
                self.msgs[m].ptr,
                msg_len,
                party.st.ptr,
                _n(party.st, party.st_len),
                party.ss.ptr,
                party.ss_len,
            )
            if rc != 0:
                return

    def run(self) -> None:
        if self.inits() and self.passes():
            self.derive()


def run_kex(ffi: cffi.FFI, lib, rec: Recorder, rounds: int) -> None:
    sizes = {
        "passes": lib.kex_get_passes_num(),
        "pk_len": lib.kex_get_pk_len_bytes(),
        "sk_len": lib.kex_get_sk_len_bytes(),
        "sta_len": lib.kex_get_sta_len_bytes(),
        "stb_len": lib.kex_get_stb_len_bytes(),
        "ss_len": lib.kex_get_ss_len_bytes(),
        "msg_len": lib.kex_get_total_msg_len_bytes(),
    }
    rec.write({"op": "sizes", "sizes": sizes})
    if not 1 <= sizes["passes"] <= KEX_MAX_PASSES:
        return  # nothing to drive; the parent refuses the pass count
    for r in range(rounds):  # the DRNG moves on: fresh randomness each round
        KexRun(ffi, lib, sizes, rec, kex_run=r, flip=None).run()
    for i, flip in enumerate(sorted({1, sizes["passes"]})):
        KexRun(ffi, lib, sizes, rec, kex_run=rounds + i, flip=flip).run()


RUNS = {"kem": run_kem, "sign": run_sign, "kex": run_kex}


def run(rec: Recorder, library: str, category: str, digest_bits: int, rounds: int) -> None:
    ffi = cffi.FFI()
    ffi.cdef(CDEFS[category] + SHIM_CDEF)
    try:
        lib = ffi.dlopen(library)
        seed_fn = lib.ngcc_seed
    except (OSError, AttributeError) as exc:
        rec.write({"op": "load", "error": f"cannot load: {exc}"})
        return
    seed = ffi.new("unsigned char[]", bytes(range(64)))
    rec.call("ngcc_seed", seed_fn, seed, 64)
    try:
        if category == "hash":
            run_hash(ffi, lib, rec, digest_bits)
        else:
            RUNS[category](ffi, lib, rec, rounds)
    except AttributeError as exc:
        rec.write({"op": "load", "error": f"missing symbol: {exc}"})
    rec.write({"op": "end", "timings_ms": rec.ms})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("library")
    parser.add_argument("category", choices=sorted(CDEFS))
    parser.add_argument("--digest-bits", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--result", required=True, help="append the call records to this file")
    args = parser.parse_args(argv)
    rec = Recorder(args.result)
    try:
        run(rec, args.library, args.category, args.digest_bits, args.rounds)
    finally:
        rec.out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
