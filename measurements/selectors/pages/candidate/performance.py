"""§4 performance and §5 resource consumption of a candidate page, one row per instance and
operation (hash rows per message length).

Our own driver also records per-batch samples and the stack high-water mark: they get extra
columns when any row has them (imported harness data does not, and its pages keep the published
layout).
"""

from __future__ import annotations

from measurements import formatting as fmt
from measurements.links import measurement_url
from measurements.models import Instance, Measurement
from measurements.selectors.pages.candidate.data import CandidateData, RowKey
from measurements.selectors.pages.cells import Cell, Table, code, figure, text
from measurements.selectors.pages.common import operation_label

HASH_PERFORMANCE_HEADERS = (
    "instance",
    "message length",
    "mean cycles",
    "cycles/byte",
    "mean time",
    "MB/s",
    "n (trials × iters)",
)
PERFORMANCE_HEADERS = (
    "instance",
    "operation",
    "mean cycles",
    "mean time",
    "ops/s",
    "median trial",
    "n (trials × iters)",
)
#: Our own measurements: the process-level figure and where the next campaign may land (95 %).
SAMPLE_HEADER = "median per call (next campaign, 95 %)"
STACK_HEADER = "stack high-water"


def operation_header(data: CandidateData) -> str:
    """The second column of the per-operation tables."""
    return "message length" if data.is_hash else "operation"


def row_head(data: CandidateData, instance: Instance, row_key: RowKey) -> tuple[Cell, Cell]:
    """The instance and operation cells that start every per-operation row."""
    op, nbytes = row_key
    return (code(instance.label), text(operation_label(data.category, op, nbytes)))


#: Our own measurements: the same operation over a seeded pool of inputs (one process each).
INPUT_POOL_HEADER = "across inputs"


def performance_table(data: CandidateData) -> Table:
    with_samples = any(m.sample_median_cycles is not None for m in data.measurements)
    # Our campaigns have a precision target: what each figure reached, and a missed target, sit
    # next to the interval ("±14 %, target 1 % not reached: budget").
    with_precision = any(m.precision_reached is not None for m in data.measurements)
    with_pool = any(m.input_pool for m in data.measurements)
    rows = []
    for instance in data.instances:
        for row_key in data.row_keys:
            m = data.by_key.get((instance.pk, *row_key))
            figures = _hash_figures(m, row_key[1]) if data.is_hash else _operation_figures(m)
            extra = _sample_cells(m, with_samples=with_samples, with_precision=with_precision)
            if with_pool:
                extra += (text(fmt.format_input_spread(m.input_pool if m else None)),)
            rows.append(row_head(data, instance, row_key) + figures + (_n_cell(m),) + extra)
    headers = HASH_PERFORMANCE_HEADERS if data.is_hash else PERFORMANCE_HEADERS
    headers += (SAMPLE_HEADER,) if with_samples else ()
    headers += ("precision",) if with_precision else ()
    headers += (INPUT_POOL_HEADER,) if with_pool else ()
    return Table("performance", headers, tuple(rows))


def _sample_cells(
    m: Measurement | None, *, with_samples: bool, with_precision: bool
) -> tuple[Cell, ...]:
    """The extra cells of our own driver's rows: sample median with its next-campaign interval,
    precision reached against the target."""
    cells: tuple[Cell, ...] = (figure(_sample_median(m)),) if with_samples else ()
    if with_precision:
        precision = (
            fmt.format_precision(m.precision_reached, m.precision_target, m.target_missed_reason)
            if m is not None
            else fmt.MISSING
        )
        cells += (text(precision),)
    return cells


def _cycles_cell(m: Measurement | None) -> Cell:
    """Mean cycles, linked to the measurement's detail page (its trials)."""
    if m is None:
        return figure(fmt.MISSING)
    return text(fmt.format_cycles(m.mean_cycles), numeric=True, href=measurement_url(m.pk))


def _hash_figures(m: Measurement | None, nbytes: int) -> tuple[Cell, ...]:
    return (
        _cycles_cell(m),
        figure(fmt.format_cycles_per_byte(m.mean_cycles if m else None, nbytes)),
        figure(fmt.format_seconds(m.mean_seconds if m else None)),
        figure(fmt.format_general(m.throughput_mb_per_second if m else None)),
    )


def _operation_figures(m: Measurement | None) -> tuple[Cell, ...]:
    return (
        _cycles_cell(m),
        figure(fmt.format_seconds(m.mean_seconds if m else None)),
        figure(fmt.format_general(m.operations_per_second if m else None)),
        figure(fmt.format_seconds(m.median_trial_seconds if m else None)),
    )


def _n_cell(m: Measurement | None) -> Cell:
    if m is None or not m.measurements:
        return figure(fmt.MISSING)
    plan = m.plan or {}
    return figure(
        fmt.format_n(m.measurements, plan.get("trials"), plan.get("iterations_per_trial"))
    )


def _sample_median(m: Measurement | None) -> str:
    """The process-level median per call with the interval a new campaign is expected to land
    in (`Measurement.next_campaign_bounds`: the stored 95 % interval, √2 wider, plus the box's
    campaign-to-campaign spread)."""
    if m is None or m.sample_median_cycles is None:
        return fmt.MISSING
    bounds = m.next_campaign_bounds()
    if bounds is None:
        return fmt.format_cycles(m.sample_median_cycles)
    return fmt.format_cycles_interval(m.sample_median_cycles, *bounds)


def resources_table(data: CandidateData) -> Table:
    with_stack = any(m.stack_high_water_bytes is not None for m in data.measurements)
    rows = []
    for instance in data.instances:
        build = data.builds.get(instance.pk)
        for row_key in data.row_keys:
            m = data.by_key.get((instance.pk, *row_key))
            stack = (
                (figure(fmt.format_size_bytes(m.stack_high_water_bytes if m else None)),)
                if with_stack
                else ()
            )
            rows.append(
                row_head(data, instance, row_key)
                + (
                    figure(fmt.format_int(build.elf_load_bytes if build else None)),
                    figure(fmt.format_kib(m.baseline_rss_bytes if m else None)),
                    figure(fmt.format_kib(m.peak_rss_bytes if m else None)),
                )
                + stack
            )
    headers = ("instance", operation_header(data), "static: ELF image (bytes)")
    headers += ("baseline RSS", "peak RSS") + ((STACK_HEADER,) if with_stack else ())
    return Table("resources", headers, tuple(rows))
