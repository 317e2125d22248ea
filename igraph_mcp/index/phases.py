"""Per-phase counts and seconds of an index run (scan, parse + FTS rows, resolve, embed), from its progress calls."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from igraph_mcp.models import PhaseTiming

# A progress report: (phase, done, total); every index phase reports through one of these.
Progress = Callable[[str, int, int], None]


class PhaseClock:
    """A progress callback that remembers, per phase, the latest count and the seconds spent so far.

    A phase starts when the previous one last reported (the first when the clock was made), so the walk before
    the first scan report counts as scan and the phases add up to the run's wall time.
    """

    def __init__(self, forward: Progress | None = None, clock: Callable[[], float] = time.perf_counter) -> None:
        self._forward = forward
        self._clock = clock
        self._lock = threading.Lock()
        self._last_report = clock()
        self._phases: dict[str, list[float]] = {}  # phase -> [start, last report, done, total]

    def update(self, phase: str, done: int, total: int) -> None:
        """Record a progress report, then pass it on."""
        now = self._clock()
        with self._lock:
            entry = self._phases.get(phase)
            if entry is None:
                self._phases[phase] = [self._last_report, now, max(done, 0), max(total, 0)]
            else:
                entry[1:] = [now, max(done, 0), max(total, 0)]
            self._last_report = now
        if self._forward is not None:
            self._forward(phase, done, total)

    def timings(self) -> list[PhaseTiming]:
        """The phases seen so far, in order, with their latest counts and seconds."""
        with self._lock:
            return [
                PhaseTiming(phase=name, done=int(e[2]), total=int(e[3]), seconds=round(e[1] - e[0], 3))
                for name, e in self._phases.items()
            ]


def describe_phases(phases: list[PhaseTiming]) -> str:
    """One line such as ``scan 120/120 0.05s · parse+FTS 37/37 0.80s · resolve 0.10s · embed 256/816 4.2s``."""
    parts = []
    for p in phases:
        label = "parse+FTS" if p.phase == "parse" else p.phase
        counts = f" {p.done}/{p.total}" if p.total > 1 else ""
        parts.append(f"{label}{counts} {p.seconds:.2f}s")
    return " · ".join(parts)


class RateMeter:
    """Items per second of the current phase, timed from the phase's first report (earlier phases not counted)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._phase = ""
        self._start = (0.0, 0)  # (time, done) of the phase's first report

    def update(self, phase: str, done: int) -> float:
        """Record a report; returns the phase's rate so far (0.0 until an item was done after its first report)."""
        now = self._clock()
        if phase != self._phase:
            self._phase, self._start = phase, (now, done)
            return 0.0
        seconds, items = now - self._start[0], done - self._start[1]
        return items / seconds if seconds > 0 and items > 0 else 0.0
