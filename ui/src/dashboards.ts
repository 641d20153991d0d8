// Dashboards: JSON documents (stored by the server as files under the user's app directory,
// `lode/dashboards`), with panels (an inline search, or a saved search by name, and a
// visualisation), a shared time picker and text/dropdown inputs whose values replace `$token$`
// in the panels' searches.
import * as api from "./api";
import { h, clear } from "./dom";
import { picker, Range } from "./time";
import { chart, CHART_TYPES, ChartType, Row } from "./charts";
import { getSaved, listSaved } from "./reports";

/// A panel runs `search`, or the saved search named `saved` (Splunk's `<search ref>`).
export interface Panel {
  title: string;
  search?: string;
  saved?: string;
  earliest?: string;
  latest?: string;
  viz?: ChartType;
}

/// What a panel runs: its search, time range and chart. A saved search brings its own text, time
/// range and chart type; the panel's `earliest`/`latest` win, then the dashboard's time picker
/// when it holds a range, then the saved search's `dispatch.*` times.
export async function resolvePanel(p: Panel, range: Range): Promise<{ search: string; earliest: string; latest: string; viz: ChartType }> {
  const pick = (own: string | undefined, dash: string, saved: string) => own ?? (range.earliest || range.latest ? dash : saved);
  if (p.saved) {
    const c = await getSaved(p.saved);
    const viz = (p.viz ?? (String(c["display.visualizations.charting.chart"] ?? "") || "table")) as ChartType;
    return {
      search: String(c.search ?? ""),
      earliest: pick(p.earliest, range.earliest, String(c["dispatch.earliest_time"] ?? "")),
      latest: pick(p.latest, range.latest, String(c["dispatch.latest_time"] ?? "")),
      viz,
    };
  }
  return { search: p.search ?? "", earliest: p.earliest ?? range.earliest, latest: p.latest ?? range.latest, viz: p.viz ?? "table" };
}
export interface Input {
  type: "text" | "dropdown";
  token: string;
  label: string;
  default: string;
  choices?: { label: string; value: string }[];
}
export interface Dashboard {
  title: string;
  description?: string;
  earliest?: string;
  latest?: string;
  inputs: Input[];
  panels: Panel[];
}

const PATH = "/services/lode/dashboards";

export function slug(title: string): string {
  return title.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "") || "dashboard";
}

export async function load(name: string): Promise<Dashboard> {
  const r = await api.call("GET", `${PATH}/${encodeURIComponent(name)}`);
  return r.entry[0].content as Dashboard;
}

export async function save(name: string, d: Dashboard): Promise<void> {
  await api.call("POST", `${PATH}/${encodeURIComponent(name)}`, {}, { json: JSON.stringify(d) });
}

/// Adds `p` to dashboard `name`, or to a new one titled `newTitle` when `name` is empty.
export async function addPanel(name: string, newTitle: string, p: Panel): Promise<string> {
  let d: Dashboard;
  if (!name) {
    if (!newTitle.trim()) throw new Error("Give the new dashboard a title.");
    name = slug(newTitle);
    d = { title: newTitle.trim(), inputs: [], panels: [] };
  } else {
    d = await load(name);
  }
  d.panels.push(p);
  await save(name, d);
  return name;
}

/// `search` with `$token$` replaced by the inputs' values (`$$` is a literal `$`).
export function substitute(search: string, tokens: Record<string, string>): string {
  return search.replace(/\$(\w*)\$/g, (m, t: string) => (t === "" ? "$" : t in tokens ? tokens[t] : m));
}

