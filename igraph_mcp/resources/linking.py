"""Links from resource chunks to code: identifier evidence (names appearing in code) and semantic similarity.

Every link carries a score in [0, 1] and its method. Semantic scores are the cosine similarity between a
chunk vector and a node vector; identifier scores are fixed grades for how specific the evidence is (a node
*named* like the identifier beats a mention in a body; a table seen with its columns beats the name alone).
Both are cut at the weak threshold; at or above the strong threshold a link is "strong".
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import replace

import numpy as np

from igraph_mcp.paths import strip_dot_slash
from igraph_mcp.store import nodes as node_store
from igraph_mcp.store import resources as res_store
from igraph_mcp.store import vectors as vec_store
from igraph_mcp.store.db import Database
from igraph_mcp.store.fts import fts_tokens
from igraph_mcp.store.records import CodeCandidate, LinkRow, ResourceRow
from igraph_mcp.text.identifiers import is_code_shaped, split_identifier
from igraph_mcp.vocab.languages import DATA_MODEL_KINDS, source_extension_pattern
from igraph_mcp.vocab.links import Thresholds

SEMANTIC = "semantic"
IDENTIFIER = "identifier"

SEMANTIC_K = 10  # nearest nodes looked at per chunk
MAX_LINKS_PER_CHUNK = 20
CANDIDATE_LIMIT = 200  # nodes fetched per chunk for identifier evidence
MAX_MENTION_NODES = 25  # a word found in more nodes than this is too common to be evidence by mere mention
NUMPY_MAX_NODES = 50_000  # incremental re-link compares vectors in memory up to this many nodes, else KNN

NAME_SCORE = 0.95  # a node named exactly like a quoted identifier, or a dotted name that resolves
PATH_SCORE = 0.90  # a file path quoted in a PRD
MODEL_SCORE = 0.90  # a class named like a table (Order ~ orders)
MENTION_SCORE = 0.75  # a code-shaped identifier appearing in a node's text
TABLE_BASE, TABLE_NAMED, PER_COLUMN, MAX_COLUMNS = 0.50, 0.20, 0.05, 5

_CODE_EXT = source_extension_pattern()


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def _joined(name: str) -> str:
    return "".join(split_identifier(name))


class _Evidence:
    """Best score and reasons per node for one chunk."""

    def __init__(self) -> None:
        self.best: dict[int, tuple[float, list[str]]] = {}

    def add(self, node_id: int, score: float, why: str) -> None:
        old = self.best.get(node_id)
        if old is None:
            self.best[node_id] = (score, [why])
        elif why not in old[1]:
            self.best[node_id] = (max(old[0], score), [*old[1], why])

    def links(self, resource_id: int, weak: float) -> list[LinkRow]:
        rows = [
            LinkRow(resource_id, nid, round(min(s, 1.0), 4), IDENTIFIER, "; ".join(why)[:300])
            for nid, (s, why) in self.best.items()
            if s >= weak
        ]
        rows.sort(key=lambda link: (-link.score, link.node_id))
        return rows[:MAX_LINKS_PER_CHUNK]


def _tokens_of(c: CodeCandidate, cache: dict[int, set[str]]) -> set[str]:
    """FTS-style tokens of a node's name, signature and body (cached: many tables look at the same nodes)."""
    toks = cache.get(c.id)
    if toks is None:
        toks = cache[c.id] = set(fts_tokens(f"{c.name} {c.signature} {c.body}"))
    return toks


def _table_evidence(
    db: Database, r: ResourceRow, ev: _Evidence, file_ids: Sequence[int] | None, cache: dict[int, set[str]]
) -> None:
    table = r.title.lower()
    columns = sorted({str(c.get("name", "")).lower() for c in r.columns} - {"", table})
    columns = [c for c in columns if len(c) > 2]  # "id" says nothing about which table
    ids = res_store.nodes_mentioning(db, [table, *columns], CANDIDATE_LIMIT, file_ids)
    model_names = {_joined(table), _joined(_singular(table))}
    for c in res_store.code_candidates(db, ids):
        toks = _tokens_of(c, cache)
        named = table in toks
        cols = [col for col in columns if col in toks]
        score = TABLE_BASE + TABLE_NAMED * named + PER_COLUMN * min(len(cols), MAX_COLUMNS)
        why = (f"mentions table {r.title}" if named else f"uses columns of {r.title}") + (
            f" and columns {', '.join(cols[:4])}" if cols and named else f" ({', '.join(cols[:4])})" if cols else ""
        )
        if c.kind in DATA_MODEL_KINDS and _joined(c.name) in model_names:
            score, why = max(score, MODEL_SCORE), f"{c.kind} {c.name} is named like table {r.title}"
        if score > TABLE_BASE:
            ev.add(c.id, score, why)


def _own_identifiers(r: ResourceRow, siblings: Sequence[ResourceRow]) -> list[str]:
    """Identifiers of a section minus those of its subsections (which have chunks and links of their own)."""
    depth = len(r.heading_path)
    nested: set[str] = set()
    for o in siblings:
        if len(o.heading_path) > depth and o.heading_path[:depth] == r.heading_path:
            nested.update(o.identifiers)
    return [i for i in r.identifiers if i not in nested]


