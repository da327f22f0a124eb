"""The symmetric-primitives section of a candidate page: share of each operation spent in the
ICCS placeholder hashes and DRNG, and the wrapped calls per operation (from the hash profiles)."""

from __future__ import annotations

from measurements import formatting as fmt
from measurements.selectors.pages.candidate.data import CandidateData
from measurements.selectors.pages.candidate.performance import operation_header, row_head
from measurements.selectors.pages.cells import Table, figure, text
from measurements.stats import calls_per_operation


def symmetric_table(data: CandidateData) -> Table:
    rows = []
    for instance in data.instances:
        for row_key in data.row_keys:
            p = data.profile_by_key.get((instance.pk, *row_key))
            per_op = (
                calls_per_operation(data.calls.get(p.pk, []), p.total_operations) if p else None
            )
            rows.append(
                row_head(data, instance, row_key)
                + (
                    figure(fmt.format_share(p.hash_share if p else None)),
                    figure(fmt.format_share(p.drng_share if p else None)),
                    text(fmt.format_calls_per_operation(per_op)),
                )
            )
    headers = ("instance", operation_header(data), "pseudohash/XOF/sm3", "DRNG")
    return Table("symmetric", headers + ("calls per operation",), tuple(rows))
