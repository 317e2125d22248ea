"""Compact text renderings of results, shared by the CLI and the MCP tools' text content."""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Sequence
from typing import Any

from igraph_mcp.models import (
    BuildActivity,
    EdgeRef,
    ExploreResult,
    FileDetail,
    IndexResult,
    Neighbour,
    NodeDetail,
    NodeSummary,
    RelatedResult,
    SkippedFile,
    StatusResult,
)
from igraph_mcp.next_step import NextStep, ask
from igraph_mcp.vocab.skips import COUNTED_REASONS, is_file_reason, skip_advice


def at(repo: str | None, path: str) -> str:
    """A path as shown: ``repo:path`` in a workspace of several repositories, else the path alone."""
    return f"{repo}:{path}" if repo else path


def duration(seconds: float) -> str:
    """A wall time as people read it: ``0.42s``, ``12.3s``, ``4m05s``, ``1h02m``."""
    if seconds < 10:
        return f"{seconds:.2f}s"
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def render_index(r: IndexResult) -> str:
    """One summary block for an index run."""
    label = f"{r.repo}: " if r.repo else ""
    lines = [
        f"{label}{'dry run: ' if r.dryRun else ''}{r.files} files, {r.symbols} symbols, {r.edges} edges "
        f"in {duration(r.seconds)}"
        + (" (" + ", ".join(f"{k} {duration(v)}" for k, v in r.phases.items()) + ")" if r.phases else ""),
        f"changes: {r.added} added, {r.modified} modified, {r.deleted} deleted, {r.renamed} renamed, "
        f"{r.unchanged} unchanged ({r.parsed} parsed)",
    ]
    if r.parseErrors:
        # Macros and language extensions the grammar does not know are common in C and C++: say that the file is in
        # the index, so "syntax errors" is not read as "left out".
        lines.append(
            f"{r.parseErrors} of them have stretches the grammar could not read (macros, extensions); "
            "the definitions found around them are indexed"
        )
    lines += _skipped_lines(r)
    if r.embedded or r.embedReused:
        # Parts of long definitions get vectors too: counting them as symbols contradicted the line above.
        lines.append(f"{r.embedded} vectors embedded, definitions and parts of long ones ({r.embedReused} reused)")
    if r.embedNote:
        lines.append(f"note: {r.embedNote}")
    if r.recoveredFrom:
        lines.append(f"note: the previous index was {r.recoveredFrom}; it was moved aside and rebuilt")
    return "\n".join(lines)


def relation(n: Neighbour) -> str:
    """One stored edge as ``via ->[calls] callee  file:line`` or ``via <-[calls] caller  file:line``: the arrow
    points from the node that calls (inherits, imports) to the one it uses; via is the hit or an entry one hop
    nearer on the same side."""
    arrow = "->" if n.direction == "callee" else "<-"
    mark = "" if n.certain else f" [? {n.resolution}]"
    return (
        f"{n.viaName} {arrow}[{n.edgeKind}] {n.qualifiedName or n.name}  {at(n.repo, n.filePath)}:{n.startLine}{mark}"
    )


def _skipped_lines(r: IndexResult) -> list[str]:
    """The files skipped for a reason worth knowing, grouped by reason with what to do, then the other skips as
    counts (ignore files, excluded folders, file types without a grammar)."""
    named = {k: v for k, v in sorted(r.skipped.items()) if is_file_reason(k)}
    lines: list[str] = []
    if named:
        counts = ", ".join(f"{k} {v}" for k, v in named.items())
        lines.append(f"skipped {sum(named.values())} files: {counts}")
        reason = ""
        for skip in r.skippedFiles:
            if skip.reason != reason:
                reason = skip.reason
                lines.append(f"  {reason}: {skip_advice(reason)}")
            lines.append(f"    {skip.path}" + (f"  ({skip.detail})" if skip.detail else ""))
        more = r.skippedFilesTotal - len(r.skippedFiles)
        if more > 0:
            lines.append(f"  … and {more} more ({ask(NextStep.SKIPPED_FILES)})")
    others = {k: v for k, v in sorted(r.skipped.items()) if not is_file_reason(k)}
    if others:
        described = (
            f"{k} {v}" + (f" ({COUNTED_REASONS[k]})" if k in COUNTED_REASONS else "") for k, v in others.items()
        )
        lines.append("not indexed by rule: " + ", ".join(described))
    return lines


def _skipped_summary(counts: dict[str, int], examples: list[SkippedFile]) -> list[str]:
    """One status line: the skipped files by reason and a few of their paths."""
    if not counts:
        return []
    shown = ", ".join(s.path for s in examples)
    more = sum(counts.values()) - len(examples)
    names = f" (e.g. {shown}{', …' if more > 0 else ''})" if shown else ""
    listed = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    return [f"skipped files: {listed}{names}; {ask(NextStep.FILE)} on one says why"]


