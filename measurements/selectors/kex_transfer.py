"""What a key exchange transfers, and where each number comes from (ICCS-KEX "transferred").

The rule: protocol message bytes + A's long-term public key + B's.  The curated
``kex_bandwidth.csv`` catalog gives all three where it has a row (its protocol accounting wins:
some APIs pre-distribute keys or emit phantom messages).  Without a row, our own rule: the message
lengths of one measured exchange (the ``kex`` object the timing driver reports) plus both public
keys as the library returned them.  Pure functions: the page builders pass in what they loaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from measurements.models import KexBandwidth

CATALOG_SOURCE = "catalog (kex_bandwidth.csv)"
MEASURED_SOURCE = "measured: messages of one exchange + both public keys (no catalog row)"
#: The summary's note on a "transferred" figure that is not from the catalog.
KEX_MEASURED_NOTE = "transferred: messages of one measured exchange (no catalog row)"

KEX_SIZES_NOTE = (
    "Transferred bytes = protocol messages + A's public key + B's public key. They come from "
    "the curated kex_bandwidth.csv catalog where it has a row for the instance, else from the "
    "message lengths of one measured exchange and the public-key lengths the library returned; "
    "the source column says which."
)


@dataclass(frozen=True)
class KexTransfer:
    passes: int | None
    public_key_bytes: int | None  # A's + B's long-term public keys
    message_bytes: int | None  # every protocol message of one exchange
    total_bytes: int | None
    source: str  # CATALOG_SOURCE, MEASURED_SOURCE, or "" when neither is known


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def measured_messages(kex: Any) -> list[int] | None:
    """The per-pass message lengths of a stored ``kex`` object, or None where it has none."""
    messages = kex.get("messages") if isinstance(kex, dict) else None
    if not isinstance(messages, list) or not messages:
        return None
    counts = [_count(n) for n in messages]
    return None if any(n is None for n in counts) else counts  # type: ignore[misc]


def kex_transfer(bandwidth: KexBandwidth | None, kex: Any) -> KexTransfer:
    """Transferred bytes of one instance from its catalog row, else from a measured run."""
    kex = kex if isinstance(kex, dict) else {}
    messages = measured_messages(kex)
    passes = _count(kex.get("passes")) or (len(messages) if messages else None)
    if bandwidth is not None:
        keys = bandwidth.pk_a_bytes + bandwidth.pk_b_bytes
        return KexTransfer(
            passes, keys, bandwidth.protocol_message_bytes, bandwidth.total_bytes, CATALOG_SOURCE
        )
    pk_a, pk_b = _count(kex.get("pk_a_bytes")), _count(kex.get("pk_b_bytes"))
    if messages is None or pk_a is None or pk_b is None:
        return KexTransfer(passes, None, None, None, "")
    return KexTransfer(
        passes, pk_a + pk_b, sum(messages), sum(messages) + pk_a + pk_b, MEASURED_SOURCE
    )
