// Charts drawn as SVG: line, area, column, bar (stacked or not), pie, single value with trend,
// and a sortable table. Input is a search's result rows.
import { h, svg, clear, fmtNumber, fmtTime } from "./dom";

export type ChartType = "line" | "area" | "column" | "bar" | "stacked" | "pie" | "single" | "table";
export const CHART_TYPES: [ChartType, string][] = [
  ["line", "Line"], ["area", "Area"], ["column", "Column"], ["bar", "Bar"], ["stacked", "Stacked column"],
  ["pie", "Pie"], ["single", "Single value"], ["table", "Table"],
];
const COLORS = ["#3b82f6", "#f59e0b", "#10b981", "#ef4444", "#8b5cf6", "#06b6d4", "#ec4899", "#84cc16", "#f97316", "#6366f1"];

export type Row = Record<string, string | string[]>;

/// The chart a search's results suggest: `timechart` → line, one number → single value.
export function defaultChart(query: string, fields: string[], rows: Row[]): ChartType {
  if (/\|\s*timechart\b/.test(query) || fields[0] === "_time") return "line";
  const visible = fields.filter((f) => !f.startsWith("_"));
  if (rows.length === 1 && visible.length === 1) return "single";
  if (/\|\s*(top|rare)\b/.test(query)) return "bar";
  return "column";
}

const cell = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(", ") : v ?? "");
const num = (v: string | string[] | undefined) => {
  const n = Number(Array.isArray(v) ? v[0] : v);
  return Number.isFinite(n) ? n : NaN;
};

/// Category field (x axis) and numeric series of `rows`.
function shape(fields: string[], rows: Row[]) {
  const visible = fields.filter((f) => f === "_time" || !f.startsWith("_"));
  const x = visible[0] ?? "";
  let series = visible.slice(1).filter((f) => rows.some((r) => !isNaN(num(r[f]))) && f !== "percent");
  if (!series.length && visible.length === 1 && rows.some((r) => !isNaN(num(r[x])))) series = [x];
  return { x, series };
}

export function table(fields: string[], rows: Row[]): HTMLElement {
  const visible = fields.filter((f) => f === "_time" || !f.startsWith("_") || f === "_raw");
  let sortBy = -1;
  let desc = false;
  const tbody = h("tbody");
  const fill = () => {
    clear(tbody);
    const sorted = sortBy < 0 ? rows : [...rows].sort((a, b) => {
      const f = visible[sortBy];
      const [x, y] = [num(a[f]), num(b[f])];
      const c = !isNaN(x) && !isNaN(y) ? x - y : cell(a[f]).localeCompare(cell(b[f]));
      return desc ? -c : c;
    });
    for (const r of sorted) {
      tbody.appendChild(h("tr", {}, visible.map((f) => {
        const v = cell(r[f]);
        return h("td", { class: !isNaN(num(r[f])) && v !== "" ? "num" : "", text: f === "_time" ? fmtTime(v) : v });
      })));
    }
  };
  const head = h("tr", {}, visible.map((f, i) => h("th", {
    tabindex: 0, "data-field": f,
    onclick: (e: Event) => {
      desc = sortBy === i ? !desc : false;
      sortBy = i;
      for (const th of head.children) th.removeAttribute("aria-sort");
      (e.currentTarget as HTMLElement).setAttribute("aria-sort", desc ? "descending" : "ascending");
      fill();
    },
  }, f)));
  fill();
  return h("div", { class: "table-wrap" }, h("table", { class: "stats", "data-testid": "stats-table" }, h("thead", {}, head), tbody));
}

