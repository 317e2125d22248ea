"""What a message advises doing next, as data: lower layers name the step, each front words it once.

A message written below the fronts leaves a slot for its advice (``ask(NextStep.INDEX)``) instead of naming a
command or a tool; the CLI fills the slot with what a person types (`igraph-mcp index`), the MCP server with the
tool call an agent makes (``igraph_index``). ``word`` fills every slot of a text, ``word_data`` every string of a
JSON-ready answer, and ``steps`` reads the structured steps back out of a message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import StrEnum
from typing import Any


class NextStep(StrEnum):
    """An action a message can advise, or an argument it can tell the reader to change."""

    INDEX = "index"  # build or update the index
    FULL_REBUILD = "full-rebuild"  # rebuild the index from scratch
    REPLACE = "replace"  # take over a shared store's name bound to another repository
    ALLOW_MASS_DELETE = "allow-mass-delete"  # index again, allowing it to delete most of the indexed files
    INSTALL_EXTRA = "install-extra"  # install an optional part of igraph-mcp (detail: the extra's name)
    EXPLORE = "explore"  # search by a description
    NODE = "node"  # read one symbol in full
    FILE = "file"  # the outline of one file
    RESOURCES = "resources"  # list the mounted documents and schemas
    STATUS = "status"  # the index's health and any build in progress
    NARROW_FILE = "narrow-file"  # name the file that holds the symbol (the ``file`` argument)
    TOP_K = "top-k"  # the explore call's hit count argument
    MAX_TOKENS = "max-tokens"  # the explore call's token budget argument
    CONTEXT_FILES = "context-files"  # the explore call's files-you-work-on argument
    SKIPPED_FILES = "skipped-files"  # where to read about every file an index run skipped


Words = Mapping[NextStep, str]
_OPEN, _CLOSE = "\u27e6", "\u27e7"  # a slot: ⟦index⟧ or ⟦install-extra:postgres⟧; never typed by anyone
_SLOT = re.compile(_OPEN + r"([a-z-]+)(?::([^" + _CLOSE + r"]*))?" + _CLOSE)


def ask(step: NextStep, detail: str = "") -> str:
    """The slot of ``step`` in a message (``detail``: what the step needs, such as an extra's name)."""
    return f"{_OPEN}{step.value}{':' + detail if detail else ''}{_CLOSE}"


def steps(text: str) -> list[tuple[NextStep, str]]:
    """The steps ``text`` advises, in order, each with its detail ('' when none)."""
    return [(NextStep(m.group(1)), m.group(2) or "") for m in _SLOT.finditer(text)]


def word(text: str, words: Words) -> str:
    """``text`` with every slot in a front's words (``{detail}`` in a wording takes the step's detail)."""
    if _OPEN not in text:
        return text
    return _SLOT.sub(lambda m: words[NextStep(m.group(1))].format(detail=m.group(2) or ""), text)


def word_data(data: Any, words: Words) -> Any:
    """A JSON-ready answer (dicts, lists, strings) with every slot in its strings worded."""
    if isinstance(data, str):
        return word(data, words)
    if isinstance(data, dict):
        return {key: word_data(value, words) for key, value in data.items()}
    if isinstance(data, list):
        return [word_data(value, words) for value in data]
    return data
