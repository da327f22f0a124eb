"""Where a campaign's figures come from, as every page, the API and compare say it.

Campaigns rebuilt from previously published pages (`services.published_campaigns`) carry
figures without any raw trial behind them: they are marked everywhere and left out of anything
that needs trials (intervals, uncertainty, trial downloads).
"""

from __future__ import annotations

from typing import Protocol

#: `Campaign.source` of a campaign rebuilt from published pages.
PUBLISHED_SOURCE = "published"
PUBLISHED = "published page, no raw trials"
MEASURED = "measured, raw trials stored"


class _HasSource(Protocol):
    source: str


def is_published(campaign: _HasSource) -> bool:
    """True for a campaign whose figures come from a published page (no raw trials)."""
    return campaign.source == PUBLISHED_SOURCE


def provenance(campaign: _HasSource) -> str:
    return PUBLISHED if is_published(campaign) else MEASURED
