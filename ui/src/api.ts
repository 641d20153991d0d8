// Lode's public REST API (Splunk's): login for a session key, then `Authorization: Splunk <key>`.

export class ApiError extends Error {
  status: number;
  body: unknown;
  constructor(status: number, message: string, body?: unknown) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

type Listener = (kind: "expired" | "offline" | "online") => void;
const listeners: Listener[] = [];
export function onConnection(l: Listener): void {
  listeners.push(l);
}
function emit(kind: "expired" | "offline" | "online") {
  for (const l of listeners) l(kind);
}

export const session = {
  get key(): string | null {
    return sessionStorage.getItem("lode.key");
  },
  get user(): string | null {
    return sessionStorage.getItem("lode.user");
  },
  set(key: string, user: string) {
    sessionStorage.setItem("lode.key", key);
    sessionStorage.setItem("lode.user", user);
    localStorage.setItem("lode.lastUser", user);
  },
  /// The user name last logged in with, to prefill the login form.
  get lastUser(): string {
    return localStorage.getItem("lode.lastUser") ?? "";
  },
  clear() {
    sessionStorage.removeItem("lode.key");
    sessionStorage.removeItem("lode.user");
  },
};

/// The message of an error answer: Splunk's XML `<msg>`, a JSON `messages[0].text`, or the text.
function messageOf(text: string, status: number): string {
  try {
    const j = JSON.parse(text);
    if (j?.messages?.[0]?.text) return j.messages[0].text;
    if (typeof j?.text === "string") return j.text;
  } catch {
    /* not JSON */
  }
  const m = /<msg[^>]*>([\s\S]*?)<\/msg>/.exec(text);
  if (m) return m[1].replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&amp;/g, "&");
  return text.trim() || `HTTP ${status}`;
}

async function send(url: string, init: RequestInit): Promise<Response> {
  let resp: Response;
  try {
    resp = await fetch(url, init);
  } catch (e) {
    emit("offline");
    throw new ApiError(0, "Cannot reach the Lode server: the connection dropped. Check that `lode serve` is running.");
  }
  emit("online");
  return resp;
}

export async function login(username: string, password: string): Promise<void> {
  const body = new URLSearchParams({ username, password, output_mode: "json" });
  const resp = await send("/services/auth/login", { method: "POST", body });
  const text = await resp.text();
  if (!resp.ok) throw new ApiError(resp.status, resp.status === 401 ? "Wrong user name or password." : messageOf(text, resp.status));
  session.set(JSON.parse(text).sessionKey, username);
}

export function logout(): void {
  session.clear();
}

/// Calls the API; `params` go in the query string (GET, DELETE) or as a form body (POST).
export async function call<T = any>(
  method: "GET" | "POST" | "DELETE",
  path: string,
  params: Record<string, string | number | undefined> = {},
  opts: { json?: string; raw?: boolean } = {},
): Promise<T> {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) p.append(k, String(v));
  if (!("output_mode" in params)) p.set("output_mode", "json");
  const headers: Record<string, string> = {};
  if (session.key) headers.Authorization = `Splunk ${session.key}`;
  let url = path;
  let body: BodyInit | undefined;
  if (opts.json !== undefined) {
    url += "?" + p.toString();
    body = opts.json;
    headers["Content-Type"] = "application/json";
  } else if (method === "POST") {
    body = p;
  } else {
    url += "?" + p.toString();
  }
  const resp = await send(url, { method, headers, body });
  const text = await resp.text();
  if (resp.status === 401) {
    session.clear();
    emit("expired");
    throw new ApiError(401, "Your session has expired. Log in again.");
  }
  if (!resp.ok) {
    let parsed: unknown = undefined;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* XML or text */
    }
    throw new ApiError(resp.status, messageOf(text, resp.status), parsed);
  }
  if (opts.raw) return text as T;
  if (!text) return {} as T;
  return JSON.parse(text) as T;
}

/// Job status content (Splunk's keys).
export interface JobStatus {
  sid: string;
  dispatchState: string;
  isDone: boolean;
  isFailed: boolean;
  eventCount: number;
  resultCount: number;
  scanCount: number;
  runDuration: number;
  eventIsStreaming: boolean;
  [k: string]: unknown;
}

export interface Results {
  fields: { name: string }[];
  results: Record<string, string | string[]>[];
  messages?: { type: string; text: string }[];
}

export async function createJob(search: string, earliest: string, latest: string): Promise<string> {
  const r = await call<{ sid: string }>("POST", "/services/search/jobs", {
    search,
    earliest_time: earliest,
    latest_time: latest,
    exec_mode: "normal",
  });
  return r.sid;
}

export async function jobStatus(sid: string): Promise<JobStatus> {
  const r = await call("GET", `/services/search/jobs/${encodeURIComponent(sid)}`);
  return r.entry[0].content as JobStatus;
}

export async function cancelJob(sid: string): Promise<void> {
  await call("POST", `/services/search/jobs/${encodeURIComponent(sid)}/control`, { action: "cancel" });
}

export async function jobPart<T = Results>(sid: string, part: string, params: Record<string, string | number> = {}): Promise<T> {
  return call<T>("GET", `/services/search/jobs/${encodeURIComponent(sid)}/${part}`, params);
}

export async function oneshot(search: string, earliest: string, latest: string): Promise<Results> {
  return call<Results>("POST", "/services/search/jobs", {
    search,
    earliest_time: earliest,
    latest_time: latest,
    exec_mode: "oneshot",
    count: 0,
  });
}

/// A parse error with its byte span in the search text, from `search/parser`.
export interface ParseProblem {
  message: string;
  start: number;
  end: number;
}

export async function checkSyntax(q: string): Promise<ParseProblem | null> {
  try {
    await call("GET", "/services/search/parser", { q });
    return null;
  } catch (e) {
    if (e instanceof ApiError && e.status === 400) {
      const b = e.body as { span?: { start: number; end: number } } | undefined;
      return { message: e.message, start: b?.span?.start ?? 0, end: b?.span?.end ?? q.length };
    }
    throw e;
  }
}

export async function indexNames(): Promise<string[]> {
  try {
    const r = await call("GET", "/services/data/indexes", { count: 0 });
    return (r.entry ?? []).map((e: { name: string }) => e.name);
  } catch {
    return [];
  }
}
