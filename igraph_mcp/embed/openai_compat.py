"""Embedding backend for any OpenAI-compatible ``POST /v1/embeddings`` endpoint (vLLM, TEI, Ollama, ...).

The API key is read from an environment variable at request time and only ever placed in the
Authorization header: it is redacted from every error message and never logged or shown in a repr.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import numpy as np
import numpy.typing as npt

from igraph_mcp.embed.base import Vectors
from igraph_mcp.errors import ConfigError, EmbedderError

log = logging.getLogger(__name__)

_RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
_MAX_RETRY_AFTER = 10.0  # never sleep longer than this on a server's Retry-After
_BODY_SNIPPET = 200
_PROBE_TEXT = "dimension probe"


def _public_url(url: str) -> str:
    """The URL without any user:password part, safe for messages and logs."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def _retry_after(response: httpx.Response, default: float) -> float:
    """Seconds to wait before retrying: the server's Retry-After (bounded) or our own backoff."""
    value = response.headers.get("retry-after", "")
    try:
        return min(max(float(value), 0.0), _MAX_RETRY_AFTER)
    except ValueError:
        return default


class OpenAICompatEmbedder:
    """Embeds through an OpenAI-compatible HTTP endpoint; validates count and dimension, normalises."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        dimension: int | None = None,
        api_key_env: str = "IGRAPH_API_KEY",
        timeout: float = 30.0,
        batch_size: int = 64,
        max_attempts: int = 3,
        backoff: float = 0.5,
    ) -> None:
        parts = urlsplit(base_url or "")
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError("The openai embedder needs a base URL like http://127.0.0.1:8080/v1 (http or https).")
        if not model:
            raise ConfigError("The openai embedder needs a model name (the 'model' field sent to /embeddings).")
        if dimension is not None and dimension < 1:
            raise ConfigError("The embedding dimension must be a positive integer.")
        if batch_size < 1 or max_attempts < 1 or timeout <= 0:
            raise ConfigError("batch_size, max_attempts and timeout must be positive.")
        self._base_url = base_url.rstrip("/")
        self._public = _public_url(self._base_url)
        self._model = model
        self._dimension = dimension
        self._api_key_env = api_key_env
        self._timeout = timeout
        self._batch_size = batch_size
        self._max_attempts = max_attempts
        self._backoff = backoff
        self._lock = threading.RLock()  # re-entered: the dimension probe builds the client
        self._client: httpx.Client | None = None

    def __repr__(self) -> str:
        return f"OpenAICompatEmbedder(base_url={self._public!r}, model={self._model!r})"

    @property
    def id(self) -> str:
        """Stable id, ``openai:<model>``."""
        return f"openai:{self._model}"

    @property
    def dimension(self) -> int:
        """Vector length: as configured, or discovered by embedding one probe text on first use."""
        if self._dimension is None:
            with self._lock:
                if self._dimension is None:
                    probe = self._request([_PROBE_TEXT], expected_dim=None)
                    self._dimension = int(probe.shape[1])
        return self._dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed documents in batches; shape (len(texts), dimension), rows unit length."""
        dim = self.dimension
        if not texts:
            return np.empty((0, dim), dtype=np.float32)
        chunks = [
            self._request(texts[i : i + self._batch_size], expected_dim=dim)
            for i in range(0, len(texts), self._batch_size)
        ]
        return np.concatenate(chunks, axis=0)

    def embed_query(self, text: str) -> Vectors:
        """Embed one query; shape (dimension,), unit length."""
        row: Vectors = self.embed([text])[0]
        return row

    def close(self) -> None:
        """Close the HTTP connection pool (optional; also released at interpreter exit)."""
        if self._client is not None:
            self._client.close()
            self._client = None

    # --- internals -------------------------------------------------------------------------

    def _http(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                # No httpx-level retries: our loop decides what is worth retrying.
                self._client = httpx.Client(timeout=self._timeout, follow_redirects=False)
            return self._client

    def _redact(self, text: str) -> str:
        key = os.environ.get(self._api_key_env, "")
        if key:
            text = text.replace(key, "***")
        return text

    def _fail(self, message: str) -> EmbedderError:
        return EmbedderError(self._redact(message))

    def _post(self, payload: dict[str, Any]) -> httpx.Response:
        """POST with bounded retries on 429/5xx; transport failures become clear EmbedderErrors."""
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self._api_key_env, "")
        if key:
            headers["Authorization"] = f"Bearer {key}"
        url = f"{self._base_url}/embeddings"
        for attempt in range(1, self._max_attempts + 1):
            try:
                response = self._http().post(url, json=payload, headers=headers)
            except httpx.TimeoutException:
                # Not retried: a hung endpoint would otherwise stall indexing for attempts * timeout.
                raise self._fail(
                    f"The embedding endpoint {self._public} did not answer within {self._timeout:g}s. "
                    "Check that the server is up, or raise the timeout."
                ) from None
            except httpx.TransportError as exc:
                raise self._fail(
                    f"Cannot connect to the embedding endpoint {self._public} ({type(exc).__name__}). "
                    "Start the server or fix the base URL, or run with embedder none."
                ) from None
            if response.status_code not in _RETRY_STATUS or attempt == self._max_attempts:
                return response
            wait = _retry_after(response, self._backoff * 2 ** (attempt - 1))
            log.warning(
                "embedding endpoint %s answered HTTP %d (attempt %d of %d); retrying in %.1fs",
                self._public,
                response.status_code,
                attempt,
                self._max_attempts,
                wait,
            )
            time.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover

    def _check_status(self, response: httpx.Response) -> None:
        status = response.status_code
        if status < 400:
            return
        if status in (401, 403):
            # The body is not echoed here: some servers quote part of the rejected key.
            raise self._fail(
                f"The embedding endpoint {self._public} rejected the credentials (HTTP {status}). "
                f"Set a valid key in the {self._api_key_env} environment variable."
            )
        if status == 404:
            raise self._fail(
                f"The embedding endpoint {self._public}/embeddings was not found (HTTP 404), or it does not "
                f"serve model {self._model!r}. The base URL usually ends in /v1."
            )
        snippet = " ".join(response.text[:_BODY_SNIPPET].split())
        raise self._fail(
            f"The embedding endpoint {self._public} failed with HTTP {status}"
            + (f" after {self._max_attempts} attempts" if status in _RETRY_STATUS else "")
            + (f": {snippet}" if snippet else "")
            + "."
        )

    def _request(self, texts: Sequence[str], *, expected_dim: int | None) -> Vectors:
        # Many servers reject empty strings and lone surrogates break JSON encoding.
        inputs = [t.encode("utf-8", "replace").decode("utf-8") if t.strip() else " " for t in texts]
        response = self._post({"model": self._model, "input": inputs})
        self._check_status(response)
        vectors = self._parse(response, len(inputs), expected_dim)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        if np.any(norms == 0.0):
            raise self._fail(f"The embedding endpoint {self._public} returned an all-zero vector.")
        unit: Vectors = (vectors / norms).astype(np.float32)
        return unit

    def _parse(self, response: httpx.Response, count: int, expected_dim: int | None) -> npt.NDArray[np.float64]:
        try:
            data = response.json()["data"]
            rows = sorted(data, key=lambda item: item.get("index", 0)) if isinstance(data, list) else None
        except (ValueError, KeyError, TypeError, AttributeError):
            rows = None
        if rows is None:
            raise self._fail(
                f"The embedding endpoint {self._public} did not return an OpenAI-style "
                "{'data': [{'embedding': [...]}]} body."
            )
        if len(rows) != count:
            raise self._fail(f"The embedding endpoint {self._public} returned {len(rows)} vectors for {count} texts.")
        want = expected_dim
        out: list[list[float]] = []
        for row in rows:
            vec = row.get("embedding") if isinstance(row, dict) else None
            if not isinstance(vec, list) or not vec:
                raise self._fail(
                    f"The embedding endpoint {self._public} returned a non-list embedding "
                    "(is it sending base64? use a float encoding)."
                )
            if want is None:
                want = len(vec)
            if len(vec) != want:
                raise self._fail(
                    f"The embedding endpoint {self._public} returned vectors of dimension {len(vec)}, "
                    f"expected {want}. Fix the configured dimension or the model, then re-index."
                )
            out.append(vec)
        try:
            array = np.asarray(out, dtype=np.float64)
        except (TypeError, ValueError):
            raise self._fail(f"The embedding endpoint {self._public} returned non-numeric values.") from None
        if not np.isfinite(array).all():
            raise self._fail(f"The embedding endpoint {self._public} returned NaN or infinite values.")
        return array
