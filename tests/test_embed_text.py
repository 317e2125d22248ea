"""The per-symbol embedding text: identifier splitting, content order, bounds, hashing."""

from __future__ import annotations

import hashlib

import pytest

from igraph_mcp.embed.text import (
    DEFAULT_MAX_CHARS,
    collapse_whitespace,
    split_identifier,
    symbol_embedding_text,
    text_hash,
)


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("parse_file", ["parse", "file"]),
        ("parseFile", ["parse", "file"]),
        ("ParseFile", ["parse", "file"]),
        ("parseHTTPResponse", ["parse", "http", "response"]),
        ("HTTPServer", ["http", "server"]),
        ("utf8Decode", ["utf", "8", "decode"]),
        ("sha256sum", ["sha", "256", "sum"]),
        ("MAX_RETRY_COUNT", ["max", "retry", "count"]),
        ("__init__", ["init"]),
        ("kebab-case-name", ["kebab", "case", "name"]),
        ("Parser.parse_file", ["parser", "parse", "file"]),
        ("Foo::bar", ["foo", "bar"]),
        ("src/igraph_mcp/embed/localModel.py", ["src", "igraph", "mcp", "embed", "local", "model", "py"]),
        ("größeBerechnen", ["größe", "berechnen"]),
        ("", []),
        ("___", []),
        ("x", ["x"]),
        ("A", ["a"]),
        ("ABC", ["abc"]),
        ("v2", ["v", "2"]),
        ("名前Name", ["名前", "name"]),
        ("a\x00b", ["a", "b"]),
    ],
)
def test_split_identifier(name: str, words: list[str]) -> None:
    assert split_identifier(name) == words


def make_text(**overrides: object) -> str:
    fields: dict[str, object] = {
        "kind": "method",
        "name": "sendRequest",
        "qualified_name": "HttpClient.sendRequest",
        "path": "src/net/httpClient.ts",
        "signature": "sendRequest(url: string, body: Buffer): Promise<Response>",
        "docstring": "Send an HTTP request and wait for the response.\n\nRetries twice on 503.",
        "body": "async sendRequest(url: string, body: Buffer): Promise<Response> {\n"
        "    const res = await fetch(url, { method: 'POST', body });\n    return res;\n}",
    }
    fields.update(overrides)
    return symbol_embedding_text(**fields)  # type: ignore[arg-type]


def test_text_puts_identity_first_then_signature_doc_body() -> None:
    text = make_text()
    lines = text.split("\n")
    assert lines[0] == "method HttpClient.sendRequest (http client send request)"
    assert lines[1] == "file src/net/httpClient.ts (src net http client ts)"
    assert lines[2].startswith("sendRequest(url: string")
    assert lines[3] == "Send an HTTP request and wait for the response. Retries twice on 503."
    assert "fetch(url, { method: 'POST', body });" in lines[4]
    # The body does not repeat the signature the text already carries.
    assert "Promise<Response> {" not in lines[4]


def test_snake_case_words_not_repeated() -> None:
    # A word-piece tokenizer already splits on "_" and "/", so repeating the words only costs tokens.
    text = make_text(name="send_request", qualified_name="send_request", path="net/http_client.py")
    assert text.startswith("method send_request\nfile net/http_client.py\n")


def test_docstring_first_paragraph_comes_first_and_repeat_in_body_is_dropped() -> None:
    doc = "Load the config.\n\n    Reads JSON from disk and validates it."
    body = 'def load():\n    """Load the config.\n\n    Reads JSON from disk and validates it."""\n    return read()'
    text = make_text(signature="def load():", docstring=doc, body=body, kind="function", name="load")
    assert "Load the config. Reads JSON from disk and validates it." in text
    assert text.count("Reads JSON") == 1
    assert '""' not in text
    assert text.endswith("return read()")


@pytest.mark.parametrize("max_chars", [40, 120, 300, DEFAULT_MAX_CHARS])
def test_total_length_is_bounded(max_chars: int) -> None:
    text = make_text(body="x = compute(y)\n" * 5000, docstring="word " * 2000, max_chars=max_chars)
    assert 0 < len(text) <= max_chars
    assert text.startswith("method HttpClient.sendRequest"[:max_chars])


def test_huge_body_fills_room_up_to_bound_and_cuts_at_word() -> None:
    text = make_text(body="alpha beta gamma " * 500)
    assert DEFAULT_MAX_CHARS - 20 <= len(text) <= DEFAULT_MAX_CHARS
    assert text.split()[-1] in {"alpha", "beta", "gamma"}


def test_whitespace_and_invisible_characters_collapsed() -> None:
    text = make_text(
        docstring="Send\t\tan   HTTP\u200b request\x00 now.",
        body="a  =\n\n\n   b\u202e",
        signature=None,
    )
    assert "Send an HTTP request now." in text
    assert "a = b" in text
    for bad in ("\t", "  ", "\u200b", "\x00", "\u202e"):
        assert bad not in text


def test_missing_optional_fields() -> None:
    text = symbol_embedding_text(
        kind="function", name="f", qualified_name=None, path="", signature=None, docstring=None, body=None
    )
    assert text == "function f"


def test_lone_surrogates_are_replaced_so_text_encodes() -> None:
    text = make_text(body="bad \udcff byte here", docstring=None)
    text.encode("utf-8")  # would raise UnicodeEncodeError if a surrogate survived
    assert "bad ? byte here" in text


def test_invalid_max_chars() -> None:
    with pytest.raises(ValueError):
        make_text(max_chars=0)


def test_text_hash_is_sha256_hex_and_content_sensitive() -> None:
    a = text_hash("method foo")
    assert a == text_hash("method foo")
    assert a == hashlib.sha256(b"method foo").hexdigest()
    assert a != text_hash("method foo ")
    assert len(text_hash("\udcff")) == 64  # lone surrogates hash instead of raising


def test_collapse_whitespace() -> None:
    assert collapse_whitespace("  a\n\tb  ") == "a b"