export function chart(type: ChartType, fields: string[], rows: Row[]): HTMLElement {
  if (type === "table") return table(fields, rows);
  const { x, series } = shape(fields, rows);
  const box = h("div", { class: "chart", "data-testid": "chart", "data-chart": type });
  if (!rows.length || !series.length) {
    box.appendChild(h("p", { class: "muted", text: "No numeric results to chart." }));
    return box;
  }
  if (type === "single") return single(box, series[0], rows);
  if (type === "pie") return pie(box, x, series[0], rows);
  const W = 900, H = 320, L = 60, R = 10, T = 10, B = 50;
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart-svg", role: "img" });
  const stacked = type === "stacked" || type === "area";
  const values = rows.map((r) => series.map((f) => (isNaN(num(r[f])) ? 0 : num(r[f]))));
  const max = Math.max(1e-9, ...values.map((v) => (stacked ? v.reduce((a, b) => a + Math.max(0, b), 0) : Math.max(...v))));
  const horizontal = type === "bar";
  const plotW = W - L - R, plotH = H - T - B;
  // Axis and grid.
  for (let i = 0; i <= 4; i++) {
    const v = (max * i) / 4;
    if (horizontal) {
      const px = L + (plotW * i) / 4;
      s.appendChild(svg("line", { x1: px, x2: px, y1: T, y2: T + plotH, class: "grid" }));
      const t = svg("text", { x: px, y: H - B + 16, "text-anchor": "middle", class: "axis" });
      t.textContent = short(v);
      s.appendChild(t);
    } else {
      const py = T + plotH - (plotH * i) / 4;
      s.appendChild(svg("line", { x1: L, x2: W - R, y1: py, y2: py, class: "grid" }));
      const t = svg("text", { x: L - 6, y: py + 4, "text-anchor": "end", class: "axis" });
      t.textContent = short(v);
      s.appendChild(t);
    }
  }
  const n = rows.length;
  const labelOf = (r: Row) => (x === "_time" ? fmtTime(cell(r[x])).slice(5, 16) : cell(r[x]));
  // As many labels as fit: ~7 px per character along x, one line height along y.
  const longest = Math.min(20, Math.max(1, ...rows.map((r) => labelOf(r).length)));
  const fit = horizontal ? Math.floor(plotH / 14) : Math.floor(plotW / (longest * 7 + 12));
  const every = Math.max(1, Math.ceil(n / Math.max(1, fit)));
  rows.forEach((r, i) => {
    if (i % every) return;
    const t = svg("text", { class: "axis", "text-anchor": horizontal ? "end" : "middle" });
    if (horizontal) {
      t.setAttribute("x", String(L - 6));
      t.setAttribute("y", String(T + ((i + 0.5) * plotH) / n + 4));
    } else {
      t.setAttribute("x", String(L + ((i + 0.5) * plotW) / n));
      t.setAttribute("y", String(H - B + 16));
    }
    t.textContent = labelOf(r).slice(0, 20);
    s.appendChild(t);
  });
  if (type === "line" || type === "area") {
    const base = new Array(n).fill(0);
    series.forEach((_f, si) => {
      const pts = values.map((v, i) => {
        const y = type === "area" ? base[i] + Math.max(0, v[si]) : v[si];
        return [L + ((i + 0.5) * plotW) / n, T + plotH - (plotH * y) / max];
      });
      if (type === "area") {
        const bottom = base.map((b, i) => [L + ((i + 0.5) * plotW) / n, T + plotH - (plotH * b) / max]).reverse();
        s.appendChild(svg("polygon", { points: [...pts, ...bottom].map((p) => p.join(",")).join(" "), fill: COLORS[si % 10], "fill-opacity": 0.45, stroke: "none" }));
        values.forEach((v, i) => (base[i] += Math.max(0, v[si])));
      }
      s.appendChild(svg("polyline", { points: pts.map((p) => p.join(",")).join(" "), fill: "none", stroke: COLORS[si % 10], "stroke-width": 2, "vector-effect": "non-scaling-stroke" }));
    });
  } else {
    const slot = (horizontal ? plotH : plotW) / n;
    values.forEach((v, i) => {
      let acc = 0;
      v.forEach((y, si) => {
        const len = ((horizontal ? plotW : plotH) * Math.max(0, y)) / max;
        const bw = stacked ? slot * 0.8 : (slot * 0.8) / series.length;
        const off = i * slot + slot * 0.1 + (stacked ? 0 : si * bw);
        const rect = horizontal
          ? svg("rect", { x: L + acc, y: T + off, width: len, height: bw, fill: COLORS[si % 10] })
          : svg("rect", { x: L + off, y: T + plotH - len - acc, width: bw, height: len, fill: COLORS[si % 10] });
        const title = svg("title");
        title.textContent = `${labelOf(rows[i])} · ${series[si]}: ${fmtNumber(y)}`;
        rect.appendChild(title);
        s.appendChild(rect);
        if (stacked) acc += len;
      });
    });
  }
  box.appendChild(s);
  box.appendChild(legend(series));
  return box;
}

function legend(series: string[]): HTMLElement {
  return h("div", { class: "legend" }, series.map((f, i) => h("span", {}, h("i", { style: `background:${COLORS[i % 10]}` }), f)));
}

function short(v: number): string {
  if (Math.abs(v) >= 1e6) return (v / 1e6).toFixed(1) + "M";
  if (Math.abs(v) >= 1e3) return (v / 1e3).toFixed(1) + "k";
  return Number.isInteger(v) ? String(v) : v.toFixed(2);
}

function single(box: HTMLElement, f: string, rows: Row[]): HTMLElement {
  const last = num(rows[rows.length - 1][f]);
  box.classList.add("single");
  box.appendChild(h("div", { class: "single-value", "data-testid": "single-value", text: isNaN(last) ? cell(rows[rows.length - 1][f]) : fmtNumber(last) }));
  box.appendChild(h("div", { class: "muted", text: f }));
  if (rows.length > 1) {
    const prev = num(rows[rows.length - 2][f]);
    const d = last - prev;
    box.appendChild(h("div", { class: d >= 0 ? "trend up" : "trend down", text: `${d >= 0 ? "▲" : "▼"} ${fmtNumber(Math.abs(d))}` }));
  }
  return box;
}

function pie(box: HTMLElement, x: string, f: string, rows: Row[]): HTMLElement {
  const vals = rows.map((r) => Math.max(0, num(r[f]) || 0));
  const total = vals.reduce((a, b) => a + b, 0) || 1;
  const s = svg("svg", { viewBox: "-110 -110 220 220", class: "pie-svg", role: "img" });
  let a = -Math.PI / 2;
  vals.forEach((v, i) => {
    const da = (v / total) * Math.PI * 2;
    const [x1, y1, x2, y2] = [100 * Math.cos(a), 100 * Math.sin(a), 100 * Math.cos(a + da), 100 * Math.sin(a + da)];
    const path = da >= Math.PI * 2 - 1e-9
      ? svg("circle", { r: 100, fill: COLORS[i % 10] })
      : svg("path", { d: `M0,0 L${x1},${y1} A100,100 0 ${da > Math.PI ? 1 : 0} 1 ${x2},${y2} Z`, fill: COLORS[i % 10] });
    const t = svg("title");
    t.textContent = `${cell(rows[i][x])}: ${fmtNumber(v)} (${((v / total) * 100).toFixed(1)}%)`;
    path.appendChild(t);
    s.appendChild(path);
    a += da;
  });
  box.appendChild(s);
  box.appendChild(legend(rows.map((r) => cell(r[x]))));
  return box;
}