def _identifier_evidence(db: Database, identifiers: Sequence[str], ev: _Evidence, cache: dict[int, set[str]]) -> None:
    for ident in identifiers:
        norm = re.sub(r"::|->|#", ".", ident.strip())
        if not norm:
            continue
        if "/" in norm or _CODE_EXT.search(norm):
            for nid in res_store.module_nodes_for_path(db, strip_dot_slash(norm)):
                ev.add(nid, PATH_SCORE, f"quotes file {norm}")
            continue
        if "." in norm:
            for nid in res_store.nodes_with_qualified_name(db, norm):
                ev.add(nid, NAME_SCORE, f"names {norm}")
            continue
        toks = fts_tokens(norm)
        if len(toks) != 1:
            continue
        ids = res_store.nodes_mentioning(db, toks, MAX_MENTION_NODES + 1)
        common = len(ids) > MAX_MENTION_NODES
        if common:  # still honour exact names, however common the word
            ids = res_store.nodes_with_qualified_name(db, norm)
        for c in res_store.code_candidates(db, ids):
            if c.name.lower() == norm.lower():
                ev.add(c.id, NAME_SCORE, f"names {norm}")
            elif not common and is_code_shaped(norm) and toks[0] in _tokens_of(c, cache):
                ev.add(c.id, MENTION_SCORE, f"mentions {norm}")


def identifier_links(
    db: Database,
    resources: Sequence[ResourceRow],
    thresholds: Thresholds,
    file_ids: Collection[int] | None = None,
) -> list[LinkRow]:
    """Links from names in the chunks (tables, columns, quoted identifiers, paths) to code that has them."""
    out: list[LinkRow] = []
    cache: dict[int, set[str]] = {}
    restrict = sorted(file_ids) if file_ids is not None else None
    siblings: dict[int, list[ResourceRow]] = {}
    for other in res_store.resources_of_sources(db, sorted({r.source_id for r in resources})):
        siblings.setdefault(other.source_id, []).append(other)
    for r in resources:
        ev = _Evidence()
        if r.kind == "db_table":
            _table_evidence(db, r, ev, restrict, cache)  # columns only count next to their table, never alone
        else:
            _identifier_evidence(db, _own_identifiers(r, siblings.get(r.source_id, [])), ev, cache)
        if file_ids is not None:
            inside = {c.id for c in res_store.code_candidates(db, list(ev.best)) if c.file_id in file_ids}
            ev.best = {nid: v for nid, v in ev.best.items() if nid in inside}
        out += ev.links(r.id, thresholds.weak)
    return out


def semantic_links(
    db: Database,
    resources: Sequence[ResourceRow],
    thresholds: Thresholds,
    file_ids: Sequence[int] | None = None,
) -> list[LinkRow]:
    """Links from chunk vectors to the most similar node vectors, at or above the weak threshold."""
    vectors = res_store.resource_vectors_by_id(db, [r.id for r in resources])
    if not vectors or not vec_store.has_node_vectors(db):
        return []
    pairs: list[tuple[int, int, float]] = []
    if file_ids is not None and len(file_ids) * 50 < NUMPY_MAX_NODES:
        nodes = res_store.node_vectors_of_files(db, file_ids)
        if not nodes:
            return []
        node_ids = [n for n, _ in nodes]
        mat = _unit(np.stack([vec_store.from_blob(b) for _, b in nodes]))
        for rid, blob in vectors.items():
            sims = mat @ _unit(vec_store.from_blob(blob)[None, :])[0]
            for i in np.argsort(-sims)[:SEMANTIC_K]:
                pairs.append((rid, node_ids[int(i)], float(sims[int(i)])))
    else:
        wanted = set(file_ids) if file_ids is not None else None
        k = SEMANTIC_K if wanted is None else SEMANTIC_K * 5
        for rid, blob in vectors.items():
            pairs += [
                (rid, nid, sim) for nid, fid, sim in vec_store.knn_nodes(db, blob, k) if wanted is None or fid in wanted
            ]
    return [
        LinkRow(rid, nid, round(sim, 4), SEMANTIC, f"cosine {sim:.2f}")
        for rid, nid, sim in pairs
        if sim >= thresholds.weak
    ]


def _unit(m: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return m / np.where(norms == 0, 1.0, norms)


def compute_links(
    db: Database,
    resources: Sequence[ResourceRow],
    thresholds: Thresholds,
    *,
    file_ids: Sequence[int] | None = None,
    semantic: bool = True,
    identifier: bool = True,
) -> list[LinkRow]:
    """Links for some chunks, to all code or only to nodes of ``file_ids``; the caller stores them.

    Inside the caller's write transaction the reads see its uncommitted chunks (same connection).
    """
    if not resources or (file_ids is not None and not file_ids):
        return []
    links: list[LinkRow] = []
    if identifier:
        links += identifier_links(db, resources, thresholds, set(file_ids) if file_ids is not None else None)
    if semantic:
        links += semantic_links(db, resources, thresholds, file_ids)
    return _onto_definitions(db, links)


def _onto_definitions(db: Database, links: Sequence[LinkRow]) -> list[LinkRow]:
    """Links found through a part of a long definition (its text, its vector) given to the definition, the best
    score kept once per resource, node and method."""
    spans = node_store.part_spans(db, sorted({link.node_id for link in links}))
    if not spans:
        return list(links)
    best: dict[tuple[int, int, str], LinkRow] = {}
    for link in links:
        if link.node_id in spans:
            link = replace(link, node_id=spans[link.node_id].owner_id)
        key = (link.resource_id, link.node_id, link.method)
        if key not in best or link.score > best[key].score:
            best[key] = link
    return list(best.values())
