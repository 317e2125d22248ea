"""Binding a list of values to ``IN (...)``: the placeholders, and batches small enough for one statement."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

# SQLite caps the parameters one statement binds (999 before 3.32); stay well under the limit.
MAX_BOUND = 900

_T = TypeVar("_T")


def placeholders(n: int) -> str:
    """``?,?,?`` for ``n`` values."""
    return ",".join("?" * n)


def batches(items: Sequence[_T], size: int = MAX_BOUND) -> Iterator[Sequence[_T]]:
    """Consecutive slices of at most ``size`` items."""
    for i in range(0, len(items), size):
        yield items[i : i + size]
