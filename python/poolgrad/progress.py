# SPDX-License-Identifier: Apache-2.0
"""A one-line progress bar for long suites: counts, the current case and an ETA, redrawn in
place on a terminal; nothing at all when the stream is a pipe or a file (so logs stay clean)."""
from __future__ import annotations

import sys
import time


def _clock(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class Progress:
    WIDTH = 24

    def __init__(self, total: int, label: str, stream=None, clock=time.monotonic):
        self.total, self.label, self.done = total, label, 0
        self.stream = sys.stderr if stream is None else stream
        self.clock = clock
        self.start = clock()
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())

    def step(self, what: str = "") -> None:
        self.done += 1
        if not self.live:
            return
        elapsed = self.clock() - self.start
        eta = elapsed / self.done * (self.total - self.done)
        filled = self.WIDTH * self.done // max(self.total, 1)
        bar = "#" * filled + "." * (self.WIDTH - filled)
        self.stream.write(f"\r{self.label} [{bar}] {self.done}/{self.total} ETA {_clock(eta)} {what[:30]:<30}")
        if self.done >= self.total:
            self.stream.write(f"\r{self.label}: {self.total} done in {_clock(elapsed)}{' ' * 60}\n")
        self.stream.flush()
