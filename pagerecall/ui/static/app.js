// pagerecall ui: plain JavaScript, no dependencies. Talks to /api/* on the same origin.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { hits: [], file: null, page: null, pages: null, hit: null, view: null, quote: null };

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else if (k.startsWith("on")) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

async function api(path, params) {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) {
    if (Array.isArray(v)) v.forEach((x) => qs.append(k, x)); else if (v !== null && v !== undefined && v !== "") qs.append(k, v);
  }
  const resp = await fetch(`/api/${path}?${qs}`);
  const data = await resp.json();
  if (!resp.ok) throw new Error(data.error || `HTTP ${resp.status}`);
  return data;
}

function pagesText(h) {
  let s = h.page_start === h.page_end ? `p. ${h.page_start}` : `pp. ${h.page_start}-${h.page_end}`;
  if (h.label_start && String(h.label_start) !== String(h.page_start)) {
    s += ` (printed ${h.label_start}${h.label_end && h.label_end !== h.label_start ? "-" + h.label_end : ""})`;
  }
  return s;
}

function snippetNode(text) {
  // the snippet marks terms ⟦like this⟧ (never the text's own « »): turn them into <mark> without using innerHTML
  const span = el("span", { class: "snippet" });
  const parts = (text || "").split(/⟦|⟧/);
  parts.forEach((p, i) => span.append(i % 2 ? el("mark", {}, p) : p));
  return span;
}

function showWarnings(res) {
  const box = $("warnings");
  box.replaceChildren();
  const env = res.envelope || {};
  const warn = (msg) => box.append(el("div", { class: "warn" }, msg));
  for (const p of env.phrases_not_found || []) warn(`The phrase "${p}" occurs in no indexed passage: the hits match its words, not the phrase.`);
  if ((env.files_failed || []).length) warn(`${env.files_failed.length} file(s) failed to index: ${env.files_failed.map((f) => f.path || f).join(", ")}.`);
  const st = env.stale || {};
  const stale = ["changed", "added", "deleted"].flatMap((k) => (st[k] || []).map((p) => `${k}: ${p}`));
  if (stale.length) warn(`Changed on disk since the build (run pagerecall update): ${stale.join("; ")}.`);
  const deg = Object.keys(env.degraded_in_hits || {});
  if (deg.length) warn(`Degraded files among the hits (scans, OCR or garbled text): ${deg.join(", ")}.`);
  if (!res.hits.length) {
    const miss = env.miss || {};
    warn(miss.trustworthy ? "No hits. The miss can be trusted as far as the index goes." :
      `No hits. This miss proves nothing: ${(miss.caveats || []).join("; ")}`);
  }
  if (res.scorer) box.append(el("div", { class: "meta" }, `scorer: ${res.scorer} (scores order this list only)`));
  box.append(el("div", { class: "meta" }, `index ${env.generation || "?"} built ${env.built_at || "?"}`));
}

function showHits(res) {
  state.hits = res.hits;
  const ol = $("hits");
  ol.replaceChildren();
  res.hits.forEach((h, i) => {
    const ranks = Object.entries(h.ranks || {}).filter(([, v]) => v).map(([k, v]) => `${k} ${v}`).join(", ");
    const li = el("li", { "data-chunk": h.chunk_id, onclick: () => openHit(i) },
      el("div", {}, el("span", { class: "ptr" }, `${h.file}  ${pagesText(h)}`),
        h.ocr ? el("span", { class: "flag" }, "OCR") : null, h.degraded ? el("span", { class: "flag" }, "degraded") : null),
      el("div", { class: "meta" }, `score ${h.score.toFixed(4)} · ${ranks || "no lane ranks"}`),
      snippetNode(h.snippet || h.text));
    ol.append(li);
  });
}

async function runSearch(params) {
  document.body.dataset.state = "searching";
  $("warnings").replaceChildren();
  try {
    const deep = params.mode === "deep";
    const res = await api("search", { q: params.q, mode: deep ? "hybrid" : params.mode, deep: deep ? 1 : "", file: params.file ? [params.file] : [] });
    showHits(res);
    showWarnings(res);
    document.body.dataset.state = "results";
  } catch (e) {
    $("hits").replaceChildren();
    $("warnings").replaceChildren(el("div", { class: "error" }, e.message));
    document.body.dataset.state = "error";
  }
}

async function openHit(i) {
  const h = state.hits[i];
  if (!h) return;
  document.querySelectorAll("#hits li").forEach((li, j) => li.classList.toggle("active", i === j));
  state.hit = h;
  await show(h.file, h.page_start);
}

