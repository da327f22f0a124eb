"""Transferred bytes of a key exchange: catalog first, else the measured run, never invented."""

from __future__ import annotations

import pytest

from measurements.models import KexBandwidth
from measurements.selectors.kex_transfer import (
    CATALOG_SOURCE,
    MEASURED_SOURCE,
    KexTransfer,
    kex_transfer,
)

RUN = {"passes": 3, "pk_a_bytes": 64, "pk_b_bytes": 48, "messages": [64, 96, 32]}


def test_catalog_row_wins_over_the_measured_run():
    row = KexBandwidth(pk_a_bytes=0, pk_b_bytes=800, protocol_message_bytes=2400)
    assert kex_transfer(row, RUN) == KexTransfer(3, 800, 2400, 3200, CATALOG_SOURCE)


def test_measured_run_gives_messages_plus_both_public_keys():
    assert kex_transfer(None, RUN) == KexTransfer(3, 112, 192, 304, MEASURED_SOURCE)
    # passes from the message list where the run does not state them
    run = {k: v for k, v in RUN.items() if k != "passes"}
    assert kex_transfer(None, run).passes == 3


@pytest.mark.parametrize(
    "kex",
    [
        None,
        {},
        "not an object",
        {**RUN, "messages": "64,96"},
        {**RUN, "messages": []},
        {**RUN, "messages": [64, -1]},
        {**RUN, "messages": [64, True]},
        {**RUN, "pk_b_bytes": None},
        {**RUN, "pk_a_bytes": 1.5},
    ],
)
def test_incomplete_or_malformed_runs_give_no_figure(kex):
    t = kex_transfer(None, kex)
    assert (t.public_key_bytes, t.message_bytes, t.total_bytes, t.source) == (None, None, None, "")
