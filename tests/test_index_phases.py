"""Phase counts and seconds of an index run (PhaseClock), and how they reach IndexResult and the text summary."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pytest
from _factories import make_repo, make_service

from igraph_mcp.embed.base import Vectors
from igraph_mcp.embed.hashing import HashingEmbedder
from igraph_mcp.errors import EmbedderError
from igraph_mcp.index.embedding import embed_nodes
from igraph_mcp.index.phases import PhaseClock, describe_phases
from igraph_mcp.server_state import ServerState
from igraph_mcp.store.vectors import prepare_vector_tables


class _FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_phase_clock_counts_and_contiguous_seconds() -> None:
    fake = _FakeClock()
    seen: list[tuple[str, int, int]] = []
    clock = PhaseClock(lambda p, d, t: seen.append((p, d, t)), clock=fake)
    fake.now = 101.0
    clock.update("scan", 0, 10)
    fake.now = 101.5
    clock.update("scan", 10, 10)
    fake.now = 104.0
    clock.update("parse", 4, 4)
    fake.now = 110.0
    clock.update("embed", 128, 256)
    timings = clock.timings()
    assert [(t.phase, t.done, t.total, t.seconds) for t in timings] == [
        ("scan", 10, 10, 1.5),  # from the clock's start: the walk before the first report counts as scan
        ("parse", 4, 4, 2.5),
        ("embed", 128, 256, 6.0),
    ]
    assert seen[-1] == ("embed", 128, 256)  # reports are passed on unchanged
    assert describe_phases(timings) == "scan 10/10 1.50s · parse+FTS 4/4 2.50s · embed 128/256 6.00s"


def test_server_state_records_the_phases_of_its_builds(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"pkg/a.py": "def alpha():\n    return 1\n"})
    state = ServerState(make_service(root))
    try:
        assert state.phases() == []
        result = state.build(origin="test")
    finally:
        state.service.close()
    phases = {p.phase: p for p in state.phases()}
    assert list(phases) == ["scan", "parse", "resolve", "embed"]
    assert phases["embed"].done == phases["embed"].total == result.embedded >= result.symbols > 0
    assert phases["parse"].done == result.parsed and state.has_index


class _StopsAfterOneBatch(HashingEmbedder):
    """Embeds one batch, then fails: an embedding phase cut short (a build stopped, or still running)."""

    def __init__(self) -> None:
        super().__init__(64)
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.calls += 1
        if self.calls > 1:
            raise EmbedderError("stopped for the test")
        return super().embed(texts)


def test_partly_embedded_index_answers_degraded_with_counts(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"pkg/a.py": "def alpha():\n    return 1\n"})
    service = make_service(root)
    try:
        service.index(embed=False)
        embedder = _StopsAfterOneBatch()
        with service._writer() as db:
            prepare_vector_tables(db, embedder)
            with pytest.raises(EmbedderError):
                embed_nodes(db, embedder, batch_size=5)
        result = service.explore("alpha", hops=0)
    finally:
        service.close()
    assert result.degraded is True and "dense" in result.diagnostics.channels
    assert result.note is not None and re.search(r"dense channel: 5/\d+ symbols embedded", result.note)
