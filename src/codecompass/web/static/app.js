/* Code Compass web UI: search with why, the graph behind the results, a symbol explorer,
   the links between services and the index's status. Plain JavaScript over the JSON
   endpoints of docs/web.md. Text from the index is always set as text; only the
   server's highlighted code (escaped by Pygments) is set as HTML. */
"use strict";

const $ = (sel) => document.querySelector(sel);
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
};
/* Replace a node's children, leaving out the empty ones (null, false, ""). */
const fill = (node, ...children) => node.replaceChildren(...children.filter(Boolean));

const FEATURE_WORDS = {
  cosine: "meaning", bm25: "keywords", keywords: "shared words", name: "name",
  path: "path", frame: "stack frame", member: "member of a match", dispatch: "dispatch",
  message: "error message", literal: "quoted literal", edge: "graph link", ppr: "graph rank",
  importance: "importance", freshness: "recent change", test: "test file", stub: "type stub",
  doc: "docs", short: "short symbol", file_share: "its file's evidence",
};
const FEATURE_COLOURS = {
  cosine: "#0550ae", bm25: "#8250df", keywords: "#bf3989", name: "#953800", path: "#1a7f37",
  frame: "#cf222e", member: "#6639ba", dispatch: "#0a3069", message: "#a40e26",
  literal: "#7d4e00", edge: "#116329", ppr: "#2da44e", importance: "#4d5661",
  freshness: "#9a6700", test: "#57606a", stub: "#e16f24", doc: "#1b7c83", short: "#8a4600",
  file_share: "#8c959f",
};
const ROLE_COLOURS = { seed: "#0550ae", brought: "#116329", path: "#6e7781" };
/* The edges that link services, drawn apart from the code's own (grey) edges: a colour
   each (the CSS variables --edge-<type>, shared with the Links page) and a line style. */
const LINK_EDGE_LINES = {
  http: "solid", serves: "dashed", rpc: "solid", package: "dashed",
  emits: "dashed", listens: "dotted", event: "solid",
};
/* The edge type that draws each kind of link (`via`). */
const VIA_EDGE = { http: "http", rpc: "rpc", sdk: "package", event: "event" };
const cssColour = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

const state = {
  config: null,
  token: null,
  results: [],
  selected: -1,
  stale: new Set(),
  graph: { nodes: new Map(), edges: new Map(), capped: false },
  hiddenTypes: new Set(["keyword", "similar"]),
  cy: null,
  xcy: null,
  explored: new Map(),  // the explorer's nodes by id
  linksAsked: 0,
  shownLinks: null,  // the Links page's last answer {data, via, repo}, filtered by Find
  searchAsked: 0,
  openAsked: 0,
  filterTimer: 0,
};

/* -- calls ---------------------------------------------------------------------------- */
function takeToken() {
  const match = location.hash.match(/(?:^#|[&?])token=([^&]+)/);
  if (match) {
    sessionStorage.setItem("codecompass-token", decodeURIComponent(match[1]));
    history.replaceState(null, "", location.pathname + "#/search");
  }
  state.token = sessionStorage.getItem("codecompass-token");
}

async function api(path, params = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== "" && value !== null && value !== undefined) query.set(key, value);
  }
  const headers = state.token ? { Authorization: `Bearer ${state.token}` } : {};
  const response = await fetch(`${path}?${query}`, { headers });
  const data = await response.json();
  if (!response.ok) {
    const err = data.error || { code: String(response.status), message: response.statusText };
    throw Object.assign(new Error(`${err.code}: ${err.message}`), { code: err.code });
  }
  return data;
}

function showError(error) {
  const box = $("#error");
  if (!error) { box.hidden = true; box.textContent = ""; return; }
  box.textContent = error.message || String(error);
  box.hidden = false;
}

/* -- pages ---------------------------------------------------------------------------- */
const PAGES = ["search", "graph", "explore", "links", "status"];

