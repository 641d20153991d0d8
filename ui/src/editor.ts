// The SPL editor: a textarea over a highlighted copy of its text (same font and wrapping), with
// autocomplete of command names, field names and index names, and a parse-error marker.
import { h, clear } from "./dom";

/// Commands Lode parses (crates/spl/src/parser) and a few Splunk users type.
export const COMMANDS = [
  "accum", "dedup", "delta", "eval", "eventstats", "fields", "fillnull", "head", "rare", "regex",
  "rename", "reverse", "rex", "search", "sort", "stats", "streamstats", "table", "tail",
  "timechart", "top", "where",
];
const KEYWORDS = new Set(["AND", "OR", "NOT", "by", "BY", "as", "AS", "over", "OVER"]);

export interface Token {
  kind: "command" | "pipe" | "string" | "keyword" | "field" | "op" | "number" | "func" | "text" | "space";
  text: string;
  start: number;
}

/// Splits SPL into highlight tokens; never fails (any character ends up in some token).
export function tokenize(q: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  let expectCommand = true;
  while (i < q.length) {
    const c = q[i];
    const start = i;
    if (/\s/.test(c)) {
      while (i < q.length && /\s/.test(q[i])) i++;
      out.push({ kind: "space", text: q.slice(start, i), start });
      continue;
    }
    if (c === "|") {
      out.push({ kind: "pipe", text: c, start });
      i++;
      expectCommand = true;
      continue;
    }
    if (c === "[" || c === "]") {
      out.push({ kind: "pipe", text: c, start });
      i++;
      expectCommand = c === "[";
      continue;
    }
    if (c === '"') {
      i++;
      while (i < q.length && q[i] !== '"') i += q[i] === "\\" ? 2 : 1;
      i = Math.min(q.length, i + 1);
      out.push({ kind: "string", text: q.slice(start, i), start });
      expectCommand = false;
      continue;
    }
    if ("=!<>,()+*/-".includes(c) && !(c === "-" && /\d/.test(q[i + 1] ?? "")) && !(c === "*" && /\w/.test(q[i + 1] ?? ""))) {
      while (i < q.length && "=!<>".includes(q[i]) && "=!<>".includes(c)) i++;
      if (i === start) i++;
      out.push({ kind: "op", text: q.slice(start, i), start });
      continue;
    }
    while (i < q.length && !/[\s|"=!<>,()[\]]/.test(q[i])) i++;
    if (i === start) i++;
    const word = q.slice(start, i);
    let kind: Token["kind"] = "text";
    if (expectCommand) kind = COMMANDS.includes(word.toLowerCase()) ? "command" : "text";
    else if (KEYWORDS.has(word)) kind = "keyword";
    else if (q[i] === "(") kind = "func";
    else if (/^-?\d+(\.\d+)?$/.test(word)) kind = "number";
    else if (/^\s*!?[=<>]/.test(q.slice(i))) kind = "field";
    out.push({ kind, text: word, start });
    expectCommand = false;
  }
  return out;
}

/// Converts a UTF-8 byte offset of `s` (as the server reports spans) to a string index.
export function byteToIndex(s: string, byte: number): number {
  const enc = new TextEncoder();
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    if (bytes >= byte) return i;
    const cp = s.codePointAt(i)!;
    bytes += enc.encode(String.fromCodePoint(cp)).length;
    if (cp > 0xffff) i++;
  }
  return s.length;
}

export interface Editor {
  el: HTMLElement;
  textarea: HTMLTextAreaElement;
  value(): string;
  set(v: string): void;
  /// Marks chars [start, end) as the error and shows `message` with a caret.
  setError(e: { message: string; start: number; end: number } | null): void;
  /// Names offered after `field` positions.
  setFields(f: string[]): void;
  setIndexes(i: string[]): void;
}

export function editor(opts: { onRun: () => void; placeholder?: string }): Editor {
  const ta = h("textarea", {
    class: "spl-input", spellcheck: "false", autocomplete: "off", rows: 1,
    "data-testid": "spl-editor", "aria-label": "Search", placeholder: opts.placeholder ?? "Search with SPL, e.g. error | stats count by host",
  });
  const pre = h("pre", { class: "spl-highlight", "aria-hidden": "true" });
  const menu = h("ul", { class: "ac-menu", role: "listbox", hidden: true, "data-testid": "autocomplete" });
  const err = h("div", { class: "spl-error", hidden: true, "data-testid": "parse-error" });
  const el = h("div", { class: "spl-editor" }, h("div", { class: "spl-box" }, pre, ta, menu), err);
  let fields: string[] = [];
  let indexes: string[] = [];
  let error: { start: number; end: number } | null = null;
  let items: string[] = [];
  let active = 0;
  let word = { start: 0, end: 0 };

  const render = () => {
    clear(pre);
    const q = ta.value;
    for (const t of tokenize(q)) {
      const end = t.start + t.text.length;
      if (error && t.start < Math.max(error.end, error.start + 1) && end > error.start) {
        pre.appendChild(h("span", { class: `tok-${t.kind} tok-error`, text: t.text }));
      } else {
        pre.appendChild(t.kind === "space" ? document.createTextNode(t.text) : h("span", { class: `tok-${t.kind}`, text: t.text }));
      }
    }
    if (error && error.start >= q.length) pre.appendChild(h("span", { class: "tok-error", text: " " }));
    pre.appendChild(document.createTextNode("\n"));
    ta.style.height = "auto";
    ta.style.height = Math.max(ta.scrollHeight, 38) + "px";
  };

  const closeMenu = () => {
    menu.hidden = true;
    items = [];
  };
  const accept = (s: string) => {
    const q = ta.value;
    ta.value = q.slice(0, word.start) + s + q.slice(word.end);
    const pos = word.start + s.length;
    ta.setSelectionRange(pos, pos);
    closeMenu();
    render();
  };
  const suggest = () => {
    const pos = ta.selectionStart;
    const q = ta.value;
    let s = pos;
    while (s > 0 && /[\w.:*-]/.test(q[s - 1])) s--;
    const prefix = q.slice(s, pos);
    word = { start: s, end: pos };
    const before = q.slice(0, s).trimEnd();
    let pool: string[];
    if (/(^|\|)\s*$/.test(before) || before === "") pool = before === "" ? [] : COMMANDS;
    else if (/\bindex\s*=\s*$/.test(q.slice(0, s))) pool = indexes;
    else pool = fields;
    if (!prefix && pool !== COMMANDS && pool !== indexes) return closeMenu();
    items = pool.filter((c) => c.toLowerCase().startsWith(prefix.toLowerCase()) && c !== prefix).slice(0, 12);
    if (!items.length) return closeMenu();
    active = 0;
    clear(menu);
    items.forEach((it, i) => {
      menu.appendChild(h("li", {
        role: "option", class: i === active ? "active" : "", text: it,
        onmousedown: (e: Event) => { e.preventDefault(); accept(it); },
      }));
    });
    menu.hidden = false;
  };
  const highlightActive = () => {
    [...menu.children].forEach((li, i) => li.classList.toggle("active", i === active));
  };

  ta.addEventListener("input", () => {
    error = null;
    err.hidden = true;
    render();
    suggest();
  });
  ta.addEventListener("scroll", () => (pre.scrollTop = ta.scrollTop));
  // Closed a moment after the editor loses focus (so that a click on an item lands first), unless
  // it has the focus again by then.
  ta.addEventListener("blur", () => setTimeout(() => document.activeElement !== ta && closeMenu(), 150));
  ta.addEventListener("keydown", (e) => {
    if (!menu.hidden && items.length) {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        active = (active + (e.key === "ArrowDown" ? 1 : items.length - 1)) % items.length;
        return highlightActive();
      }
      if (e.key === "Tab" || (e.key === "Enter" && !e.ctrlKey && !e.metaKey)) {
        e.preventDefault();
        return accept(items[active]);
      }
      if (e.key === "Escape") return closeMenu();
    }
    if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault();
      closeMenu();
      opts.onRun();
    }
  });
  render();
  return {
    el,
    textarea: ta,
    value: () => ta.value,
    set(v: string) {
      ta.value = v;
      error = null;
      err.hidden = true;
      render();
    },
    setError(e) {
      if (!e) {
        error = null;
        err.hidden = true;
        render();
        return;
      }
      const q = ta.value;
      error = { start: e.start, end: e.end };
      clear(err);
      const lineStart = q.lastIndexOf("\n", e.start - 1) + 1;
      const lineEnd = q.indexOf("\n", e.start) < 0 ? q.length : q.indexOf("\n", e.start);
      const width = Math.max(1, Math.min(e.end, lineEnd) - e.start);
      err.appendChild(h("div", { class: "err-msg", text: e.message }));
      err.appendChild(h("pre", { class: "err-caret", text: q.slice(lineStart, lineEnd) + "\n" + " ".repeat(e.start - lineStart) + "^".repeat(width) }));
      err.hidden = false;
      render();
    },
    setFields(f) {
      fields = [...new Set([...f, "index", "host", "source", "sourcetype"])].sort();
    },
    setIndexes(i) {
      indexes = i;
    },
  };
}
