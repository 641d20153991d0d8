// The time-range picker: presets, relative ranges, absolute date-and-time ranges, all time.
// A range is Splunk's pair of time modifiers (`-24h`, `@d`, epoch seconds, "" = unbounded).
import { h, fmtTime } from "./dom";

export interface Range {
  earliest: string;
  latest: string;
}

export const PRESETS: { label: string; earliest: string; latest: string }[] = [
  { label: "Last 15 minutes", earliest: "-15m", latest: "now" },
  { label: "Last 60 minutes", earliest: "-60m", latest: "now" },
  { label: "Last 4 hours", earliest: "-4h", latest: "now" },
  { label: "Last 24 hours", earliest: "-24h", latest: "now" },
  { label: "Last 7 days", earliest: "-7d", latest: "now" },
  { label: "Last 30 days", earliest: "-30d", latest: "now" },
  { label: "Today", earliest: "@d", latest: "now" },
  { label: "Yesterday", earliest: "-1d@d", latest: "@d" },
  { label: "All time", earliest: "", latest: "" },
];

const UNITS: [string, string][] = [
  ["s", "seconds"],
  ["m", "minutes"],
  ["h", "hours"],
  ["d", "days"],
  ["w", "weeks"],
  ["mon", "months"],
];

export function label(r: Range): string {
  const p = PRESETS.find((p) => p.earliest === r.earliest && p.latest === r.latest);
  if (p) return p.label;
  const num = (s: string) => /^\d+(\.\d+)?$/.test(s);
  if (num(r.earliest) || num(r.latest)) {
    const f = (s: string) => (s === "" ? "…" : num(s) ? fmtTime(Number(s)) : s);
    return `${f(r.earliest)} → ${f(r.latest)}`;
  }
  const m = /^-(\d+)(s|m|h|d|w|mon)$/.exec(r.earliest);
  if (m && (r.latest === "now" || r.latest === "")) {
    const unit = UNITS.find((u) => u[0] === m[2])?.[1] ?? m[2];
    return `Last ${m[1]} ${unit}`;
  }
  return `${r.earliest || "…"} → ${r.latest || "now"}`;
}

/// `datetime-local` value of epoch seconds, in local time.
function localInput(epoch: number): string {
  const d = new Date(epoch * 1000 - new Date().getTimezoneOffset() * 60000);
  return d.toISOString().slice(0, 19);
}

/// A button that opens the picker; `onChange` gets the new range.
export function picker(get: () => Range, onChange: (r: Range) => void): HTMLElement & { refresh: () => void } {
  const button = h("button", { class: "time-button", "data-testid": "time-picker", type: "button" });
  const wrap = h("div", { class: "time-picker" }, button);
  const refresh = () => (button.textContent = label(get()) + " ▾");
  refresh();
  let panel: HTMLElement | null = null;
  const close = () => {
    panel?.remove();
    panel = null;
  };
  const choose = (r: Range) => {
    close();
    onChange(r);
    refresh();
  };
  button.addEventListener("click", () => {
    if (panel) return close();
    const cur = get();
    const n = h("input", { type: "number", min: 1, value: 30, class: "short", "aria-label": "Amount" });
    const unit = h("select", { "aria-label": "Unit" }, UNITS.map(([v, l]) => h("option", { value: v, text: l })));
    unit.value = "m";
    const now = Math.floor(Date.now() / 1000);
    const isNum = (s: string) => /^\d+(\.\d+)?$/.test(s);
    const from = h("input", { type: "datetime-local", step: 1, "data-testid": "abs-from", value: localInput(isNum(cur.earliest) ? Number(cur.earliest) : now - 3600) });
    const to = h("input", { type: "datetime-local", step: 1, "data-testid": "abs-to", value: localInput(isNum(cur.latest) ? Number(cur.latest) : now) });
    const epoch = (v: string) => String(Math.floor(new Date(v).getTime() / 1000));
    panel = h("div", { class: "time-panel" },
      h("div", { class: "time-col" }, h("h4", { text: "Presets" }),
        PRESETS.map((p) => h("button", { class: "link", type: "button", text: p.label, onclick: () => choose({ earliest: p.earliest, latest: p.latest }) }))),
      h("div", { class: "time-col" },
        h("h4", { text: "Relative" }),
        h("div", { class: "row" }, "Last ", n, unit,
          h("button", { type: "button", text: "Apply", onclick: () => choose({ earliest: `-${Math.max(1, Number(n.value) || 1)}${unit.value}`, latest: "now" }) })),
        h("h4", { text: "Date and time range" }),
        h("label", {}, "From ", from),
        h("label", {}, "To ", to),
        h("button", { type: "button", "data-testid": "abs-apply", text: "Apply", onclick: () => choose({ earliest: epoch(from.value), latest: epoch(to.value) }) }),
        h("h4", { text: "Advanced" }),
        advanced(cur, choose)));
    wrap.appendChild(panel);
  });
  document.addEventListener("click", (e) => {
    if (panel && !wrap.contains(e.target as Node)) close();
  });
  return Object.assign(wrap, { refresh });
}

function advanced(cur: Range, choose: (r: Range) => void): HTMLElement {
  const e = h("input", { value: cur.earliest, placeholder: "earliest, e.g. -7d@d", "aria-label": "Earliest" });
  const l = h("input", { value: cur.latest, placeholder: "latest, e.g. now", "aria-label": "Latest" });
  return h("div", { class: "row" }, e, l, h("button", { type: "button", text: "Apply", onclick: () => choose({ earliest: e.value.trim(), latest: l.value.trim() }) }));
}
