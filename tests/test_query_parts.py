"""Long queries: splitting an issue into parts, choosing what to embed, and bounds on pathological input."""

from __future__ import annotations

import pytest

from igraph_mcp.retrieve.analyze import MAX_DOTTED, MAX_IDENTIFIERS, MAX_QUERY_CHARS, analyze_query, cut_query
from igraph_mcp.retrieve.query_parts import (
    MAX_DENSE_PARTS,
    PART_CHARS,
    dense_texts,
    split_query,
    traceback_gist,
)

ISSUE = """QuerySet.bulk_update ignores db_column on a primary key

When a model sets db_column on its primary key, bulk_update builds a CASE with the field name.

```python
Thing.objects.bulk_update(things, ["name"])
```

Traceback (most recent call last):
  File "app/views.py", line 12, in save_all
    Thing.objects.bulk_update(things, ["name"])
  File "django/db/models/query.py", line 568, in bulk_update
    self.filter(pk__in=pks).update(**update_kwargs)
django.db.utils.ProgrammingError: column "id" does not exist

    indented = code_block()

Thanks for looking.
"""


def test_split_finds_title_prose_code_and_traceback() -> None:
    parts = split_query(ISSUE)
    kinds = [p.kind for p in parts]
    assert kinds == ["title", "prose", "code", "traceback", "code", "prose"]
    assert parts[0].text == "QuerySet.bulk_update ignores db_column on a primary key"
    assert parts[2].text == 'Thing.objects.bulk_update(things, ["name"])'
    assert parts[3].text.endswith('ProgrammingError: column "id" does not exist')
    assert parts[4].text.strip() == "indented = code_block()"


def test_traceback_gist_keeps_the_exception_and_innermost_frames() -> None:
    tb = split_query(ISSUE)[3].text
    assert traceback_gist(tb).splitlines() == [
        'django.db.utils.ProgrammingError: column "id" does not exist',
        "views.py save_all",
        "query.py bulk_update",
    ]


@pytest.mark.parametrize("query", ["parse_file", "why does login fail for expired tokens?", "a" * PART_CHARS])
def test_a_short_query_is_embedded_as_itself(query: str) -> None:
    assert dense_texts(query) == [query]


def test_a_long_issue_is_embedded_head_first_in_readable_parts() -> None:
    long_issue = ISSUE + "\n\n" + "\n\n".join(f"More detail number {i} about bulk updates." * 8 for i in range(30))
    texts = dense_texts(long_issue, max_parts=6)
    assert texts[0].startswith("QuerySet.bulk_update ignores db_column")
    assert "builds a CASE with the field name" in texts[0]  # the head is the title and the prose, code skipped
    assert 'ProgrammingError: column "id" does not exist' in texts[1]  # the traceback's gist comes next
    assert 1 < len(texts) <= 6
    assert all(len(t) <= PART_CHARS for t in texts)
    assert dense_texts(long_issue) == texts[:MAX_DENSE_PARTS]  # the default takes the first ones


@pytest.mark.parametrize(
    "text",
    [
        "x" * 100_000,  # one huge identifier
        "a.b " * 25_000,  # thousands of dotted names
        "```\n" * 20_000,  # fences that never close
        "Traceback (most recent call last):\n" + '  File "a.py", line 1, in f\n' * 3000,
        "\n" * 100_000,
        "\0\u200b😀中" * 20_000,
    ],
)
def test_pathological_queries_stay_bounded(text: str) -> None:
    texts = dense_texts(text, max_parts=6)
    assert len(texts) <= 6 and all(len(t) <= PART_CHARS for t in texts)
    qa = analyze_query(text)
    assert len(qa.identifiers) <= MAX_IDENTIFIERS and len(qa.dotted) <= MAX_DOTTED


def test_dotted_names_are_capped_but_identifiers_come_from_the_whole_text() -> None:
    text = " ".join(f"mod{i}.func_{i}" for i in range(2000)) + " last_helper_name"
    qa = analyze_query(text)
    assert len(qa.dotted) == MAX_DOTTED
    assert len(qa.identifiers) == MAX_IDENTIFIERS  # capped, first seen first


def test_cut_query_notes_only_when_it_cuts() -> None:
    assert cut_query("abc") == ("abc", None)
    text, note = cut_query("y" * (MAX_QUERY_CHARS + 5))
    assert len(text) == MAX_QUERY_CHARS and note and str(MAX_QUERY_CHARS + 5) in note
