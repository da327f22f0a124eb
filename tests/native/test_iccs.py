"""Our ICCS implementation (the API package examples/api): SM3 test vectors and constructions.

The library is compiled here with the real gcc under -Werror; the functions are called
through cffi.  This is our own code (not a candidate), so it runs in-process.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

cffi = pytest.importorskip("cffi")

REPO = Path(__file__).resolve().parents[2]
ICCS = REPO / "examples" / "api"  # the one copy: the API package our submissions ship
STRICT = ["-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-O2", "-fPIC"]
HAS_SM3 = "sm3" in hashlib.algorithms_available


def sm3(data: bytes) -> bytes:
    return hashlib.new("sm3", data).digest()


@pytest.fixture(scope="module")
def iccs(tmp_path_factory):
    out = tmp_path_factory.mktemp("iccs") / "libiccs.so"
    subprocess.run(
        [
            "gcc",
            *STRICT,
            "-shared",
            f"-I{ICCS}",
            str(ICCS / "auxfunc.c"),
            str(ICCS / "drng.c"),
            "-o",
            str(out),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    ffi = cffi.FFI()
    ffi.cdef(
        """
        typedef struct { unsigned char V[55], C[55], reseed_counter[55]; } DRNG_ctx;
        int sm3hash(int, const unsigned char *, unsigned long long, unsigned char *);
        int pseudohash(int, const unsigned char *, unsigned long long, unsigned char *);
        int pseudoXOF(unsigned long long, const unsigned char *, unsigned long long,
                      unsigned char *);
        int init_random_number(DRNG_ctx *, const unsigned char *, unsigned long long);
        int get_random_number(DRNG_ctx *, unsigned char *, unsigned long long);
        """
    )
    return ffi, ffi.dlopen(str(out))


def call_hash(iccs, name: str, bits: int, msg: bytes, msg_bits: int | None = None) -> bytes:
    ffi, lib = iccs
    out = ffi.new("unsigned char[]", (bits + 7) // 8)
    rc = getattr(lib, name)(bits, msg, 8 * len(msg) if msg_bits is None else msg_bits, out)
    assert rc == 0
    return bytes(out)


def xof(iccs, out_bits: int, msg: bytes) -> bytes:
    ffi, lib = iccs
    out = ffi.new("unsigned char[]", max(1, (out_bits + 7) // 8))
    assert lib.pseudoXOF(out_bits, msg, 8 * len(msg), out) == 0
    return bytes(out)[: (out_bits + 7) // 8]


def test_sm3_gbt32905_example_1_abc(iccs):
    assert call_hash(iccs, "sm3hash", 256, b"abc").hex() == (
        "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0"
    )


def test_sm3_gbt32905_example_2_abcd_x16(iccs):
    assert call_hash(iccs, "sm3hash", 256, b"abcd" * 16).hex() == (
        "debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732"
    )


@pytest.mark.skipif(not HAS_SM3, reason="this OpenSSL has no sm3")
@pytest.mark.parametrize("n", [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000])
def test_sm3_matches_openssl_at_block_boundaries(iccs, n):
    msg = bytes((i * 31 + 7) & 0xFF for i in range(n))
    assert call_hash(iccs, "sm3hash", 256, msg) == sm3(msg)


def test_sm3_bit_strings_ignore_unused_low_bits(iccs):
    a = call_hash(iccs, "sm3hash", 256, b"\x12\xf0", msg_bits=12)
    b = call_hash(iccs, "sm3hash", 256, b"\x12\xff", msg_bits=12)
    c = call_hash(iccs, "sm3hash", 256, b"\x12\xe0", msg_bits=12)
    assert a == b != c
    assert call_hash(iccs, "sm3hash", 256, b"\x12", msg_bits=8) == call_hash(
        iccs, "sm3hash", 256, b"\x12\xff", msg_bits=8
    )


def test_sm3_and_pseudohash_reject_unsupported_sizes(iccs):
    ffi, lib = iccs
    out = ffi.new("unsigned char[]", 128)
    assert lib.sm3hash(512, b"abc", 24, out) != 0
    assert lib.pseudohash(256, b"abc", 24, out) != 0
    assert lib.pseudohash(1000, b"abc", 24, out) != 0


@pytest.mark.skipif(not HAS_SM3, reason="this OpenSSL has no sm3")
@pytest.mark.parametrize("bits", [512, 768, 1024])
def test_pseudohash_is_the_documented_construction(iccs, bits):
    msg = b"NGCC Perf pseudohash"
    k = sm3(b"NGCC-PH" + bits.to_bytes(2, "big") + msg)
    expected = b"".join(sm3(b"NGCC-PH-OUT" + k + i.to_bytes(2, "big")) for i in range(bits // 256))
    assert call_hash(iccs, "pseudohash", bits, msg) == expected


@pytest.mark.skipif(not HAS_SM3, reason="this OpenSSL has no sm3")
def test_pseudoxof_is_the_documented_construction_and_prefix_consistent(iccs):
    msg = b"xof input"
    k = sm3(b"NGCC-XOF" + msg)
    stream = b"".join(sm3(b"NGCC-XOF-OUT" + k + i.to_bytes(8, "big")) for i in range(5))
    assert xof(iccs, 8 * 150, msg) == stream[:150]
    assert xof(iccs, 8 * 40, msg) == stream[:40]
    assert xof(iccs, 8 * 150, msg)[:33] == xof(iccs, 8 * 33, msg)
    # a partial final byte keeps its high bits only
    assert xof(iccs, 8 * 2 + 3, msg) == stream[:2] + bytes([stream[2] & 0xE0])


def hash_drbg_sm3(seed: bytes, requests: list[int]) -> list[bytes]:
    """SP 800-90A Hash_DRBG with SM3, seedlen 440, as documented for drng.c."""
    seedlen, mod = 55, 1 << 440

    def df(data: bytes) -> bytes:
        out = b"".join(sm3(bytes([c]) + (440).to_bytes(4, "big") + data) for c in (1, 2))
        return out[:seedlen]

    v = df(seed)
    c = df(b"\x00" + v)
    counter = 1
    outs = []
    for nbytes in requests:
        data, w = int.from_bytes(v, "big"), b""
        while len(w) < nbytes:
            w += sm3(data.to_bytes(seedlen, "big"))
            data = (data + 1) % mod
        outs.append(w[:nbytes])
        h = int.from_bytes(sm3(b"\x03" + v), "big")
        v = ((int.from_bytes(v, "big") + h + int.from_bytes(c, "big") + counter) % mod).to_bytes(
            seedlen, "big"
        )
        counter += 1
    return outs


@pytest.mark.skipif(not HAS_SM3, reason="this OpenSSL has no sm3")
def test_drng_is_hash_drbg_with_sm3(iccs):
    ffi, lib = iccs
    ctx = ffi.new("DRNG_ctx *")
    seed = b"seed" * 16
    assert lib.init_random_number(ctx, seed, len(seed)) == 0
    got = []
    for n in (64, 1, 100, 32):
        out = ffi.new("unsigned char[]", n)
        assert lib.get_random_number(ctx, out, 8 * n) == 0
        got.append(bytes(out))
    assert got == hash_drbg_sm3(seed, [64, 1, 100, 32])
    assert int.from_bytes(bytes(ctx.reseed_counter), "big") == 5


def test_drng_is_deterministic_per_seed_and_masks_partial_bytes(iccs):
    ffi, lib = iccs

    def draw(seed: bytes, bits: int) -> bytes:
        ctx = ffi.new("DRNG_ctx *")
        lib.init_random_number(ctx, seed, len(seed))
        out = ffi.new("unsigned char[]", 8)
        lib.get_random_number(ctx, out, bits)
        return bytes(out)

    assert draw(b"a" * 64, 64) == draw(b"a" * 64, 64) != draw(b"b" * 64, 64)
    partial = draw(b"a" * 64, 13)
    assert partial[:1] == draw(b"a" * 64, 64)[:1] and partial[1] & 0x07 == 0


def test_our_c_is_warning_free_under_strict_flags(tmp_path):
    sources = [ICCS / "auxfunc.c", ICCS / "drng.c", REPO / "native" / "shim" / "ngcc_shim.c"]
    for src in sources:
        res = subprocess.run(
            ["gcc", *STRICT, f"-I{ICCS}", "-c", str(src), "-o", str(tmp_path / "x.o")],
            capture_output=True,
            text=True,
        )
        assert res.returncode == 0 and res.stderr == "", res.stderr
