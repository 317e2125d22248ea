"""The repository map as a few hundred nodes: files folded into folders until the picture fits, edges summed.

Pure functions over the overview's rows (``igraph_mcp.overview``). A folder is split (replaced by its sub-folders
and files), biggest first, while the map stays within ``max_units``; so a small repository shows every file and
Django shows its packages, each one a click away from its own map. Edges between the shown units are summed by
kind, the heaviest kept, and what was left out is counted.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from igraph_mcp.overview import FileEdge, FileSummary
from igraph_mcp.vocab.testcode import TEST_DIRS

MAX_UNITS = 80  # nodes on one map: readable labels; the page offers 40 to 400
MAX_EDGES = 1500
MAX_OUTSIDE = 30  # units outside a focused folder that it talks to, heaviest first
DOMINANT_TESTS = 0.25  # a test folder with this share of a map's files stays one node (its own map unfolds it)
MAX_LABELS = 30  # labels drawn at the overview zoom: folders first, then the biggest files; the rest on zooming in
LABEL_CHARS = 24  # a longer label is cut in the middle (the full path is in the node's tooltip)


@dataclass
class MapUnit:
    """A node of the map: one file, or one folder standing for every file below it."""

    id: str  # a file's path, a folder's path with a trailing '/', or the folder's path + '…' for 'rest'
    label: str
    kind: str  # 'file', 'folder', or 'rest' (the smaller children of a folder too wide to show, as one node)
    symbols: int = 0
    files: int = 0
    group: str = ""  # the folder holding the unit, below the focus (a top folder: itself): the map's colours
    outside: bool = False  # outside the focused folder (only its links to the focus are shown)
    folded: bool = False  # a dominant test folder kept as one node however much room the map has
    languages: dict[str, int] = field(default_factory=dict)


@dataclass
class MapEdge:
    """Edges from the symbols of one unit to those of another, by kind, and how many are certain."""

    source: str
    target: str
    counts: dict[str, int] = field(default_factory=dict)
    certain: int = 0

    @property
    def total(self) -> int:
        """All edges summed over kinds."""
        return sum(self.counts.values())


@dataclass
class MapView:
    """One map: its units and edges, and what did not fit."""

    focus: str
    units: list[MapUnit]
    edges: list[MapEdge]
    files: int
    symbols: int
    omitted_edges: int = 0
    omitted_outside: int = 0
    labelled: set[str] = field(default_factory=set)  # units whose label is drawn at the overview zoom


def normalize_focus(focus: str) -> str:
    """'' for the root, else a folder path without leading or trailing slashes ('./a/b/' -> 'a/b')."""
    parts = [p for p in focus.replace("\\", "/").split("/") if p not in ("", ".")]
    return "/".join(parts)


def _parent(path: str) -> str:
    """The folder id holding ``path`` ('' for the root)."""
    trimmed = path.rstrip("/")
    return trimmed.rsplit("/", 1)[0] + "/" if "/" in trimmed else ""


def is_test_folder(unit: str) -> bool:
    """A folder id ('pkg/tests/') named the way test folders are (``vocab.testcode.TEST_DIRS``)."""
    return unit.endswith("/") and unit.rstrip("/").rsplit("/", 1)[-1].lower() in TEST_DIRS


def dominant_tests(weight: dict[str, tuple[int, int]], files: int) -> set[str]:
    """Test folders holding at least ``DOMINANT_TESTS`` of a map's ``files`` (but not all of them): each is drawn
    as one folded node, so hundreds of test files never crowd the code they test off the map."""
    return {
        u for u, (_, n) in weight.items() if is_test_folder(u) and DOMINANT_TESTS * files <= n < files and files > 0
    }


def abbreviate(label: str, limit: int = LABEL_CHARS) -> str:
    """``label`` within ``limit`` characters, cut in the middle so both its start and its end (an extension, a
    folder's '/') stay readable."""
    if len(label) <= limit:
        return label
    tail = (limit - 1) // 2
    return label[: limit - 1 - tail] + "…" + (label[-tail:] if tail else "")


def overview_labels(units: Sequence[MapUnit], max_labels: int = MAX_LABELS) -> set[str]:
    """The units labelled at the overview zoom: folders (and the 'rest' node) before files, bigger before smaller,
    units outside the focus last; at most ``max_labels``, and never some of a tie (of 50 files of one size, none is
    picked by its name)."""

    def rank(u: MapUnit) -> tuple[bool, bool, int, int]:
        return (u.outside, u.kind == "file", -u.symbols, -u.files)

    ranked = sorted(units, key=lambda u: (rank(u), u.id))
    if len(ranked) <= max_labels:
        return {u.id for u in ranked}
    cut = max(0, max_labels)
    while cut > 0 and rank(ranked[cut - 1]) == rank(ranked[cut]):
        cut -= 1
    return {u.id for u in ranked[:cut]}


def _children_index(paths: Iterable[str], base: str) -> dict[str, set[str]]:
    """Folder id -> its direct children (sub-folder ids and file paths), for every folder at or below ``base``."""
    children: dict[str, set[str]] = defaultdict(set)
    for path in paths:
        node = path
        while True:
            parent = _parent(node)
            children[parent].add(node)
            if parent == base or not parent.startswith(base):
                break
            node = parent
    return children


def _split_to_fit(
    children: dict[str, set[str]],
    base: str,
    weight: dict[str, tuple[int, int]],
    max_units: int,
    keep: AbstractSet[str] = frozenset(),
) -> tuple[list[str], set[str]]:
    """Units below ``base`` and the children folded into one 'rest' unit (when ``base`` alone has too many).

    Start with the children of ``base``, then split the biggest folders (never those in ``keep``) while the map fits.
    """
    units = set(children.get(base, set()))
    rest: set[str] = set()
    if len(units) > max_units:  # a folder of 200 packages: show the biggest, fold the others into one node
        ranked = sorted(units, key=lambda u: (-weight[u][0], -weight[u][1], u))
        units, rest = set(ranked[: max_units - 1]), set(ranked[max_units - 1 :])
    heap = [(-weight[u][0], -weight[u][1], u) for u in units if u.endswith("/") and u not in keep]
    heapq.heapify(heap)
    while heap:
        _, _, folder = heapq.heappop(heap)
        inner = children.get(folder, set())
        if len(units) - 1 + len(inner) > max_units:
            continue  # a smaller folder further down the heap may still fit
        units.discard(folder)
        units |= inner
        for u in inner:
            if u.endswith("/") and u not in keep:
                heapq.heappush(heap, (-weight[u][0], -weight[u][1], u))
    return sorted(units), rest


def _unit_of(path: str, units: set[str]) -> str | None:
    """The shown unit a file belongs to: the file itself or its nearest folder on the map."""
    if path in units:
        return path
    folder = _parent(path)
    while folder:
        if folder in units:
            return folder
        folder = _parent(folder)
    return None


def _outside_unit(path: str, depth: int) -> str:
    """A file outside the focus as seen from it: its folder ``depth`` parts deep, or the file when shallower."""
    parts = path.split("/")
    return "/".join(parts[:depth]) + "/" if len(parts) > depth else path


def fold_map(
    files: Sequence[FileSummary],
    edges: Sequence[FileEdge],
    *,
    focus: str = "",
    max_units: int = MAX_UNITS,
    max_edges: int = MAX_EDGES,
    max_outside: int = MAX_OUTSIDE,
) -> MapView:
    """The map of ``focus`` (a folder, '' for the whole repository) within ``max_units`` nodes."""
    focus = normalize_focus(focus)
    base = focus + "/" if focus else ""
    inside = [f for f in files if f.path.startswith(base)]
    weight: dict[str, tuple[int, int]] = defaultdict(lambda: (0, 0))
    languages: dict[str, dict[str, int]] = defaultdict(dict)
    for f in inside:
        node = f.path
        while node != base and node.startswith(base):
            s, n = weight[node]
            weight[node] = (s + f.symbols, n + 1)
            languages[node][f.language] = languages[node].get(f.language, 0) + 1
            node = _parent(node)
    children = _children_index((f.path for f in inside), base)
    folded = dominant_tests(weight, len(inside))
    shown, rest = _split_to_fit(children, base, weight, max(2, max_units), folded)
    shown_set = set(shown)
    rest_id = base + "…"
    by_id = {f.id: f for f in files}
    depth = len(focus.split("/")) if focus else 0

    def place(file_id: int) -> tuple[str, bool] | None:
        f = by_id.get(file_id)
        if f is None:
            return None
        if f.path.startswith(base):
            unit = _unit_of(f.path, shown_set)
            if unit is None and rest:
                top = f.path[len(base) :].split("/", 1)
                unit = rest_id if (base + top[0] + ("/" if len(top) > 1 else "")) in rest else None
            return (unit, False) if unit else None
        return _outside_unit(f.path, depth), True

    pairs: dict[tuple[str, str], MapEdge] = {}
    outside_weight: dict[str, int] = defaultdict(int)
    for e in edges:
        a, b = place(e.source_file), place(e.target_file)
        if a is None or b is None or a[0] == b[0] or (a[1] and b[1]):
            continue  # inside one unit, or not touching the focus at all
        edge = pairs.get((a[0], b[0]))
        if edge is None:
            edge = pairs[(a[0], b[0])] = MapEdge(a[0], b[0])
        edge.counts[e.kind] = edge.counts.get(e.kind, 0) + e.count
        edge.certain += e.certain
        for unit, out in (a, b):
            if out:
                outside_weight[unit] += e.count
    kept_outside = set(sorted(outside_weight, key=lambda u: (-outside_weight[u], u))[: max(0, max_outside)])
    kept = [e for e in pairs.values() if _touches_only(e, shown_set | {rest_id}, kept_outside)]
    kept.sort(key=lambda e: (-e.total, e.source, e.target))
    units = [_unit(u, base, weight[u], languages[u], folded=u in folded) for u in shown]
    if rest:
        units.append(
            MapUnit(
                id=rest_id,
                label=f"… {len(rest)} smaller",
                kind="rest",
                symbols=sum(weight[u][0] for u in rest),
                files=sum(weight[u][1] for u in rest),
                group="(smaller)",
            )
        )
    units += [
        MapUnit(id=u, label=u.rstrip("/"), kind="folder" if u.endswith("/") else "file", group="outside", outside=True)
        for u in sorted(kept_outside)
    ]
    return MapView(
        focus=focus,
        units=units,
        edges=kept[:max_edges],
        files=len(inside),
        symbols=sum(f.symbols for f in inside),
        omitted_edges=max(0, len(kept) - max_edges),
        omitted_outside=len(outside_weight) - len(kept_outside),
        labelled=overview_labels(units),
    )


def _touches_only(edge: MapEdge, shown: set[str], outside: set[str]) -> bool:
    return all(end in shown or end in outside for end in (edge.source, edge.target))


def _unit(unit: str, base: str, weight: tuple[int, int], languages: dict[str, int], *, folded: bool) -> MapUnit:
    rel = unit[len(base) :]
    return MapUnit(
        id=unit,
        label=rel.rstrip("/").rsplit("/", 1)[-1] + ("/" if unit.endswith("/") else ""),
        kind="folder" if unit.endswith("/") else "file",
        symbols=weight[0],
        files=weight[1],
        group=_group(rel),
        folded=folded,
        languages=dict(languages),
    )


def _group(rel: str) -> str:
    """A unit's colour group: the folder holding it below the focus ('' -> '(files here)'), a top folder its own."""
    trimmed = rel.rstrip("/")
    if "/" in trimmed:
        return trimmed.rsplit("/", 1)[0]
    return trimmed if rel.endswith("/") else "(files here)"