async function show(file, page) {
  document.body.dataset.state = "loading";
  state.quote = null;
  $("verdict").replaceChildren();
  $("viewer").hidden = false;
  try {
    const hitId = state.hit && state.hit.file === file ? state.hit.chunk_id : null;
    const v = await api("view", { file, page, hit: hitId });
    state.file = file; state.page = v.page; state.pages = v.pages; state.view = v;
    $("where").textContent = `${v.file} · page ${v.page} of ${v.pages}` + (v.label ? ` (printed ${v.label})` : "");
    $("prev").disabled = v.page <= 1;
    $("next").disabled = v.page >= v.pages;
    $("note").textContent = v.note || "";
    const img = $("pageimg");
    await new Promise((resolve) => { img.onload = resolve; img.onerror = resolve; img.src = `data:image/png;base64,${v.png}`; });
    draw();
    document.body.dataset.state = "ready";
  } catch (e) {
    $("note").replaceChildren(el("span", { class: "error" }, e.message));
    document.body.dataset.state = "error";
  }
}

function boxesOn(geometry, page) {
  if (!geometry) return [];
  return (geometry.pages || []).filter((p) => p.page === page).flatMap((p) => p.boxes);
}

function draw() {
  const v = state.view;
  const overlay = $("overlay");
  overlay.replaceChildren();
  if (!v) return;
  const add = (b, cls) => {
    const d = el("div", { class: `hl ${cls}`, "data-box": b.join(",") });
    d.style.left = `${(100 * b[0]) / v.width}%`;
    d.style.top = `${(100 * b[1]) / v.height}%`;
    d.style.width = `${(100 * (b[2] - b[0])) / v.width}%`;
    d.style.height = `${(100 * (b[3] - b[1])) / v.height}%`;
    overlay.append(d);
  };
  boxesOn(v.rects, v.page).forEach((b) => add(b, "hit"));
  boxesOn(state.quote, v.page).forEach((b) => add(b, "quote"));
  debugDump();
}

function debugDump() {
  // the boxes as laid out on screen, turned back into PDF points (the browser test reads this)
  const img = $("pageimg").getBoundingClientRect();
  const v = state.view;
  const boxes = [...document.querySelectorAll("#overlay .hl")].map((d) => {
    const r = d.getBoundingClientRect();
    const sx = v.width / img.width, sy = v.height / img.height;
    return { kind: d.classList.contains("quote") ? "quote" : "hit",
      pt: [(r.left - img.left) * sx, (r.top - img.top) * sy, (r.right - img.left) * sx, (r.bottom - img.top) * sy] };
  });
  $("debug").textContent = JSON.stringify({ file: v.file, page: v.page, chunk: state.hit && state.hit.chunk_id,
    image: [img.width, img.height], natural: [$("pageimg").naturalWidth, $("pageimg").naturalHeight], boxes });
}

async function verify(quote) {
  const out = $("verdict");
  out.replaceChildren("checking…");
  try {
    const c = await api("verify", { quote, file: state.file, page: state.page });
    const where = c.page ? `page ${c.page}${c.label ? ` (printed ${c.label})` : ""}` : "";
    const good = (c.match === "exact" || c.match === "normalised") && c.page_correct !== false;
    // replaceChildren prints a null child as the text "null": only the parts there are
    out.replaceChildren(...[el("span", { class: good ? "ok" : "bad" }, `${c.match}${where ? " on " + where : ""}`),
      c.note ? el("div", { class: "meta" }, c.note) : null].filter((x) => x !== null));
    if (c.match !== "not_found" && c.page && c.page !== state.page) {
      out.append(el("button", { type: "button", onclick: async () => { await show(state.file, c.page); state.quote = c.rects; draw(); } }, `show page ${c.page}`));
    }
    state.quote = c.match === "not_found" ? null : c.rects;
    draw();
  } catch (e) {
    out.replaceChildren(el("span", { class: "error" }, e.message));
  }
}

async function init() {
  try {
    const inv = await api("files", {});
    for (const f of inv.files || []) {
      const path = typeof f === "string" ? f : f.path;
      $("scope").append(el("option", { value: path }, path));
    }
  } catch (e) {
    $("warnings").replaceChildren(el("div", { class: "error" }, e.message));
  }
  const params = new URLSearchParams(location.search);
  $("search").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const p = { q: $("q").value, mode: $("mode").value, file: $("scope").value };
    history.replaceState(null, "", `?${new URLSearchParams(p)}`);
    runSearch(p);
  });
  $("prev").addEventListener("click", () => show(state.file, state.page - 1));
  $("next").addEventListener("click", () => show(state.file, state.page + 1));
  $("verify").addEventListener("submit", (ev) => { ev.preventDefault(); verify($("quote").value); });
  window.addEventListener("resize", () => state.view && debugDump());
  if (params.get("q")) {
    $("q").value = params.get("q");
    if (params.get("mode")) $("mode").value = params.get("mode");
    if (params.get("file")) $("scope").value = params.get("file");
    await runSearch({ q: params.get("q"), mode: $("mode").value, file: $("scope").value });
    const open = parseInt(params.get("open") || "0", 10);
    if (open > 0) await openHit(open - 1);
    if (params.get("verify") && state.view) await verify(params.get("verify"));
  }
  if (document.body.dataset.state === "idle") document.body.dataset.state = "ready";
}

init();
