"""A server reads the vectors and opens the model on start, in the background, so its first answer does not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _factories import make_repo, make_service

from igraph_mcp.server_state import ServerState
from igraph_mcp.store import vectors as vec_store

FILES = {
    "app/auth.py": "def check_password(user, password):\n    return user.hash == hash(password)\n",
    "app/session.py": "from app.auth import check_password\n\ndef login(user, password):\n"
    "    return check_password(user, password)\n",
}


def test_a_started_server_reads_the_vectors_and_opens_the_model_before_the_first_question(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_repo(tmp_path, FILES)
    svc = make_service(root)
    svc.index()
    reads: list[int] = []
    asked: list[str] = []
    read_all = vec_store.all_node_vectors

    def counted(db: Any) -> Any:
        reads.append(1)
        return read_all(db)

    embedder = svc.embedder()
    assert embedder is not None
    embed_query = embedder.embed_query

    def asked_query(text: str) -> Any:
        asked.append(text)
        return embed_query(text)

    monkeypatch.setattr(vec_store, "all_node_vectors", counted)
    monkeypatch.setattr(embedder, "embed_query", asked_query)
    state = ServerState(svc)
    state.attach()
    try:
        assert state.warming is not None
        state.warming.join(timeout=60)
        assert not state.warming.is_alive()
        assert reads == [1] and len(asked) == 1  # the matrix is read and the model asked once, with no question
        answer = svc.explore("check the password of a user", channels=("fts", "dense"))
        assert "dense" in answer.diagnostics.channels
        assert reads == [1]  # the first question scans the matrix read on start
    finally:
        state.detach()
        svc.close()


def test_warming_a_server_without_an_index_reads_nothing_and_fails_nothing(tmp_path: Path) -> None:
    root = make_repo(tmp_path, FILES)
    svc = make_service(root)
    state = ServerState(svc)
    state.attach()
    try:
        assert state.warming is not None
        state.warming.join(timeout=60)
        assert not state.warming.is_alive() and not svc.is_indexed()
        assert state.last_error is None
    finally:
        state.detach()
        svc.close()
