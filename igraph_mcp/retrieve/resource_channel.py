"""The resources part of an explore answer: (a) resources linked to the code in the answer, (b) an independent
channel over the resources themselves (KNN over their vectors + BM25 over their text), so a PRD section for a
feature with no code yet is still found.

Scores: every candidate gets a weighted RRF score over three ranked lists — linked (by link strength and the
position of the code it is linked to), dense and keyword — with the same rrfK and weights as the code hits, so
scores compare across (a) and (b). A resource is listed once: as linked if it qualifies, else as direct.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from igraph_mcp.config import RetrievalConfig
from igraph_mcp.models import ResourceHit
from igraph_mcp.retrieve.analyze import QueryAnalysis
from igraph_mcp.retrieve.fusion import rrf
from igraph_mcp.store import nodes as node_store
from igraph_mcp.store import resources as res_store
from igraph_mcp.store import status as status_store
from igraph_mcp.store import vectors as vec_store
from igraph_mcp.store.db import Database
from igraph_mcp.store.records import LinkRow, ResourceRow
from igraph_mcp.vocab.links import Thresholds

DIRECT_DEPTH = 20  # candidates taken from each direct list before fusion
MIN_DIRECT_SIMILARITY = 0.2  # below this a query-to-chunk cosine is noise, not relevance
MAX_QUERY_TOKENS = 48
POSITION_DECAY = 0.05  # a link through the 1st hit counts more than one through the 20th neighbour
MIN_LINKED = 3  # linked resources shown even when resourceTopK is smaller
MAX_TEXT_CHARS = 1500
MAX_VIA = 5


def _source_missing(root: Path, key: str) -> bool:
    path = Path(key)
    return not (path if path.is_absolute() else root / path).exists()


def _contains(outer: ResourceRow, inner: ResourceRow) -> bool:
    """True when ``inner`` is a subsection of ``outer`` in the same source."""
    depth = len(outer.heading_path)
    return (
        outer.source_id == inner.source_id
        and len(inner.heading_path) > depth
        and inner.heading_path[:depth] == outer.heading_path
    )


class ResourceChannel:
    """The ResourceFinder explore calls: (query analysis, query vector or None, node ids in the answer)."""

    def __init__(
        self, db: Callable[[], Database], retrieval: RetrievalConfig, thresholds: Thresholds, root: Path
    ) -> None:
        self._db = db
        self.cfg = retrieval
        self.thresholds = thresholds
        self.root = root

    def __call__(
        self, qa: QueryAnalysis, query_vector: bytes | None, node_ids: list[int]
    ) -> tuple[list[ResourceHit], str | None]:
        """Resources for one answer, best first, each saying why it is there; plus a note when degraded."""
        db = self._db()
        if not status_store.has_resources(db):
            return [], None
        notes: list[str] = []
        dense: list[int] = []
        if query_vector is not None and vec_store.has_resource_vectors(db):
            dense = [
                rid
                for rid, sim in vec_store.knn_resources(db, query_vector, DIRECT_DEPTH)
                if sim >= MIN_DIRECT_SIMILARITY
            ]
        else:
            notes.append("resources matched by keyword and identifier links only (no embeddings)")
        fts = [rid for rid, _ in res_store.fts_resources(db, qa.tokens[:MAX_QUERY_TOKENS], DIRECT_DEPTH)]

        linked, via = self._linked(db, node_ids, support=set(dense) | set(fts))
        fused = rrf(
            {"linked": linked, "dense": dense, "fts5": fts},
            {"linked": 1.0, "dense": self.cfg.denseWeight, "fts5": self.cfg.ftsWeight},
            self.cfg.rrfK,
        )
        linked_set = set(linked)
        rows = res_store.resources_by_ids(db, [f.id for f in fused])
        a = [f for f in fused if f.id in linked_set][: max(self.cfg.resourceTopK, MIN_LINKED)]
        # A section that contains another candidate (the whole-document chunk, a chapter) only repeats it.
        broader = {
            f.id
            for f in fused
            if f.id in rows and any(g.id in rows and _contains(rows[f.id], rows[g.id]) for g in fused)
        }
        b = [f for f in fused if f.id not in linked_set and f.id not in broader][: self.cfg.resourceTopK]
        chosen = sorted(a + b, key=lambda f: (-f.score, f.id))
        hits = [
            self._hit(rows[f.id], f.score, via.get(f.id, []) if f.id in linked_set else None, db)
            for f in chosen
            if f.id in rows
        ]
        missing = sorted({h.sourcePath for h in hits if _source_missing(self.root, h.sourcePath)})
        if missing:
            notes.append(f"mounted source(s) missing on disk, last mounted copy shown: {', '.join(missing[:5])}")
        return hits, "; ".join(notes) or None

    def _linked(
        self, db: Database, node_ids: Sequence[int], support: set[int]
    ) -> tuple[list[int], dict[int, list[LinkRow]]]:
        """Resources linked to the answer's code, strongest first; weak links need query support."""
        position = {nid: i for i, nid in enumerate(dict.fromkeys(node_ids))}
        if not position:
            return [], {}
        strength: dict[int, float] = {}
        via: dict[int, list[LinkRow]] = {}
        strong: set[int] = set()
        for link in res_store.links_for_nodes(db, list(position), min_score=self.thresholds.weak):
            s = link.score / (1.0 + POSITION_DECAY * position[link.node_id])
            strength[link.resource_id] = max(s, strength.get(link.resource_id, 0.0))
            via.setdefault(link.resource_id, []).append(link)
            if link.score >= self.thresholds.strong:
                strong.add(link.resource_id)
        eligible = [rid for rid in strength if rid in strong or rid in support]
        eligible.sort(key=lambda rid: (-strength[rid], rid))
        return eligible, via

    def _hit(self, r: ResourceRow, score: float, links: list[LinkRow] | None, db: Database) -> ResourceHit:
        text = r.text if len(r.text) <= MAX_TEXT_CHARS else r.text[:MAX_TEXT_CHARS].rstrip() + " …"
        linked_via: list[str] = []
        if links:
            nodes = node_store.nodes_by_ids(db, [link.node_id for link in links[:MAX_VIA]])
            for link in links[:MAX_VIA]:
                n = nodes.get(link.node_id)
                if n is None:
                    continue
                grade = "strong" if link.score >= self.thresholds.strong else "weak"
                linked_via.append(
                    f"{n.qualified_name or n.name} ({n.path}:{n.start_line}) {link.method} "
                    f"{link.score:.2f} {grade}: {link.evidence}"
                )
        return ResourceHit(
            resourceId=r.id,
            kind=r.kind,
            title=r.title,
            headingPath=r.heading_path,
            sourceName=r.source_name,
            sourcePath=r.source_path,
            startLine=r.start_line,
            endLine=r.end_line,
            score=round(score, 6),
            reason="linked" if links is not None else "direct",
            linkedVia=linked_via,
            text=text,
            columns=[{k: str(v) for k, v in c.items()} for c in r.columns],
        )
