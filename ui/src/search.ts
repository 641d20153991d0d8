// The search screen: editor, time range, run/cancel with progress, events (timeline, fields,
// list/raw views, paging), statistics and visualisation. The URL holds query and time range.
import * as api from "./api";
import { h, clear, svg, fmtNumber, fmtTime, dialog } from "./dom";
import { editor, byteToIndex } from "./editor";
import { picker, Range } from "./time";
import { chart, table, defaultChart, CHART_TYPES, ChartType, Row } from "./charts";
import { saveDialog } from "./reports";
import { addPanel } from "./dashboards";

const PAGE_SIZES = [20, 50, 100, 1000, 10000];
/// Events rendered at once (the first screenful and then some); the rest of a longer page is
/// appended in chunks of CHUNK_REST between frames.
const CHUNK = 500;
const CHUNK_REST = 2500;
const INTERNAL = /^(_|date_|punct$|linecount$|timestartpos$|timeendpos$|splunk_server)/;
const SELECTED = ["host", "source", "sourcetype"];

interface State {
  range: Range;
  sid: string | null;
  status: api.JobStatus | null;
  tab: "events" | "stats" | "viz";
  view: "list" | "raw";
  page: number;
  pageSize: number;
  chart: ChartType | null;
  results: api.Results | null;
  fields: string[];
  saved: string | null;
}