SIGNATURE_CHARS = 120  # a signature line of a hit without snippet: long ones run into comments and decorators


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def render_explore(r: ExploreResult) -> str:
    """Hits, neighbours and resources as short lines an agent can act on."""
    out: list[str] = []
    if r.note:
        out.append(f"note: {r.note}")
    for i, h in enumerate(r.hits, 1):
        out.append(
            f"{i}. {h.kind} {h.qualifiedName or h.name}  {at(h.repo, h.filePath)}:{h.startLine}-{h.endLine}"
            + (f"  (match in lines {h.partLines[0]}-{h.partLines[1]})" if h.partLines else "")
            + f"  [{h.score:.4f}]{' (stale)' if h.stale else ''}"
        )
        # The snippet starts with the signature (say it once), unless it is a part from further down.
        if h.signature and (not h.snippet or h.partLines):
            out.append(f"   {_clip(h.signature, SIGNATURE_CHARS)}")
        if h.declaredAt:
            out.append(f"   declared at {h.declaredAt}" + (f": {h.declaredSignature}" if h.declaredSignature else ""))
        if h.alsoAt:
            out.append("   same name also at " + ", ".join(h.alsoAt))
        if h.snippet:
            # The common indentation of a part deep inside a body says nothing; its relative indentation stays.
            out.extend("   | " + line for line in textwrap.dedent(h.snippet).splitlines())
    if r.neighbours:
        out.append("related:")
        out += [f"  {relation(n)}{f'  (d{n.distance})' if n.distance > 1 else ''}" for n in r.neighbours]
        if any(not n.certain for n in r.neighbours):
            out.append("  note: '?' marks a name-only guess on the way (no scope, import or type says so)")
    if r.resources:
        out.append("resources:")
        for res in r.resources:
            why = "direct match" if res.reason == "direct" else "linked via " + ", ".join(res.linkedVia[:3])
            out.append(f"  [{res.kind}] {' › '.join(res.headingPath)}  ({at(res.repo, res.sourceName)}; {why})")
            if res.columns:
                out.append(
                    "    columns: " + ", ".join(f"{c.get('name')} {c.get('type', '')}".strip() for c in res.columns)
                )
    # The hits already name their files: the file ranking adds the files no hit is in (structuredContent too).
    shown = {(h.repo, h.filePath) for h in r.hits}
    more = [at(f.repo, f.filePath) for f in r.files[:10] if (f.repo, f.filePath) not in shown]
    if more:
        out.append("more files: " + ", ".join(more))
    if r.budgetNote:
        out.append(f"note: {r.budgetNote}")
    if not r.hits:
        out.append("no matches")
    return "\n".join(out)


def candidate_lines(candidates: Sequence[NodeSummary]) -> list[str]:
    """An ambiguous name's candidates, one line each; where two share a qualified name in one file (overloads),
    with their signatures, which is what tells them apart for the reader choosing a line."""
    seen = Counter((c.qualifiedName, c.filePath) for c in candidates)
    return [
        f"  {c.kind} {c.qualifiedName}  {at(c.repo, c.filePath)}:{c.startLine}"
        + (f"  {' '.join(c.signature.split())[:120]}" if seen[c.qualifiedName, c.filePath] > 1 and c.signature else "")
        for c in candidates
    ]


def render_node(r: NodeDetail) -> str:
    """Symbol detail with source and call edges."""
    if not r.found or r.node is None:
        return "\n".join([r.message or "not found", *candidate_lines(r.candidates)])
    n = r.node
    where = at(n.repo, n.filePath)
    lines = [f"{n.kind} {n.qualifiedName}  {where}:{n.startLine}-{n.endLine}{' (stale)' if r.stale else ''}"]
    if r.source:
        lines += ["", r.source, ""]
    guesses = False
    for label, refs in (("bases", r.bases), ("callers", r.callers), ("callees", r.callees)):
        if refs:
            lines.append(f"{label}:")
            for e in refs:
                lines.append("  " + _edge_line(e))
                guesses |= e.nodeId is not None and not e.certain
    if guesses:
        lines.append("note: edges marked '?' are name-only guesses (no scope, import or type says so)")
    if r.message:
        lines.append(f"note: {r.message}")
    return "\n".join(lines)


def _edge_line(e: EdgeRef) -> str:
    """`Callee  its/file.py:line  (called at caller/file.py:line)`; an unbound reference says why."""
    site = f"  (called at {e.callSite})" if e.callSite and e.edgeKind == "calls" else ""
    if e.nodeId is None:
        maybe = f": maybe {'; '.join(e.candidates[:3])}" if e.candidates else ""
        return f"{e.qualifiedName or e.name} [{e.resolution}{maybe}]{site}"
    mark = "" if e.certain else f" [? {e.resolution}]"
    return f"{e.qualifiedName or e.name}  {e.filePath}:{e.line}{mark}{site}"


