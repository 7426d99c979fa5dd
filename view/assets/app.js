// app.js: vaultgraph's web view. The overview draws the whole vault from
// api/overview (positions computed and kept by the server); a note's
// focus shows its neighbourhood (api/around), the note rendered (api/note)
// and its backlinks; search (api/search), path to (api/path), a tag
// filter; api/events keeps it all live.
"use strict";
import { GraphCanvas } from "./graph.js";

const $ = (id) => document.getElementById(id);
const PALETTE = [
  [122, 162, 247], [247, 118, 142], [158, 206, 106], [224, 175, 104], [187, 154, 247], [125, 207, 255],
  [255, 158, 100], [115, 218, 202], [240, 200, 120], [200, 130, 220], [160, 190, 140], [230, 120, 120],
];
const OTHER = [110, 118, 135];
const GHOST = [107, 114, 128];

// State the tests and benchmarks read (window.vgState).
const state = (window.vgState = {
  mode: "loading", rev: 0, shown: 0, total: 0, drawn: false, firstDrawMs: null, firstDrawNavMs: null, renderer: "",
  focus: null, depth: 1, around: [], around2: [], path: [], live: false, deltas: 0, received: 0, reloads: 0, error: null,
  saves: 0, lastSave: 0, // saves from the editor, and the HTTP status of the last
});

const params = new URLSearchParams(location.search);
const graph = new GraphCanvas($("graph"), { webgl: params.get("renderer") !== "canvas" });
state.renderer = graph.renderer;

// The overview: nodes by index, with a map from ID.
let ov = null; // { ids, titles, folder, tags (array of tag-name arrays), x, y, in, out, rank, outs (array of ID arrays), ghosts... }
let index = new Map();
let focusData = null; // the neighbourhood drawn in focus mode
let highlight = null; // Set of node IDs to highlight (path, tag)
let pathEdges = null; // Set of "a\u0000b" for the path's links

const opt = { colour: "folder", size: "in", orphans: false, ghosts: false, tag: "" };

