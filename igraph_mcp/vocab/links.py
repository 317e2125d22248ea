"""What a resource link's score means: below ``weak`` no link is kept, at or above ``strong`` a link is strong.

Linking (which stores links) and the resource channel (which grades them in an answer) read the same cut-offs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class LinkSettings(Protocol):
    """The two settings the cut-offs come from (the ``multimodal`` config section)."""

    @property
    def strongLinkThreshold(self) -> float: ...

    @property
    def weakLinkThreshold(self) -> float: ...


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Link cut-offs: below ``weak`` no link is stored; at or above ``strong`` a link is strong."""

    strong: float
    weak: float

    @classmethod
    def from_config(cls, cfg: LinkSettings) -> Thresholds:
        """Thresholds from the ``multimodal`` config section (weak never above strong)."""
        return cls(cfg.strongLinkThreshold, min(cfg.weakLinkThreshold, cfg.strongLinkThreshold))
