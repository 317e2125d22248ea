"""Every knob of the ranking path in one frozen object: the service builds it from the config, benchmarks and
trainers build it with overrides and pass it to the same stages (``retrieve/stages.py``).

The defaults are what the service ships; docs/ranking.md says which measurement chose each of them.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from igraph_mcp.config import RetrievalConfig
from igraph_mcp.explore_request import SNIPPET_HITS
from igraph_mcp.retrieve import analyze, channels, expand, folding, query_parts
from igraph_mcp.retrieve.boosts import BoostFactors
from igraph_mcp.retrieve.budget import SNIPPET_CHARS, SNIPPET_LINES
from igraph_mcp.retrieve.rerank import RERANK_DEPTH, WEIGHTS
from igraph_mcp.store.fts import NODE_BM25_WEIGHTS

_SHIPPED = RetrievalConfig()  # the configuration's defaults are the parameters' defaults


@dataclass(frozen=True, slots=True)
class RetrievalParams:
    """The parameters of one explore call's ranking, defaults = the shipped behaviour."""

    # -- from the configuration (retrieval.* keys, same meaning as IGraph's) -------------------------------------
    file_top_k: int = _SHIPPED.fileTopK  # dense channel: KNN inside this many closest files ...
    fallback_threshold: float = (
        _SHIPPED.fallbackThreshold
    )  # ... widened to a global KNN when the best similarity is below this
    node_top_k: int = _SHIPPED.nodeTopK  # hits of a call that does not say topK
    graph_hops: int = _SHIPPED.graphHops  # expansion of a call that does not say hops
    rrf_k: int = _SHIPPED.rrfK
    dense_weight: float = _SHIPPED.denseWeight
    fts_weight: float = _SHIPPED.ftsWeight
    max_tokens: int = _SHIPPED.maxTokens  # answer budget of a call that does not say maxTokens

    # -- analyze ------------------------------------------------------------------------------------------------
    # Issue-shaped text (at least this many non-empty lines and words) gets the levers tuned on issues.
    issue_min_lines: int = query_parts.ISSUE_MIN_LINES
    issue_min_words: int = query_parts.ISSUE_MIN_WORDS

    # -- channels -----------------------------------------------------------------------------------------------
    channel_depth: int = 100  # candidates taken from each channel before fusion
    fts_column_weights: tuple[float, ...] = NODE_BM25_WEIGHTS  # BM25 weight of each FTS column (name first)
    fts_max_tokens: int = analyze.FTS_MAX_TOKENS  # FTS tokens searched per query, identifiers first ...
    fts_common_from: int = analyze.FTS_COMMON_FROM  # ... and past this many, only words in at most ...
    fts_common_share: float = analyze.FTS_COMMON_SHARE  # ... this share of the symbols (1.0: no such cut)
    fts_word_forms: int = analyze.FTS_WORD_FORMS  # other inflections of the words: 0 none, 1 missing words, 2 all
    # ... of a question's words (not an issue's): "how are lines parsed" finds parseLine, "values collected"
    # _collectValue (npm questions: an implementation in the top 5 for 14 -> 16 of 20).
    question_word_forms: int = 1
    max_named: int = channels.MAX_NAMED  # names of an issue looked up for the named channel ...
    named_rare: int = channels.NAMED_RARE  # ... each defined at most this many times
    graph_seeds: int = channels.GRAPH_SEEDS  # named symbols whose neighbours the graph channel follows
    file_pool_probe: int = channels.FILE_POOL_PROBE  # dense: nearest symbols that choose the fileTopK files
    dense_parts: int = query_parts.MAX_DENSE_PARTS  # parts of a long query embedded and searched one by one
    part_chars: int = query_parts.PART_CHARS  # each part at most this long ...
    min_part_chars: int = query_parts.MIN_PART_CHARS  # ... and, past the head, at least this long
    head_part_weight: float = 1.0  # RRF weight of the head part (title and opening prose) among the parts ...
    other_part_weight: float = 0.5  # ... and of every later part
    # Per language (of most of the fused candidates' first files): the FTS weight instead of fts_weight.
    language_fts_weight: tuple[tuple[str, float], ...] = ()
    # A one-line prose question is the dense channel's ground: its FTS weight is fts_weight times this.
    prose_fts_scale: float = 0.5
    # Neighbours of the symbols an issue names, by edge certainty; 0 leaves the graph channel out (and, with the
    # re-ranker off, the named lookup that seeds it). The named channel itself is fused at weight 0.
    graph_weight: float = 0.5
    # The definitions a link to lines points at (GitHub and GitLab permalinks, ".../blob/<ref>/<path>#L10").
    linked_weight: float = channels.LINKED_WEIGHT

    # -- boosts and file ranking ----------------------------------------------------------------------------------
    boosts: BoostFactors = field(default_factory=BoostFactors)
    file_score_decay: float = 0.5  # a file's score: its best symbol plus decaying credit for further ones ...
    file_symbols: int = 5  # ... from at most this many of its symbols
    path_word: float = 0.5  # per path word of the file the query uses ...
    path_words_max: int = 3  # ... counting at most this many words
    issue_non_source: float = 0.3  # an issue's test, doc or example file, unless the issue names it

    # -- declarations (retrieve/folding.py) --------------------------------------------------------------------
    # Declarations folded into their implementations and type-only hits demoted for questions about behaviour;
    # False: the hits as fused (benchmarks/declarations.py's "before", with unique_names False too).
    fold_declarations: bool = True
    type_only: float = folding.TYPE_ONLY  # a type-only hit's score times this, for a question about behaviour
    unique_names: bool = True  # each qualified name once per answer (hits and neighbours), in its best-placed entry
    # A module hit below another hit of its file, found by its own path, names and head (not a part), is left out.
    modules_after_files: bool = True
    # The file ranking counts the candidates unique_names leaves out of the hits, once per file: a fix "in all adapters"
    # edits one `serveStatic` per adapter file, and with the repeats dropped only the best-placed file had it.
    files_count_repeats: bool = True
    # ... except where most top files are in one of these: on the Python held-out half it cost file Acc@5
    # (80.2 -> 78.4) where the Python tuning half had gained (65.4 -> 69.2).
    files_count_repeats_skip: tuple[str, ...] = ("python",)

    # -- learned re-ranking (issue-shaped queries only) ---------------------------------------------------------
    rerank_weights: tuple[float, ...] = WEIGHTS  # () = off, the fused order stands
    rerank_depth: int = RERANK_DEPTH
    # Rank the files again from the re-ranked hits' scores (False: files keep the hand-set order of the fused hits) ...
    rerank_files: bool = False
    # ... and, whatever rerank_files says, when most top files are in one of these languages: on the multi-language
    # tuning half it raised file Acc@5 for Java 73.3 -> 93.3 and TypeScript 77.8 -> 83.3, JavaScript's file Acc@1
    # 38.9 -> 55.6 (18 issues), where Python lost.
    rerank_files_languages: tuple[str, ...] = ("java", "typescript", "tsx", "javascript")
    # ... but not where the hits' own top files are mostly of one of these: a Sphinx issue whose top files were its
    # translation catalogues (locale/*/sphinx.js) is a Python issue.
    rerank_files_skip: tuple[str, ...] = ("python",)

    # -- expand -------------------------------------------------------------------------------------------------
    hop_decay: float = expand.DECAY  # a neighbour's score: its seed's times this per hop
    per_node_cap: int = expand.PER_NODE_CAP  # new neighbours taken from one node, so a hub cannot flood
    # Neighbours from test code per answer unless the query mentions tests: tests call everything, and filled 16 of
    # 72 neighbour slots in fastify answers (issue 29) where the hits themselves demote test code.
    test_neighbours: int = 2
    # Neighbours reached before choosing the listed ones: neighbour_limit times this. Past 1, a neighbour the ranking
    # also found (below the hits) is listed before those only the graph reached (with the one it hangs off).
    # Django tuning half: an edited function in the answer 76.8 -> 79.7 at 6 (3: 78.3; 10, 20: 79.7).
    neighbour_pool: int = 6

    # -- answer -------------------------------------------------------------------------------------------------
    snippet_hits: int = SNIPPET_HITS
    snippet_lines: int = SNIPPET_LINES  # a hit's snippet: at most this many lines ...
    snippet_chars: int = SNIPPET_CHARS  # ... and characters of its source
    neighbour_limit: int = 8  # graph neighbours listed under the hits (10 -> 8 on tuning: as many held, -70 tokens)

    @classmethod
    def from_config(cls, config: RetrievalConfig, **overrides: Any) -> RetrievalParams:
        """The parameters a service with this configuration answers with (plus ``overrides``, by field name)."""
        base = cls(
            file_top_k=config.fileTopK,
            fallback_threshold=config.fallbackThreshold,
            node_top_k=config.nodeTopK,
            graph_hops=config.graphHops,
            rrf_k=config.rrfK,
            dense_weight=config.denseWeight,
            fts_weight=config.ftsWeight,
            max_tokens=config.maxTokens,
        )
        return dataclasses.replace(base, **overrides) if overrides else base

    def with_assignments(self, assignments: Iterable[str]) -> RetrievalParams:
        """A copy with ``name=value`` assignments applied (Python literals; ``boosts.identifier=2.0`` sets one
        boost factor). Unknown names raise ValueError naming the valid ones."""
        params = self
        for spec in assignments:
            name, sep, text = spec.partition("=")
            if not sep:
                raise ValueError(f"{spec!r}: write name=value, e.g. graph_weight=0.0")
            params = params.with_value(name.strip(), _literal(text.strip(), spec))
        return params

    def with_value(self, name: str, value: Any) -> RetrievalParams:
        """A copy with one field (or ``boosts.<factor>``) set, checked against the field's type."""
        head, _, sub = name.partition(".")
        if head == "boosts" and sub:
            return dataclasses.replace(self, boosts=_replace_checked(self.boosts, sub, value))
        params: RetrievalParams = _replace_checked(self, name, value)
        return params


DEFAULT_PARAMS = RetrievalParams()


def _literal(text: str, spec: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise ValueError(f"{spec!r}: the value must be a Python literal (0.5, 3, (), True)") from None


def _replace_checked(obj: Any, name: str, value: Any) -> Any:
    fields = {f.name: f for f in dataclasses.fields(obj)}
    if name not in fields:
        raise ValueError(f"{type(obj).__name__} has no field {name!r}; fields: {', '.join(sorted(fields))}")
    current = getattr(obj, name)
    if isinstance(current, float) and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if isinstance(current, tuple) and isinstance(value, list):
        value = tuple(value)
    if type(value) is not type(current):
        raise ValueError(f"{name} takes a {type(current).__name__}, got {value!r}")
    return dataclasses.replace(obj, **{name: value})