def render_file(r: FileDetail) -> str:
    """File outline."""
    if not r.found:
        return "\n".join([r.message or "not found", *("  " + c for c in r.candidates)])
    where = at(r.repo, r.filePath or "")
    lines = [f"{where} ({r.language}, {r.lines} lines{', has syntax errors' if r.parseStatus != 'ok' else ''})"]
    lines += [f"  {s.startLine:>5}  {s.kind} {s.qualifiedName}" for s in r.symbols]
    if r.imports:
        lines.append("imports: " + ", ".join(r.imports))
    return "\n".join(lines)


def render_related(r: RelatedResult) -> str:
    """Callers and callees list."""
    if not r.found or r.node is None:
        return "\n".join([r.message or "not found", *candidate_lines(r.candidates)])
    lines = [f"{r.node.kind} {r.node.qualifiedName}  {at(r.node.repo, r.node.filePath)}:{r.node.startLine}"]
    lines += [f"  {n.direction} d={n.distance}  {relation(n)}" for n in r.related]
    if any(not n.certain for n in r.related):
        lines.append("  note: '?' marks a name-only guess on the way (no scope, import or type says so)")
    if r.truncated:
        lines.append(f"  note: {r.message}" if r.message else "  … more not shown")
    return "\n".join(lines)


def render_status(r: StatusResult) -> str:
    """Index statistics."""
    from igraph_mcp.index.phases import describe_phases  # here: a search's answer never names build phases

    head = f"{r.repo}: {r.root}" if r.repo else r.root
    others = _repositories_line(r.extra.get("repos") or [])
    running = [render_activity(r.activity)] if r.activity else []
    if not r.indexed:
        phases = ["build phases: " + describe_phases(r.phases)] if r.phases else []
        return "\n".join([f"{head}: not indexed", *running, *phases, *r.notes, *others])
    lines = [
        head,
        f"{r.files} files, {r.symbols} symbols, {r.edges} edges ({r.unresolvedRefs} unresolved references)",
        "languages: " + ", ".join(f"{k} {v}" for k, v in sorted(r.languages.items(), key=lambda kv: -kv[1])),
        f"embedder: {r.embedder or 'none'}; dense coverage {r.denseCoverage:.0%} ({r.vectors} vectors)",
        f"resources: {r.resources} chunks from {r.resourceSources} sources",
        f"stale files: {r.staleCount}; index size {r.dbBytes / 1e6:.1f} MB",
        *_skipped_summary(r.skipped, r.skippedFiles),
        *([f"store: {r.store}"] if r.store else []),
    ]
    lines += running
    if r.phases:
        lines.append("build phases: " + describe_phases(r.phases))
    lines += [f"note: {n}" for n in r.notes]
    return "\n".join(lines + others)


_UNITS = {"embed": "vectors/s", "scan": "files/s", "parse": "files/s"}


def render_activity(a: BuildActivity) -> str:
    """``building: embed 768/2732 at 51.2 vectors/s, about 38 s left (pid 4711)``."""
    counts = f" {a.done}/{a.total}" if a.total else ""
    rate = f" at {a.rate:.1f} {_UNITS.get(a.phase, 'items/s')}" if a.rate > 0 else ""
    left = f", about {round(a.secondsLeft)} s left" if a.secondsLeft is not None else ""
    where = f"pid {a.pid}" + (f" on {a.host}" if a.host else "")
    return f"building: {a.phase}{counts}{rate}{left} ({where})"


def _repositories_line(rows: list[dict[str, Any]]) -> list[str]:
    """A workspace's repositories and their state, one line (empty for one repository)."""

    def state(row: dict[str, Any]) -> str:
        return "building" if row.get("building") else "indexed" if row.get("indexed") else "no index"

    return ["repositories: " + ", ".join(f"{row['repo']} ({state(row)})" for row in rows)] if rows else []


def render_mount(r: Any) -> str:
    """Mount result."""
    data = r.model_dump() if hasattr(r, "model_dump") else dict(r)
    label = f"{data['repo']}: " if data.get("repo") else ""
    lines = [
        f"{label}mounted {data.get('name')} ({data.get('sourceType')}, id {data.get('id')}): "
        f"{data.get('chunks')} chunks, {data.get('links', 0)} links"
    ]
    lines += [f"  line {p['line']}: {p['message']}" for p in data.get("problems", [])]
    return "\n".join(lines)


def render_unmount(r: Any) -> str:
    """Unmount result."""
    data = r.model_dump() if hasattr(r, "model_dump") else dict(r)
    return data.get("message") or f"unmounted {data.get('path')}"


def render_resources(r: Any) -> str:
    """Mounted sources."""
    data = r.model_dump() if hasattr(r, "model_dump") else dict(r)
    items = data.get("sources", [])
    if not items:
        return "no resources mounted"
    return "\n".join(
        f"{s['id']:>4}  {s['sourceType']:<4} {s['name']}  {at(s.get('repo'), s['path'])}  {s['chunks']} chunks"
        + ("  (MISSING on disk)" if s.get("missing") else "")
        for s in items
    )