async function getJSON(url) {
  const r = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
  if (r.status === 401) {
    location.href = "login";
    throw new Error("not logged in");
  }
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

function notice(text, ms = 4000) {
  const n = $("notice");
  n.textContent = text;
  n.classList.toggle("hidden", !text);
  clearTimeout(notice.t);
  if (text && ms) notice.t = setTimeout(() => n.classList.add("hidden"), ms);
}

// ---- overview data --------------------------------------------------------

async function loadOverview() {
  const max = params.get("max");
  const o = await getJSON("api/overview" + (max !== null ? "?max=" + encodeURIComponent(max) : ""));
  const n = o.ids.length;
  ov = {
    rev: o.rev, total: o.total, laying: o.laying, folderNames: o.folders, tagNames: o.tags,
    ids: o.ids, titles: o.titles, folder: o.folder.map((f) => o.folders[f]), tags: o.noteTags.map((t) => t.map((k) => o.tags[k])),
    x: o.x, y: o.y, in: o.in, out: o.out, rank: o.rank, outs: Array.from({ length: n }, () => []),
    ghostOut: Array.from({ length: n }, () => []),
  };
  for (let e = 0; e < o.edges.length; e += 2) ov.outs[o.edges[e]].push(o.ids[o.edges[e + 1]]);
  const gpos = new Map();
  o.ghosts.forEach((k, i) => gpos.set(k, [o.ghostX[i], o.ghostY[i]]));
  ov.ghostPos = gpos;
  for (let e = 0; e < o.ghostEdges.length; e += 2) ov.ghostOut[o.ghostEdges[e]].push(o.ghosts[o.ghostEdges[e + 1]]);
  reindex();
  state.rev = o.rev;
  state.total = o.total;
  fillTags();
  updateCounts();
  if (o.laying) notice("Laying out the vault for the first time; the picture settles when it is done.", 0);
  else notice("");
}

// The overview is fetched again on a "reload" event and after a
// reconnect. A delta that arrives meanwhile may or may not be in the
// response (both carry the server's revision), so deltas are held until
// it is in and those newer than it applied then: applied to the old
// overview, a note written during the fetch vanished from the page until
// the next reload. A reload asked for during a fetch fetches once more.
let loading = null;
let again = false;
let held = [];

function reloadOverview() {
  if (loading) {
    again = true;
    return loading;
  }
  loading = (async () => {
    try {
      do {
        again = false;
        await loadOverview();
        state.reloads++;
      } while (again);
    } catch (e) {
      notice(e.message, 0);
    } finally {
      loading = null;
      const q = held;
      held = [];
      for (const d of q) applyDelta(d);
    }
    redraw();
  })();
  return loading;
}

// For the browser tests: what a reload event does, and whether the
// overview holds a note.
window.vgTest = { reloadOverview, overviewHas: (id) => index.has(id) };

function reindex() {
  index = new Map();
  ov.ids.forEach((id, i) => index.set(id, i));
}

function updateCounts() {
  if (!ov) return;
  let links = 0;
  for (const o of ov.outs) links += o.length;
  const shown = ov.ids.length;
  state.shown = shown;
  state.total = ov.total;
  $("counts").textContent = shown < ov.total
    ? `${shown.toLocaleString()} of ${ov.total.toLocaleString()} notes (most central) · ${links.toLocaleString()} links`
    : `${shown.toLocaleString()} notes · ${links.toLocaleString()} links`;
  if (shown < ov.total) $("counts").title = "The overview draws the most central notes by PageRank; search and focus reach every note. Add ?max=0 to the address to draw them all.";
}

function fillTags() {
  const sel = $("tag");
  const cur = sel.value;
  sel.length = 1;
  for (const t of ov.tagNames.slice(0, 300)) sel.add(new Option("#" + t, t));
  sel.value = cur;
}

// applyDelta follows a change: notes replaced or added with their links,
// notes removed; in-degrees adjusted from the links that changed.
// A delta no newer than the overview is in it already.
function applyDelta(d) {
  if (!ov || d.rev <= ov.rev) return;
  const adjust = (targets, by) => { for (const t of targets) { const j = index.get(t); if (j !== undefined) ov.in[j] += by; } };
  const removed = new Set(d.remove);
  if (removed.size) {
    const keep = [];
    ov.ids.forEach((id, i) => { if (removed.has(id)) adjust(ov.outs[i], -1); else keep.push(i); });
    for (const k of ["ids", "titles", "folder", "tags", "x", "y", "in", "out", "rank", "outs", "ghostOut"]) ov[k] = keep.map((i) => ov[k][i]);
    reindex();
    ov.total -= removed.size;
    for (const o of ov.outs) for (let j = o.length - 1; j >= 0; j--) if (removed.has(o[j])) o.splice(j, 1);
  }
  const minRank = ov.rank.length ? Math.min(...ov.rank) : 0;
  for (const u of d.upsert) {
    let i = index.get(u.id);
    if (i === undefined) {
      i = ov.ids.length;
      ov.ids.push(u.id); ov.titles.push(u.title); ov.folder.push(u.folder); ov.tags.push(u.tags);
      ov.x.push(u.x); ov.y.push(u.y); ov.in.push(0); ov.out.push(0); ov.rank.push(minRank);
      ov.outs.push([]); ov.ghostOut.push([]);
      index.set(u.id, i);
      ov.total++;
      // notes already shown that link it
      for (let j = 0; j < ov.ids.length - 1; j++) if (ov.outs[j].includes(u.id)) ov.in[i]++;
    }
    adjust(ov.outs[i], -1);
    ov.titles[i] = u.title; ov.folder[i] = u.folder; ov.tags[i] = u.tags; ov.x[i] = u.x; ov.y[i] = u.y;
    ov.outs[i] = u.out.filter((t) => index.has(t) || d.upsert.some((o) => o.id === t));
    ov.out[i] = u.out.length;
    ov.ghostOut[i] = u.ghosts;
    for (const g of u.ghosts) if (!ov.ghostPos.has(g)) ov.ghostPos.set(g, [u.x + 3, u.y + 3]);
  }
  for (const u of d.upsert) adjust(ov.outs[index.get(u.id)], +1);
  ov.rev = d.rev;
  state.rev = d.rev;
  state.deltas++;
  updateCounts();
}

// ---- drawing --------------------------------------------------------------

function labelColours(names, counts) {
  const top = names.filter((n) => counts.get(n)).slice(0, PALETTE.length);
  const m = new Map();
  top.forEach((n, i) => m.set(n, PALETTE[i]));
  return m;
}

// colourKey is what a note is coloured by: its top folder, or its most
// common tag among the legend's.
function colourKeys() {
  const counts = new Map();
  const keyOf = [];
  if (opt.colour === "folder") {
    for (const f of ov.folder) counts.set(f, (counts.get(f) || 0) + 1);
    const names = [...counts.keys()].sort((a, b) => counts.get(b) - counts.get(a) || a.localeCompare(b));
    const colours = labelColours(names, counts);
    ov.folder.forEach((f) => keyOf.push(f));
    return { keyOf, colours, counts, names };
  }
  for (const ts of ov.tags) for (const t of ts) counts.set(t.toLowerCase(), (counts.get(t.toLowerCase()) || 0) + 1);
  const names = [...counts.keys()].sort((a, b) => counts.get(b) - counts.get(a) || a.localeCompare(b));
  const colours = labelColours(names, counts);
  for (const ts of ov.tags) {
    let k = null;
    for (const t of ts) if (colours.has(t.toLowerCase()) && (k === null || counts.get(t.toLowerCase()) > counts.get(k))) k = t.toLowerCase();
    keyOf.push(k);
  }
  return { keyOf, colours, counts, names };
}

function legend(c, extra) {
  const el = $("legend");
  el.replaceChildren();
  const title = document.createElement("div");
  title.className = "title";
  title.textContent = opt.colour === "folder" ? "Top folders" : "Top tags";
  el.append(title);
  for (const [name, rgb] of c.colours) {
    const row = document.createElement("div");
    const dot = document.createElement("i");
    dot.style.background = `rgb(${rgb})`;
    row.append(dot, document.createTextNode(`${name === "" ? "(vault root)" : opt.colour === "tag" ? "#" + name : name} · ${c.counts.get(name)}`));
    el.append(row);
  }
  const other = document.createElement("div");
  const dot = document.createElement("i");
  dot.style.background = `rgb(${OTHER})`;
  other.append(dot, document.createTextNode(opt.colour === "folder" ? "other folders" : "other or no tag"));
  el.append(other);
  if (extra) {
    const row = document.createElement("div");
    row.className = "title";
    row.textContent = extra;
    el.append(row);
  }
}

// sizeOf is a note's radius in pixels at the zoom that fits the vault:
// the more notes, the smaller, so that a large vault is not a blot.
function sizeOf(i) {
  const k = Math.max(5, Math.min(16, 60 / Math.sqrt(Math.sqrt(ov.ids.length))));
  const w = opt.size === "rank" ? ov.rank[i] / (ov.maxRank || 1) : ov.in[i] / (ov.maxIn || 1);
  return 1.5 + k * Math.sqrt(w);
}

// drawOverview builds the render arrays of the overview: notes (orphans
// only on request), ghosts on request, dimmed outside a highlight.
function drawOverview(fit) {
  if (!ov) return;
  state.mode = highlight && pathEdges ? "path" : "overview";
  const n = ov.ids.length;
  ov.maxIn = Math.max(1, ...ov.in);
  ov.maxRank = Math.max(1e-12, ...ov.rank);
  const c = colourKeys();
  legend(c, opt.ghosts ? "○ ghosts: links to notes that do not exist" : "");
  const inLinks = new Int32Array(n);
  for (let i = 0; i < n; i++) for (const t of ov.outs[i]) { const j = index.get(t); if (j !== undefined) inLinks[j]++; }
  const ghostKeys = [];
  const ghostIdx = new Map();
  if (opt.ghosts) for (const gs of ov.ghostOut) for (const g of gs) if (!ghostIdx.has(g)) { ghostIdx.set(g, n + ghostKeys.length); ghostKeys.push(g); }
  const total = n + ghostKeys.length;
  const x = new Float32Array(total), y = new Float32Array(total), size = new Float32Array(total), color = new Uint8Array(4 * total);
  const hidden = new Uint8Array(total);
  const tagSet = opt.tag ? opt.tag.toLowerCase() : null;
  const lit = (i) => {
    if (highlight) return highlight.has(ov.ids[i]);
    if (tagSet) return ov.tags[i].some((t) => t.toLowerCase() === tagSet);
    return true;
  };
  const dim = !!(highlight || tagSet);
  for (let i = 0; i < n; i++) {
    x[i] = ov.x[i]; y[i] = ov.y[i];
    const orphan = ov.in[i] === 0 && ov.out[i] === 0 && ov.ghostOut[i].length === 0;
    hidden[i] = orphan && !opt.orphans && !(highlight && highlight.has(ov.ids[i])) ? 1 : 0;
    size[i] = sizeOf(i);
    const rgb = c.colours.get(c.keyOf[i]) || OTHER;
    const on = lit(i);
    color.set([rgb[0], rgb[1], rgb[2], hidden[i] ? 0 : dim && !on ? 38 : 235], 4 * i);
  }
  ghostKeys.forEach((g, k) => {
    const i = n + k;
    const p = ov.ghostPos.get(g) || [0, 0];
    x[i] = p[0]; y[i] = p[1]; size[i] = 2.5;
    color.set([GHOST[0], GHOST[1], GHOST[2], dim ? 50 : 160], 4 * i);
  });
  const edges = [], ecol = [];
  // Links are faint where there are thousands (they overlap into a haze)
  // and clear where there are a few dozen.
  let links = 0;
  for (let i = 0; i < n; i++) links += ov.outs[i].length;
  const linkAlpha = Math.round(Math.min(140, Math.max(n > 20000 ? 22 : 30, 1900 / Math.sqrt(Math.max(links, 1)))));
  for (let i = 0; i < n; i++) {
    if (hidden[i]) continue;
    for (const t of ov.outs[i]) {
      const j = index.get(t);
      if (j === undefined || hidden[j]) continue;
      edges.push(i, j);
      const onPath = pathEdges && pathEdges.has(ov.ids[i] + "\u0000" + t);
      if (onPath) ecol.push(255, 214, 102, 255);
      else if (dim) ecol.push(120, 130, 150, lit(i) && lit(j) ? 110 : 12);
      else ecol.push(150, 160, 180, linkAlpha);
    }
    if (opt.ghosts) for (const g of ov.ghostOut[i]) { edges.push(i, ghostIdx.get(g)); ecol.push(107, 114, 128, dim ? 15 : 60); }
  }
  // Path links drawn last (on top).
  if (pathEdges) {
    const order = [];
    for (let e = 0; e < edges.length / 2; e++) order.push(e);
    order.sort((a, b) => ecol[4 * a + 3] - ecol[4 * b + 3]);
    const e2 = [], c2 = [];
    for (const e of order) { e2.push(edges[2 * e], edges[2 * e + 1]); c2.push(...ecol.slice(4 * e, 4 * e + 4)); }
    edges.splice(0, edges.length, ...e2);
    ecol.splice(0, ecol.length, ...c2);
  }
  // Labels: highlighted notes first, then hubs by the size metric.
  const byWeight = [...Array(n).keys()].filter((i) => !hidden[i]).sort((a, b) => size[b] - size[a]);
  const labelled = highlight ? [...highlight].map((id) => index.get(id)).filter((i) => i !== undefined).concat(byWeight) : byWeight;
  graph.setData({
    x, y, size, color, hidden, edges: new Uint32Array(edges), edgeColor: new Uint8Array(ecol),
    label: (i) => (i < n ? ov.titles[i] : "○ " + ghostKeys[i - n]), labelled, labelBudget: highlight ? 60 : 40,
  }, false);
  graph.onClick = (i) => { if (i < n) go(ov.ids[i]); else notice(`No note "${ghostKeys[i - n]}" yet: notes link it, but it does not exist.`); };
  if (fit === "path" && highlight) graph.fit([...highlight].map((id) => index.get(id)).filter((i) => i !== undefined));
  else if (fit) graph.fit();
  else graph.redraw();
}

// ---- focus ----------------------------------------------------------------

// layoutAround places a neighbourhood radially: the note in the centre,
// its neighbours on a ring (outgoing then incoming, by title), notes two
// links away on an outer ring beside the neighbour that reaches them.
function layoutAround(a) {
  const n = a.nodes.length;
  const x = new Float32Array(n), y = new Float32Array(n);
  const parent = new Array(n).fill(-1);
  for (let e = 0; e < a.edges.length; e += 2) {
    const s = a.edges[e], t = a.edges[e + 1];
    if (a.nodes[t].depth === a.nodes[s].depth + 1 && parent[t] < 0) parent[t] = s;
    if (a.nodes[s].depth === a.nodes[t].depth + 1 && parent[s] < 0) parent[s] = t;
  }
  const ring1 = a.nodes.map((_, i) => i).filter((i) => a.nodes[i].depth === 1);
  const dirOut = new Set();
  for (let e = 0; e < a.edges.length; e += 2) if (a.edges[e] === 0) dirOut.add(a.edges[e + 1]);
  ring1.sort((p, q) => (dirOut.has(q) - dirOut.has(p)) || a.nodes[p].title.localeCompare(a.nodes[q].title));
  const r1 = 120 + 6 * ring1.length;
  const angle = new Float32Array(n);
  ring1.forEach((i, k) => {
    angle[i] = (2 * Math.PI * k) / Math.max(1, ring1.length) - Math.PI / 2;
    x[i] = r1 * Math.cos(angle[i]); y[i] = r1 * Math.sin(angle[i]);
  });
  const kids = new Map();
  a.nodes.forEach((nd, i) => { if (nd.depth === 2) { const p = parent[i]; if (!kids.has(p)) kids.set(p, []); kids.get(p).push(i); } });
  const span = (2 * Math.PI) / Math.max(1, ring1.length);
  for (const [p, ks] of kids) {
    const r2 = r1 + 160 + 3 * ks.length;
    ks.forEach((i, k) => {
      const t = angle[p] + span * 0.9 * ((k + 0.5) / ks.length - 0.5);
      x[i] = r2 * Math.cos(t); y[i] = r2 * Math.sin(t);
    });
  }
  return { x, y };
}

function drawFocus() {
  const a = focusData;
  if (!a) return;
  state.mode = "focus";
  const c = ov ? colourKeys() : { colours: new Map(), keyOf: [] };
  const n = a.nodes.length;
  const { x, y } = layoutAround(a);
  const size = new Float32Array(n), color = new Uint8Array(4 * n);
  const tagSet = opt.tag ? opt.tag.toLowerCase() : null;
  a.nodes.forEach((nd, i) => {
    size[i] = nd.depth === 0 ? 14 : nd.depth === 1 ? 7 : 4;
    let key = opt.colour === "folder" ? nd.folder : null;
    if (opt.colour === "tag") for (const t of nd.tags) if (c.colours.has(t.toLowerCase())) { key = t.toLowerCase(); break; }
    const rgb = c.colours.get(key) || OTHER;
    const on = !tagSet || nd.depth === 0 || nd.tags.some((t) => t.toLowerCase() === tagSet);
    color.set([rgb[0], rgb[1], rgb[2], on ? 240 : 45], 4 * i);
  });
  const ecol = [];
  for (let e = 0; e < a.edges.length; e += 2) {
    const near = a.nodes[a.edges[e]].depth + a.nodes[a.edges[e + 1]].depth;
    ecol.push(150, 160, 180, near <= 1 ? 170 : 70);
  }
  const labelled = [...Array(n).keys()].sort((p, q) => a.nodes[p].depth - a.nodes[q].depth);
  graph.setData({
    x, y, size, color, edges: new Uint32Array(a.edges), edgeColor: new Uint8Array(ecol),
    label: (i) => a.nodes[i].title, labelled, labelBudget: n <= 80 ? n : 60,
  }, true);
  graph.onClick = (i) => go(a.nodes[i].id);
  if (c.colours.size) legend(c, a.truncated ? "Some neighbours are left out (a hub): the lists in the panel have them all." : "");
}

let depth = 1;
let focusToken = 0;
let editVersion = ""; // the version of the note the editor's text started from

async function focus(id, refresh) {
  const token = ++focusToken;
  $("panel").classList.remove("hidden");
  document.body.classList.add("with-panel");
  if (!refresh) {
    $("path").classList.add("hidden");
    $("editor").classList.add("hidden");
  }
  highlight = null;
  pathEdges = null;
  try {
    const [note, around] = await Promise.all([
      getJSON("api/note?id=" + encodeURIComponent(id)),
      getJSON(`api/around?id=${encodeURIComponent(id)}&depth=${depth}`),
    ]);
    if (token !== focusToken) return;
    state.focus = note.id;
    state.around = around.nodes.filter((nd) => nd.depth === 1).map((nd) => nd.id).sort();
    state.around2 = around.nodes.filter((nd) => nd.depth === 2).map((nd) => nd.id).sort();
    state.depth = around.depth;
    focusData = around;
    showNote(note);
    drawFocus();
  } catch (e) {
    if (token !== focusToken) return;
    notice(e.message);
    state.error = e.message;
  }
}

function noteLink(l) {
  const li = document.createElement("li");
  const a = document.createElement("a");
  a.href = "#note=" + encodeURIComponent(l.id);
  a.textContent = l.title || l.id;
  a.dataset.id = l.id;
  li.append(a);
  return li;
}

// actorText is who made a change, as the change log names them.
function actorText(by) {
  if (!by) return "someone (not recorded)";
  if (by.name) return by.email ? `${by.name} <${by.email}>` : by.name;
  return by.email || by.id;
}

function changeText(c) {
  return `${c.kind} by ${actorText(c.by)}, ${new Date(c.at).toLocaleString()}`;
}

// ---- recent changes (api/changes: the change log, with who made each) -------

let changesOpen = false;

async function loadChanges() {
  const res = await getJSON("api/changes?limit=30");
  $("changes-list").replaceChildren(...res.changes.map((c) => {
    const li = document.createElement("li");
    const title = c.title || c.path;
    if (c.kind === "deleted") li.append(document.createTextNode(title));
    else li.append(noteLink({ id: c.id, title }).firstChild);
    const s = document.createElement("small");
    s.textContent = changeText(c) + (c.oldPath ? ` (was ${c.oldPath})` : "");
    if (c.by) s.title = c.by.id;
    li.append(s);
    return li;
  }));
  state.changesShown = res.changes.length;
  state.changesLoads = (state.changesLoads || 0) + 1;
}

function toggleChanges(open) {
  changesOpen = open;
  $("changes-panel").classList.toggle("hidden", !open);
  if (open) loadChanges().catch((e) => notice(e.message));
}

function showNote(note) {
  $("note-title").textContent = note.title;
  const changed = $("note-changed");
  if (note.lastChange) {
    changed.textContent = "Last change: " + changeText(note.lastChange);
    changed.title = note.lastChange.by ? note.lastChange.by.id : "";
    changed.classList.remove("hidden");
  } else changed.classList.add("hidden");
  const meta = $("note-meta");
  meta.replaceChildren(document.createTextNode(`${note.path} · ${note.in} in · ${note.out} out `));
  for (const t of note.tags) {
    const s = document.createElement("span");
    s.className = "tag";
    s.textContent = "#" + t;
    s.onclick = () => { $("tag").value = t.toLowerCase(); $("tag").value || ($("tag").value = t); setTag(t); };
    meta.append(s);
  }
  $("note-body").innerHTML = note.html; // rendered by the server in goldmark's safe mode
  $("links").replaceChildren(...note.links.map(noteLink), ...note.ghosts.map((g) => {
    const li = document.createElement("li");
    const s = document.createElement("span");
    s.className = "ghost";
    s.textContent = g;
    s.title = "no note yet";
    li.append(s);
    return li;
  }));
  $("links-count").textContent = note.links.length + note.ghosts.length;
  $("backlinks").replaceChildren(...note.backlinks.map(noteLink));
  $("backlinks-count").textContent = note.backlinks.length;
  $("edit").classList.toggle("hidden", note.readOnly);
  if ($("editor").classList.contains("hidden")) {
    // The editor starts from this version; a save sends it back and is
    // refused (409) if the file changed since.
    $("editor-text").value = note.content || "";
    editVersion = note.version || "";
    $("editor-conflict").classList.add("hidden");
  }
  $("panel").scrollTop = 0;
}

// ---- search and path ------------------------------------------------------

function searchBox(input, list, pick) {
  let t = 0, seq = 0, active = -1, items = [];
  const close = () => { list.classList.add("hidden"); active = -1; };
  const render = () => {
    list.replaceChildren(...items.map((r, k) => {
      const li = document.createElement("li");
      li.textContent = r.title;
      li.dataset.id = r.id;
      if (r.snippet) { const s = document.createElement("small"); s.textContent = r.snippet; li.append(s); }
      li.classList.toggle("active", k === active);
      li.onmousedown = (e) => { e.preventDefault(); close(); pick(r); };
      return li;
    }));
    if (!items.length) { const li = document.createElement("li"); li.className = "empty"; li.textContent = "no note found"; list.append(li); }
    list.classList.remove("hidden");
  };
  input.addEventListener("input", () => {
    clearTimeout(t);
    const q = input.value.trim();
    if (!q) { close(); return; }
    t = setTimeout(async () => {
      const my = ++seq;
      try {
        const res = await getJSON("api/search?q=" + encodeURIComponent(q));
        if (my !== seq) return;
        items = res.results;
        state.searchMode = res.mode;
        active = items.length ? 0 : -1;
        render();
      } catch (e) { notice(e.message); }
    }, 180);
  });
  input.addEventListener("keydown", (e) => {
    if (list.classList.contains("hidden")) return;
    if (e.key === "ArrowDown") { active = Math.min(items.length - 1, active + 1); render(); e.preventDefault(); }
    else if (e.key === "ArrowUp") { active = Math.max(0, active - 1); render(); e.preventDefault(); }
    else if (e.key === "Enter" && active >= 0) { const r = items[active]; close(); pick(r); e.preventDefault(); }
    else if (e.key === "Escape") close();
  });
  input.addEventListener("blur", () => setTimeout(close, 150));
}

async function showPath(from, to) {
  try {
    const res = await getJSON(`api/path?from=${encodeURIComponent(from.id)}&to=${encodeURIComponent(to.id)}`);
    const box = $("path");
    box.classList.remove("hidden");
    state.path = res.path.map((p) => p.id);
    if (!res.path.length) {
      box.textContent = `No path from "${from.title}" to "${to.title}" (links are followed in the direction they are written).`;
      return;
    }
    box.replaceChildren(document.createTextNode(`Path to "${to.title}", ${res.path.length - 1} link(s):`));
    const ol = document.createElement("ol");
    ol.append(...res.path.map(noteLink));
    box.append(ol);
    highlight = new Set(res.path.map((p) => p.id));
    pathEdges = new Set();
    for (let k = 0; k + 1 < res.path.length; k++) pathEdges.add(res.path[k].id + "\u0000" + res.path[k + 1].id);
    drawOverview("path");
  } catch (e) { notice(e.message); }
}

function setTag(t) {
  opt.tag = t;
  $("tag").value = t;
  if (state.mode === "focus") drawFocus(); else drawOverview(false);
}

// ---- routing --------------------------------------------------------------

function go(id) { location.hash = "note=" + encodeURIComponent(id); }

function route() {
  const h = new URLSearchParams(location.hash.slice(1));
  if (h.get("note")) { focus(h.get("note")); return; }
  if (h.get("ghost")) { notice(`No note "${h.get("ghost")}" yet: it is linked, but does not exist.`); return; }
  $("panel").classList.add("hidden");
  document.body.classList.remove("with-panel");
  focusData = null;
  state.focus = null;
  highlight = null;
  pathEdges = null;
  drawOverview(true);
}

// ---- live -----------------------------------------------------------------

function live() {
  const es = new EventSource("api/events");
  const status = $("status");
  es.addEventListener("hello", (e) => {
    status.className = "status live";
    state.live = true;
    // First connection or a reconnection: a change made between the
    // overview's fetch and this stream came before it, so fetch again.
    if (JSON.parse(e.data).rev !== state.rev) reloadOverview();
  });
  es.addEventListener("delta", (e) => {
    const d = JSON.parse(e.data);
    state.received++;
    if (loading) held.push(d);
    else applyDelta(d);
    if (state.mode === "focus" && state.focus) {
      const touched = d.upsert.some((u) => u.id === state.focus || u.out.includes(state.focus) || state.around.includes(u.id)) || d.remove.length;
      if (d.remove.includes(state.focus)) notice("This note was deleted or renamed.", 0);
      else if (touched) focus(state.focus, true);
    } else redraw();
  });
  es.addEventListener("reload", () => reloadOverview());
  // Changes reached the change log: who made them is shown.
  es.addEventListener("changes", () => {
    if (changesOpen) loadChanges().catch(() => {});
    if (state.mode === "focus" && state.focus) focus(state.focus, true);
  });
  es.onerror = () => { status.className = "status down"; state.live = false; };
}

function redraw() {
  if (state.mode === "focus") drawFocus();
  else drawOverview(false);
}

// ---- start ----------------------------------------------------------------

async function start() {
  const t0 = performance.now();
  graph.onDrawn = () => {
    if (!state.drawn && ov && (state.mode === "overview" || state.mode === "focus" || state.mode === "path")) {
      state.drawn = true;
      state.firstDrawMs = performance.now() - t0;
      state.firstDrawNavMs = performance.now(); // since the navigation started: HTML, scripts and overview included
      document.body.dataset.drawn = "1";
    }
  };
  graph.onHover = () => {};
  for (let tries = 0; ; tries++) {
    try { await loadOverview(); break; } catch (e) {
      state.error = e.message;
      notice(e.message, 0);
      if (tries > 30) return;
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
  $("colour").onchange = (e) => { opt.colour = e.target.value; redraw(); };
  $("size").onchange = (e) => { opt.size = e.target.value; redraw(); };
  $("orphans").onchange = (e) => { opt.orphans = e.target.checked; redraw(); };
  $("ghosts").onchange = (e) => { opt.ghosts = e.target.checked; redraw(); };
  $("tag").onchange = (e) => setTag(e.target.value);
  $("home").onclick = (e) => { e.preventDefault(); location.hash = ""; route(); };
  $("close").onclick = () => { location.hash = ""; route(); };
  $("changes-toggle").onclick = () => toggleChanges(!changesOpen);
  $("changes-close").onclick = () => toggleChanges(false);
  for (const b of document.querySelectorAll(".depth button")) {
    b.onclick = () => {
      depth = +b.dataset.depth;
      for (const o of document.querySelectorAll(".depth button")) o.classList.toggle("on", o === b);
      if (state.focus) focus(state.focus);
    };
  }
  searchBox($("search"), $("results"), (r) => { $("search").value = ""; go(r.id); });
  searchBox($("path-to"), $("path-results"), (r) => {
    $("path-to").value = "";
    if (state.focus) showPath({ id: state.focus, title: $("note-title").textContent }, r);
  });
  $("edit").onclick = () => { $("editor").classList.toggle("hidden"); $("editor-text").focus(); };
  $("editor-cancel").onclick = () => $("editor").classList.add("hidden");
  let conflict = null; // the answer of the last save refused with 409
  $("editor").onsubmit = async (e) => {
    e.preventDefault();
    $("editor-status").textContent = "saving…";
    const r = await fetch("api/note", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-Vaultgraph-View": "1" },
      body: JSON.stringify({ id: state.focus, content: $("editor-text").value, version: editVersion }),
    });
    const body = await r.json().catch(() => ({}));
    $("editor-status").textContent = r.ok ? "saved" : r.status === 409 ? "not saved: the note changed meanwhile" : body.error || r.statusText;
    state.saves++;
    state.lastSave = r.status;
    if (r.ok) {
      editVersion = body.version || "";
      $("editor-conflict").classList.add("hidden");
      $("editor").classList.add("hidden");
      return;
    }
    if (r.status === 409) {
      // Changed outside since the editor opened: show the note as it is
      // now beside the text, and let the user choose.
      conflict = body;
      $("editor-theirs").textContent = body.content || "";
      $("editor-conflict").classList.remove("hidden");
    }
  };
  $("editor-reload").onclick = () => {
    if (!conflict) return;
    $("editor-text").value = conflict.content || "";
    editVersion = conflict.version || "";
    $("editor-conflict").classList.add("hidden");
    $("editor-status").textContent = "reloaded";
  };
  $("editor-overwrite").onclick = () => {
    if (!conflict) return;
    // A deliberate choice, against the version just shown: still refused
    // if the note changes again meanwhile.
    editVersion = conflict.version || "";
    $("editor-conflict").classList.add("hidden");
    $("editor").requestSubmit();
  };
  document.body.addEventListener("click", (e) => {
    const a = e.target.closest("a[data-id]");
    if (a) { e.preventDefault(); go(a.dataset.id); }
  });
  window.addEventListener("hashchange", route);
  route();
  live();
}

start();
