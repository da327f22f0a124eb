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
bit and of a modified message.  Hash: each message twice.  A returned length is clamped to
the buffer before it is passed on (the parent still sees the value the library returned).
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
}
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
        if op != "ngcc_seed":  # last call of each operation, for the KAT log's timing line
            self.ms[TIMING_NAMES.get(op, op)] = round((time.perf_counter() - t0) * 1000, 3)
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


RUNS = {"kem": run_kem, "sign": run_sign}


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
