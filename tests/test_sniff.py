"""Tests for the content sniffing of the walker: binary without NUL bytes, minified decided on the whole file."""

from __future__ import annotations

import random

import pytest

from igraph_mcp.index.sniff import binary_sign, looks_binary, looks_minified, minified_sign

BUNDLE_LINE = b"!function(e){var t={};function n(r){if(t[r])return t[r].exports;var o=t[r]={i:r,l:!1};return o}}(e);"
HAND_LINES = [b"import { thing } from './thing';", b"", b"export function add(a, b) {", b"  return a + b;", b"}"]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        pytest.param(b"", False, id="empty"),
        pytest.param(b"\n\n\n\n", False, id="only-newlines"),
        pytest.param(b"\r\n".join(HAND_LINES * 20), False, id="crlf-hand-written"),
        pytest.param(b"\xef\xbb\xbf" + b"\n".join(HAND_LINES * 20), False, id="utf8-bom"),
        pytest.param(
            "\n".join(["// 你好，世界：一个注释"] * 50 + ["const 名前 = '値';"] * 50).encode(), False, id="cjk"
        ),
        pytest.param(
            b"module.exports = {a: 1, b: [2, 3], c: {d: 'e'}, f: true, g: null, h: 'x'};", False, id="1-line-config"
        ),
        pytest.param(
            b'export default {"' + b'", "'.join(b"key%d" % i for i in range(400)) + b'"};', False, id="1-line-data"
        ),
        pytest.param(
            b"\n".join(HAND_LINES * 8 + [b'const logo = "data:image/png;base64,' + b"A" * 5000 + b'";']),
            False,
            id="hand-written-with-5000-char-data-uri",
        ),
        pytest.param(
            b"\n".join([b"// emoji", b"module.exports = () => /" + b"\\u{1F600}|[\\u2600-\\u27BF]|" * 300 + b"/g;"]),
            False,
            id="short-file-with-5000-char-regex",
        ),
        pytest.param(
            b"\n".join(HAND_LINES * 8 + [BUNDLE_LINE * 50]),
            False,
            id="hand-written-with-one-long-code-line",
        ),
        pytest.param(BUNDLE_LINE * 500, True, id="one-line-bundle"),
        pytest.param(
            b"/*! lib v1.0 | MIT */\n" + BUNDLE_LINE * 500 + b"\n//# sourceMappingURL=lib.js.map\n",
            True,
            id="bundle-with-banner",
        ),
        pytest.param(b"\r\n".join([BUNDLE_LINE * 8] * 30), True, id="wrapped-minifier-output-crlf"),
        pytest.param(
            b"\n".join([b"[" + b",".join([b'"abcdefgh"'] * 80) + b"]"] * 10), True, id="many-dense-data-lines"
        ),
        pytest.param(
            b"\n".join(
                [b"  get<" + b", ".join(b"P%d extends Path<%d>" % (i, i) for i in range(120)) + b">(p: P0): R;"] * 10
            ),
            False,
            id="generated-declarations-with-long-signatures",
        ),
    ],
)
def test_looks_minified(data: bytes, expected: bool) -> None:
    assert looks_minified(data) is expected


def test_a_minified_sample_cut_mid_line_ignores_the_cut_line() -> None:
    hand = b"\n".join([b"z" * 80] * 50) + b"\n"
    assert not looks_minified(hand + BUNDLE_LINE * 100, complete=False)  # the cut line says nothing
    assert looks_minified(BUNDLE_LINE * 100, complete=False)  # a sample that is one line is that line


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        pytest.param(b"", False, id="empty"),
        pytest.param(b"plain text", False, id="ascii"),
        pytest.param(b"a\0b", True, id="nul"),
        pytest.param("utf-16 text".encode("utf-16"), False, id="utf16-bom"),
        pytest.param("utf-16 big endian".encode("utf-16-be"), True, id="utf16-no-bom"),  # indistinguishable from binary
        pytest.param(b"\xef\xbb\xbfutf-8 bom", False, id="utf8-bom"),
        pytest.param(
            "# Kommentar: Größe, Übergröße, naïve façade\nx = 'é'\n".encode("latin-1") * 50, False, id="latin1"
        ),
        pytest.param("// Привет, мир: комментарий\nvar x = 1;\n".encode("cp1251") * 50, False, id="cp1251"),
        pytest.param("// 你好，世界\nconst x = '値';\n".encode() * 50, False, id="utf8-cjk"),
        pytest.param(b"ESC colours: \x1b[31mred\x1b[0m\tand a form feed \x0c\n" * 20, False, id="escape-and-form-feed"),
        pytest.param(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", True, id="png"),
        pytest.param(b"PK\x03\x04\x14\x00\x08\x00", True, id="zip"),
        pytest.param(b"\x7fELF\x02\x01\x01", True, id="elf"),
        pytest.param(bytes(b for b in random.Random(7).randbytes(8192) if b), True, id="random-bytes-without-nul"),
    ],
)
def test_looks_binary(head: bytes, expected: bool) -> None:
    assert looks_binary(head) is expected


def test_signs_say_what_decided() -> None:
    assert binary_sign(b"\x7fELF\x02") == "ELF executable"
    assert binary_sign(b"x = 1\n\0") == "NUL bytes"
    assert binary_sign(bytes(range(1, 8)) * 3 + b"text" * 4) == "57% control bytes"
    bundle = b"/*! banner */\n" + BUNDLE_LINE * 20
    assert minified_sign(bundle) == "mean line length 1006 chars, 1 of 2 lines over 500"