function route() {
  const name = (location.hash.match(/^#\/(\w+)/) || [])[1];
  const page = PAGES.includes(name) ? name : "search";
  // An error belongs to the page it came from; one from the start belongs to every page.
  if (state.page !== undefined && page !== state.page) showError(null);
  state.page = page;
  document.title = `${page[0].toUpperCase()}${page.slice(1)} · Code Compass`;
  for (const p of PAGES) $(`#page-${p}`).hidden = p !== page;
  document.querySelectorAll(".top nav a").forEach((a) => {
    if (a.dataset.page === page) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  });
  if (page === "graph") renderGraph();
  if (page === "status") loadStatus().catch(showError);
  if (page === "links") loadLinks().catch(showError);
  if (page === "explore" && state.xcy) state.xcy.resize();
}

/* -- search --------------------------------------------------------------------------- */
function fillSelect(select, values) {
  for (const value of values) select.append(el("option", { value, text: value }));
}

async function loadConfig() {
  state.config = await api("/api/config");
  fillSelect($("#f-repo"), state.config.repos);
  fillSelect($("#f-language"), state.config.languages);
  fillSelect($("#f-kind"), state.config.kinds);
  fillSelect($("#l-via"), state.config.link_vias);
  fillSelect($("#l-repo"), state.config.repos);
  $("#repos-line").textContent = state.config.repos.length
    ? `${state.config.repos.length} repositor${state.config.repos.length === 1 ? "y" : "ies"}: ${state.config.repos.join(", ")}`
    : "nothing indexed yet";
  const fieldset = $("#edge-filter");
  for (const type of state.config.edge_types) {
    const box = el("input", { type: "checkbox", value: type, checked: !state.hiddenTypes.has(type) });
    box.addEventListener("change", () => {
      if (box.checked) state.hiddenTypes.delete(type); else state.hiddenTypes.add(type);
      renderGraph();
    });
    const swatch = LINK_EDGE_LINES[type]
      ? el("span", { class: `swatch edge-${type} ${LINK_EDGE_LINES[type]}`, "aria-hidden": "true" })
      : null;
    fieldset.append(el("label", {}, box, ` ${type}`, swatch));
  }
}

async function search(event) {
  if (event) event.preventDefault();
  const q = $("#q").value.trim();
  const asked = ++state.searchAsked;  // a later search wins over a slower earlier answer
  showError(null);
  if (!q) {
    $("#search-status").textContent = "Type a query: words, a name, a path or an error message.";
    return;
  }
  if (!state.config) {  // the page opened before anything was indexed
    try { await loadConfig(); } catch (error) { showError(error); return; }
  }
  $("#search-status").textContent = "Searching…";
  const started = performance.now();
  try {
    const data = await api("/api/search", {
      q, repo: $("#f-repo").value, language: $("#f-language").value,
      path: $("#f-path").value.trim(), kind: $("#f-kind").value, detail: $("#f-detail").value,
      view: $("#f-view").value,
    });
    if (asked !== state.searchAsked) return;
    state.results = data.results;
    state.stale = new Set(data.stale);
    renderResults();
    renderMemories(data.memories || []);
    const ms = Math.round(performance.now() - started);
    $("#search-status").textContent =
      `${data.results.length} result${data.results.length === 1 ? "" : "s"} in ${ms} ms` +
      (data.stale.length ? ` · ${data.stale.length} file(s) changed on disk since indexing` : "") +
      (data.coverage && data.coverage.dense < 1 ? ` · vectors cover ${Math.round(data.coverage.dense * 100)}%` : "");
    loadGraph(data.graph);
    if (data.results.length) { select(0); openHit(0); } else clearCode();
    document.body.dataset.searched = String(Date.now());
  } catch (error) {
    if (asked !== state.searchAsked) return;
    // What the last search showed does not answer this one.
    state.results = [];
    renderResults();
    clearCode();
    $("#search-status").textContent = "";
    showError(error);
  }
}

function location_(hit) { return `${hit.path}:${hit.start_line}-${hit.end_line}`; }

function whyWords(hit) {
  const why = hit.why || {};
  const parts = [];
  const found = [];
  if (why.dense) found.push(`meaning #${why.dense.rank}`);
  if (why.lexical) found.push(`keywords #${why.lexical.rank}`);
  if (found.length) parts.push(`found by ${found.join(", ")}`);
  if (why.matched_terms && why.matched_terms.length) parts.push(`matched: ${why.matched_terms.slice(0, 8).join(", ")}`);
  if (why.graph_path && why.graph_path.length) parts.push(`via graph: ${why.graph_path.map(shortName).join(" ")}`);
  /* The score bar draws what raised the score; what lowered it is said in words. */
  const lowered = Object.entries(why.features || {}).filter(([, f]) => f.contribution < 0)
    .map(([name, f]) => `${FEATURE_WORDS[name] || name} ${f.contribution.toFixed(3)}`);
  if (lowered.length) parts.push(`lowered as ${lowered.join(", ")}`);
  return parts.join(" · ");
}

function whyBar(hit) {
  const why = hit.why || {};
  /* [name, contribution, tooltip]: the features of the chunk's own score, then the share
     of its file's score the hit gets (as in the symbol view). */
  const positive = Object.entries(why.features || {}).filter(([, f]) => f.contribution > 0)
    .map(([name, f]) => [name, f.contribution, `${f.value} × ${f.weight} = ${f.contribution}`]);
  if (why.file_share > 0) positive.push(["file_share", why.file_share, `${why.file_share}`]);
  const total = positive.reduce((sum, [, value]) => sum + value, 0) || 1;
  const bar = el("div", { class: "bar", role: "img",
    "aria-label": "Score parts: " + positive.map(([n, value]) => `${FEATURE_WORDS[n] || n} ${value.toFixed(3)}`).join(", ") });
  for (const [name, value, detail] of positive) {
    const part = el("span", { title: `${FEATURE_WORDS[name] || name}: ${detail}` });
    part.style.width = `${(100 * value) / total}%`;
    part.style.background = FEATURE_COLOURS[name] || "#57606a";
    bar.append(part);
  }
  return bar;
}

function renderResults() {
  const list = $("#results");
  list.replaceChildren();
  state.selected = -1;
  state.results.forEach((hit, i) => {
    const stale = state.stale.has(`${hit.repo}/${hit.path}`);
    const label = `${location_(hit)}${hit.symbol ? ` ${hit.symbol}` : ""}, score ${hit.score.toFixed(3)}`;
    const item = el("li", { role: "option", id: `result-${i}`, "aria-selected": "false", "data-index": i, "aria-label": label },
      el("span", { class: "score", text: hit.score.toFixed(3) }),
      el("span", { class: "loc", text: location_(hit) }),
      hit.symbol ? el("span", { class: "sym", text: hit.symbol }) : null,
      stale ? el("span", { class: "badge", text: "changed on disk" }) : null,
      hit.snippet ? el("pre", { class: "snippet", text: hit.snippet }) : null,
      whyBar(hit),
      el("div", { class: "why", text: whyWords(hit) }),
    );
    item.addEventListener("click", () => { select(i); openHit(i, true); });
    list.append(item);
  });
  list.removeAttribute("aria-activedescendant");
  if (!state.results.length) list.append(el("li", { role: "option", "aria-disabled": "true", class: "muted", text: "No results. Try other words or fewer filters." }));
}

function renderMemories(memories) {
  const box = $("#memories");
  box.replaceChildren();
  box.hidden = !memories.length;
  if (!memories.length) return;
  box.append(el("strong", { text: "Project memory about these results: " }));
  const list = el("ul");
  for (const m of memories) list.append(el("li", { text: `[${m.type}] ${m.content}` }));
  box.append(list);
}

function select(i) {
  const items = $("#results").querySelectorAll("li[role=option]");
  if (!items.length) return;
  const index = Math.max(0, Math.min(items.length - 1, i));
  items.forEach((item, n) => item.setAttribute("aria-selected", n === index ? "true" : "false"));
  state.selected = index;
  $("#results").setAttribute("aria-activedescendant", `result-${index}`);
  items[index].scrollIntoView({ block: "nearest" });
}

async function openHit(i, chosen = false) {
  const hit = state.results[i];
  if (!hit) return;
  await openCode(hit.repo, hit.path, hit.start_line, hit.end_line);
  // A result chosen on stacked panes (a phone): its code is below the results, out of sight.
  if (chosen && window.matchMedia("(max-width: 760px)").matches) {
    $("#code-view").scrollIntoView({ block: "start" });
  }
}

/* Open code from another page: the search page's code view, with the focus in it (and
   on a phone, where the panes are stacked, scrolled into view). */
async function showCode(repo, path, start, end) {
  location.hash = "#/search";
  await openCode(repo, path, start, end);
  $("#code").focus({ preventScroll: true });
  $("#code-view").scrollIntoView({ block: "start" });
}

function clearCode() {
  $("#code").replaceChildren();
  $("#code-title").textContent = "Select a result to read its code.";
  $("#open-editor").hidden = true;
  $("#code-stale").hidden = true;
  delete $("#code-view").dataset.loaded;
}

async function openCode(repo, path, start, end) {
  const asked = ++state.openAsked;  // a later file wins over a slower earlier answer
  $("#code-title").textContent = `${repo}/${path}:${start}-${end}`;
  try {
    // A window of the file around the lines (the server sends at most 2,000 lines).
    const file = await api("/api/file", { repo, path, start: Math.max(1, start - 500), line: start });
    if (asked !== state.openAsked) return;
    const code = $("#code");
    code.replaceChildren();
    file.html.forEach((html, n) => {
      const number = file.start_line + n;
      const src = el("span", { class: "src" });
      src.innerHTML = html || " ";
      const line = el("div", { class: `line${number >= start && number <= end ? " hit" : ""}`, "data-line": number },
        el("span", { class: "ln", text: String(number) }), src);
      code.append(line);
    });
    const link = $("#open-editor");
    link.href = file.editor_url;
    link.hidden = false;
    const stale = $("#code-stale");
    stale.hidden = !file.stale;
    stale.textContent = file.stale
      ? "This file changed on disk after it was indexed: the lines shown are today's, the results may be out of date. Run codecompass index to refresh."
      : "";
    const first = code.querySelector(`[data-line="${start}"]`);
    if (first) code.scrollTop = first.offsetTop - code.offsetTop - 40;
    $("#code-view").dataset.loaded = `${repo}/${path}:${start}`;
    $("#code-shown").textContent = `Showing ${repo}/${path}, lines ${start} to ${end}.`;
  } catch (error) {
    if (asked !== state.openAsked) return;
    // Leave no other file's lines under this title.
    $("#code").replaceChildren();
    $("#open-editor").hidden = true;
    $("#code-stale").hidden = true;
    delete $("#code-view").dataset.loaded;
    showError(error.code === "not_found"
      ? new Error(`not_found: ${repo}/${path} is no longer where the index saw it (deleted or moved); run codecompass index to refresh.`)
      : error);
  }
}

function focusQuery() {
  // The search page is shown first: a hidden box takes no focus.
  if (location.hash !== "#/search") history.replaceState(null, "", "#/search");
  route();
  $("#q").focus();
  $("#q").select();
}

function onKey(event) {
  const typing = ["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement.tagName);
  if (event.key === "/" && !typing) {
    event.preventDefault();
    focusQuery();
    return;
  }
  if ($("#page-search").hidden) return;
  const inResults = document.activeElement === $("#results");
  if (event.key === "ArrowDown" && document.activeElement === $("#q") && state.results.length) {
    event.preventDefault();
    $("#results").focus();
    select(Math.max(0, state.selected));
    return;
  }
  if (!inResults) return;
  if (event.key === "ArrowDown" || event.key === "j") { event.preventDefault(); select(state.selected + 1); }
  else if (event.key === "ArrowUp" || event.key === "k") { event.preventDefault(); select(state.selected - 1); }
  else if (event.key === "Home") { event.preventDefault(); select(0); }
  else if (event.key === "End") { event.preventDefault(); select(state.results.length - 1); }
  else if (event.key === "Enter") { event.preventDefault(); openHit(state.selected, true); }
  else if (event.key === "o") {
    const link = $("#open-editor");
    if (!link.hidden) window.open(link.href, "_self");
  }
}

/* -- graph ---------------------------------------------------------------------------- */
function shortName(id) {
  if (id.startsWith("-") || id.startsWith("<-")) return id;  // an arrow of a graph path
  if (id.includes("#")) return id.split("#").pop();
  const parts = id.split("/");
  return parts[parts.length - 1] || id;
}

function edgeKey(e) { return `${e.source}|${e.type}|${e.target}`; }

function loadGraph(graph) {
  state.graph = { nodes: new Map(), edges: new Map(), capped: false };
  mergeGraph(graph.nodes, graph.edges, graph.truncated);
  if ($("#page-graph").hidden === false) renderGraph();
}

function mergeGraph(nodes, edges, truncated = false) {
  const g = state.graph;
  const { max_nodes: maxNodes, max_edges: maxEdges } = state.config;
  let added = 0;
  for (const n of nodes) {
    if (g.nodes.has(n.id)) continue;
    if (g.nodes.size >= maxNodes) { g.capped = true; continue; }
    g.nodes.set(n.id, { role: "path", ...n });
    added += 1;
  }
  for (const e of edges) {
    const key = edgeKey(e);
    if (g.edges.has(key) || !g.nodes.has(e.source) || !g.nodes.has(e.target)) continue;
    if (g.edges.size >= maxEdges) { g.capped = true; continue; }
    g.edges.set(key, e);
  }
  if (truncated) g.capped = true;
  return added;
}

function groupOf(node, level) {
  if (level === "symbols") return node.id;
  const file = node.repo && node.path ? `${node.repo}/${node.path}` : node.id.split("#")[0];
  if (level === "files") return file;
  const cut = file.lastIndexOf("/");
  return cut > 0 ? file.slice(0, cut) + "/" : file;
}

function visibleElements() {
  const g = state.graph;
  const minConf = Number($("#min-conf").value);
  let level = $("#lod").value;
  if (level === "auto") level = g.nodes.size > 300 ? "files" : "symbols";
  const edges = [...g.edges.values()].filter((e) => !state.hiddenTypes.has(e.type) && e.confidence >= minConf);
  const groups = new Map();
  for (const n of g.nodes.values()) {
    const id = groupOf(n, level);
    const group = groups.get(id);
    if (!group) groups.set(id, { id, members: [n], role: n.role, label: level === "symbols" ? n.name : shortName(id.replace(/\/$/, "")) || id });
    else { group.members.push(n); if (n.role === "seed" || (n.role === "brought" && group.role === "path")) group.role = n.role; }
  }
  const merged = new Map();
  for (const e of edges) {
    const source = groupOf(g.nodes.get(e.source), level);
    const target = groupOf(g.nodes.get(e.target), level);
    if (source === target && level !== "symbols") continue;
    const key = `${source}|${e.type}|${target}`;
    const m = merged.get(key);
    if (m) { m.count += 1; m.confidence = Math.max(m.confidence, e.confidence); }
    else merged.set(key, { id: key, source, target, type: e.type, confidence: e.confidence, count: 1 });
  }
  return { level, groups: [...groups.values()], edges: [...merged.values()] };
}

/* Fitted to a big graph, labels had been drawn at 5–9 px. Now the named nodes (the hits,
   what the graph brought, the explorer's root, the selected node) keep 12 px labels at
   any zoom; the others' and the edges' labels are hidden while they would be under 8 px
   (zoom in to read them; the node list names every node). */
const LABEL_PX = 12;
const SMALLEST_LABEL_PX = 8;

function graphStyle() {
  return [
    { selector: "node", style: {
      label: "data(label)", "font-size": LABEL_PX, "text-valign": "bottom", "text-margin-y": 3,
      "background-color": "data(colour)", width: "data(size)", height: "data(size)", color: "#1b1f24",
      "text-wrap": "ellipsis", "text-max-width": 140, "min-zoomed-font-size": SMALLEST_LABEL_PX } },
    { selector: "node.named, node:selected", style: { "min-zoomed-font-size": 0, "z-index": 2 } },
    { selector: "node:selected", style: { "border-width": 3, "border-color": "#bf3989" } },
    { selector: "edge", style: {
      width: "mapData(confidence, 0, 1, 0.5, 3)", "line-color": "#8c959f", "target-arrow-color": "#8c959f",
      "target-arrow-shape": "triangle", "curve-style": "bezier", label: "data(label)", "font-size": 9,
      color: "#4d5661", "text-rotation": "autorotate", "min-zoomed-font-size": SMALLEST_LABEL_PX } },
    ...Object.entries(LINK_EDGE_LINES).map(([type, line]) => {
      const colour = cssColour(`--edge-${type}`);
      return { selector: `edge[type = "${type}"]`, style: {
        "line-color": colour, "target-arrow-color": colour, "line-style": line, color: colour,
        "font-size": 9, "font-weight": "bold", "text-background-color": "#ffffff",
        "text-background-opacity": 0.85, "text-background-padding": 1 } };
    }),
  ];
}

/* The named nodes' labels in model units that draw LABEL_PX on screen when zoomed out. */
function sizeLabels(cy) {
  const size = LABEL_PX / Math.min(cy.zoom(), 1);
  cy.nodes(".named, :selected").style({ "font-size": size, "text-max-width": (140 * size) / LABEL_PX });
  cy.nodes(":unselected").not(".named").removeStyle("font-size text-max-width");
}

function graphOf(container) {
  const cy = cytoscape({ container, style: graphStyle() });
  cy.on("zoom select unselect", () => sizeLabels(cy));
  return cy;
}

function renderGraph() {
  if (!state.config || typeof cytoscape === "undefined") return;
  const { level, groups, edges } = visibleElements();
  const elements = [
    ...groups.map((g) => ({ data: {
      id: g.id, label: g.members.length > 1 ? `${g.label} (${g.members.length})` : g.label,
      colour: ROLE_COLOURS[g.role] || ROLE_COLOURS.path, size: g.role === "path" ? 16 : 26,
      members: g.members.length }, classes: g.role === "path" ? "" : "named" })),
    ...edges.map((e) => ({ data: { ...e, label: edges.length > 24 ? "" : e.count > 1 ? `${e.type} ×${e.count}` : `${e.type} ${e.confidence.toFixed(2)}` } })),
  ];
  if (!state.cy) {
    state.cy = graphOf($("#cy"));
    state.cy.on("tap", "node", (event) => showDetails(event.target.id()));
    window.codecompassGraph = state.cy;
  }
  const cy = state.cy;
  // The same nodes (an edge type hidden, the confidence slider moved): they stay where
  // they were, so the reader keeps the picture; new nodes lay the graph out again.
  const before = new Map(cy.nodes().map((n) => [n.id(), { ...n.position() }]));
  const same = before.size === groups.length && groups.every((g) => before.has(g.id));
  cy.batch(() => { cy.elements().remove(); cy.add(elements); });
  cy.resize();
  if (same) {
    cy.nodes().forEach((n) => n.position(before.get(n.id())));
  } else {
    const layout = groups.length > 400 ? { name: "grid" } : { name: "cose", animate: false, randomize: false, idealEdgeLength: 140, nodeRepulsion: 400000, nodeOverlap: 20, gravity: 0.25, padding: 30, componentSpacing: 100 };
    cy.layout(layout).run();
    cy.fit(undefined, 30);
  }
  sizeLabels(cy);
  const g = state.graph;
  $("#cy").dataset.nodes = String(groups.length);
  $("#cy").dataset.edges = String(edges.length);
  $("#cy").dataset.level = level;
  $("#graph-info").textContent = g.nodes.size
    ? `${groups.length} ${level === "symbols" ? "nodes" : level} · ${edges.length} edges shown (${g.nodes.size} nodes, ${g.edges.size} edges loaded). Click a node for its details and to expand it.`
    : "Run a search: its results and the edges that brought them appear here.";
  renderNodeList(groups);
  const cap = $("#cap-message");
  cap.hidden = !g.capped;
  cap.textContent = g.capped
    ? `The graph reached its limit of ${state.config.max_nodes.toLocaleString()} nodes / ${state.config.max_edges.toLocaleString()} edges; some nodes or edges were left out. Filter by edge type or collapse to files or folders.`
    : "";
}

/* The canvas as a list of buttons, for the keyboard and screen readers: search hits
   first, then the nodes the graph brought, then those on the way. */
function renderNodeList(groups) {
  const order = { seed: 0, brought: 1, path: 2 };
  const sorted = [...groups].sort((a, b) => order[a.role] - order[b.role] || a.label.localeCompare(b.label));
  const role = { seed: "search hit", brought: "brought by the graph", path: "on the way" };
  $("#graph-list-summary").textContent = `The ${plural(sorted.length, "node", "nodes")} as a list`;
  $("#graph-nodes").replaceChildren(...sorted.map((g) => el("li", {}, el("button", {
    type: "button", class: "node", "data-node": g.id, text: `${g.label} · ${role[g.role] || role.path}`,
    onclick: () => { state.cy.$(":selected").unselect(); state.cy.getElementById(g.id).select(); showDetails(g.id); },
  }))));
}

async function showDetails(id) {
  const panel = $("#details");
  const node = state.graph.nodes.get(id);
  if (!node) {  // a file or folder group: list its members
    const members = [...state.graph.nodes.values()].filter((n) => groupOf(n, visibleElements().level) === id);
    panel.replaceChildren(el("h2", { text: id }), el("p", { class: "muted", text: `${members.length} nodes; choose "symbols" to see them one by one.` }));
    return;
  }
  panel.replaceChildren(el("p", { class: "muted", text: "Loading…" }));
  try {
    const d = await api("/api/node", { id });
    const where = d.node.path ? `${d.node.repo}/${d.node.path}:${d.node.start_line}-${d.node.end_line}` : d.node.id;
    const edgeList = (edges, total, incoming) => {
      const list = el("ul");
      for (const e of edges) {
        const other = incoming ? e.source : e.target;
        const evidence = e.evidence_line ? ` (line ${e.evidence_line})` : "";
        list.append(el("li", { text: `${incoming ? "←" : "→"} ${e.type} ${d.neighbours[other] || shortName(other)} · confidence ${e.confidence.toFixed(2)}${e.via ? `, via ${e.via}` : ""}${evidence}` }));
      }
      if (total > edges.length) list.append(el("li", { class: "muted", text: `… ${total - edges.length} more` }));
      return list;
    };
    const open = el("button", { type: "button", text: "Open code" });
    open.addEventListener("click", () => showCode(d.node.repo, d.node.path, d.node.start_line || 1, d.node.end_line || 1));
    const expand = el("button", { type: "button", id: "expand-node", text: "Expand neighbours" });
    expand.addEventListener("click", () => expandNode(id));
    fill(panel,
      el("h2", { text: d.node.name }),
      el("p", { class: "muted", text: `${d.node.kind} · ${node.role === "seed" ? "search hit" : node.role === "brought" ? "brought by the graph" : "on a path"}${node.rank ? ` · rank ${node.rank}` : ""}` }),
      el("p", { text: where }),
      d.signature ? el("pre", { text: d.signature }) : null,
      d.doc ? el("p", { text: d.doc }) : null,
      el("p", {}, expand, " ", d.node.path ? open : null),
      el("h3", { text: `In (${d.in_total})` }), edgeList(d.in_edges, d.in_total, true),
      el("h3", { text: `Out (${d.out_total})` }), edgeList(d.out_edges, d.out_total, false),
      d.memories.length ? el("h3", { text: "Memories" }) : null,
      d.memories.length ? el("ul", {}, ...d.memories.map((m) => el("li", { text: `[${m.type}] ${m.content}` }))) : null,
    );
    panel.dataset.node = id;
  } catch (error) {
    panel.replaceChildren(el("p", { text: error.message }));
  }
}

async function expandNode(id) {
  if (!state.graph.nodes.has(id)) return;
  const room = state.config.max_nodes - state.graph.nodes.size;
  if (room <= 0) { state.graph.capped = true; renderGraph(); return; }
  try {
    const types = state.config.edge_types.filter((t) => !state.hiddenTypes.has(t)).join(",");
    const limit = Math.min(200, room + 1);  // the node itself comes back too
    const data = await api("/api/expand", { id, direction: "both", types, limit });
    // Names the index could not resolve (`?os`) are no nodes to show or open.
    const known = data.nodes.filter((n) => !n.id.startsWith("?"));
    const shown = new Set(known.map((n) => n.id));
    const edges = data.edges.filter((e) => shown.has(e.source) && shown.has(e.target));
    mergeGraph(known, edges, data.truncated && limit < 200);
    renderGraph();
  } catch (error) {
    showError(error);
  }
}

/* -- symbol explorer ------------------------------------------------------------------ */
async function explore(event) {
  if (event) event.preventDefault();
  const name = $("#x-symbol").value.trim();
  showError(null);
  if (!name) {
    $("#x-status").textContent = "Type a symbol: a name, Class.method, path:line or a node id.";
    return;
  }
  const matchesBox = $("#x-matches");
  matchesBox.hidden = true;
  try {
    const { matches } = await api("/api/symbols", { q: name, limit: 10 });
    // The symbol the words name exactly (its id or qualified name) wins; else the
    // only exact match; else the reader chooses.
    const named = matches.filter((m) => m.id === name || m.qualified_name === name);
    const exact = matches.filter((m) => m.exact);
    const pick = named.length === 1 ? named[0] : exact.length === 1 ? exact[0] : null;
    if (pick) return exploreNode(pick.id);
    // The overloads of one method (one name in one file): the server walks them together.
    const oneMethod = (ms) => ms.length > 1 && ms.every((m) => m.repo === ms[0].repo && m.path === ms[0].path && m.qualified_name === ms[0].qualified_name);
    if (oneMethod(named) || (!named.length && oneMethod(exact))) return exploreNode(name);
    if (!matches.length) { $("#x-status").textContent = `No symbol named ${name}.`; return; }
    // Close names only: say so, and let the reader choose (never walk another symbol).
    $("#x-status").textContent = exact.length || named.length
      ? `${matches.length} symbols match; choose one:`
      : `No symbol named ${name}; did you mean:`;
    matchesBox.replaceChildren(...matches.map((m) => el("li", {}, el("button", {
      type: "button", text: `${m.qualified_name} — ${m.repo}/${m.path}:${m.start_line}`, onclick: () => exploreNode(m.id) }))));
    matchesBox.hidden = false;
  } catch (error) {
    showError(error);
  }
}

async function exploreNode(id) {
  $("#x-matches").hidden = true;
  const relation = $("#x-relation").value;
  const depth = $("#x-depth").value || "2";  // an emptied field: the default
  const data = await api("/api/explore", { id, relation, depth }).catch((error) => { showError(error); return null; });
  if (!data) return;
  const names = new Map(data.nodes.map((n) => [n.id, n]));
  const edgeTo = new Map();
  for (const e of data.edges) {
    const [from, to] = ["in", "dependents", "callers"].includes(relation) ? [e.target, e.source] : [e.source, e.target];
    if (!edgeTo.has(`${from}|${to}`)) edgeTo.set(`${from}|${to}`, e);
  }
  const children = new Map();
  for (const path of data.paths) {
    if (path.length < 2) continue;
    const parent = path[path.length - 2];
    const child = path[path.length - 1];
    if (!children.has(parent)) children.set(parent, []);
    if (!children.get(parent).includes(child)) children.get(parent).push(child);
  }
  const item = (id, parent) => {
    const n = names.get(id) || { name: id, kind: "", path: null };
    const e = parent ? edgeTo.get(`${parent}|${id}`) : null;
    const label = el("span", {}, el("strong", { text: n.name }), ` ${n.kind}`,
      n.path ? el("span", { class: "muted", text: ` ${n.path}:${n.start_line}` }) : null,
      e ? el("span", { class: "edge", text: ` ${e.type} ${e.confidence.toFixed(2)}${e.evidence_line ? ` @${e.evidence_line}` : ""}` }) : null);
    const li = el("li", { role: "treeitem", tabindex: "-1", "data-node": id, "aria-expanded": children.has(id) ? "true" : null }, label);
    li.addEventListener("click", (event) => { event.stopPropagation(); focusTreeItem(li); });
    li.addEventListener("dblclick", (event) => { event.stopPropagation(); openTreeItem(li); });
    if (children.has(id)) li.append(el("ul", { role: "group" }, ...children.get(id).map((c) => item(c, id))));
    return li;
  };
  // The overloads of the root's method are walked with it: each is a root of its own.
  const roots = [data.root, ...(data.overloads || [])];
  state.explored = names;
  $("#x-tree").replaceChildren(el("ul", { role: "tree", "aria-label": `${relation} of ${data.root}` }, ...roots.map((r) => item(r, null))));
  $("#x-tree [role=treeitem]").tabIndex = 0;
  const notes = (data.limits || []).map((limit) => ` Note: ${limit}.`).join("");
  $("#x-status").textContent = `${relation} of ${names.get(data.root)?.name || data.root}: ${data.nodes.length - roots.length} node(s) within depth ${depth}${data.truncated ? " (truncated)" : ""}.${notes}`;
  const elements = [
    ...data.nodes.map((n) => ({ data: { id: n.id, label: n.name, colour: roots.includes(n.id) ? ROLE_COLOURS.seed : ROLE_COLOURS.path, size: roots.includes(n.id) ? 26 : 18 }, classes: roots.includes(n.id) ? "named" : "" })),
    ...data.edges.filter((e) => names.has(e.source) && names.has(e.target)).map((e) => ({ data: { id: edgeKey(e), source: e.source, target: e.target, type: e.type, confidence: e.confidence, label: e.type } })),
  ];
  if (!state.xcy) {
    state.xcy = graphOf($("#x-cy"));
    state.xcy.on("tap", "node", (event) => {
      const li = $("#x-tree").querySelector(`[data-node="${CSS.escape(event.target.id())}"]`);
      if (li) focusTreeItem(li);
    });
    window.codecompassExplorer = state.xcy;
  }
  state.xcy.batch(() => { state.xcy.elements().remove(); state.xcy.add(elements); });
  state.xcy.resize();
  // Undirected: callers point at the root, and a directed walk from it would put them all in one row.
  state.xcy.layout({ name: "breadthfirst", directed: false, roots, spacingFactor: 1.1 }).run();
  state.xcy.fit(undefined, 30);
  sizeLabels(state.xcy);
  $("#x-cy").dataset.nodes = String(data.nodes.length);
}

/* The tree's keys (the ARIA tree pattern): ↑ ↓ Home End move, → opens a branch or steps
   into it, ← closes it or steps out to the parent, Enter opens the code at the node. */
function treeKeys(event) {
  const items = [...$("#x-tree").querySelectorAll("[role=treeitem]")].filter((li) => li.offsetParent !== null);
  const at = items.indexOf(document.activeElement);
  if (at < 0) return;
  const li = items[at];
  const expanded = li.getAttribute("aria-expanded");
  let next = null;
  if (event.key === "ArrowDown") next = items[at + 1];
  else if (event.key === "ArrowUp") next = items[at - 1];
  else if (event.key === "Home") next = items[0];
  else if (event.key === "End") next = items[items.length - 1];
  else if (event.key === "ArrowRight") { if (expanded === "false") setTreeBranch(li, true); else if (expanded === "true") next = items[at + 1]; }
  else if (event.key === "ArrowLeft") { if (expanded === "true") setTreeBranch(li, false); else next = li.parentElement.closest("[role=treeitem]"); }
  else if (event.key === "Enter") openTreeItem(li);
  else return;
  event.preventDefault();
  if (next) focusTreeItem(next);
}

function setTreeBranch(li, open) {
  li.setAttribute("aria-expanded", String(open));
  li.querySelector(":scope > ul").hidden = !open;
}

function focusTreeItem(li) {
  for (const other of $("#x-tree").querySelectorAll("[role=treeitem]")) other.tabIndex = -1;
  li.tabIndex = 0;
  li.focus();
  state.xcy.$(":selected").unselect();
  state.xcy.getElementById(li.dataset.node).select();
}

function openTreeItem(li) {
  const node = state.explored.get(li.dataset.node);
  if (!node || !node.path) return;
  showCode(node.repo, node.path, node.start_line || 1, node.end_line || node.start_line || 1);
}

/* -- links between services ------------------------------------------------------------ */
const LINKS_HINT = "Links come from HTTP routes and the clients calling them, OpenAPI documents, " +
  ".proto files and gRPC stubs, imports of a package another repository provides, and event " +
  "producers and consumers (Kafka, Redis, …), across the repositories of this index.";

function plural(n, one, many) { return `${n} ${n === 1 ? one : many}`; }

async function loadLinks() {
  const via = $("#l-via").value;
  const repo = $("#l-repo").value;
  const asked = ++state.linksAsked;  // a later choice wins over a slower earlier answer
  const data = await api("/api/links", { via, repo });
  if (asked !== state.linksAsked) return;
  renderLinks(data, via, repo);
}

/* Where a link's end is, as the table prints it: repo:path:line, or its id. */
function endPlace(end) {
  return end.path ? `${end.repo}:${end.path}${end.line ? `:${end.line}` : ""}` : end.id;
}

/* One end of a link: repo:path:line, opening the file there in the code view. */
function linkEnd(end) {
  const where = endPlace(end);
  const name = end.id.includes("#") ? end.id.split("#").pop()
    : /^(rpc|event):/.test(end.id) ? end.id : "";
  const place = end.path
    ? el("button", { type: "button", class: "end", text: where, title: `Open ${end.repo}/${end.path} at line ${end.line || 1}`,
      onclick: () => openEnd(end) })
    : el("span", { class: "end", text: where });
  return el("td", {}, place, name ? el("span", { class: "end-name muted", text: name }) : null);
}

function openEnd(end) {
  const line = end.line || 1;
  showCode(end.repo, end.path, line, line);
}

/* A kind's rows come a page at a time: 682 links had made 1,364 tab stops. */
const LINKS_PAGE = 100;

function linkText(link) {
  const end = (e) => `${endPlace(e)} ${e.id}`;
  return `${link.name} ${link.how} ${end(link.source)} ${end(link.target)}`.toLowerCase();
}

function linkRow(link) {
  return el("tr", { class: "link" },
    el("td", {}, el("span", { class: `via edge-${VIA_EDGE[link.via]}`, text: link.via })),
    el("td", { class: "name", text: link.name }),
    el("td", { class: "conf", text: link.confidence.toFixed(2) }),
    el("td", { class: "how", text: link.how }),
    linkEnd(link.source), linkEnd(link.target));
}

/* Rows from `start` on, then a button for the next page, which takes the focus to the
   first row it adds. */
function appendLinkRows(body, links, start) {
  const rows = links.slice(start, start + LINKS_PAGE).map(linkRow);
  body.append(...rows);
  const left = links.length - start - rows.length;
  if (left <= 0) return rows;
  const more = el("button", { type: "button", class: "more",
    text: `Show ${Math.min(LINKS_PAGE, left)} more (${left} not shown)` });
  const row = el("tr", { class: "more" }, el("td", { colspan: 6 }, more));
  more.addEventListener("click", () => {
    row.remove();
    const added = appendLinkRows(body, links, start + LINKS_PAGE);
    const first = added[0] && added[0].querySelector("button.end");
    if (first) first.focus();
  });
  body.append(row);
  return rows;
}

function renderLinks(data, via, repo) {
  state.shownLinks = { data, via, repo };
  const find = $("#l-find").value.trim().toLowerCase();
  const links = find ? data.links.filter((link) => linkText(link).includes(find)) : data.links;
  const total = data.links.length;
  const kinds = Object.entries(data.counts);
  const scope = repo ? ` with an end in ${repo}` : "";
  const count = (kind) => links.filter((link) => link.via === kind).length;
  $("#l-counts").textContent = find
    ? `${links.length} of ${plural(total, "link", "links")}${scope} match “${find}”: ` +
      kinds.map(([kind]) => `${count(kind)} ${kind}`).join(" · ")
    : `${plural(total, "link", "links")}${scope}: ` +
      kinds.map(([kind, n]) => `${n} ${kind}`).join(" · ");
  const empty = $("#l-empty");
  empty.hidden = links.length > 0;
  const none = find
    ? `No link${scope} matches “${find}”.`
    : via || repo
      ? `No ${via ? `${via} ` : ""}links between services${scope}. Choose All to see the others.`
      : "No links between services in this index.";
  fill(empty, links.length ? null : el("p", { class: "empty-what", text: none }),
    total ? null : el("p", { class: "muted", text: LINKS_HINT }));
  const table = $("#links-table");
  table.hidden = !links.length;
  table.querySelectorAll("tbody").forEach((body) => body.remove());
  for (const [kind] of kinds) {
    const ofKind = links.filter((link) => link.via === kind);
    if (!ofKind.length) continue;
    const body = el("tbody", { "data-via": kind },
      el("tr", { class: "group" }, el("th", { colspan: 6, scope: "rowgroup", text: `${kind} · ${plural(ofKind.length, "link", "links")}` })));
    appendLinkRows(body, ofKind, 0);
    table.append(body);
  }
  $("#page-links").dataset.loaded = `${via}|${repo}|${find}`;
}

/* -- status --------------------------------------------------------------------------- */
function barChart(title, series, format) {
  const days = Object.keys(series).sort();
  const width = Math.max(240, days.length * 14 + 20);
  const height = 90;
  const values = days.map((d) => series[d] ?? 0);
  const max = Math.max(...values, 1e-9);
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("width", width); svg.setAttribute("height", height + 16);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `${title}: ` + days.map((d, i) => `${d} ${format(values[i])}`).join(", "));
  days.forEach((day, i) => {
    const h = Math.max(1, (values[i] / max) * height);
    const rect = document.createElementNS(ns, "rect");
    rect.setAttribute("x", 10 + i * 14); rect.setAttribute("y", height - h);
    rect.setAttribute("width", 10); rect.setAttribute("height", h);
    const tip = document.createElementNS(ns, "title");
    tip.textContent = `${day}: ${format(values[i])}`;
    rect.append(tip);
    svg.append(rect);
  });
  const label = document.createElementNS(ns, "text");
  label.setAttribute("x", 10); label.setAttribute("y", height + 12);
  label.textContent = days.length ? `${days[0]} … ${days[days.length - 1]} · max ${format(max)}` : "no calls yet";
  svg.append(label);
  return el("figure", { class: "chart" }, el("h3", { text: title }), svg);
}

async function loadStatus() {
  const data = await api("/api/status");
  const index = data.index;
  $("#status-days").textContent = String(data.days);
  $("#status-summary").replaceChildren(el("p", { text:
    `Index ${index.data_dir} · backend ${index.backend} · model ${index.model || "?"} (${index.dim} dims) · generation ${index.generation ?? "–"} · vectors ${index.vectors.stored}/${index.vectors.active_chunks}` }));
  const rows = index.repos.map((r) => {
    const c = r.changed_on_disk || {};
    const changed = c.error || c.note || `${c.added || 0} added, ${c.changed || 0} changed, ${c.removed || 0} removed`;
    const fresh = !c.error && !c.note && !(c.added || c.changed || c.removed);
    return el("tr", {}, el("td", { text: r.id }), el("td", { text: String(r.files) }), el("td", { text: String(r.symbols) }),
      el("td", { text: String(r.chunks) }), el("td", { text: r.last_indexed_at || "never" }),
      el("td", { text: r.last_run ? `${r.last_run.status} (${r.last_run.started_at})` : "–" }),
      el("td", { text: fresh ? "up to date" : changed }));
  });
  $("#repos-table tbody").replaceChildren(...rows);
  const perDay = data.usage.per_day || {};
  const pick = (key) => Object.fromEntries(Object.entries(perDay).map(([d, v]) => [d, v[key]]));
  $("#charts").replaceChildren(
    barChart("Latency p50 (ms) per day", pick("p50_ms"), (v) => `${Number(v).toFixed(0)} ms`),
    barChart("Searches per day", pick("searches"), (v) => String(v)),
    barChart("No-hit rate per day", pick("no_hit_rate"), (v) => `${Math.round((v || 0) * 100)}%`),
  );
  const tools = Object.entries(data.usage.tools || {}).map(([name, t]) => el("tr", {},
    el("td", { text: name }), el("td", { text: String(t.calls) }), el("td", { text: String(t.errors) }),
    el("td", { text: String(t.p50_ms) }), el("td", { text: String(t.p95_ms) })));
  $("#tools-table tbody").replaceChildren(...tools);
  $("#page-status").dataset.loaded = "1";
}

/* -- start ---------------------------------------------------------------------------- */
async function start() {
  takeToken();
  document.addEventListener("keydown", onKey);
  window.addEventListener("hashchange", () => {
    // A `#token=` address pasted into this tab: take the token, as a new tab does.
    if (!/(?:^#|[&?])token=/.test(location.hash)) { route(); return; }
    takeToken();
    showError(null);
    loadConfig().catch(showError).finally(route);
  });
  $(".skip").addEventListener("click", (event) => { event.preventDefault(); focusQuery(); });
  $("#search-form").addEventListener("submit", search);
  // Arrow keys on a closed list fire `change` for each option passed: search once they rest.
  for (const filter of ["#f-repo", "#f-language", "#f-kind", "#f-detail", "#f-view"]) {
    $(filter).addEventListener("change", () => {
      clearTimeout(state.filterTimer);
      state.filterTimer = setTimeout(() => search(), 400);
    });
  }
  $("#explore-form").addEventListener("submit", explore);
  $("#x-tree").addEventListener("keydown", treeKeys);
  $("#links-form").addEventListener("submit", (event) => event.preventDefault());
  for (const select of ["#l-via", "#l-repo"]) $(select).addEventListener("change", () => loadLinks().catch(showError));
  $("#l-find").addEventListener("input", () => {
    const shown = state.shownLinks;
    if (shown) renderLinks(shown.data, shown.via, shown.repo);
  });
  $("#min-conf").addEventListener("input", () => { $("#min-conf-out").textContent = Number($("#min-conf").value).toFixed(2); renderGraph(); });
  $("#lod").addEventListener("change", renderGraph);
  $("#fit").addEventListener("click", () => state.cy && state.cy.fit(undefined, 30));
  try {
    await loadConfig();
  } catch (error) {
    showError(error);
  }
  route();
  document.body.dataset.ready = "1";
}

start();