export function searchPage(root: HTMLElement, params: URLSearchParams, navigate: (url: string) => void): () => void {
  const st: State = {
    range: { earliest: params.get("earliest") ?? "", latest: params.get("latest") ?? "" },
    sid: null, status: null, tab: (params.get("tab") as State["tab"]) ?? "events", view: "list",
    page: 0, pageSize: 50, chart: (params.get("viz") as ChartType) ?? null, results: null, fields: [],
    saved: params.get("s"),
  };
  let run = 0; // generation: a newer run stops older pollers
  const ed = editor({ onRun: () => start() });
  const timeP = picker(() => st.range, (r) => { st.range = r; start(); });
  const runBtn = h("button", { class: "primary run", "data-testid": "run", type: "button", title: "Run (Ctrl+Enter)", text: "Search", onclick: () => (st.sid && !st.status?.isDone ? cancel() : start()) });
  const status = h("div", { class: "job-status", "data-testid": "job-status", "aria-live": "polite" });
  const actions = h("div", { class: "job-actions" });
  const tabs = h("div", { class: "tabs", role: "tablist" });
  const body = h("div", { class: "search-body" });
  root.appendChild(h("section", { class: "search-page" },
    h("div", { class: "search-bar" }, ed.el, timeP, runBtn),
    h("div", { class: "status-row" }, status, actions), tabs, body));
  api.indexNames().then(ed.setIndexes);
  const keys = (e: KeyboardEvent) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      start();
    }
  };
  document.addEventListener("keydown", keys);

  function syncUrl() {
    const p = new URLSearchParams();
    p.set("q", ed.value());
    p.set("earliest", st.range.earliest);
    p.set("latest", st.range.latest);
    if (st.tab !== "events") p.set("tab", st.tab);
    if (st.chart) p.set("viz", st.chart);
    if (st.saved) p.set("s", st.saved);
    history.replaceState(null, "", "/search?" + p.toString());
  }

  async function start() {
    const q = ed.value().trim();
    if (!q) return;
    const gen = ++run;
    if (st.sid && !st.status?.isDone) cancel();
    syncUrl();
    clear(body);
    clear(actions);
    clear(tabs);
    st.results = null;
    st.page = 0;
    status.textContent = "Checking syntax…";
    try {
      const problem = await api.checkSyntax(q);
      if (gen !== run) return;
      if (problem) {
        const raw = ed.value();
        const lead = raw.length - raw.trimStart().length;
        ed.setError({ message: problem.message, start: lead + byteToIndex(q, problem.start), end: lead + byteToIndex(q, problem.end) });
        status.textContent = "";
        return;
      }
      ed.setError(null);
      status.textContent = "Starting…";
      st.sid = await api.createJob(q, st.range.earliest, st.range.latest);
      runBtn.textContent = "Cancel";
      runBtn.classList.add("cancel");
      await poll(gen);
    } catch (e) {
      if (gen === run) showError(e);
    }
  }

  async function poll(gen: number) {
    const t0 = performance.now();
    let shown = 0; // rows of the partial view
    clear(body);
    body.appendChild(h("div", { class: "progress", "data-testid": "progress" }));
    for (;;) {
      if (gen !== run || !st.sid) return;
      const s = await api.jobStatus(st.sid);
      if (gen !== run) return;
      st.status = s;
      const elapsed = ((performance.now() - t0) / 1000).toFixed(1);
      status.textContent = s.isDone
        ? `${s.dispatchState === "FAILED" ? "Failed" : "Done"}: ${fmtNumber(s.eventIsStreaming ? s.resultCount : s.eventCount)} events` +
          `${s.eventIsStreaming ? "" : `, ${fmtNumber(s.resultCount)} results`} (${fmtNumber(s.scanCount)} scanned) in ${Number(s.runDuration).toFixed(3)} s`
        : `Running… ${fmtNumber(s.eventCount)} events, ${fmtNumber(s.scanCount)} scanned, ${elapsed} s`;
      status.dataset.state = s.isDone ? "done" : "running";
      if (s.isDone) break;
      if (s.resultCount > shown) {
        shown = s.resultCount;
        await showPartial(gen);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    runBtn.textContent = "Search";
    runBtn.classList.remove("cancel");
    await showResults(gen);
  }

  /// While the job runs: the first page of what it found so far (`results_preview`), under a
  /// progress bar. Transforming searches have no rows until their merge, so show none.
  async function showPartial(gen: number) {
    const sid = st.sid!;
    const r = await api.jobPart(sid, "results_preview", { count: st.pageSize });
    if (gen !== run || st.status?.isDone) return;
    const terms = searchTerms(ed.value());
    const ol = h("ol", { class: `event-list ${st.view}`, "data-testid": "partial-list" });
    const events = r.results as Row[];
    ol.innerHTML = events.map((ev, i) => eventHtml(ev, i, terms)).join("");
    listenExpand(ol, events);
    clear(body);
    body.append(h("div", { class: "progress", "data-testid": "progress" }),
      h("div", { class: "partial-note", "data-testid": "partial-note", text: `Partial results: ${fmtNumber(st.status?.resultCount ?? 0)} so far; the search is still running…` }), ol);
  }

  function cancel() {
    const sid = st.sid;
    run++;
    runBtn.textContent = "Search";
    runBtn.classList.remove("cancel");
    status.textContent = "Cancelled.";
    status.dataset.state = "cancelled";
    if (sid) api.cancelJob(sid).catch(() => undefined);
  }

  function showError(e: unknown) {
    runBtn.textContent = "Search";
    runBtn.classList.remove("cancel");
    status.textContent = "";
    clear(body);
    body.appendChild(h("div", { class: "error-box", role: "alert", text: e instanceof Error ? e.message : String(e) }));
  }

  async function showResults(gen: number) {
    const s = st.status!;
    const sid = st.sid!;
    clear(actions);
    actions.append(
      h("button", { type: "button", "data-testid": "save-as", text: "Save as report…", onclick: () => saveDialog({ search: ed.value(), ...st.range, chart: st.chart ?? undefined, name: st.saved ?? undefined }, (n) => { st.saved = n; syncUrl(); }) }),
      h("button", { type: "button", text: "Add to dashboard…", "data-testid": "add-to-dashboard", onclick: () => addToDashboard(ed.value(), st.range, st.chart ?? "table") }),
      h("a", { href: `/job/${encodeURIComponent(sid)}`, "data-testid": "inspect", class: "button", onclick: (e: Event) => { e.preventDefault(); navigate(`/job/${encodeURIComponent(sid)}`); }, text: "Inspect job" }),
    );
    if (s.dispatchState === "FAILED") {
      const r = await api.jobPart(sid, "results", { count: 1 }).catch((e) => ({ messages: [{ type: "FATAL", text: String(e.message) }] }) as api.Results);
      body.appendChild(h("div", { class: "error-box", role: "alert", text: (r.messages ?? []).map((m) => m.text).join("\n") || "The search failed." }));
      return;
    }
    if (!s.eventIsStreaming) {
      const res = await api.jobPart(sid, "results", { count: 0 });
      if (gen !== run) return;
      st.results = res;
      st.fields = res.fields.map((f) => f.name);
      ed.setFields(st.fields);
      if (st.tab === "events") st.tab = "stats";
    } else if (st.tab !== "events") {
      st.tab = "events";
    }
    renderTabs();
  }

  function renderTabs() {
    clear(tabs);
    const s = st.status!;
    const ev = s.eventIsStreaming ? s.resultCount : s.eventCount;
    const mk = (id: State["tab"], label: string, enabled: boolean) =>
      h("button", {
        role: "tab", type: "button", "data-testid": `tab-${id}`, "aria-selected": String(st.tab === id), disabled: !enabled,
        onclick: () => { st.tab = id; syncUrl(); renderTabs(); }, text: label,
      });
    tabs.append(
      mk("events", `Events (${fmtNumber(ev)})`, s.eventIsStreaming),
      mk("stats", `Statistics (${fmtNumber(s.eventIsStreaming ? 0 : s.resultCount)})`, !s.eventIsStreaming),
      mk("viz", "Visualization", !s.eventIsStreaming),
    );
    clear(body);
    if (st.tab === "events") eventsView();
    else if (st.tab === "stats" && st.results) body.appendChild(table(st.fields, st.results.results as Row[]));
    else if (st.tab === "viz" && st.results) vizView();
    syncUrl();
  }

  function vizView() {
    const rows = st.results!.results as Row[];
    const type = st.chart ?? defaultChart(ed.value(), st.fields, rows);
    const sel = h("select", { "data-testid": "chart-type", "aria-label": "Chart type", onchange: (e: Event) => { st.chart = (e.target as HTMLSelectElement).value as ChartType; syncUrl(); renderTabs(); } },
      CHART_TYPES.map(([v, l]) => h("option", { value: v, text: l })));
    sel.value = type;
    body.append(h("div", { class: "viz-bar" }, h("label", {}, "Chart ", sel)), chart(type, st.fields, rows));
  }

  function eventsView() {
    const sid = st.sid!;
    const timeline = h("div", { class: "timeline", "data-testid": "timeline" });
    const side = h("aside", { class: "fields-side", "data-testid": "fields-sidebar" });
    const list = h("div", { class: "events" });
    body.append(timeline, h("div", { class: "events-layout" }, side, list));
    api.jobPart<{ buckets: { earliest_time: number; duration: number; total_count: number }[] }>(sid, "timeline")
      .then((t) => drawTimeline(timeline, t.buckets)).catch(() => undefined);
    api.jobPart<{ event_count: number; fields: Record<string, { count: number; distinct_count: number; modes: { value: string; count: number }[] }> }>(sid, "summary", { top_count: 10 })
      .then((sm) => drawFields(side, sm)).catch(() => undefined);
    loadPage(list);
  }

  async function loadPage(list: HTMLElement) {
    const sid = st.sid!;
    const total = st.status!.resultCount;
    const r = await api.jobPart(sid, "events", { count: st.pageSize, offset: st.page * st.pageSize });
    clear(list);
    const terms = searchTerms(ed.value());
    const pages = Math.max(1, Math.ceil(total / st.pageSize));
    const pager = h("div", { class: "pager" },
      h("div", { class: "seg" },
        h("button", { type: "button", "aria-pressed": String(st.view === "list"), text: "List", onclick: () => { st.view = "list"; loadPage(list); } }),
        h("button", { type: "button", "aria-pressed": String(st.view === "raw"), "data-testid": "view-raw", text: "Raw", onclick: () => { st.view = "raw"; loadPage(list); } })),
      h("select", { "aria-label": "Events per page", onchange: (e: Event) => { st.pageSize = Number((e.target as HTMLSelectElement).value); st.page = 0; loadPage(list); } },
        PAGE_SIZES.map((n) => h("option", { value: n, selected: n === st.pageSize, text: `${n} per page` }))),
      h("button", { type: "button", text: "‹ Prev", disabled: st.page === 0, onclick: () => { st.page--; loadPage(list); } }),
      h("span", { "data-testid": "page-info", text: `Page ${st.page + 1} of ${fmtNumber(pages)}` }),
      h("button", { type: "button", text: "Next ›", "data-testid": "next-page", disabled: st.page + 1 >= pages, onclick: () => { st.page++; loadPage(list); } }));
    list.appendChild(pager);
    const ol = h("ol", { class: `event-list ${st.view}`, "data-testid": "event-list", start: st.page * st.pageSize + 1 });
    const events = r.results as Row[];
    list.appendChild(ol);
    await renderChunks(ol, events, terms);
    const names = new Set<string>();
    for (const e of events.slice(0, 1000)) for (const f of Object.keys(e)) if (!INTERNAL.test(f)) names.add(f);
    ed.setFields([...names]);
  }

  /// Appends `events` to `ol` in chunks (CHUNK, then CHUNK_REST), yielding a frame between chunks so a page of
  /// 10,000 events does not freeze the tab; marks the list complete (`data-complete`) with the
  /// time it took (`data-render-ms`).
  async function renderChunks(ol: HTMLElement, events: Row[], terms: RegExp | null) {
    const gen = run;
    const t0 = performance.now();
    listenExpand(ol, events);
    for (let i = 0; i < events.length; i += i === 0 ? CHUNK : CHUNK_REST) {
      if (i > 0) await new Promise((r) => requestAnimationFrame(() => r(undefined)));
      if (gen !== run || !ol.isConnected) return;
      let html = "";
      const end = Math.min(events.length, i + (i === 0 ? CHUNK : CHUNK_REST));
      for (let k = i; k < end; k++) html += eventHtml(events[k], k, terms);
      ol.insertAdjacentHTML("beforeend", html);
    }
    ol.dataset.renderMs = (performance.now() - t0).toFixed(1);
    ol.dataset.complete = String(events.length);
  }

  /// An event's list item as HTML (built as text: a page of 10,000 events is 10,000 of these).
  /// `i` indexes the page's rows for the delegated expand handler ([`listenExpand`]).
  function eventHtml(ev: Row, i: number, terms: RegExp | null): string {
    const raw = `<div class="raw">${highlightHtml(String(ev._raw ?? ""), terms)}</div>`;
    if (st.view === "raw") return `<li class="event">${raw}</li>`;
    const meta = SELECTED.filter((f) => ev[f] !== undefined).map((f) => `<span>${esc(f)} = <b>${esc(String(ev[f]))}</b></span>`).join("");
    return `<li class="event" data-i="${i}"><div class="event-head"><button class="icon expand" type="button" aria-expanded="false" title="Show fields">›</button>` +
      `<time>${esc(fmtTime(String(ev._time ?? "")))}</time></div><div class="event-main">${raw}<div class="meta">${meta}</div><div class="event-fields" hidden></div></div></li>`;
  }

  /// One click handler per list: expands an event and fills its fields table on first open.
  function listenExpand(ol: HTMLElement, events: Row[]) {
    ol.addEventListener("click", (e) => {
      const toggle = (e.target as Element).closest("button.expand");
      const li = toggle?.closest("li.event") as HTMLElement | null;
      if (!toggle || !li) return;
      const ev = events[Number(li.dataset.i)];
      const details = li.querySelector(".event-fields") as HTMLElement;
      const open = details.hidden;
      details.hidden = !open;
      toggle.setAttribute("aria-expanded", String(open));
      toggle.textContent = open ? "⌄" : "›";
      if (open && !details.firstChild && ev) {
        const names = Object.keys(ev).filter((f) => f !== "_raw" && !f.startsWith("_si") && f !== "_cd" && f !== "_bkt").sort();
        details.appendChild(h("table", { class: "kv" }, names.map((f) => {
          const v = Array.isArray(ev[f]) ? (ev[f] as string[])[0] : String(ev[f]);
          return h("tr", {}, h("th", { text: f }), h("td", { text: Array.isArray(ev[f]) ? (ev[f] as string[]).join(", ") : v }),
            h("td", { class: "acts" },
              h("button", { type: "button", class: "mini", title: `Add ${f}=${v} to the search`, "data-testid": "add-filter", text: "+", onclick: () => addFilter(f, v, false) }),
              h("button", { type: "button", class: "mini", title: `Exclude ${f}=${v}`, "data-testid": "exclude-filter", text: "−", onclick: () => addFilter(f, v, true) })));
        })));
      }
    });
  }

  function addFilter(f: string, v: string, exclude: boolean) {
    const q = ed.value().trim();
    const clause = `${f}${exclude ? "!=" : "="}${quote(v)}`;
    const pipe = q.indexOf("|");
    ed.set(pipe < 0 ? `${q} ${clause}` : `${q.slice(0, pipe).trimEnd()} ${clause} ${q.slice(pipe)}`);
    start();
  }

  function drawTimeline(el: HTMLElement, buckets: { earliest_time: number; duration: number; total_count: number }[]) {
    clear(el);
    if (!buckets.length) return;
    const t0 = buckets[0].earliest_time;
    const t1 = buckets[buckets.length - 1].earliest_time + buckets[buckets.length - 1].duration;
    const span = Math.max(1, t1 - t0);
    const max = Math.max(...buckets.map((b) => b.total_count));
    const W = 1000, H = 80;
    const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: "none", class: "timeline-svg" });
    for (const b of buckets) {
      const x = ((b.earliest_time - t0) / span) * W;
      const w = Math.max(1, (b.duration / span) * W - 1);
      const bh = (b.total_count / max) * (H - 4);
      const r = svg("rect", { x, y: H - bh, width: w, height: bh, class: "bar", "data-count": b.total_count });
      const title = svg("title");
      title.textContent = `${fmtTime(b.earliest_time)}: ${fmtNumber(b.total_count)} events`;
      r.appendChild(title);
      s.appendChild(r);
    }
    const sel = svg("rect", { y: 0, height: H, width: 0, class: "selection" });
    s.appendChild(sel);
    const caption = h("div", { class: "timeline-caption muted" },
      `${fmtTime(t0)} — ${fmtTime(t1)} · ${buckets[0].duration >= 86400 ? buckets[0].duration / 86400 + " day" : buckets[0].duration >= 3600 ? buckets[0].duration / 3600 + " hour" : buckets[0].duration >= 60 ? buckets[0].duration / 60 + " minute" : buckets[0].duration + " second"} per bar · drag to zoom, click a bar`);
    el.append(s, caption);
    const toTime = (clientX: number) => {
      const rect = s.getBoundingClientRect();
      return t0 + (Math.min(Math.max(clientX - rect.left, 0), rect.width) / rect.width) * span;
    };
    let down: number | null = null;
    s.addEventListener("mousedown", (e) => {
      down = e.clientX;
      e.preventDefault();
    });
    window.addEventListener("mousemove", (e) => {
      if (down === null) return;
      const rect = s.getBoundingClientRect();
      const [a, b] = [Math.min(down, e.clientX), Math.max(down, e.clientX)];
      sel.setAttribute("x", String(((a - rect.left) / rect.width) * W));
      sel.setAttribute("width", String(((b - a) / rect.width) * W));
    });
    window.addEventListener("mouseup", (e) => {
      if (down === null) return;
      const startX = down;
      down = null;
      let a = toTime(Math.min(startX, e.clientX));
      let b = toTime(Math.max(startX, e.clientX));
      if (Math.abs(e.clientX - startX) < 4) {
        // A click: the bar under the pointer.
        const hit = buckets.find((bk) => a >= bk.earliest_time && a < bk.earliest_time + bk.duration);
        if (!hit) return;
        a = hit.earliest_time;
        b = hit.earliest_time + hit.duration;
      }
      st.range = { earliest: String(Math.floor(a)), latest: String(Math.ceil(b)) };
      timeP.refresh();
      start();
    }, { once: false });
  }

  function drawFields(side: HTMLElement, sm: { event_count: number; fields: Record<string, { count: number; distinct_count: number; modes: { value: string; count: number }[] }> }) {
    clear(side);
    const total = Math.max(1, sm.event_count);
    const names = Object.keys(sm.fields).filter((f) => !INTERNAL.test(f) && f !== "index");
    const selected = SELECTED.filter((f) => sm.fields[f]);
    const interesting = names.filter((f) => !SELECTED.includes(f) && sm.fields[f].count / total >= 0.2).sort();
    ed.setFields(names);
    const item = (f: string) => {
      const info = sm.fields[f];
      const pct = Math.round((info.count / total) * 100);
      const pop = h("div", { class: "field-pop", hidden: true });
      const btn = h("button", { type: "button", class: "field-name", "data-field": f, "data-testid": `field-${f}` },
        h("span", { text: f }), h("span", { class: "muted", text: ` ${info.distinct_count > 99 ? "99+" : info.distinct_count}` }));
      btn.addEventListener("click", () => {
        pop.hidden = !pop.hidden;
        if (pop.hidden || pop.firstChild) return;
        const base = ed.value().trim();
        pop.append(
          h("div", { class: "muted", text: `${fmtNumber(info.count)} events (${pct}%), ${fmtNumber(info.distinct_count)} values` }),
          h("div", { class: "links" },
            h("button", { type: "button", class: "link", text: "Top values", onclick: () => { ed.set(`${base} | top limit=20 ${f}`); start(); } }),
            h("button", { type: "button", class: "link", text: "Rare values", onclick: () => { ed.set(`${base} | rare limit=20 ${f}`); start(); } }),
            h("button", { type: "button", class: "link", text: "Top values by time", onclick: () => { ed.set(`${base} | timechart count by ${f} limit=10`); st.chart = "line"; start(); } }),
            h("button", { type: "button", class: "link", text: "Events with this field", onclick: () => addFilter(f, "*", false) })),
          h("table", { class: "top-values" }, info.modes.map((m) => h("tr", {},
            h("td", {}, h("button", { type: "button", class: "link", "data-testid": "field-value", text: m.value, onclick: () => addFilter(f, m.value, false) })),
            h("td", { class: "num", text: fmtNumber(m.count) }),
            h("td", { class: "num muted", text: `${((m.count / total) * 100).toFixed(1)}%` })))));
      });
      return h("li", {}, btn, h("span", { class: "coverage", title: `${pct}% of events`, text: `${pct}%` }), pop);
    };
    side.append(
      h("h3", { text: "Selected fields" }), h("ul", { class: "field-list" }, selected.map(item)),
      h("h3", { text: "Interesting fields" }), h("ul", { class: "field-list" }, interesting.map(item)));
    const rest = names.filter((f) => !SELECTED.includes(f) && !interesting.includes(f));
    if (rest.length) side.append(h("details", {}, h("summary", { text: `${rest.length} more fields` }), h("ul", { class: "field-list" }, rest.sort().map(item))));
  }

  // Start from the URL.
  const q = params.get("q");
  if (q) {
    ed.set(q);
    start();
  } else {
    ed.textarea.focus();
  }
  return () => {
    run++;
    document.removeEventListener("keydown", keys);
  };
}

