"""What NGCC Perf measures, defined once: categories, their operations, KAT drivers, entry points,
page sections and size columns; KAT statuses; the one pattern for submission ids.

This module imports nothing from Django (an import-linter contract checks it), so the harness
layer (`runner.harness`), the models, the selectors, the API and the benchmarks all read the same
definitions. Adding a category starts here: see docs/architecture.md for the other files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class KatStatus(StrEnum):
    """The outcome of building an instance and replaying its known-answer tests."""

    PASS = "PASS"
    MISMATCH = "MISMATCH"
    NOKAT = "NOKAT"
    CRYPTOFAIL = "CRYPTOFAIL"
    OVERFLOW = "OVERFLOW"
    LOADFAIL = "LOADFAIL"
    TIMEOUT = "TIMEOUT"
    CRASH = "CRASH"
    BUILDFAIL = "BUILDFAIL"
    NOLOG = "NOLOG"
    PENDING = "PENDING"


class MeasurementStatus(StrEnum):
    """The outcome of timing one operation (a record's ``status``)."""

    COMPLETE = "complete"
    FAILED = "failed"
    #: The record disagrees with what the parent measured of the process (runner/harness/
    #: witness.py): stored with its evidence, never as figures.
    INCONSISTENT = "INCONSISTENT"


#: Message lengths (bytes) at which hash functions are timed: the guide's S1..S8.
HASH_MESSAGE_BYTES: tuple[int, ...] = (32, 128, 512, 1024, 4096, 8192, 16384, 65536)


@dataclass(frozen=True)
class SummarySection:
    """How a category appears in the per-system summary page."""

    title: str
    anchor: str
    figure_headers: tuple[str, ...]
    #: The timed operation behind each figure column (hash: "hash" at three lengths).
    figure_operations: tuple[str, ...]
    size_headers: tuple[str, ...]
    #: What each size column shows: ``pk``, ``ct``, ``sig`` (catalog size, else the API's) or
    #: ``transferred`` (key exchange: bytes of all protocol messages).
    size_keys: tuple[str, ...] = ()
    #: Message length (bytes) behind each figure column (0 where the operation takes none).
    figure_message_bytes: tuple[int, ...] = ()

    def figure_points(self) -> tuple[tuple[str, int], ...]:
        """The (operation, message bytes) behind each figure column."""
        lengths = self.figure_message_bytes or (0,) * len(self.figure_operations)
        return tuple(zip(self.figure_operations, lengths, strict=True))


@dataclass(frozen=True)
class CategorySpec:
    """Everything NGCC Perf knows about one kind of candidate."""

    key: str
    label: str
    #: "public-key algorithm; function: …" as on the candidate page's §1.
    description: str
    #: Timed operations in page order.
    operations: tuple[str, ...]
    #: Official KAT driver file name in the API package ("" where there is none).
    kat_driver: str = ""
    #: Symbols a built library must export to be checked and timed.
    entry_points: tuple[str, ...] = ()
    #: Message lengths timed per operation ((0,) where the operation takes no message length).
    message_lengths: tuple[int, ...] = (0,)
    #: Size columns of the candidate page's §6 (in order), by catalog field.
    size_columns: tuple[str, ...] = ()
    #: (column header, the driver's size field) of the candidate page's §6 for categories whose
    #: sizes are the driver's size fields; empty for those with rows of their own (kex, hash).
    size_fields: tuple[tuple[str, str], ...] = ()
    summary: SummarySection | None = None
    #: Submitted by candidates (False for the ICCS baseline helpers).
    submitted: bool = True

    @property
    def is_hash(self) -> bool:
        return self.message_lengths != (0,)

    def operation_points(self) -> list[tuple[str, int]]:
        """Every (operation, message bytes) pair timed for an instance of this category."""
        return [(op, n) for op in self.operations for n in self.message_lengths]


KEM = CategorySpec(
    key="kem",
    label="key encapsulation",
    description="public-key algorithm; function: key encapsulation",
    operations=("keygen", "enc", "dec"),
    kat_driver="KAT_KEM.c",
    entry_points=(
        "kem_get_pk_len_bytes",
        "kem_get_sk_len_bytes",
        "kem_get_ct_len_bytes",
        "kem_get_ss_len_bytes",
        "kem_keygen",
        "kem_enc",
        "kem_dec",
    ),
    size_columns=("pk", "sk", "ct", "ss"),
    size_fields=(
        ("public key", "pk_bytes"),
        ("secret key", "sk_bytes"),
        ("ciphertext", "ct_bytes"),
        ("shared secret", "ss_bytes"),
    ),
    summary=SummarySection(
        title="Key encapsulation",
        anchor="key-encapsulation",
        figure_headers=("keygen cycles (sym %)", "enc cycles (sym %)", "dec cycles (sym %)"),
        figure_operations=("keygen", "enc", "dec"),
        size_headers=("public key (B)", "ciphertext (B)"),
        size_keys=("pk", "ct"),
    ),
)
SIGN = CategorySpec(
    key="sign",
    label="digital signature",
    description="public-key algorithm; function: digital signature",
    operations=("keygen", "sign", "verify"),
    kat_driver="KAT_SIG.c",
    entry_points=(
        "sig_get_pk_len_bytes",
        "sig_get_sk_len_bytes",
        "sig_get_sn_len_bytes",
        "sig_keygen",
        "sig_sign",
        "sig_verify",
    ),
    size_columns=("pk", "sk", "sig"),
    size_fields=(
        ("public key", "pk_bytes"),
        ("secret key", "sk_bytes"),
        ("signature", "signature_bytes"),
    ),
    summary=SummarySection(
        title="Digital signatures",
        anchor="digital-signatures",
        figure_headers=("keygen cycles (sym %)", "sign cycles (sym %)", "verify cycles (sym %)"),
        figure_operations=("keygen", "sign", "verify"),
        size_headers=("public key (B)", "signature (B)"),
        size_keys=("pk", "sig"),
    ),
)
KEX = CategorySpec(
    key="kex",
    label="key exchange",
    description="public-key algorithm; function: key exchange",
    operations=("exchange",),
    kat_driver="KAT_KEX.c",
    # Passes after the first are looked up as the pass count requires
    # (kex_generate_pass2_msg_b, kex_generate_pass3_msg_a, ...).
    entry_points=(
        "kex_get_passes_num",
        "kex_get_pk_len_bytes",
        "kex_get_sk_len_bytes",
        "kex_get_sta_len_bytes",
        "kex_get_stb_len_bytes",
        "kex_get_ss_len_bytes",
        "kex_get_total_msg_len_bytes",
        "kex_init_a",
        "kex_init_b",
        "kex_generate_pass1_msg_a",
        "kex_derive_ss_a",
        "kex_derive_ss_b",
    ),
    size_columns=("pk", "transferred"),
    summary=SummarySection(
        title="Key exchange",
        anchor="key-exchange",
        figure_headers=("exchange cycles (sym %)",),
        figure_operations=("exchange",),
        size_headers=("transferred (B)",),
        size_keys=("transferred",),
    ),
)
HASH = CategorySpec(
    key="hash",
    label="hash function",
    description="symmetric algorithm; function: hash function",
    operations=("hash",),
    kat_driver="KAT_CryptHash.c",
    entry_points=("CryptHash",),
    message_lengths=HASH_MESSAGE_BYTES,
    size_columns=("digest",),
    summary=SummarySection(
        title="Hash functions",
        anchor="hash-functions",
        figure_headers=(
            "32 B cycles (× pseudoXOF)",
            "1 KiB cycles (× pseudoXOF)",
            "64 KiB cycles (× pseudoXOF)",
        ),
        figure_operations=("hash", "hash", "hash"),
        figure_message_bytes=(32, 1024, 65536),
        size_headers=(),
    ),
)
ICCS = CategorySpec(
    key="iccs",
    label="ICCS hash helper (baseline)",
    description="ICCS helper; function: hash function (baseline)",
    operations=("hash",),
    message_lengths=HASH_MESSAGE_BYTES,
    submitted=False,
)

#: Every category, in the order of the per-system summary page.
CATEGORIES: dict[str, CategorySpec] = {c.key: c for c in (SIGN, KEM, KEX, HASH, ICCS)}
#: Categories a submission manifest may declare.
SUBMITTED_CATEGORIES: tuple[str, ...] = tuple(k for k, c in CATEGORIES.items() if c.submitted)
#: Timed operations per category (every category, ICCS included).
CATEGORY_OPERATIONS: dict[str, tuple[str, ...]] = {k: c.operations for k, c in CATEGORIES.items()}
#: Categories timed per message length.
HASH_CATEGORIES: tuple[str, ...] = tuple(k for k, c in CATEGORIES.items() if c.is_hash)
#: Every operation name any category times.
ALL_OPERATIONS: frozenset[str] = frozenset(op for c in CATEGORIES.values() for op in c.operations)

#: The prefix of every submission id (``kem``, ``sign``, …; ``iccs`` for the helpers).
SUBMISSION_PREFIX = "(?:" + "|".join(CATEGORIES) + ")"
#: A submission id as it appears in URLs and harness paths: ``kem-29``, ``hash-05``, ``iccs``.
SUBMISSION_ID_PATTERN = rf"{SUBMISSION_PREFIX}-[A-Za-z0-9_]+|iccs"
SUBMISSION_ID = re.compile(rf"^(?:{SUBMISSION_ID_PATTERN})$")
#: The same, as a URL path segment (the URL router also accepts ``.`` and ``-`` inside).
SUBMISSION_URL_PATTERN = rf"{SUBMISSION_PREFIX}-[\w.-]+|iccs"


def category_of(submission_id: str) -> CategorySpec | None:
    """The category named by a submission id's prefix (``kem-29`` → KEM), or None."""
    prefix = submission_id.split("-", 1)[0]
    return CATEGORIES.get(prefix)


def category_label(key: str) -> str:
    """A category's label, or the key itself where it is not a known category."""
    spec = CATEGORIES.get(key)
    return spec.label if spec else key
