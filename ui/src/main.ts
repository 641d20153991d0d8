// Lode Web: login, navigation and the screens; talks only to the public REST API.
import "./style.css";
import * as api from "./api";
import { h, clear } from "./dom";
import { searchPage } from "./search";
import { reportsPage } from "./reports";
import { dashboardsPage, dashboardPage } from "./dashboards";
import { inspectorPage } from "./inspector";

const app = document.getElementById("app")!;
const banner = h("div", { class: "banner", role: "alert", hidden: true, "data-testid": "banner" });
let leave: (() => void) | null = null;
let roles: string[] = [];

function theme(next?: "dark" | "light") {
  const t = next ?? (localStorage.getItem("lode.theme") as "dark" | "light" | null) ??
    (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");
  document.documentElement.dataset.theme = t;
  localStorage.setItem("lode.theme", t);
}

function showBanner(text: string | null) {
  banner.hidden = !text;
  banner.textContent = text ?? "";
}

api.onConnection((kind) => {
  if (kind === "offline") showBanner("Lost the connection to the Lode server. Check that `lode serve` is running; the next action retries.");
  if (kind === "online" && banner.dataset.kind !== "expired") showBanner(null);
  if (kind === "expired") {
    banner.dataset.kind = "expired";
    loginScreen("Your session has expired. Log in again.");
  }
});

export function navigate(url: string, replace = false) {
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  route();
}

function navLink(path: string, text: string) {
  const active = location.pathname === path || (path !== "/search" && location.pathname.startsWith(path));
  return h("a", { href: path, class: active ? "active" : "", "data-testid": `nav-${text.toLowerCase()}`, onclick: (e: MouseEvent) => { if (!e.ctrlKey && !e.metaKey) { e.preventDefault(); navigate(path); } }, text });
}

function shell(): HTMLElement {
  const main = h("main", { class: "main" });
  const dark = document.documentElement.dataset.theme === "dark";
  app.append(
    h("header", { class: "top" },
      h("a", { class: "brand", href: "/search", onclick: (e: Event) => { e.preventDefault(); navigate("/search"); } }, h("img", { src: "/favicon.svg", alt: "" }), "Lode"),
      h("nav", {}, navLink("/search", "Search"), navLink("/reports", "Reports"), navLink("/dashboards", "Dashboards")),
      h("div", { class: "spacer" }),
      h("button", { type: "button", class: "icon", title: "Switch theme", "data-testid": "theme", text: dark ? "☀" : "☾", onclick: () => { theme(dark ? "light" : "dark"); route(); } }),
      h("span", { class: "who", "data-testid": "who", title: roles.length ? `roles: ${roles.join(", ")}` : "" }, api.session.user ?? "", roles.length ? h("small", { text: ` (${roles.join(", ")})` }) : null),
      h("button", { type: "button", "data-testid": "logout", text: "Log out", onclick: () => { api.logout(); loginScreen(); } })),
    banner, main);
  return main;
}

async function route() {
  leave?.();
  leave = null;
  clear(app);
  if (!api.session.key) return loginScreen();
  const main = shell();
  const path = location.pathname;
  const params = new URLSearchParams(location.search);
  try {
    if (path === "/" || path === "/search") {
      leave = searchPage(main, params, navigate);
    } else if (path === "/reports") {
      await reportsPage(main, navigate);
    } else if (path === "/dashboards") {
      await dashboardsPage(main, navigate);
    } else if (path.startsWith("/dashboards/")) {
      await dashboardPage(main, decodeURIComponent(path.slice("/dashboards/".length)), params, navigate);
    } else if (path.startsWith("/job/")) {
      await inspectorPage(main, decodeURIComponent(path.slice("/job/".length)));
    } else {
      main.appendChild(h("section", { class: "page" }, h("h1", { text: "Not found" }), h("p", {}, h("a", { href: "/search", text: "Go to search" }))));
    }
  } catch (e) {
    if (e instanceof api.ApiError && e.status === 401) return;
    main.appendChild(h("div", { class: "error-box", role: "alert", text: (e as Error).message }));
  }
}

function loginScreen(message?: string) {
  leave?.();
  leave = null;
  clear(app);
  const user = h("input", { name: "username", autocomplete: "username", required: true, "aria-label": "User name", value: api.session.lastUser });
  const pass = h("input", { name: "password", type: "password", autocomplete: "current-password", required: true, "aria-label": "Password" });
  const msg = h("div", { class: "error-text", role: "alert", "data-testid": "login-message", text: message ?? "" });
  const btn = h("button", { class: "primary", type: "submit", text: "Log in" });
  app.appendChild(h("div", { class: "login" },
    h("form", {
      class: "login-box", onsubmit: async (e: Event) => {
        e.preventDefault();
        btn.disabled = true;
        msg.textContent = "";
        try {
          await api.login(user.value.trim(), pass.value);
          delete banner.dataset.kind;
          showBanner(null);
          await loadWho();
          if (location.pathname === "/login") history.replaceState(null, "", "/search");
          route();
        } catch (err) {
          msg.textContent = (err as Error).message;
        } finally {
          btn.disabled = false;
        }
      },
    },
      h("h1", {}, h("img", { src: "/favicon.svg", alt: "" }), " Lode"),
      h("label", {}, "User name", user), h("label", {}, "Password", pass), msg, btn)));
  (user.value ? pass : user).focus();
}

async function loadWho() {
  try {
    const r = await api.call("GET", `/services/authentication/users/${encodeURIComponent(api.session.user ?? "")}`);
    roles = r.entry?.[0]?.content?.roles ?? [];
  } catch {
    roles = [];
  }
}

theme();
window.addEventListener("popstate", () => route());
if (api.session.key) loadWho().then(route);
else route();
