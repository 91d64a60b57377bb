"""Index progress for people: a live line on a terminal, a line every few seconds in a
log or a pipe. Both give counts, the embedding rate and an ETA from the first batch.

The ETA is the current stage's work still to do at the rate it has been done so far:
bytes of the files that need reading and parsing, then chunks that need a vector (see
`indexing.pipeline.Progress`), which moves with every batch of 32 embedded texts.
Search works from the end of the file stage on: the line says so.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TextIO

from codecompass.indexing.pipeline import Progress

LOG_INTERVAL = 4.0  # seconds between log lines: the promise is "at least every 5 s"


def clock(seconds: float) -> str:
    seconds = max(0, int(seconds + 0.5))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class ProgressView:
    """The latest `Progress` of a run and how to say it; `update` may be called from
    another thread than the one that renders."""

    def __init__(self, label: str, now: Callable[[], float] = time.monotonic) -> None:
        self.label = label
        self._now = now
        self._started = now()
        self._stage_started: float | None = None
        self._latest = Progress()
        self._lock = threading.Lock()

    def update(self, progress: Progress) -> bool:
        """Keep a copy; True when the stage changed, or when the vectors stage learned
        how many vectors it has to write (a log says so at once, not at the next tick)."""
        with self._lock:
            changed = progress.stage != self._latest.stage
            if changed:
                self._stage_started = self._now()
            counted = progress.stage == "vectors" and bool(progress.vectors_total)
            news = changed or (counted and not self._latest.vectors_total)
            self._latest = replace(progress)
            return news

    def eta(self) -> float | None:
        """Seconds left for the files or the vectors, or None before anything is done."""
        with self._lock:
            p, began = self._latest, self._stage_started
        if p.stage not in ("files", "vectors") or began is None:
            return None
        done, elapsed = p.share_done, self._now() - began
        if done <= 0 or elapsed <= 0:
            return None
        return (1 - done) * elapsed / done

    def line(self) -> str:
        with self._lock:
            p = self._latest
        elapsed = f"{clock(self._now() - self._started)} elapsed"
        if p.stage == "discover":
            return f"indexing {self.label}: listing files · {elapsed}"
        files = f"{p.files_done}/{p.files_total} files"
        if p.stage == "graph":
            return f"indexing {self.label}: {files} · linking the code graph · {elapsed}"
        if p.stage == "similar":
            return f"indexing {self.label}: searchable now · linking similar code · {elapsed}"
        share = 100 * p.share_done
        eta = self.eta()
        left = f"ETA {clock(eta) if eta is not None else 'estimating'}"
        if p.stage == "vectors" and not p.vectors_total:
            return f"indexing {self.label}: searchable now · checking vectors · {elapsed}"
        if p.stage == "vectors":
            rate = f" ({p.embedded / p.embed_seconds:.0f}/s)" if p.embed_seconds > 0 else ""
            return (
                f"indexing {self.label}: searchable now · vectors "
                f"{p.vectors_done}/{p.vectors_total} ({share:.1f}%) · "
                f"{p.embedded} embedded{rate} · {elapsed} · {left}"
            )
        return (
            f"indexing {self.label}: {files} ({share:.1f}%) · {p.chunks} chunks · "
            f"{elapsed} · {left}"
        )


@contextmanager
def progress_reporter(
    label: str, stream: TextIO, *, terminal: bool, interval: float = LOG_INTERVAL
) -> Iterator[Callable[[Progress], None]]:
    """A callback for `Engine.index`. On a terminal one line redraws in place; anywhere
    else a line is written every `interval` seconds and when the stage changes."""
    view = ProgressView(label)
    if terminal:
        from rich.console import Console
        from rich.live import Live
        from rich.text import Text

        class _Line:
            def __rich__(self) -> Text:
                return Text(view.line())

        def redraw(progress: Progress) -> None:
            view.update(progress)  # the next refresh shows it

        console = Console(file=stream, soft_wrap=True)
        with Live(_Line(), console=console, refresh_per_second=4, transient=True):
            yield redraw
        return

    lock = threading.Lock()
    stop = threading.Event()

    def write() -> None:
        with lock:
            stream.write(view.line() + "\n")
            stream.flush()

    def tick() -> None:
        while not stop.wait(interval):
            write()

    def update(progress: Progress) -> None:
        if view.update(progress):
            write()

    ticker = threading.Thread(target=tick, name="index-progress", daemon=True)
    ticker.start()
    try:
        yield update
    finally:
        stop.set()
        ticker.join()
