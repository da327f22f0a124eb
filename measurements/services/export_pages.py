"""Markdown export of the candidate pages, in the format of the published static pages.

Each file is `measurements.rendering.markdown.candidate_markdown` of the same page builder as the
web page (`selectors.pages.candidate`), so the web page and the exported file always show the
same figures.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from measurements.models import Measurement
from measurements.rendering.markdown import candidate_markdown
from measurements.selectors.pages.candidate import candidate_page

ProgressCallback = Callable[[int, int, str], None]


def submissions_with_data(system_key: str) -> list[str]:
    """Submission keys with at least one measurement on `system_key`, in key order."""
    return list(
        Measurement.objects.filter(campaign__system__key=system_key)
        .order_by("instance__submission__key")
        .values_list("instance__submission__key", flat=True)
        .distinct()
    )


def export_pages(
    *,
    system_key: str,
    out_dir: Path,
    submissions: list[str] | None = None,
    progress: ProgressCallback | None = None,
) -> list[Path]:
    """Write `<out>/<id>/perf_<system>.md` for every submission with data; returns the paths."""
    keys = submissions if submissions is not None else submissions_with_data(system_key)
    written: list[Path] = []
    for done, key in enumerate(keys, start=1):
        page = candidate_page(system_key, key)
        path = Path(out_dir) / key / f"perf_{system_key}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(candidate_markdown(page), encoding="utf-8")
        written.append(path)
        if progress:
            progress(done, len(keys), str(path))
    return written