export async function dashboardsPage(root: HTMLElement, navigate: (u: string) => void): Promise<void> {
  const r = await api.call("GET", PATH);
  const title = h("input", { placeholder: "Title of a new dashboard", "aria-label": "New dashboard title", "data-testid": "new-dashboard-title" });
  const msg = h("span", { class: "error-text" });
  root.appendChild(h("section", { class: "page" },
    h("h1", { text: "Dashboards" }),
    h("form", {
      class: "row", onsubmit: async (e: Event) => {
        e.preventDefault();
        if (!title.value.trim()) return;
        const name = slug(title.value);
        try {
          await save(name, { title: title.value.trim(), inputs: [], panels: [] });
          navigate(`/dashboards/${name}?edit=1`);
        } catch (err) {
          msg.textContent = (err as Error).message;
        }
      },
    }, title, h("button", { class: "primary", type: "submit", "data-testid": "create-dashboard", text: "Create dashboard" }), msg),
    h("ul", { class: "dash-list", "data-testid": "dashboards" }, (r.entry ?? []).map((e: { name: string; content: Dashboard }) =>
      h("li", {}, h("a", { href: `/dashboards/${e.name}`, onclick: (ev: Event) => { ev.preventDefault(); navigate(`/dashboards/${e.name}`); }, text: e.content.title ?? e.name }),
        h("span", { class: "muted", text: ` · ${e.content.panels?.length ?? 0} panels` }))))));
}

