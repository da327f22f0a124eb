"""In-process functional check of one candidate library, run as a sandboxed child.

Usage: python functional_check.py LIBRARY CATEGORY [--digest-bits N] [--rounds N]

Standalone on purpose (no Django, no project imports): runner.harness.kat starts it
with the project's interpreter in the sandbox, so a crashing or hanging library
only takes this child down.  Prints one JSON object on stdout:
``{"status": PASS|OVERFLOW|CRYPTOFAIL|LOADFAIL, "detail": ..., "sizes": {...},
"timings_ms": {...}}``.

Every buffer handed to the library has GUARD bytes of a known pattern on each
side; a changed guard or a returned length above the declared maximum is an
OVERFLOW.  KEM: keygen/enc/dec must agree on the shared secret.  Signature:
the honest signature must verify, a signature with one flipped bit and a
modified message must both be rejected (else CRYPTOFAIL).  Hash: digests must
be deterministic and differ for different messages.  Key exchange: every run of the
protocol (both inits, the declared passes, both derivations) must give A and B the
same secret, and a flipped bit in the first or the last message must make a call
fail or the secrets differ (else CRYPTOFAIL); a message longer than
``kex_get_total_msg_len_bytes`` is an OVERFLOW.
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


class Failure(Exception):
    def __init__(self, status: str, detail: str) -> None:
        super().__init__(detail)
        self.status, self.detail = status, detail


class Guarded:
    """A buffer of ``size`` bytes with guard zones on both sides."""

    def __init__(self, ffi: cffi.FFI, name: str, size: int, data: bytes | None = None) -> None:
        self.ffi, self.name, self.size = ffi, name, size
        self.raw = ffi.new("unsigned char[]", GUARD + size + GUARD)
        ffi.memmove(self.raw, bytes([PATTERN]) * (GUARD + size + GUARD), GUARD + size + GUARD)
        if data is not None:
            ffi.memmove(self.raw + GUARD, data, len(data))
        self.ptr = self.raw + GUARD

    def check(self, op: str) -> None:
        raw = bytes(self.ffi.buffer(self.raw, GUARD + self.size + GUARD))
        before, after = raw[:GUARD], raw[GUARD + self.size :]
        if before != bytes([PATTERN]) * GUARD:
            raise Failure("OVERFLOW", f"{op} wrote before the {self.name} buffer")
        if after != bytes([PATTERN]) * GUARD:
            n = max(i + 1 for i, b in enumerate(after) if b != PATTERN)
            raise Failure(
                "OVERFLOW",
                f"{op} wrote past the {self.name} buffer ({self.size} bytes declared, "
                f"at least {n} more written)",
            )

    def bytes(self, n: int | None = None) -> bytes:
        return bytes(self.ffi.buffer(self.ptr, self.size if n is None else n))


def _len(ffi: cffi.FFI, value: int) -> object:
    p = ffi.new("unsigned long long *")
    p[0] = value
    return p


def _returned(op: str, name: str, got: int, declared: int) -> int:
    if got > declared:
        raise Failure("OVERFLOW", f"{op} returned {name} length {got} > declared {declared}")
    return got


class Timer:
    def __init__(self) -> None:
        self.ms: dict[str, float] = {}

    def call(self, op: str, fn, *args) -> int:
        t0 = time.perf_counter()
        rc = fn(*args)
        # Only the first call of each operation is kept: one cold call, labelled so in the log.
        self.ms.setdefault(op, round((time.perf_counter() - t0) * 1000, 3))
        if rc != 0:
            raise Failure("CRYPTOFAIL", f"{op} returned {rc}")
        return rc


def check_kem(ffi: cffi.FFI, lib, timer: Timer, rounds: int) -> dict[str, int]:
    sizes = {
        "pk_len": lib.kem_get_pk_len_bytes(),
        "sk_len": lib.kem_get_sk_len_bytes(),
        "ct_len": lib.kem_get_ct_len_bytes(),
        "ss_len": lib.kem_get_ss_len_bytes(),
    }
    for _ in range(rounds):
        pk, sk = Guarded(ffi, "pk", sizes["pk_len"]), Guarded(ffi, "sk", sizes["sk_len"])
        pkl, skl = _len(ffi, sizes["pk_len"]), _len(ffi, sizes["sk_len"])
        timer.call("keygen", lib.kem_keygen, pk.ptr, pkl, sk.ptr, skl)
        pk.check("kem_keygen"), sk.check("kem_keygen")
        pk_n = _returned("kem_keygen", "pk", pkl[0], sizes["pk_len"])
        sk_n = _returned("kem_keygen", "sk", skl[0], sizes["sk_len"])
        ss, ct = Guarded(ffi, "ss", sizes["ss_len"]), Guarded(ffi, "ct", sizes["ct_len"])
        ssl, ctl = _len(ffi, sizes["ss_len"]), _len(ffi, sizes["ct_len"])
        timer.call("enc", lib.kem_enc, pk.ptr, pk_n, ss.ptr, ssl, ct.ptr, ctl)
        for buf in (pk, ss, ct):
            buf.check("kem_enc")
        ss_n = _returned("kem_enc", "ss", ssl[0], sizes["ss_len"])
        ct_n = _returned("kem_enc", "ct", ctl[0], sizes["ct_len"])
        ss2, ssl2 = Guarded(ffi, "ss", sizes["ss_len"]), _len(ffi, sizes["ss_len"])
        timer.call("dec", lib.kem_dec, sk.ptr, sk_n, ct.ptr, ct_n, ss2.ptr, ssl2)
        for buf in (sk, ct, ss2):
            buf.check("kem_dec")
        ss2_n = _returned("kem_dec", "ss", ssl2[0], sizes["ss_len"])
        if ss2_n != ss_n or ss.bytes(ss_n) != ss2.bytes(ss2_n):
            raise Failure("CRYPTOFAIL", "decapsulated shared secret differs from encapsulated")
    return sizes


def check_sign(ffi: cffi.FFI, lib, timer: Timer, rounds: int) -> dict[str, int]:
    sizes = {
        "pk_len": lib.sig_get_pk_len_bytes(),
        "sk_len": lib.sig_get_sk_len_bytes(),
        "sn_len": lib.sig_get_sn_len_bytes(),
    }
    for r in range(rounds):
        msg = bytes((7 * i + r) & 0xFF for i in range(33 * (r + 1)))
        pk, sk = Guarded(ffi, "pk", sizes["pk_len"]), Guarded(ffi, "sk", sizes["sk_len"])
        pkl, skl = _len(ffi, sizes["pk_len"]), _len(ffi, sizes["sk_len"])
        timer.call("keygen", lib.sig_keygen, pk.ptr, pkl, sk.ptr, skl)
        pk.check("sig_keygen"), sk.check("sig_keygen")
        pk_n = _returned("sig_keygen", "pk", pkl[0], sizes["pk_len"])
        sk_n = _returned("sig_keygen", "sk", skl[0], sizes["sk_len"])
        m = Guarded(ffi, "message", len(msg), msg)
        sn, snl = Guarded(ffi, "signature", sizes["sn_len"]), _len(ffi, sizes["sn_len"])
        timer.call("sign", lib.sig_sign, sk.ptr, sk_n, m.ptr, len(msg), sn.ptr, snl)
        for buf in (sk, m, sn):
            buf.check("sig_sign")
        sn_n = _returned("sig_sign", "sn", snl[0], sizes["sn_len"])
        t0 = time.perf_counter()
        rc = lib.sig_verify(pk.ptr, pk_n, sn.ptr, sn_n, m.ptr, len(msg))
        timer.ms["verify"] = round((time.perf_counter() - t0) * 1000, 3)
        if rc != 0:
            raise Failure("CRYPTOFAIL", f"sig_verify rejected an honest signature ({rc})")
        bad = bytearray(sn.bytes(sn_n))
        bad[len(bad) // 2] ^= 0x01
        flipped = Guarded(ffi, "signature", sn_n, bytes(bad))
        if lib.sig_verify(pk.ptr, pk_n, flipped.ptr, sn_n, m.ptr, len(msg)) == 0:
            raise Failure("CRYPTOFAIL", "sig_verify accepted a signature with a flipped bit")
        other = Guarded(ffi, "message", len(msg), bytes([msg[0] ^ 0x80]) + msg[1:])
        if lib.sig_verify(pk.ptr, pk_n, sn.ptr, sn_n, other.ptr, len(msg)) == 0:
            raise Failure("CRYPTOFAIL", "sig_verify accepted a modified message")
        for buf in (pk, sn, flipped, m, other):
            buf.check("sig_verify")
    return sizes


def check_hash(ffi: cffi.FFI, lib, timer: Timer, digest_bits: int) -> dict[str, int]:
    n = (digest_bits + 7) // 8
    digests = []
    for msg in (b"", b"abc", b"abd", bytes(range(256)) * 4):
        for _ in range(2):
            m, md = Guarded(ffi, "message", len(msg), msg), Guarded(ffi, "digest", n)
            timer.call("hash", lib.CryptHash, digest_bits, m.ptr, 8 * len(msg), md.ptr)
            m.check("CryptHash"), md.check("CryptHash")
            digests.append(md.bytes())
    if any(digests[i] != digests[i + 1] for i in range(0, len(digests), 2)):
        raise Failure("CRYPTOFAIL", "CryptHash is not deterministic")
    if len(set(digests[::2])) != len(digests[::2]):
        raise Failure("CRYPTOFAIL", "CryptHash gives equal digests for different messages")
    return {"digest_len": n}


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
        self.declared = {"pk": sizes["pk_len"], "sk": sizes["sk_len"], "ss": sizes["ss_len"]}
        self.declared["st"] = sizes[state_key]

    def check(self, op: str) -> None:
        for buf in (self.pk, self.sk, self.st, self.ss):
            buf.check(op)
        for key, ptr in (("pk", self.pk_len), ("sk", self.sk_len), ("st", self.st_len)):
            _returned(op, f"{key}{self.name}", ptr[0], self.declared[key])


class KexRun:
    """One protocol run with guard bytes everywhere; ``flip`` = pass whose message is altered."""

    def __init__(self, ffi: cffi.FFI, lib, sizes: dict[str, int], timer: Timer) -> None:
        self.ffi, self.lib, self.sizes, self.timer = ffi, lib, sizes, timer
        self.a = KexParty(ffi, "a", sizes, "sta_len")
        self.b = KexParty(ffi, "b", sizes, "stb_len")
        self.msgs = [Guarded(ffi, f"m{p}", sizes["msg_len"]) for p in range(sizes["passes"] + 1)]
        self.msg_lens = [_len(ffi, 0) for _ in self.msgs]

    def call(self, op: str, fn, *args) -> int:
        t0 = time.perf_counter()
        rc = fn(*args)
        self.timer.ms[op] = round((time.perf_counter() - t0) * 1000, 3)
        for party in (self.a, self.b):
            party.check(op)
        for p, msg in enumerate(self.msgs):
            msg.check(op)
            _returned(op, f"m{p}", self.msg_lens[p][0], self.sizes["msg_len"])
        return rc

    def passes(self, flip: int | None) -> str | None:
        """Run every pass; None, or why the protocol stopped."""
        last = self.sizes["passes"]
        for p in range(1, last + 1):
            me, peer = (self.a, self.b) if p % 2 else (self.b, self.a)
            name = f"kex_generate_pass{p}_msg_{'a' if p % 2 else 'b'}"
            self.msg_lens[p][0] = self.sizes["msg_len"]
            args = [me.sk.ptr, me.sk_len[0], peer.pk.ptr, peer.pk_len[0]]
            if p > 1:
                args += [self.msgs[p - 1].ptr, self.msg_lens[p - 1][0]]
            args += [me.st.ptr, me.st_len, self.msgs[p].ptr, self.msg_lens[p]]
            rc = self.call(name, getattr(self.lib, name), *args)
            if rc < 0:
                return f"{name} returned {rc}"
            if (rc == 1) != (p == last):
                return f"{name} returned {rc} but kex_get_passes_num() = {last}"
            if flip == p and self.msg_lens[p][0]:
                altered = bytearray(self.msgs[p].bytes(self.msg_lens[p][0]))
                altered[len(altered) // 2] ^= 0x01
                self.ffi.memmove(self.msgs[p].ptr, bytes(altered), len(altered))
        return None

    def derive(self, party: KexParty, peer: KexParty, last: int) -> int:
        fn = "kex_derive_ss_a" if party is self.a else "kex_derive_ss_b"
        msg_len = self.msg_lens[last][0] if last else 0
        args = (party.sk.ptr, party.sk_len[0], peer.pk.ptr, peer.pk_len[0], self.msgs[last].ptr)
        return self.call(
            fn,
            getattr(self.lib, fn),
            *args,
            msg_len,
            party.st.ptr,
            party.st_len[0],
            party.ss.ptr,
            party.ss_len,
        )

    def run(self, flip: int | None = None) -> str | None:
        """None when both parties end with the same secret, else what went wrong."""
        for party, fn in ((self.a, self.lib.kex_init_a), (self.b, self.lib.kex_init_b)):
            name = f"kex_init_{party.name}"
            args = (party.pk.ptr, party.pk_len, party.sk.ptr, party.sk_len, party.st.ptr)
            if self.call(name, fn, *args, party.st_len) != 0:
                return f"{name} failed"
        stopped = self.passes(flip)
        if stopped:
            return stopped
        last = self.sizes["passes"]
        last_a, last_b = (last, last - 1) if last % 2 else (last - 1, last)
        if self.derive(self.a, self.b, last_b) != 0 or self.derive(self.b, self.a, last_a) != 0:
            return "a key derivation failed"
        na = _returned("kex_derive_ss_a", "ss", self.a.ss_len[0], self.sizes["ss_len"])
        nb = _returned("kex_derive_ss_b", "ss", self.b.ss_len[0], self.sizes["ss_len"])
        if na != nb or self.a.ss.bytes(na) != self.b.ss.bytes(nb):
            return "the shared secrets of A and B differ"
        return None


def check_kex(ffi: cffi.FFI, lib, timer: Timer, rounds: int) -> dict[str, int]:
    sizes = {
        "passes": lib.kex_get_passes_num(),
        "pk_len": lib.kex_get_pk_len_bytes(),
        "sk_len": lib.kex_get_sk_len_bytes(),
        "sta_len": lib.kex_get_sta_len_bytes(),
        "stb_len": lib.kex_get_stb_len_bytes(),
        "ss_len": lib.kex_get_ss_len_bytes(),
        "msg_len": lib.kex_get_total_msg_len_bytes(),
    }
    if not 1 <= sizes["passes"] <= KEX_MAX_PASSES:
        raise Failure("CRYPTOFAIL", f"kex_get_passes_num() = {sizes['passes']}")
    for _ in range(rounds):  # the DRNG moves on: fresh randomness each round
        problem = KexRun(ffi, lib, sizes, timer).run()
        if problem:
            raise Failure("CRYPTOFAIL", problem)
    for flip in sorted({1, sizes["passes"]}):
        if KexRun(ffi, lib, sizes, timer).run(flip=flip) is None:
            raise Failure("CRYPTOFAIL", f"a flipped bit in message {flip} left both secrets equal")
    return sizes


def run(library: str, category: str, digest_bits: int, rounds: int) -> dict:
    ffi = cffi.FFI()
    if category not in CDEFS:
        return {"status": "SKIPPED", "detail": f"no functional check for {category}"}
    ffi.cdef(CDEFS[category] + SHIM_CDEF)
    timer = Timer()
    try:
        try:
            lib = ffi.dlopen(library)
            seed_fn = lib.ngcc_seed
        except (OSError, AttributeError) as exc:
            raise Failure("LOADFAIL", f"cannot load: {exc}") from exc
        seed = ffi.new("unsigned char[]", bytes(range(64)))
        if seed_fn(seed, 64) != 0:
            raise Failure("CRYPTOFAIL", "ngcc_seed (init_random_number) failed")
        try:
            if category == "kem":
                sizes = check_kem(ffi, lib, timer, rounds)
            elif category == "sign":
                sizes = check_sign(ffi, lib, timer, rounds)
            elif category == "kex":
                sizes = check_kex(ffi, lib, timer, rounds)
            else:
                sizes = check_hash(ffi, lib, timer, digest_bits)
        except AttributeError as exc:
            raise Failure("LOADFAIL", f"missing symbol: {exc}") from exc
    except Failure as f:
        return {"status": f.status, "detail": f.detail, "timings_ms": timer.ms}
    return {"status": "PASS", "detail": "", "sizes": sizes, "timings_ms": timer.ms}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("library")
    parser.add_argument("category")
    parser.add_argument("--digest-bits", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--result", help="write the verdict to this file (default: stdout, last line)"
    )
    args = parser.parse_args(argv)
    result = run(args.library, args.category, args.digest_bits, args.rounds)
    line = json.dumps(result) + "\n"
    if args.result:
        # A file the candidate's own prints cannot interleave with (it shares our stdout).
        with open(args.result, "w", encoding="utf-8") as out:
            out.write(line)
    else:
        sys.stdout.write(line)
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
