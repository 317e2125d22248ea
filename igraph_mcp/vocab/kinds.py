"""The node kinds a parser may emit, and which of them a caller may filter answers by (``kinds`` of explore)."""

from __future__ import annotations

# Every kind a node may have. "module" is the file itself; every other symbol lies inside it.
NODE_KINDS = (
    "module",
    "class",
    "struct",
    "interface",
    "trait",
    "enum",
    "function",
    "method",
    "type",
    "constant",
    "namespace",
)

# Kinds the index keeps for its own use (e.g. the parts of a long definition, which map back to it): stored, never
# offered to a caller and never valid in a ``kinds`` filter. A kind added for such a purpose is listed here too.
INTERNAL_KINDS: frozenset[str] = frozenset()


def filterable_kinds() -> tuple[str, ...]:
    """The kinds a caller may name in a ``kinds`` filter, in the order of ``NODE_KINDS``."""
    return tuple(kind for kind in NODE_KINDS if kind not in INTERNAL_KINDS)
