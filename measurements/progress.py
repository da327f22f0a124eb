"""A plain text progress bar for management commands (stderr, redrawn in place on a TTY)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressBar:
    def __init__(self, label: str, stream: TextIO | None = None, width: int = 30) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.width = width
        self.started = time.monotonic()
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self._last_percent = -1

    def __call__(self, done: int, total: int, item: str = "") -> None:
        total = max(total, 1)
        filled = int(self.width * done / total)
        percent = int(100 * done / total)
        elapsed = time.monotonic() - self.started
        eta = elapsed / done * (total - done) if done else 0.0
        line = (
            f"{self.label} [{'#' * filled}{'.' * (self.width - filled)}] "
            f"{done}/{total} {percent:3d}% eta {eta:5.1f}s {item[:50]}"
        )
        if self.tty:
            self.stream.write("\r" + line.ljust(120))
            if done >= total:
                self.stream.write("\n")
        elif percent // 10 != self._last_percent // 10 or done >= total:
            self.stream.write(line + "\n")
        self._last_percent = percent
        self.stream.flush()
