"""igraph_explore's arguments and their bounds: the one home the service, the CLI and the MCP server read."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from igraph_mcp.errors import InvalidInput
from igraph_mcp.next_step import NextStep, ask
from igraph_mcp.vocab.kinds import filterable_kinds

TOP_K_MAX = 50  # ranked symbols one call returns at most (the config's nodeTopK may say more)
DEFAULT_TOP_K = 10  # the shipped retrieval.nodeTopK
HOPS_MAX = 5
DEFAULT_HOPS = 2  # the shipped retrieval.graphHops
# The smallest answer budget: one hit with its location, the diagnostics and a note on what was cut.
MAX_TOKENS_MIN = 400
MAX_TOKENS_MAX = 100_000
DEFAULT_MAX_TOKENS = 4000  # the shipped retrieval.maxTokens
SNIPPET_HITS = 3  # hits with a source snippet, the rest one line each; 5 -> 3: as many held on tuning, -170 tok
CHANNELS = ("fts", "dense")  # the search channels a call may ask for; both by default
QUERY_ECHO_CHARS = 200  # the answer repeats at most this much of the query


@dataclass(frozen=True, slots=True)
class ExploreRequest:
    """One explore call as the caller made it; None = the configured default."""

    query: str
    top_k: int | None = None
    hops: int | None = None
    kinds: Sequence[str] | None = None
    context_files: Sequence[str] = ()
    max_tokens: int | None = None
    channels: Sequence[str] = CHANNELS

    def resolved(self, node_top_k: int, graph_hops: int) -> ExploreRequest:
        """The request with topK and hops filled from the configured defaults, then validated."""
        top_k = min(node_top_k, TOP_K_MAX) if self.top_k is None else self.top_k
        hops = graph_hops if self.hops is None else self.hops
        validate(self.query, top_k, hops, self.max_tokens)
        kinds = checked_kinds(self.kinds) if self.kinds else None
        return dataclasses.replace(self, top_k=top_k, hops=hops, kinds=kinds)


def validate(query: str, top_k: int, hops: int, max_tokens: int | None = None) -> None:
    """Reject inputs outside the documented bounds with a message that says what to send instead."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput("query is empty; describe the code you are looking for, or paste the issue text")
    if not 1 <= top_k <= TOP_K_MAX:
        raise InvalidInput(f"{ask(NextStep.TOP_K)} must be between 1 and {TOP_K_MAX}")
    if not 0 <= hops <= HOPS_MAX:
        raise InvalidInput(f"hops must be between 0 and {HOPS_MAX}")
    if max_tokens is not None and not MAX_TOKENS_MIN <= max_tokens <= MAX_TOKENS_MAX:
        raise InvalidInput(f"maxTokens must be between {MAX_TOKENS_MIN} and {MAX_TOKENS_MAX}")


def checked_kinds(kinds: Sequence[str]) -> tuple[str, ...]:
    """``kinds`` in lower case, or InvalidInput naming the positions of unknown ones and listing the valid kinds."""
    valid = filterable_kinds()
    wanted = tuple(k.strip().lower() if isinstance(k, str) else "" for k in kinds)
    # Positions, not values: a message never echoes what the caller sent.
    unknown = [str(i + 1) for i, k in enumerate(wanted) if k not in valid]
    if unknown:
        entries = f"entry {unknown[0]}" if len(unknown) == 1 else f"entries {', '.join(unknown)}"
        raise InvalidInput(
            f"unknown symbol kind in kinds ({entries} of {len(wanted)}); valid kinds: {', '.join(valid)}. "
            "Call again with valid kinds, or without kinds for every kind"
        )
    return wanted
