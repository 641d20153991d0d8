// The job inspector: a job's phases and their durations (Splunk's `performance` keys), buckets
// and events scanned, the execution path (`lode search --explain`) and the remote/local split
// (`remoteSearch` runs next to the data, `reportSearch` once on the merged partial states).
import * as api from "./api";
import { h, fmtNumber } from "./dom";

const MAIN = ["dispatchState", "runDuration", "scanCount", "eventCount", "resultCount", "earliestTime", "latestTime", "ttl", "diskUsage"];
const PHASES: Record<string, string> = {
  "dispatch.evaluate": "Parse, expand macros, run subsearches",
  "dispatch.plan": "Plan: indexes, time range, term query, split",
  "dispatch.fetch": "Read buckets and run the pipeline (merge included)",
  "command.search": "Search buckets (fetch without writing results)",
  "command.search.index": "Buckets of the selected indexes",
  "dispatch.writeResults": "Write result rows",
};
const BUCKETS: [string, string][] = [
  ["total", "Buckets in the selected indexes"], ["pruned_time", "Skipped by time range"], ["skipped_bloom", "Skipped by bloom filter"],
  ["read", "Read"], ["corrupt", "Skipped as corrupt"], ["events_candidate", "Candidate events (term index)"],
  ["events_scanned", "Events scanned"], ["events_matched", "Events matched"],
];

/// Phases in the order they run (JSON objects come back sorted by key); unknown keys last.
const rank = (k: string) => (k in PHASES ? Object.keys(PHASES).indexOf(k) : 99);

type Perf = Record<string, { duration_secs?: number; invocations?: number }>;

export async function inspectorPage(root: HTMLElement, sid: string): Promise<void> {
  const r = await api.call("GET", `/services/search/jobs/${encodeURIComponent(sid)}`);
  const entry = r.entry[0];
  const c = entry.content as Record<string, unknown>;
  const val = (v: unknown) => (typeof v === "number" ? fmtNumber(v) : typeof v === "object" ? JSON.stringify(v, null, 2) : String(v));
  const perf = (c.performance ?? {}) as Perf;
  const buckets = (c.buckets ?? null) as Record<string, number> | null;
  const total = Math.max(1e-9, ...Object.values(perf).map((p) => p.duration_secs ?? 0));
  const phases = Object.keys(perf).length
    ? [h("h2", { text: "Phases" }), h("table", { class: "stats phases", "data-testid": "inspector-phases" },
      h("thead", {}, h("tr", {}, ["Phase", "", "Duration (s)", "Invocations", ""].map((t) => h("th", { text: t })))),
      h("tbody", {}, Object.entries(perf).sort(([a], [b]) => rank(a) - rank(b)).map(([k, v]) => h("tr", { "data-phase": k },
        h("td", {}, h("code", { text: k })), h("td", { class: "muted", text: PHASES[k] ?? "" }),
        h("td", { class: "num", text: (v.duration_secs ?? 0).toFixed(6) }), h("td", { class: "num", text: fmtNumber(v.invocations ?? 0) }),
        h("td", { class: "bar-cell" }, h("span", { class: "phase-bar", style: `width:${Math.round(((v.duration_secs ?? 0) / total) * 100)}%` }))))))]
    : [h("p", { class: "muted", text: c.isDone ? "No phase timings for this job." : "Phases appear when the job is done." })];
  root.appendChild(h("section", { class: "page inspector", "data-testid": "inspector" },
    h("h1", { text: "Job inspector" }),
    h("p", {}, h("code", { text: String(c.search ?? "") })),
    h("p", { class: "muted", text: `sid ${sid} · owner ${entry.author ?? ""}` }),
    h("h2", { text: "Summary" }),
    h("table", { class: "kv" }, MAIN.filter((k) => k in c).map((k) => h("tr", {}, h("th", { text: k }), h("td", { text: val(c[k]) })))),
    phases,
    buckets ? [h("h2", { text: "Buckets and events" }), h("table", { class: "kv", "data-testid": "inspector-buckets" },
      BUCKETS.filter(([k]) => k in buckets).map(([k, label]) => h("tr", {}, h("th", { text: label }), h("td", { class: "num", "data-key": k, text: fmtNumber(buckets[k]) }))))] : null,
    h("h2", { text: "Remote and local split" }),
    h("table", { class: "kv split", "data-testid": "inspector-split" },
      h("tr", {}, h("th", { text: "Next to the data (remoteSearch)" }), h("td", {}, h("code", { "data-testid": "remote-search", text: String(c.remoteSearch ?? "") }))),
      h("tr", {}, h("th", { text: "After the merge (reportSearch)" }), h("td", {}, c.reportSearch ? h("code", { "data-testid": "report-search", text: String(c.reportSearch) }) : h("span", { class: "muted", text: "none: the search is not split (event search or order-dependent commands)" })))),
    typeof c.explain === "string" && c.explain ? [h("h2", { text: "Execution path" }), h("pre", { class: "explain", "data-testid": "inspector-explain", text: c.explain })] : null,
    h("details", {}, h("summary", { text: "All job properties" }),
      h("table", { class: "kv" }, Object.keys(c).sort().map((k) => h("tr", {}, h("th", { text: k }), h("td", {}, h("pre", { text: val(c[k]) }))))))));
}
