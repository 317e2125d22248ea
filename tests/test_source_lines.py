"""I3: a symbol's source is cut from the file at the lines the parser counted, whatever the file's encoding or
its unusual line separators (form feeds, U+2028, CRLF) - the ones str.splitlines() would count as well."""

from __future__ import annotations

from pathlib import Path

import pytest
from _factories import index_repo, make_repo

BODY = "def target():\n    return 2\n"
CASES = {
    "form_feed.py": ("def a():\n    return 1\n\x0c\n# page two\x0c more\n" + BODY).encode(),
    "line_sep.py": ('NOTE = "one\u2028two\u2029three\x1cfour\x85five"\n\n' + BODY).encode(),
    "crlf.py": ("import os\r\n\r\n" + BODY.replace("\n", "\r\n")).encode(),
    "utf16.py": ("# coding: utf-16\n\u00e9t\u00e9 = 1\n\n" + BODY).encode("utf-16"),
    "latin1.py": ("# caf\u00e9\n\n" + BODY).encode("latin-1"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_node_source_is_the_symbol_itself(tmp_path: Path, name: str) -> None:
    root = make_repo(tmp_path, {name: CASES[name]}, filler=False)
    svc = index_repo(root)
    try:
        detail = svc.node("target", file=name)
        assert detail.found, detail.message
        assert detail.source.splitlines() == ["def target():", "    return 2"]
        assert not detail.sourceTruncated
    finally:
        svc.close()
