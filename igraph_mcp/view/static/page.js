// igraph-mcp view: draws the graph documents the server (or the embedded snapshot of an --out file) hands over.
// Every text from the repository goes into the page through textContent, never as HTML.
"use strict";
(function () {
  const boot = JSON.parse(document.getElementById("igraph-boot").textContent);
  const token = new URLSearchParams(location.search).get("token") || "";
  const state = { tab: "search", graphs: {}, ready: {}, busy: 0, mapFocus: "", mapUnits: 80, loaded: {} };
  window.igraphView = state;

  const TYPE_COLOURS = {
    hit: "#4f6df5", neighbour: "#9aa9d6", focus: "#f59f00", symbol: "#8fb3ff", unresolved: "#c9cdd6",
    resource: "#2fb380", file: "#8fb3ff", folder: "#6b8cff",
  };
  const LABEL_PX = 13;  // a map label's height on screen at the zoom it was placed for
  const ZOOM_ALL = 2;  // zoomed in this many times from the map's overview, every unit is labelled
  const EDGE_COLOURS = { calls: "#5b6fb5", inherits: "#c2410c", implements: "#c2410c", imports: "#2f9e6f",
    references: "#8a8fa3", links: "#2fb380" };

  // -- small helpers ----------------------------------------------------------------------------------------
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") node.className = v;
      else if (k === "onclick") node.addEventListener("click", v);
      else if (k === "dataset") Object.assign(node.dataset, v);
      else node.setAttribute(k, v);
    }
    for (const c of children) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }
  function clear(node, ...children) { node.replaceChildren(...children.filter(Boolean)); return node; }
  function short(text, n) { text = String(text || ""); return text.length > n ? text.slice(0, n - 1) + "…" : text; }
  const PALETTE = ["#6b8cff", "#f59f00", "#2fb380", "#e8590c", "#ae3ec9", "#1c7ed6", "#f06595", "#74b816",
    "#15aabf", "#fab005", "#845ef7", "#e64980", "#40c057", "#fd7e14", "#4c6ef5", "#12b886"];
  const groupColour = new Map();
  function hue(name) {
    if (name === "outside") return "#d0d4dc";
    if (!groupColour.has(name)) groupColour.set(name, PALETTE[groupColour.size % PALETTE.length]);
    return groupColour.get(name);
  }
  function notice(text, isError) {
    const box = document.getElementById("notice");
    box.hidden = !text;
    box.className = isError ? "error" : "";
    box.textContent = text || "";
  }
  function entries(params) {
    return Object.entries(params || {}).map(([k, v]) => [k, String(v)]).sort((a, b) => (a[0] < b[0] ? -1 : 1));
  }
  // An answer's key in an offline file's snapshot (snapshot.py writes the same).
  function key(path, params) {
    const e = entries(params);
    return e.length ? path + " " + JSON.stringify(e) : path;
  }

  async function api(path, params) {
    if (boot.mode === "static") {
      const k = key(path, params);
      if (Object.prototype.hasOwnProperty.call(boot.snapshot, k)) return boot.snapshot[k];
      throw new Error(boot.missing[path] || "this offline file does not hold that answer; run `igraph-mcp view` for the live page");
    }
    state.busy += 1;
    try {
      const qs = new URLSearchParams(entries(params)).toString();
      const res = await fetch("api/" + path + (qs ? "?" + qs : ""), {
        headers: { Authorization: "Bearer " + token }, cache: "no-store", credentials: "omit",
      });
      const body = await res.json();
      if (!res.ok) throw new Error(body.error || res.statusText);
      return body;
    } finally {
      state.busy -= 1;
    }
  }

  // -- drawing ----------------------------------------------------------------------------------------------
  function visNode(n) {
    const colour = n.type === "file" || n.type === "folder" || n.type === "rest" ? hue(n.group) : (TYPE_COLOURS[n.type] || "#8fb3ff");
    // Map units get their labels once the layout settles (settleMapLabels).
    const label = "labelled" in n ? "" : (n.rank ? n.rank + ". " : "") + short(n.label, 42);
    return {
      id: n.id, label, title: n.title, value: n.size || 1,
      shape: n.type === "resource" ? "box" : n.folded ? "hexagon" : n.type === "folder" ? "diamond" : n.type === "rest" ? "square"
        : n.type === "unresolved" ? "text" : "dot",
      color: { background: colour, border: n.outside ? "#999" : "#2b3a67" },
      borderWidth: n.type === "focus" || n.folded ? 3 : 1,
      font: { size: n.type === "hit" ? 14 : 12, color: n.type === "unresolved" ? "#889" : "#1d2330" },
    };
  }
  function edgeId(e) { return `${e.from}>${e.to}>${e.kind}`; }
  function unique(edges) {
    const seen = new Set();
    return edges.filter((e) => { const k = edgeId(e); if (seen.has(k)) return false; seen.add(k); return true; });
  }
  function visEdge(e) {
    return {
      id: edgeId(e), from: e.from, to: e.to, arrows: "to", value: e.weight || 1,
      dashes: e.certain === false, color: { color: EDGE_COLOURS[e.kind.split("+")[0]] || "#8a8fa3", opacity: 0.7 },
      title: `${e.kind}${e.weight > 1 ? " ×" + e.weight : ""}${e.certain === false ? " (guessed by name)" : e.certain ? " (certain)" : ""}`,
    };
  }
  function draw(tab, doc, onClick, onDouble, settled) {
    const box = document.getElementById("graph-" + tab);
    if (state.graphs[tab]) state.graphs[tab].network.destroy();
    state.ready[tab] = false;
    doc = { ...doc, edges: unique(doc.edges) };
    const nodes = new vis.DataSet(doc.nodes.map(visNode));
    const edges = new vis.DataSet(doc.edges.map(visEdge));
    const many = doc.nodes.length > 80;
    const network = new vis.Network(box, { nodes, edges }, {
      nodes: { scaling: { min: 8, max: tab === "map" ? 46 : 28, label: { enabled: false } } },
      edges: { scaling: { min: 1, max: 8 }, smooth: many ? false : { type: "continuous" }, arrows: { to: { scaleFactor: 0.5 } } },
      layout: { improvedLayout: !many, randomSeed: 7 },
      physics: { solver: "forceAtlas2Based", forceAtlas2Based: { gravitationalConstant: -60, springLength: 90 },
        stabilization: { iterations: many ? 220 : 150, updateInterval: 50 } },
      interaction: { hover: true, tooltipDelay: 150, hideEdgesOnDrag: many },
    });
    const g = { network, nodes, edges, doc: { nodes: [...doc.nodes], edges: [...doc.edges], meta: doc.meta || {} } };
    state.graphs[tab] = g;
    const done = () => {
      network.setOptions({ physics: false });
      if (settled) settled(g);
      state.ready[tab] = true;
    };
    if (doc.nodes.length === 0) state.ready[tab] = true;
    else network.once("stabilizationIterationsDone", done);
    network.on("click", (p) => { if (p.nodes.length) onClick(p.nodes[0]); });
    if (onDouble) network.on("doubleClick", (p) => { if (p.nodes.length) onDouble(p.nodes[0]); });
    return g;
  }
  // Take a view's drawing away (an answer that could not be had must not leave the last one looking current).
  function forget(tab) {
    if (state.graphs[tab]) state.graphs[tab].network.destroy();
    delete state.graphs[tab];
    state.ready[tab] = true;
  }
  function docNode(tab, id) { return (state.graphs[tab]?.doc.nodes || []).find((n) => n.id === id); }
  // Where a node is drawn, from the top left of its view's drawing area (the browser test clicks there).
  state.nodePosition = function (tab, id) {
    const g = state.graphs[tab];
    const pos = g.network.canvasToDOM(g.network.getPositions([id])[id]);
    const box = document.getElementById("graph-" + tab);
    return { x: pos.x, y: pos.y, width: box.clientWidth, height: box.clientHeight };
  };

  // -- tabs -------------------------------------------------------------------------------------------------
  function show(tab) {
    state.tab = tab;
    for (const s of document.querySelectorAll(".tab")) s.hidden = s.id !== "tab-" + tab;
    for (const b of document.querySelectorAll(".tab-button")) b.classList.toggle("active", b.dataset.tab === tab);
    if (tab === "map" && !state.loaded.map) openMap("");
    if (tab === "resources" && !state.loaded.resources) openResources(0);
    if (state.graphs[tab]) state.graphs[tab].network.fit();
  }

  // -- search -----------------------------------------------------------------------------------------------
  function channelBadges(hit) {
    const out = [];
    for (const [ch, rank] of Object.entries(hit.ranks || {})) out.push(el("span", { class: "badge " + ch.replace(/[0-9]/g, "") }, `${ch} #${rank}`));
    for (const b of hit.boosts || []) out.push(el("span", { class: "badge boost" }, b));
    if (hit.stale) out.push(el("span", { class: "badge stale" }, "stale"));
    return out;
  }
  async function runSearch(query) {
    const side = document.getElementById("search-side");
    clear(side, el("p", { class: "muted" }, "searching…"));
    forget("search");
    let answer;
    try {
      answer = await api("search", { q: query });
    } catch (err) {
      const why = boot.mode === "static"
        ? `This offline file cannot answer “${short(query, 80)}”: ${err.message}. For live queries run \`igraph-mcp view\` in the repository (it serves this page with a server behind it), or write the file again with --query.`
        : `The search failed: ${err.message}`;
      notice(why, true);
      clear(side, el("p", { id: "search-failed" }, why));
      if (boot.mode === "static") side.append(staticQueries());
      return;
    }
    notice(boot.mode === "static" ? staticNotice() : "");
    const r = answer.result;
    const d = r.diagnostics || {};
    const total = Object.values(d.timingsMs || {}).reduce((a, b) => Math.max(a, b), 0);
    const hits = el("ul", { id: "hits" }, ...r.hits.map((h, i) => el("li", {
      class: "clickable hit", dataset: { nodeId: h.nodeId }, onclick: () => openSymbol(h.nodeId) },
    el("b", {}, `${i + 1}. `), el("span", { class: "kind" }, h.kind), el("b", {}, h.qualifiedName || h.name), " ",
    el("span", { class: "loc" }, `${h.filePath}:${h.startLine}-${h.endLine}`),
    // A declaration the service folded into this implementation (a .d.ts, an interface member): shown as it says.
    h.declaredAt ? el("div", { class: "loc declared" }, `declared at ${h.declaredAt}${h.declaredSignature ? ": " + h.declaredSignature : ""}`) : el("br"),
    // Definitions of the same name in other files, which the answer lists here instead of as hits of their own.
    h.alsoAt && h.alsoAt.length ? el("div", { class: "loc also" }, `same name also at ${h.alsoAt.join(", ")}`) : null,
    el("span", { class: "badge" }, `${h.matchChannel} ${h.score.toFixed(4)}`), ...channelBadges(h))));
    const neighbours = el("ul", { id: "neighbours" }, ...r.neighbours.map(neighbourItem(openSymbol)));
    const resources = el("ul", {}, ...r.resources.map((x) => el("li", {},
      el("span", { class: "kind" }, x.kind), el("b", {}, (x.headingPath || []).join(" › ") || x.title), " ",
      el("span", { class: "loc" }, `${x.sourceName} (${x.reason})`))));
    clear(side,
      el("div", { class: "muted", id: "diagnostics" }, `channels: ${(d.channels || []).join(", ") || "none"}`,
        d.fallbackTriggered ? " · dense fallback to a global search" : "", total ? ` · ${Math.round(total)} ms` : "",
        r.degraded ? ` · degraded: ${r.note || d.note || ""}` : "", r.budgetNote ? ` · ${r.budgetNote}` : ""),
      el("h2", {}, `Hits (${r.hits.length})`), hits,
      el("h2", {}, `Neighbours the agent receives (${r.neighbours.length})`), r.neighbours.length ? neighbours : el("p", { class: "muted" }, "none"),
      el("h2", {}, `Resources attached (${r.resources.length})`), r.resources.length ? resources : el("p", { class: "muted" }, "none mounted or none matched"),
      el("details", {}, el("summary", {}, "What the agent reads (the text part of the answer)"), el("pre", { id: "agent-text" }, answer.text)));
    draw("search", answer.graph, (id) => { const n = docNode("search", id); if (n && n.nodeId) openSymbol(n.nodeId); });
  }
  // One neighbour or related entry as the service gave it: what it is, and how it hangs off its via-node.
  function relation(n) { return `${n.direction} of ${n.viaName || "#" + n.viaNodeId}, distance ${n.distance}`; }
  function neighbourItem(onPick) {
    return (n) => el("li", { class: "clickable neighbour", dataset: { nodeId: n.nodeId, distance: n.distance, via: n.viaNodeId },
      onclick: () => onPick(n.nodeId) },
    el("span", { class: "kind" }, n.edgeKind), el("b", {}, n.qualifiedName || n.name), " ",
    el("span", { class: "loc" }, `${n.filePath}:${n.startLine}`), el("br"),
    el("span", { class: "badge" }, `d${n.distance}`), el("span", { class: "relation" }, relation(n)),
    n.certain ? null : el("span", { class: "badge guess" }, "guess: " + n.resolution));
  }
  function staticNotice() {
    return `An offline snapshot written ${boot.written}: the map, the status and the resources are complete; search answers and symbols only as listed.`;
  }
  function staticQueries() {
    const qs = boot.queries || [];
    if (!qs.length) return el("p", { class: "muted" }, "This file was written without answers to search; pass --query to `igraph-mcp view --out`.");
    return el("div", {}, el("p", {}, "Answers held by this file:"),
      ...qs.map((q) => el("button", { type: "button", onclick: () => { document.getElementById("q").value = q; runSearch(q); } }, q)));
  }

  // -- one symbol, expanding ---------------------------------------------------------------------------------
  function refList(title, refs, total) {
    const more = total > refs.length ? ` (${refs.length} of ${total} shown)` : "";
    return [el("h3", {}, `${title}: ${total}${more}`), el("ul", {}, ...refs.map((r) => el("li", {
      class: r.nodeId ? "clickable" : "", onclick: () => { if (r.nodeId) expandSymbol(r.nodeId); } },
    el("span", { class: "kind" }, r.kind || "?"), el("b", {}, r.qualifiedName || r.name), " ",
    el("span", { class: "loc" }, r.filePath ? `${r.filePath}:${r.line}` : "unresolved"),
    r.certain ? null : el("span", { class: "badge guess" }, r.nodeId ? "guess: " + r.resolution : r.resolution))))];
  }
  function symbolSide(answer) {
    const d = answer.detail;
    const n = d.node;
    const t = answer.totals;
    clear(document.getElementById("symbol-side"),
      el("h2", { id: "symbol-title" }, el("span", { class: "kind" }, n.kind), n.qualifiedName),
      el("div", { class: "loc" }, `${n.filePath}:${n.startLine}-${n.endLine}`, d.stale ? " (changed since indexed)" : ""),
      n.signature ? el("pre", {}, n.signature) : null,
      d.docstring ? el("p", {}, short(d.docstring, 600)) : null,
      ...refList("Callers", d.callers, t.callers), ...refList("Callees", d.callees, t.callees),
      ...refList("Bases", d.bases, t.bases),
      ...(t.imports ? refList("Imports", answer.imports, t.imports) : []),
      ...(t.importedBy ? refList("Imported by", answer.importedBy, t.importedBy) : []),
      ...relatedList(answer),
      el("h3", {}, "Source" + (d.sourceTruncated ? " (cut)" : "")), el("pre", { id: "symbol-source" }, d.source));
  }
  function relatedList(answer) {
    const r = answer.related;
    if (!r) return [];
    return [el("h3", {}, `Related within ${answer.relatedHops} hops (igraph_related): ${r.related.length}`),
      r.related.length ? el("ul", { id: "related" }, ...r.related.map(neighbourItem(expandSymbol))) : el("p", { class: "muted" }, "none"),
      r.message ? el("p", { class: "muted" }, r.message) : null,
      el("details", {}, el("summary", {}, "What the agent reads (igraph_related's text)"), el("pre", { id: "related-text" }, answer.relatedText))];
  }
  // The Symbol tab with nothing in it: why, and how to pick a symbol.
  function symbolEmpty(why) {
    forget("symbol");
    clear(document.getElementById("symbol-side"),
      el("h2", { id: "symbol-empty" }, why ? "Symbol not found" : "No symbol chosen"),
      why ? el("p", {}, why) : null,
      el("p", {}, "To pick one: search on the Search tab and click a hit or a neighbour; or click a file on the Map tab, then a symbol in its outline; or click a symbol linked to a section under Resources."),
      boot.mode === "static" ? el("p", { class: "muted" }, "This offline file holds only the symbols of its searches and resources; run `igraph-mcp view` in the repository to open any symbol.") : null);
  }
  async function openSymbol(nodeId) {
    show("symbol");
    let answer;
    try { answer = await api("node", { id: nodeId }); } catch (err) { notice(err.message, true); symbolEmpty(err.message); return; }
    if (!answer.found) { notice(answer.message, true); symbolEmpty(answer.message); return; }
    notice(boot.mode === "static" ? staticNotice() : "");
    state.expanded = new Set([answer.graph.meta.centre]);
    draw("symbol", answer.graph, (id) => { const x = docNode("symbol", id); if (x && x.nodeId) expandSymbol(x.nodeId); });
    symbolSide(answer);
  }
  async function expandSymbol(nodeId) {
    const g = state.graphs.symbol;
    let answer;
    try { answer = await api("node", { id: nodeId }); } catch (err) { notice(err.message, true); return; }
    if (!answer.found) { notice(answer.message, true); return; }
    symbolSide(answer);
    const centre = answer.graph.meta.centre;
    if (state.expanded.has(centre)) return;
    state.expanded.add(centre);
    const known = new Set(g.nodes.getIds());
    const fresh = answer.graph.nodes.filter((n) => !known.has(n.id));
    g.nodes.add(fresh.map(visNode));
    g.nodes.update({ id: centre, borderWidth: 3, color: { background: TYPE_COLOURS.focus, border: "#2b3a67" } });
    const have = new Set(g.edges.getIds());
    const newEdges = unique(answer.graph.edges).filter((e) => !have.has(edgeId(e)));
    g.edges.add(newEdges.map(visEdge));
    g.doc.nodes.push(...fresh);
    g.doc.edges.push(...newEdges);
    state.expandedCount = state.expanded.size;
  }

  // -- the map ----------------------------------------------------------------------------------------------
  function crumbs(focus) {
    const parts = focus ? focus.split("/") : [];
    const box = clear(document.getElementById("map-crumbs"), el("button", { type: "button", onclick: () => openMap("") }, "(repository)"));
    parts.forEach((p, i) => box.append(" / ", el("button", { type: "button", onclick: () => openMap(parts.slice(0, i + 1).join("/")) }, p)));
  }
  function statusBlock(s) {
    const langs = Object.entries(s.languages || {}).sort((a, b) => b[1] - a[1]);
    const most = langs.length ? langs[0][1] : 1;
    return el("div", { id: "status" },
      el("h2", {}, "Index"),
      el("div", {}, `${s.files} files · ${s.symbols} symbols · ${s.edges} edges · ${s.unresolvedRefs} unresolved references`),
      el("div", {}, `embedder: ${s.embedder || "none"} · dense coverage ${(100 * (s.denseCoverage || 0)).toFixed(1)}% (${s.vectors} vectors)`),
      el("div", {}, `resources: ${s.resources} chunks from ${s.resourceSources} sources`),
      el("h3", {}, "Languages"),
      el("ul", {}, ...langs.slice(0, 20).map(([l, n]) => el("li", {}, `${l} ${n}`, el("span", { class: "bar", style: `width:${Math.max(2, 120 * n / most)}px` })))),
      el("h3", {}, `Stale files: ${s.staleCount}`),
      s.staleCount ? el("ul", {}, ...s.staleFiles.map((f) => el("li", { class: "loc" }, f)),
        s.staleCount > s.staleFiles.length ? el("li", { class: "muted" }, `and ${s.staleCount - s.staleFiles.length} more`) : null) : null,
      ...(s.notes || []).map((n) => el("p", { class: "muted" }, n)));
  }
  async function openMap(focus) {
    state.loaded.map = true;
    const side = document.getElementById("map-side");
    let doc, status;
    try {
      const params = focus ? { focus } : {};
      if (state.mapUnits !== 80) params.units = state.mapUnits;
      [doc, status] = await Promise.all([api("map", params), state.status ? state.status : api("status")]);
    } catch (err) { notice(err.message, true); return; }
    notice("");
    state.status = status;
    state.mapFocus = doc.meta.focus;
    crumbs(doc.meta.focus);
    const m = doc.meta;
    const cut = m.omittedEdges || m.omittedOutside ? ` (${m.omittedEdges} lighter edges and ${m.omittedOutside} outside units not drawn)` : "";
    clear(side, el("div", { id: "map-summary" }, `${m.focus || "repository"}: ${m.files} files, ${m.symbols} symbols as ${doc.nodes.length} nodes, ${doc.edges.length} edges${cut}`),
      detailPicker(), el("div", { id: "map-selection" }), statusBlock(status));
    groupColour.clear();
    draw("map", doc, (id) => selectUnit(id), (id) => { const n = docNode("map", id); if (n && n.type === "folder") openMap(n.id.replace(/\/$/, "")); }, settleMapLabels);
  }
  // Map labels, once the layout has settled: the server's picks (folders, the biggest files), LABEL_PX high on
  // screen, bigger nodes first, a label dropped where it would overlap one already placed; zoomed in ZOOM_ALL
  // times from there, every unit is labelled.
  function overlaps(a, b) { return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom; }
  function labelFont(scale) { return { size: Math.min(120, Math.round(LABEL_PX / scale)) }; }
  function settleMapLabels(g) {
    const overview = g.network.getScale();
    const picked = g.doc.nodes.filter((n) => n.labelled).sort((a, b) => b.size - a.size || (a.id < b.id ? -1 : 1));
    g.nodes.update(picked.map((n) => ({ id: n.id, label: n.label, font: labelFont(overview) })));
    g.network.redraw();
    const placed = [];
    const dropped = [];
    for (const n of picked) {
      const box = g.network.getBoundingBox(n.id);
      if (placed.some((p) => overlaps(p, box))) dropped.push(n.id);
      else placed.push(box);
    }
    g.nodes.update(dropped.map((id) => ({ id, label: "" })));
    const shown = new Set(picked.filter((n) => !dropped.includes(n.id)).map((n) => n.id));
    g.allLabels = false;
    // Labels keep their size on screen while the map zooms, so zooming in spreads them apart.
    g.network.on("zoom", (p) => {
      g.allLabels = p.scale >= overview * ZOOM_ALL;
      const font = labelFont(p.scale);
      g.nodes.update(g.doc.nodes.map((n) => ({ id: n.id, label: g.allLabels || shown.has(n.id) ? n.label : "", font })));
    });
  }
  function detailPicker() {
    if (boot.mode === "static") return null;
    const pick = el("select", { id: "map-units" }, ...[40, 80, 200, 400].map((n) => el("option", { value: n }, `${n} nodes`)));
    pick.value = String(state.mapUnits);
    pick.addEventListener("change", () => { state.mapUnits = Number(pick.value); openMap(state.mapFocus); });
    return el("div", {}, "detail: ", pick);
  }
  async function selectUnit(id) {
    const n = docNode("map", id);
    const box = document.getElementById("map-selection");
    if (!n) return;
    const head = el("h2", {}, n.id);
    if (n.type === "rest") {
      clear(box, head, el("div", {}, `${n.files} files, ${n.size} symbols in the folders and files too small to draw here`),
        el("p", { class: "muted" }, "pick more detail above to draw them"));
      return;
    }
    if (n.type === "folder") {
      clear(box, head, el("div", {}, n.outside ? "outside this map" : `${n.files} files, ${n.size} symbols`),
        n.folded ? el("p", { id: "folded-note" }, "Tests, folded into one node so they do not crowd the code off the map: double-click it or open its map to see them.") : null,
        el("button", { type: "button", id: "open-folder", onclick: () => openMap(n.id.replace(/\/$/, "")) }, "Open this folder's map"));
      return;
    }
    clear(box, head, el("p", { class: "muted" }, "loading outline…"));
    let f;
    try { f = await api("file", { path: n.id }); } catch (err) { clear(box, head, el("p", { class: "muted" }, err.message)); return; }
    clear(box, head, el("div", {}, `${f.language || ""} · ${f.lines} lines · ${f.symbols.length} symbols`),
      el("ul", {}, ...f.symbols.slice(0, 200).map((s) => el("li", { class: "clickable", onclick: () => openSymbol(s.nodeId) },
        el("span", { class: "kind" }, s.kind), s.qualifiedName, " ", el("span", { class: "loc" }, `:${s.startLine}`))),
      f.symbols.length > 200 ? el("li", { class: "muted" }, `and ${f.symbols.length - 200} more`) : null));
  }

  // -- resources --------------------------------------------------------------------------------------------
  async function openResources(offset) {
    state.loaded.resources = true;
    const side = document.getElementById("resources-side");
    let r;
    try { r = await api("resources", offset ? { offset } : {}); } catch (err) { notice(err.message, true); return; }
    const sources = r.sources.sources || [];
    if (!sources.length) {
      clear(side, el("h2", {}, "No documents mounted"), el("p", {}, "Mount a PRD or a DB schema and the agent receives its sections with the code they name: igraph-mcp mount docs/PRD.md"));
      draw("resources", r.graph, () => {});
      return;
    }
    const next = r.offset + r.chunks.length < r.total
      ? el("button", { type: "button", onclick: () => openResources(r.offset + r.chunks.length) }, `next ${Math.min(100, r.total - r.offset - r.chunks.length)}`) : null;
    clear(side,
      el("h2", {}, `Mounted sources (${sources.length})`),
      el("ul", {}, ...sources.map((s) => el("li", {}, el("b", {}, s.name), " ", el("span", { class: "loc" }, `${s.path} · ${s.sourceType} · ${s.chunks} chunks, ${s.links} links${s.missing ? " · missing on disk" : s.changed ? " · changed since mounted" : ""}`)))),
      el("h2", {}, `Sections and tables ${r.offset + 1}-${r.offset + r.chunks.length} of ${r.total}`), next,
      el("ul", {}, ...r.chunks.map((c) => el("li", {},
        el("span", { class: "kind" }, c.kind), el("b", {}, c.headingPath || c.title), " ",
        el("span", { class: "loc" }, `${c.sourcePath}:${c.startLine}-${c.endLine} · ${c.linkCount} links`), el("br"),
        c.columns.length ? el("div", { class: "loc" }, "columns: " + c.columns.map((x) => `${x.name} ${x.type}`.trim()).join(", ")) : null,
        ...c.links.map((l) => el("span", { class: "badge clickable", onclick: () => openSymbol(l.nodeId), title: `${l.method} ${l.score}` }, l.qualifiedName || l.name))))));
    draw("resources", r.graph, (id) => { const n = docNode("resources", id); if (n && n.nodeId) openSymbol(n.nodeId); });
  }

  // -- exports ----------------------------------------------------------------------------------------------
  function xml(value) {
    return String(value).replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "\uFFFD")
      .replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }
  function graphml(doc) {
    const nodeKeys = ["label", "type", "kind", "path", "line", "size", "group", "nodeId"];
    const edgeKeys = ["kind", "certain", "weight", "resolution"];
    const typeOf = (vals) => {
      const p = vals.filter((v) => v !== null && v !== undefined);
      if (p.length && p.every((v) => typeof v === "boolean")) return "boolean";
      if (p.length && p.every((v) => Number.isInteger(v))) return "long";
      if (p.length && p.every((v) => typeof v === "number")) return "double";
      return "string";
    };
    const nt = Object.fromEntries(nodeKeys.map((k) => [k, typeOf(doc.nodes.map((n) => n[k]))]));
    const et = Object.fromEntries(edgeKeys.map((k) => [k, typeOf(doc.edges.map((e) => e[k]))]));
    const data = (prefix, obj, keys) => keys.filter((k) => obj[k] !== null && obj[k] !== undefined)
      .map((k) => `      <data key="${prefix}_${k}">${xml(obj[k])}</data>`);
    const out = ['<?xml version="1.0" encoding="UTF-8"?>', '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'];
    for (const k of nodeKeys) out.push(`  <key id="n_${k}" for="node" attr.name="${k}" attr.type="${nt[k]}"/>`);
    for (const k of edgeKeys) out.push(`  <key id="e_${k}" for="edge" attr.name="${k}" attr.type="${et[k]}"/>`);
    out.push('  <graph id="G" edgedefault="directed">');
    for (const n of doc.nodes) out.push(`    <node id="${xml(n.id)}">`, ...data("n", n, nodeKeys), "    </node>");
    doc.edges.forEach((e, i) => out.push(`    <edge id="e${i}" source="${xml(e.from)}" target="${xml(e.to)}">`, ...data("e", e, edgeKeys), "    </edge>"));
    out.push("  </graph>", "</graphml>", "");
    return out.join("\n");
  }
  state.exportText = function (format) {
    const g = state.graphs[state.tab];
    if (!g) return null;
    return format === "graphml" ? graphml(g.doc) : JSON.stringify(g.doc, null, 2);
  };
  function download(format) {
    const text = state.exportText(format);
    if (text === null) { notice("nothing drawn in this view yet", false); return; }
    const blob = new Blob([text], { type: format === "graphml" ? "application/xml" : "application/json" });
    const a = el("a", { href: URL.createObjectURL(blob), download: `igraph-${state.tab}.${format}` });
    document.body.append(a);
    a.click();
    a.remove();
  }

  // -- start ------------------------------------------------------------------------------------------------
  for (const b of document.querySelectorAll(".tab-button")) b.addEventListener("click", () => show(b.dataset.tab));
  document.getElementById("export-json").addEventListener("click", () => download("json"));
  document.getElementById("export-graphml").addEventListener("click", () => download("graphml"));
  document.getElementById("search-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const q = document.getElementById("q").value.trim();
    if (q) runSearch(q);
  });
  if (boot.mode === "static") {
    notice(staticNotice());
    document.getElementById("search-side").append(staticQueries());
  }
  symbolEmpty("");
  const params = new URLSearchParams(location.search);
  const start = params.get("tab") || boot.tab || "search";
  show(start);
  if (start === "symbol" && params.get("id")) openSymbol(Number(params.get("id")));
  if (boot.queries && boot.queries.length && start === "search") {
    document.getElementById("q").value = boot.queries[0];
    runSearch(boot.queries[0]);
  }
  document.getElementById("q").focus();
})();
