"""A plain text progress bar for management commands (stderr, redrawn in place on a TTY)."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from measurements.formatting import format_seconds


class ProgressBar:
    def __init__(self, label: str, stream: TextIO | None = None, width: int = 30) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.width = width
        self.started = time.monotonic()
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self._last_percent = -1

    def __call__(self, done: int, total: int, item: str = "") -> None:
        """Draw with an ETA extrapolated from this bar's own elapsed time (one-shot loops)."""
        elapsed = time.monotonic() - self.started
        eta_s = elapsed / done * (total - done) if done else None
        self.show(done, total, item, eta_s=eta_s)

    def show(self, done: int, total: int, item: str = "", *, eta_s: float | None) -> None:
        """Draw with an ETA computed by the caller (None: not known yet)."""
        total = max(total, 1)
        filled = int(self.width * done / total)
        percent = int(100 * done / total)
        eta = format_seconds(eta_s) if eta_s is not None else "unknown"
        line = (
            f"{self.label} [{'#' * filled}{'.' * (self.width - filled)}] "
            f"{done}/{total} {percent:3d}% ETA {eta} {item[:50]}"
        )
        if self.tty:
            self.stream.write("\r" + line.ljust(120))
            if done >= total:
                self.stream.write("\n")
        elif percent // 10 != self._last_percent // 10 or done >= total:
            self.stream.write(line + "\n")
        self._last_percent = percent
        self.stream.flush()