function quote(v: string): string {
  return v === "*" ? "*" : /^[\w.:/-]+$/.test(v) ? v : `"${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/// The bare search terms of the first command, for highlighting.
function searchTerms(q: string): RegExp | null {
  const first = q.split("|")[0].replace(/^\s*search\s+/, "");
  const words = (first.match(/"[^"]*"|[^\s()]+/g) ?? [])
    .filter((w) => !/[=<>]/.test(w) && !/^(AND|OR|NOT)$/.test(w))
    .map((w) => w.replace(/^"|"$/g, "").replace(/\*/g, ""))
    .filter((w) => w.length > 0);
  if (!words.length) return null;
  return new RegExp(words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "gi");
}

const ESC: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESC[c]);
}

/// `raw` as HTML with the search terms in `<mark>`.
function highlightHtml(raw: string, re: RegExp | null): string {
  if (!re) return esc(raw);
  let out = "";
  let last = 0;
  for (const m of raw.matchAll(re)) {
    if (!m[0]) continue;
    out += esc(raw.slice(last, m.index)) + "<mark>" + esc(m[0]) + "</mark>";
    last = m.index! + m[0].length;
  }
  return out + esc(raw.slice(last));
}

async function addToDashboard(search: string, range: Range, viz: ChartType) {
  let list: { name: string; title: string }[] = [];
  try {
    const r = await api.call("GET", "/services/lode/dashboards");
    list = (r.entry ?? []).map((e: { name: string; content: { title?: string } }) => ({ name: e.name, title: e.content.title ?? e.name }));
  } catch {
    /* none yet */
  }
  dialog("Add to dashboard", (close) => {
    const sel = h("select", { "aria-label": "Dashboard" }, h("option", { value: "", text: "New dashboard…" }), list.map((d) => h("option", { value: d.name, text: d.title })));
    const title = h("input", { placeholder: "Panel title", value: "", "aria-label": "Panel title" });
    const newName = h("input", { placeholder: "New dashboard title", "aria-label": "New dashboard title" });
    const msg = h("div", { class: "error-text" });
    return h("form", {
      class: "form", onsubmit: async (e: Event) => {
        e.preventDefault();
        try {
          await addPanel(sel.value, newName.value, { title: title.value || search, search, earliest: range.earliest, latest: range.latest, viz });
          close();
        } catch (err) {
          msg.textContent = (err as Error).message;
        }
      },
    }, h("label", {}, "Dashboard ", sel), h("label", {}, "New dashboard ", newName), h("label", {}, "Panel title ", title), msg,
    h("div", { class: "buttons" }, h("button", { class: "primary", type: "submit", text: "Add panel" })));
  });
}
