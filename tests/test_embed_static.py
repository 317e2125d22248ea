"""The static embedder: word-piece rows from a table, their mean per text; the table checked before use."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from _factories import make_repo, make_service

from igraph_mcp.embed import shipped
from igraph_mcp.embed import static as static_embed
from igraph_mcp.embed.registry import make_embedder
from igraph_mcp.embed.static import StaticEmbedder, write_table
from igraph_mcp.errors import EmbedderError
from igraph_mcp.paths import file_sha256


def _vocab_size() -> int:
    tokenizer_file = shipped.load().verify(shipped.TOKENIZER_FILE)
    return len(json.loads(tokenizer_file.read_text(encoding="utf-8"))["model"]["vocab"])


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random table over the shipped tokenizer's pieces: what the mean and the lookups do, not what they mean."""
    rows = np.random.default_rng(7).normal(size=(_vocab_size(), 24)).astype(np.float32)
    path = tmp_path_factory.mktemp("static") / "table.npz"
    write_table(path, rows, {"dims": 24})
    return path


def test_vectors_are_unit_length_and_the_same_alone_or_in_a_batch(table: Path) -> None:
    emb = StaticEmbedder(table, sha256="")
    texts = ["def parse_file(path)", "class HttpClient:\n    pass", "名前 🙂", "x" * 10_000]
    batch = emb.embed(texts)
    assert batch.shape == (4, 24) and batch.dtype == np.float32 and emb.dimension == 24
    np.testing.assert_allclose(np.linalg.norm(batch, axis=1), 1.0, rtol=1e-5)
    for i, text in enumerate(texts):
        np.testing.assert_array_equal(emb.embed([text])[0], batch[i])
    np.testing.assert_array_equal(emb.embed_query(texts[0]), batch[0])
    assert emb.embed([]).shape == (0, 24)


def test_a_text_is_the_mean_of_its_pieces_rows(table: Path) -> None:
    from tokenizers import Tokenizer

    emb = StaticEmbedder(table, sha256="")
    tokenizer = Tokenizer.from_file(str(shipped.load().verify(shipped.TOKENIZER_FILE)))
    tokenizer.no_padding()  # the shipped file pads to 128 pieces
    ids = tokenizer.encode("resolve redirects", add_special_tokens=False).ids
    with np.load(table) as data:
        rows = data["rows"].astype(np.float32) * data["scale"][:, None]
    expected = rows[ids].mean(axis=0)
    np.testing.assert_allclose(emb.embed_query("resolve redirects"), expected / np.linalg.norm(expected), rtol=1e-5)
    # Sharing pieces brings texts closer; a text of no pieces still gets a unit vector.
    near, far, empty = emb.embed(["resolve redirects here", "class Pool", ""])
    q = emb.embed_query("resolve redirects")
    assert float(q @ near) > float(q @ far)
    assert np.linalg.norm(empty) == pytest.approx(1.0)


def test_only_a_text_s_head_is_read(table: Path) -> None:
    emb = StaticEmbedder(table, sha256="")
    head = " ".join(f"word{i}" for i in range(static_embed.MAX_PIECES))  # at least MAX_PIECES pieces
    a, b, c = emb.embed([head + " parse request", head + " close socket", "close socket " + head])
    np.testing.assert_array_equal(a, b)  # the pieces past the limit do not count
    assert not np.array_equal(b, c)


def test_a_missing_damaged_or_foreign_table_is_refused_with_the_way_out(
    table: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(EmbedderError, match=r"missing.*embedder\.model at a table made by training/distill_static"):
        _ = StaticEmbedder(tmp_path / "absent.npz", sha256="").dimension
    monkeypatch.setattr(static_embed, "TABLE", tmp_path / "shipped.npz")
    with pytest.raises(EmbedderError, match=r"missing.*reinstall igraph-mcp.*embedder\.backend to 'local'"):
        _ = StaticEmbedder(tmp_path / "shipped.npz").dimension
    with pytest.raises(EmbedderError, match="damaged"):
        StaticEmbedder(table, sha256="0" * 64).embed(["x"])
    foreign = tmp_path / "small.npz"
    write_table(foreign, np.ones((10, 4), dtype=np.float32), {})
    with pytest.raises(EmbedderError, match="does not fit the tokenizer"):
        StaticEmbedder(foreign, sha256="").embed(["x"])
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"not a table")
    with pytest.raises(EmbedderError, match="cannot read"):
        StaticEmbedder(garbage, sha256="").embed(["x"])


