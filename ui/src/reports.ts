// Saved searches (reports and alerts) over Splunk's `saved/searches` endpoint.
import * as api from "./api";
import { h, clear, dialog } from "./dom";
import { label } from "./time";

export interface SavedDraft {
  name?: string;
  search: string;
  earliest: string;
  latest: string;
  chart?: string;
}

interface SavedEntry {
  name: string;
  content: Record<string, string | number | boolean>;
}

const base = () => `/servicesNS/${encodeURIComponent(api.session.user ?? "nobody")}/search/saved/searches`;

export async function listSaved(): Promise<SavedEntry[]> {
  const r = await api.call("GET", base(), { count: 0 });
  return r.entry ?? [];
}

/// The caller's saved search `name` (its `content`: `search`, `dispatch.*`, `display.*`).
export async function getSaved(name: string): Promise<Record<string, string | number | boolean>> {
  const r = await api.call("GET", `${base()}/${encodeURIComponent(name)}`);
  const e = (r.entry ?? [])[0];
  if (!e) throw new Error(`No saved search named “${name}”.`);
  return e.content;
}

export function saveDialog(d: SavedDraft, onSaved: (name: string) => void, existing?: SavedEntry): void {
  dialog(existing ? `Edit ${existing.name}` : "Save as report", (close) => {
    const c = existing?.content ?? {};
    const name = h("input", { name: "name", required: true, value: existing?.name ?? d.name ?? "", "aria-label": "Title", disabled: !!existing });
    const desc = h("input", { name: "description", value: String(c.description ?? ""), "aria-label": "Description" });
    const search = h("textarea", { name: "search", rows: 3, "aria-label": "Search", value: String(c.search ?? d.search) });
    const earliest = h("input", { value: String(c["dispatch.earliest_time"] ?? d.earliest), "aria-label": "Earliest" });
    const latest = h("input", { value: String(c["dispatch.latest_time"] ?? d.latest), "aria-label": "Latest" });
    const kind = h("select", { "aria-label": "Type" }, h("option", { value: "report", text: "Report" }), h("option", { value: "alert", text: "Alert" }));
    kind.value = c.alert_type && c.alert_type !== "always" || String(c.is_scheduled) === "1" || c.is_scheduled === true ? "alert" : "report";
    const cron = h("input", { value: String(c.cron_schedule ?? "*/5 * * * *"), "aria-label": "Cron schedule" });
    const cond = h("select", { "aria-label": "Trigger condition" },
      ["always", "number of events", "number of results"].map((v) => h("option", { value: v, text: v })));
    cond.value = String(c.alert_type ?? "number of events") === "always" ? "always" : String(c.alert_type ?? "number of events");
    const comp = h("select", { "aria-label": "Comparator" }, ["greater than", "less than", "equal to", "not equal to"].map((v) => h("option", { value: v, text: v })));
    comp.value = String(c.alert_comparator ?? "greater than");
    const thr = h("input", { type: "number", value: String(c.alert_threshold ?? 0), "aria-label": "Threshold" });
    const alertBox = h("fieldset", { class: "alert-box" }, h("legend", { text: "Alert" }),
      h("label", {}, "Schedule (cron) ", cron), h("label", {}, "Trigger when ", cond), h("label", {}, "", comp, thr));
    const sync = () => (alertBox.hidden = kind.value !== "alert");
    kind.addEventListener("change", sync);
    sync();
    const msg = h("div", { class: "error-text", role: "alert" });
    return h("form", {
      class: "form", "data-testid": "save-form",
      onsubmit: async (e: Event) => {
        e.preventDefault();
        const alert = kind.value === "alert";
        const p: Record<string, string> = {
          search: search.value,
          description: desc.value,
          "dispatch.earliest_time": earliest.value,
          "dispatch.latest_time": latest.value,
          is_scheduled: alert ? "1" : "0",
          cron_schedule: alert ? cron.value : "",
          alert_type: alert ? cond.value : "always",
          alert_comparator: alert ? comp.value : "",
          alert_threshold: alert ? thr.value : "",
          "display.general.type": d.chart ? "visualizations" : "statistics",
          "display.visualizations.charting.chart": d.chart ?? String(c["display.visualizations.charting.chart"] ?? ""),
        };
        try {
          if (existing) await api.call("POST", `${base()}/${encodeURIComponent(existing.name)}`, p);
          else await api.call("POST", base(), { name: name.value.trim(), ...p });
          close();
          onSaved(existing?.name ?? name.value.trim());
        } catch (err) {
          msg.textContent = (err as Error).message;
        }
      },
    },
      h("label", {}, "Title ", name), h("label", {}, "Description ", desc), h("label", {}, "Search ", search),
      h("div", { class: "row" }, h("label", {}, "Earliest ", earliest), h("label", {}, "Latest ", latest)),
      h("label", {}, "Save as ", kind), alertBox, msg,
      h("div", { class: "buttons" }, h("button", { type: "button", text: "Cancel", onclick: close }), h("button", { class: "primary", type: "submit", "data-testid": "save-submit", text: "Save" })));
  });
}

export async function reportsPage(root: HTMLElement, navigate: (u: string) => void): Promise<void> {
  const list = h("tbody");
  root.appendChild(h("section", { class: "page" },
    h("h1", { text: "Reports and alerts" }),
    h("table", { class: "stats list", "data-testid": "reports" },
      h("thead", {}, h("tr", {}, ["Title", "Search", "Time range", "Type", "Actions"].map((t) => h("th", { text: t })))), list)));
  const fill = async () => {
    clear(list);
    const entries = await listSaved();
    if (!entries.length) list.appendChild(h("tr", {}, h("td", { colspan: 5, class: "muted", text: "No saved searches yet: run a search and choose “Save as report”." })));
    for (const e of entries) {
      const c = e.content;
      const open = () => {
        const p = new URLSearchParams({ q: String(c.search), earliest: String(c["dispatch.earliest_time"] ?? ""), latest: String(c["dispatch.latest_time"] ?? ""), s: e.name });
        const viz = String(c["display.visualizations.charting.chart"] ?? "");
        if (viz) {
          p.set("viz", viz);
          p.set("tab", "viz");
        }
        navigate("/search?" + p.toString());
      };
      list.appendChild(h("tr", { "data-name": e.name },
        h("td", {}, h("button", { class: "link", type: "button", "data-testid": "open-report", text: e.name, onclick: open })),
        h("td", {}, h("code", { text: String(c.search) })),
        h("td", { text: label({ earliest: String(c["dispatch.earliest_time"] ?? ""), latest: String(c["dispatch.latest_time"] ?? "") }) }),
        h("td", { text: String(c.is_scheduled) === "1" || c.is_scheduled === true ? `Alert (${c.cron_schedule})` : "Report" }),
        h("td", {},
          h("button", { type: "button", class: "mini", text: "Edit", onclick: () => saveDialog({ search: String(c.search), earliest: "", latest: "" }, () => fill(), e) }),
          h("button", { type: "button", class: "mini danger", text: "Delete", onclick: async () => { if (confirm(`Delete ${e.name}?`)) { await api.call("DELETE", `${base()}/${encodeURIComponent(e.name)}`); fill(); } } }))));
    }
  };
  await fill();
}
