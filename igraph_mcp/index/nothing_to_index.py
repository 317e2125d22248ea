"""A walk that finds no file to index is refused with its reasons: an empty answer set that reads as success (exit 0,
every search empty) hides a wrong root or an ignore rule that leaves out everything, and indexing it would wipe a
good index."""

from __future__ import annotations

from pathlib import Path

from igraph_mcp.errors import NothingToIndex
from igraph_mcp.index.walk import ALWAYS_EXCLUDED_DIRS, WalkResult
from igraph_mcp.next_step import NextStep, ask
from igraph_mcp.vocab.skips import COUNTED_REASONS

LISTED = 3  # ignore lines and example paths named per reason
_EMPTY_ON_PURPOSE = f"To empty an existing index on purpose, index again with {ask(NextStep.ALLOW_MASS_DELETE)}"


def check_something_to_index(root: Path, walked: WalkResult) -> None:
    """Raise NothingToIndex, naming what the walk saw and why each part was left out, when it accepted no file;
    called before the run writes anything, so an existing index stays as it was (allowMassDelete skips it)."""
    if walked.files:
        return
    raise NothingToIndex(describe_empty_walk(root, walked))


def describe_empty_walk(root: Path, walked: WalkResult) -> str:
    """The message for a walk of ``root`` that accepted no file: counts by reason, deciding rules, what to do."""
    skipped = walked.skipped.copy()
    # .git and our own .igraph are never indexed, whatever the root: they say nothing about why it is empty
    skipped["default_excluded"] -= sum(
        1 for path in walked.skipped_examples.get("default_excluded", ()) if path in ALWAYS_EXCLUDED_DIRS
    )
    skipped = +skipped
    seen = sum(skipped.values())
    if not seen:
        return (
            f"found no file to index in {root}: the folder is empty (only version-control or index folders). The "
            "index was not changed. Check that this is the repository's root (--root or the server's configured root). "
            + _EMPTY_ON_PURPOSE
        )
    parts = [_reason_part(reason, count, walked) for reason, count in skipped.most_common()]
    advice = "Check that this is the repository's root (--root or the server's configured root)"
    if skipped["gitignored"] or skipped["igraphignored"]:
        advice += (
            "; if an ignore rule leaves out your sources by mistake, fix it or re-include them with a `!` line in "
            ".igraphignore (e.g. `!*.go`, `!src/`)"
        )
    if skipped["unsupported_language"]:
        advice += "; only source files of the languages the README lists are indexed"
    return (
        f"found no file to index in {root}: the walk saw {seen} files and folders and left out every one: "
        + "; ".join(parts)
        + f". The index was not changed. {advice}. {_EMPTY_ON_PURPOSE}"
    )


def _reason_part(reason: str, count: int, walked: WalkResult) -> str:
    label = COUNTED_REASONS.get(reason, "").split(";")[0]
    text = f"{count} {reason}" + (f" ({label})" if label else "")
    if reason in ("gitignored", "igraphignored"):
        source = ".gitignore" if reason == "gitignored" else ".igraphignore"
        rules = [(rule, n) for rule, n in walked.ignored_by.most_common() if _layer_kind(rule) == source]
        if rules:
            text += " by " + ", ".join(f"`{rule}` ({n})" for rule, n in rules[:LISTED])
            return text
    examples = [path for path in walked.skipped_examples.get(reason, []) if path not in ALWAYS_EXCLUDED_DIRS][:LISTED]
    if examples:
        text += ", e.g. " + ", ".join(examples)
    return text


def _layer_kind(rule: str) -> str:
    """ ".gitignore" for rules from .gitignore files or info/exclude, ".igraphignore" for the others."""
    source = rule.split(":", 1)[0]
    return ".gitignore" if source.endswith((".gitignore", "info/exclude")) else ".igraphignore"
