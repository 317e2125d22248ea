"""Named write boundaries the durability tests can stop the indexer at: kill it there, or hold it there.

``IGRAPH_CRASH_AT=<site>:<n>`` sends SIGKILL to the process the n-th time ``reached(site)`` runs, so a test
can stop the indexer at an exact commit or savepoint boundary instead of guessing with sleeps.
``IGRAPH_HOLD_AT=<site>:<n>`` with ``IGRAPH_HOLD_FILE=<path>`` instead creates ``<path>.held`` there and waits
until ``<path>.release`` exists, so a test can read the index while a write is provably in progress.
``IGRAPH_CRASH_TRACE=<file>`` appends every site reached, one per line, so a test can count the points of a
run before choosing where to stop it. With none of these set, ``reached`` is a function that returns at once:
the environment is read a single time, at import.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

HOLD_LIMIT_S = 300.0  # a held writer gives up waiting, so a test that dies never leaves it hanging forever


def _parse(spec: str) -> tuple[str, int] | None:
    site, _, count = spec.rpartition(":")
    return (site, int(count)) if site and count.isdigit() and int(count) > 0 else None


_CRASH = _parse(os.environ.get("IGRAPH_CRASH_AT", ""))
_HOLD = _parse(os.environ.get("IGRAPH_HOLD_AT", ""))
_HOLD_FILE = os.environ.get("IGRAPH_HOLD_FILE", "")
_TRACE = os.environ.get("IGRAPH_CRASH_TRACE", "")
_passes: dict[str, int] = {}


def _off(site: str) -> None:
    """No point is armed: nothing to do."""


def _armed(site: str) -> None:
    """Record ``site`` (when tracing), then kill or hold the process at the chosen pass."""
    if _TRACE:
        with open(_TRACE, "a", encoding="utf-8") as fh:
            fh.write(site + "\n")
    n = _passes[site] = _passes.get(site, 0) + 1
    if (site, n) == _CRASH:
        os.kill(os.getpid(), signal.SIGKILL)  # no cleanup, no flush: what a power cut or an OOM kill leaves
    if (site, n) == _HOLD and _HOLD_FILE:
        Path(_HOLD_FILE + ".held").touch()
        deadline = time.monotonic() + HOLD_LIMIT_S
        while not os.path.exists(_HOLD_FILE + ".release") and time.monotonic() < deadline:
            time.sleep(0.01)


reached = _armed if (_CRASH or _HOLD or _TRACE) else _off