export async function dashboardPage(root: HTMLElement, name: string, params: URLSearchParams, navigate: (u: string) => void): Promise<void> {
  const d = await load(name);
  let editing = params.get("edit") === "1";
  const range: Range = { earliest: d.earliest ?? "", latest: d.latest ?? "" };
  const tokens: Record<string, string> = {};
  for (const i of d.inputs) tokens[i.token] = params.get(`form.${i.token}`) ?? i.default;
  const inputsRow = h("div", { class: "dash-inputs" });
  const grid = h("div", { class: "dash-grid", "data-testid": "dashboard-panels" });
  const editBar = h("div", { class: "dash-edit" });
  const head = h("div", { class: "page-head" }, h("h1", { text: d.title }),
    h("button", { type: "button", "data-testid": "edit-dashboard", text: editing ? "Done" : "Edit", onclick: () => { editing = !editing; draw(); } }));
  root.appendChild(h("section", { class: "page dashboard" }, head, d.description ? h("p", { class: "muted", text: d.description }) : null, inputsRow, editBar, grid));

  const persist = async () => save(name, d);
  const refreshAll = () => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(tokens)) p.set(`form.${k}`, v);
    if (editing) p.set("edit", "1");
    history.replaceState(null, "", `/dashboards/${name}${p.toString() ? "?" + p : ""}`);
    clear(grid);
    d.panels.forEach((p, i) => grid.appendChild(panelEl(p, i)));
  };
  const panelEl = (p: Panel, i: number) => {
    const body = h("div", { class: "panel-body", text: "Loading…" });
    const el = h("div", { class: "panel", "data-testid": "panel", "data-saved": p.saved ?? "" },
      h("div", { class: "panel-head" }, h("h3", { text: p.title }),
        p.saved ? h("span", { class: "badge", title: "Runs a saved search", text: `report: ${p.saved}` }) : null,
        editing ? h("button", { type: "button", class: "mini danger", text: "Remove", onclick: async () => { d.panels.splice(i, 1); await persist(); refreshAll(); } }) : null),
      body);
    resolvePanel(p, range)
      .then(async (run) => {
        const r = await api.oneshot(substitute(run.search, tokens), run.earliest, run.latest);
        clear(body);
        body.appendChild(chart(run.viz, r.fields.map((f) => f.name), r.results as Row[]));
      })
      .catch((e) => {
        clear(body);
        body.appendChild(h("div", { class: "error-box", text: (e as Error).message }));
      });
    return el;
  };
  const drawInputs = () => {
    clear(inputsRow);
    inputsRow.appendChild(picker(() => range, (r) => { Object.assign(range, r); refreshAll(); }));
    for (const inp of d.inputs) {
      let ctl: HTMLInputElement | HTMLSelectElement;
      if (inp.type === "dropdown") {
        ctl = h("select", { "data-token": inp.token }, (inp.choices ?? []).map((c) => h("option", { value: c.value, text: c.label })));
        ctl.value = tokens[inp.token];
        ctl.addEventListener("change", () => { tokens[inp.token] = ctl.value; refreshAll(); });
      } else {
        ctl = h("input", { value: tokens[inp.token], "data-token": inp.token });
        ctl.addEventListener("change", () => { tokens[inp.token] = ctl.value; refreshAll(); });
      }
      inputsRow.appendChild(h("label", { class: "input" }, inp.label + " ", ctl));
    }
  };
  const drawEdit = () => {
    clear(editBar);
    if (!editing) return;
    const title = h("input", { placeholder: "Panel title", "aria-label": "Panel title", "data-testid": "panel-title" });
    const search = h("textarea", { rows: 2, placeholder: "SPL, may use $tokens$", "aria-label": "Panel search", "data-testid": "panel-search" });
    const viz = h("select", { "aria-label": "Visualization", "data-testid": "panel-viz" }, CHART_TYPES.map(([v, l]) => h("option", { value: v, text: l })));
    viz.value = "table";
    const saved = h("select", { "aria-label": "Saved search", "data-testid": "panel-saved" }, h("option", { value: "", text: "Inline search" }));
    listSaved().then((l) => saved.append(...l.map((e) => h("option", { value: e.name, text: `Report: ${e.name}` })))).catch(() => undefined);
    saved.addEventListener("change", () => (search.disabled = !!saved.value));
    const itok = h("input", { placeholder: "token", "aria-label": "Token", class: "short" });
    const ilabel = h("input", { placeholder: "label", "aria-label": "Input label", class: "short" });
    const itype = h("select", { "aria-label": "Input type" }, h("option", { value: "text", text: "Text" }), h("option", { value: "dropdown", text: "Dropdown" }));
    const idef = h("input", { placeholder: "default", "aria-label": "Default", class: "short" });
    const ichoices = h("input", { placeholder: "choices: a,b,c (dropdown)", "aria-label": "Choices" });
    editBar.append(
      h("form", {
        class: "form inline", "data-testid": "add-panel-form", onsubmit: async (e: Event) => {
          e.preventDefault();
          if (saved.value) {
            d.panels.push({ title: title.value || saved.value, saved: saved.value, viz: viz.value as ChartType });
          } else {
            if (!search.value.trim()) return;
            d.panels.push({ title: title.value || search.value, search: search.value, viz: viz.value as ChartType });
          }
          await persist();
          title.value = search.value = "";
          refreshAll();
        },
      }, h("strong", { text: "Add panel" }), title, saved, search, viz, h("button", { class: "primary", type: "submit", "data-testid": "add-panel", text: "Add panel" })),
      h("form", {
        class: "form inline", onsubmit: async (e: Event) => {
          e.preventDefault();
          const token = itok.value.trim().replace(/\$/g, "");
          if (!/^\w+$/.test(token)) return;
          const choices = ichoices.value.split(",").map((s) => s.trim()).filter(Boolean).map((v) => ({ label: v, value: v }));
          d.inputs.push({ type: itype.value as Input["type"], token, label: ilabel.value || token, default: idef.value || choices[0]?.value || "", choices });
          tokens[token] = d.inputs[d.inputs.length - 1].default;
          await persist();
          drawInputs();
          refreshAll();
        },
      }, h("strong", { text: "Add input" }), itype, itok, ilabel, idef, ichoices, h("button", { type: "submit", text: "Add input" })),
      h("div", { class: "row" },
        h("button", { type: "button", text: "Save time range as default", onclick: async () => { d.earliest = range.earliest; d.latest = range.latest; await persist(); } }),
        h("button", { type: "button", class: "danger", text: "Delete dashboard", onclick: async () => { if (confirm(`Delete ${d.title}?`)) { await api.call("DELETE", `${PATH}/${encodeURIComponent(name)}`); navigate("/dashboards"); } } })));
  };
  const draw = () => {
    head.querySelector("button")!.textContent = editing ? "Done" : "Edit";
    drawInputs();
    drawEdit();
    refreshAll();
  };
  draw();
}