def test_the_id_names_the_table_so_another_table_embeds_again(table: Path) -> None:
    checked = StaticEmbedder(table, sha256=file_sha256(table))
    assert checked.id == f"static:{static_embed.NAME}:{file_sha256(table)[:12]}:{static_embed.MAX_PIECES}"
    assert checked.embed(["x"]).shape == (1, 24)  # the sha256 matches: accepted


def test_a_table_of_the_user_s_is_named_by_its_contents(table: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.npz"
    write_table(other, np.ones((_vocab_size(), 24), dtype=np.float32), {})
    first, second = StaticEmbedder(table, sha256=""), StaticEmbedder(other, sha256="")
    assert first.id == f"static:{static_embed.NAME}:{file_sha256(table)[:12]}:{static_embed.MAX_PIECES}"
    assert first.id != second.id  # switching tables re-embeds; vectors of two tables are never mixed
    assert first.embed(["x"]).shape == (1, 24)  # named by its sha256, not checked against one


def test_the_registry_builds_it_from_a_table_file(table: Path) -> None:
    emb = make_embedder("static", model=str(table))
    assert isinstance(emb, StaticEmbedder) and emb.dimension == 24
    assert isinstance(make_embedder("Static"), StaticEmbedder)


# --- the shipped table ---------------------------------------------------------------------------


def test_the_shipped_table_is_checked_and_records_the_model_it_came_from() -> None:
    emb = StaticEmbedder()
    assert emb.dimension == 256 and emb.id == f"static:minilm-static-v1:{static_embed.TABLE_SHA256[:12]}:128"
    assert file_sha256(static_embed.TABLE) == static_embed.TABLE_SHA256
    with np.load(static_embed.TABLE) as data:
        header = json.loads(bytes(data[static_embed.HEADER_KEY]).decode())
    model = shipped.load()
    assert header["from_model_sha256"] == model.sha256[shipped.MODEL_FILE]
    assert header["tokenizer_sha256"] == model.sha256[shipped.TOKENIZER_FILE]


@pytest.mark.both_stores
def test_a_service_on_the_static_embedder_finds_code_by_the_words_of_a_question(tmp_path: Path) -> None:
    files = {
        "server/shutdown.py": (
            "def stop_accepting(listener):\n"
            "    '''Stop taking new connections and close the open ones before the process exits.'''\n"
            "    listener.close()\n"
            "    for conn in listener.connections:\n"
            "        conn.terminate()\n"
        ),
        "billing/invoices.py": (
            "def total_due(lines):\n"
            "    '''Sum an invoice's lines after tax.'''\n"
            "    return sum(l.amount for l in lines)\n"
        ),
    }
    svc = make_service(make_repo(tmp_path, files), embedder=make_embedder("static"))
    try:
        summary = svc.index()
        status = svc.status()
        out = svc.explore("terminate every open connection when the server shuts down", channels=("dense",), hops=0)
        money = svc.explore("how much does the customer owe including taxes", channels=("dense",), hops=0)
    finally:
        svc.close()
    assert summary.embedded > 0
    assert status.embedder == StaticEmbedder().id and status.embedderDimension == 256
    # The module holding a definition may come first (its text holds the definition's), then the definition (a module
    # below it is left out); the filler never comes first.
    expected = ((out, "server/shutdown.py", "stop_accepting"), (money, "billing/invoices.py", "total_due"))
    for answer, path, name in expected:
        assert answer.hits[0].filePath == path
        assert name in [h.name for h in answer.hits[:2] if h.filePath == path]


def test_embedders_of_one_table_share_its_rows(table: Path) -> None:
    first, second = StaticEmbedder(table, sha256=""), StaticEmbedder(table, sha256=file_sha256(table))
    first.embed(["x"])
    second.embed(["x"])
    assert first._rows is second._rows  # one copy per process, as a workspace's repositories need
