// The job inspector: a job's status entry, its phases and counts as the server reports them.
import * as api from "./api";
import { h, fmtNumber } from "./dom";

const MAIN = ["dispatchState", "runDuration", "scanCount", "eventCount", "resultCount", "earliestTime", "latestTime", "ttl", "diskUsage"];

export async function inspectorPage(root: HTMLElement, sid: string): Promise<void> {
  const r = await api.call("GET", `/services/search/jobs/${encodeURIComponent(sid)}`);
  const entry = r.entry[0];
  const c = entry.content as Record<string, unknown>;
  const val = (v: unknown) => (typeof v === "number" ? fmtNumber(v) : typeof v === "object" ? JSON.stringify(v, null, 2) : String(v));
  const perf = (c.performance ?? {}) as Record<string, { duration_secs?: number; invocations?: number }>;
  root.appendChild(h("section", { class: "page inspector", "data-testid": "inspector" },
    h("h1", { text: "Job inspector" }),
    h("p", {}, h("code", { text: String(c.search ?? "") })),
    h("p", { class: "muted", text: `sid ${sid} · owner ${entry.author ?? ""}` }),
    h("h2", { text: "Summary" }),
    h("table", { class: "kv" }, MAIN.filter((k) => k in c).map((k) => h("tr", {}, h("th", { text: k }), h("td", { text: val(c[k]) })))),
    Object.keys(perf).length ? [h("h2", { text: "Phases" }), h("table", { class: "stats" },
      h("thead", {}, h("tr", {}, h("th", { text: "Phase" }), h("th", { text: "Duration (s)" }), h("th", { text: "Invocations" }))),
      h("tbody", {}, Object.entries(perf).map(([k, v]) => h("tr", {}, h("td", { text: k }), h("td", { class: "num", text: String(v.duration_secs ?? "") }), h("td", { class: "num", text: String(v.invocations ?? "") })))))] : null,
    typeof c.explain === "string" ? [h("h2", { text: "Execution path" }), h("pre", { class: "explain", text: c.explain })] : null,
    h("details", {}, h("summary", { text: "All job properties" }),
      h("table", { class: "kv" }, Object.keys(c).sort().map((k) => h("tr", {}, h("th", { text: k }), h("td", {}, h("pre", { text: val(c[k]) }))))))));
}
