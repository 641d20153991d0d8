// End-to-end test of the web app in a real browser: Debian's Chromium driven by playwright-core.
// Generates and indexes a small corpus with the `lode` CLI, starts `lode serve` with the web app,
// then logs in, searches, compares counts with the CLI, zooms the timeline, filters from the
// fields sidebar, saves and reopens a report, builds a dashboard with inline and saved-search
// panels, checks the job inspector (phases, buckets, explain, split), prints the rendering time
// of a 10,000-event page and a 500 × 10 timechart, an expired session and a dropped connection,
// and fails on any console error.
//
// Env: LODE_BIN (the lode binary, required), CHROMIUM (default /usr/bin/chromium),
// UPDATE_SCREENSHOTS=1 to write the screenshots into docs/ui/ (else a temp dir).
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, mkdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import net from "node:net";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const LODE = process.env.LODE_BIN;
if (!LODE) {
  console.error("e2e: set LODE_BIN to the lode binary");
  process.exit(2);
}
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const work = mkdtempSync(join(tmpdir(), "lode-e2e-"));
const home = join(work, "home");
const shots = process.env.UPDATE_SCREENSHOTS === "1" ? resolve(here, "../../docs/ui") : process.env.SHOTS_DIR ?? join(work, "shots");
mkdirSync(shots, { recursive: true });
const PASSWORD = "e2e-password-1";
const env = { ...process.env, LODE_HOME: home, LODE_ADMIN_PASSWORD: PASSWORD };
const t0 = Date.now();
const log = (m) => console.log(`e2e [${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`);

const lode = (...args) => execFileSync(LODE, args, { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
/// Rows of a CLI search as objects.
const cli = (q, ...extra) =>
  lode("search", q, "-o", "json", ...extra).split("\n").filter(Boolean).map((l) => JSON.parse(l));
const cliCount = (q, ...extra) => Number(cli(`${q} | stats count`, ...extra)[0].count);

function freePort() {
  return new Promise((res, rej) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const p = s.address().port;
      s.close(() => res(p));
    });
    s.on("error", rej);
  });
}

let server;
let context;
let failed = false;
try {
  // Data and the CLI's answers.
  lode("gen", "--out", join(work, "corpus"), "--size", "1MB", "--seed", "7");
  lode("add", "oneshot", join(work, "corpus"));
  const manifest = JSON.parse(readFileSync(join(work, "corpus", "manifest.json"), "utf8"));
  const Q_EVENTS = "index=main error";
  const eventsCount = cliCount(Q_EVENTS);
  const bySourcetype = cli("index=main | stats count by sourcetype");
  const total = cliCount("index=main");
  assert.ok(eventsCount > 0 && bySourcetype.length > 1, "the corpus has errors and several sourcetypes");
  log(`corpus indexed: ${total} events, ${eventsCount} match '${Q_EVENTS}'`);

  // The server.
  const webPort = await freePort();
  server = spawn(LODE, ["serve", "--listen", "127.0.0.1:0", "--hec-listen", "127.0.0.1:0", "--web-listen", `127.0.0.1:${webPort}`], { env, stdio: ["ignore", "ignore", "pipe"] });
  let serverLog = "";
  await new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`lode serve did not start:\n${serverLog}`)), 30000);
    server.stderr.on("data", (d) => {
      serverLog += d;
      if (serverLog.includes("web app at")) {
        clearTimeout(timer);
        res();
      }
    });
    server.on("exit", (c) => rej(new Error(`lode serve exited (${c}):\n${serverLog}`)));
  });
  const base = `http://127.0.0.1:${webPort}`;
  log(`web app at ${base}`);

  // The browser.
  context = await chromium.launchPersistentContext(join(work, "profile"), {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    viewport: { width: 1400, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(20000);
  const errors = [];
  let allowed = []; // console errors a step expects (e.g. the 400 of a syntax check)
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    const t = m.text();
    if (allowed.some((a) => t.includes(a))) return;
    errors.push(t);
  });
  page.on("pageerror", (e) => errors.push(String(e)));

  const waitDone = async () => {
    await page.waitForSelector('[data-testid=job-status][data-state=done]');
  };
  const runSearch = async (q) => {
    await page.fill("[data-testid=spl-editor]", q);
    await page.evaluate(() => document.querySelector("[data-testid=job-status]").removeAttribute("data-state"));
    await page.press("[data-testid=spl-editor]", "Control+Enter");
    await waitDone();
  };
  const tabCount = async (tab) => Number((await page.textContent(`[data-testid=tab-${tab}]`)).replace(/[^\d]/g, ""));

  // Log in.
  await page.goto(base + "/search");
  await page.fill("input[name=username]", "admin");
  await page.fill("input[name=password]", "wrong");
  await page.click("button[type=submit]");
  await page.waitForSelector("[data-testid=login-message]:has-text('Wrong')");
  allowed = [];
  errors.length = 0; // the refused login's 401 is expected
  await page.fill("input[name=password]", PASSWORD);
  await page.screenshot({ path: join(shots, "login.png") });
  await page.click("button[type=submit]");
  await page.waitForSelector("[data-testid=spl-editor]");
  assert.match(await page.textContent("[data-testid=who]"), /admin/);
  log("logged in");

  // Events: count matches the CLI, terms highlighted, autocomplete offers commands.
  await runSearch(Q_EVENTS);
  assert.equal(await tabCount("events"), eventsCount, "events count equals the CLI's");
  await page.waitForSelector("[data-testid=event-list] li.event mark");
  await page.waitForSelector("[data-testid=timeline] rect.bar");
  await page.waitForSelector("[data-testid=fields-sidebar] [data-testid=field-sourcetype]");
  assert.ok(new URL(page.url()).searchParams.get("q") === Q_EVENTS, "the URL holds the query");
  await page.screenshot({ path: join(shots, "search-events.png") });
  await page.click("li.event button.expand");
  await page.waitForSelector(".event-fields table.kv");
  log("events view matches the CLI");

  // Autocomplete of command names.
  await page.fill("[data-testid=spl-editor]", "index=main | sta");
  await page.type("[data-testid=spl-editor]", "t");
  await page.waitForSelector("[data-testid=autocomplete]:not([hidden]) li:has-text('stats')");
  await page.fill("[data-testid=spl-editor]", Q_EVENTS);

  // Timeline: drag across the first half to zoom in.
  const box = await (await page.$("[data-testid=timeline] svg")).boundingBox();
  await page.evaluate(() => document.querySelector("[data-testid=job-status]").removeAttribute("data-state"));
  await page.mouse.move(box.x + 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  await waitDone();
  const zoomed = new URL(page.url()).searchParams;
  assert.match(zoomed.get("earliest"), /^\d+$/, "zoom sets an absolute range");
  const zoomedCount = await tabCount("events");
  assert.ok(zoomedCount < eventsCount, `zoomed count ${zoomedCount} < ${eventsCount}`);
  assert.equal(zoomedCount, cliCount(Q_EVENTS, "--earliest", zoomed.get("earliest"), "--latest", zoomed.get("latest")), "zoomed count equals the CLI's over the same range");
  log(`timeline zoom: ${zoomedCount} events`);

  // Fields sidebar: filter on a sourcetype value.
  await page.goto(base + "/search?q=index%3Dmain&earliest=&latest=");
  await waitDone();
  assert.equal(await tabCount("events"), total);
  await page.click("[data-testid=field-sourcetype]");
  const value = (await page.textContent(".field-pop [data-testid=field-value]")).trim();
  await page.evaluate(() => document.querySelector("[data-testid=job-status]").removeAttribute("data-state"));
  await page.click(".field-pop [data-testid=field-value]");
  await waitDone();
  assert.match(await page.inputValue("[data-testid=spl-editor]"), new RegExp(`sourcetype=${value}`));
  const want = Number(bySourcetype.find((r) => r.sourcetype === value).count);
  assert.equal(await tabCount("events"), want, `sourcetype=${value} count`);
  log(`sidebar filter sourcetype=${value}: ${want} events`);

  // Statistics: rows equal the CLI's; sortable; the visualisation.
  const Q_STATS = "index=main | stats count by sourcetype";
  await runSearch(Q_STATS);
  await page.waitForSelector("[data-testid=stats-table] tbody tr");
  const rows = await page.$$eval("[data-testid=stats-table] tbody tr", (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  assert.deepEqual(rows.map((r) => r.join("=")).sort(), bySourcetype.map((r) => `${r.sourcetype}=${r.count}`).sort());
  await page.click("[data-testid=stats-table] th[data-field=count]");
  await page.click("[data-testid=stats-table] th[data-field=count]");
  const counts = await page.$$eval("[data-testid=stats-table] tbody tr td:last-child", (tds) => tds.map((t) => Number(t.textContent)));
  assert.deepEqual(counts, [...counts].sort((a, b) => b - a), "sorted descending");
  await page.screenshot({ path: join(shots, "statistics.png") });
  await page.click("[data-testid=tab-viz]");
  await page.waitForSelector("[data-testid=chart] rect");
  log("statistics match the CLI");

  // A timechart over the corpus's own days (all time would run to now).
  const day0 = Math.floor(manifest.first_time_us / 86400e6) * 86400;
  const day1 = Math.ceil(manifest.last_time_us / 86400e6) * 86400;
  await page.goto(`${base}/search?q=${encodeURIComponent("index=main | timechart span=1h count by sourcetype")}&earliest=${day0}&latest=${day1}`);
  await waitDone();
  await page.click("[data-testid=tab-viz]");
  await page.waitForSelector("[data-testid=chart][data-chart=line] polyline");
  await page.screenshot({ path: join(shots, "timechart.png") });

  // A syntax error is placed under the editor.
  allowed = ["status of 400"];
  await page.fill("[data-testid=spl-editor]", "index=main | stats cont by host");
  await page.press("[data-testid=spl-editor]", "Enter");
  await page.waitForSelector("[data-testid=parse-error]:not([hidden])");
  const caret = await page.textContent("[data-testid=parse-error] .err-caret");
  assert.ok(caret.split("\n")[1].indexOf("^") === "index=main | stats ".length, `caret under 'cont': ${caret}`);
  await page.screenshot({ path: join(shots, "parse-error.png") });
  allowed = [];
  log("parse error placed");

  // Save a report and reopen it.
  await runSearch(Q_STATS);
  await page.click("[data-testid=save-as]");
  await page.fill("[data-testid=save-form] input[name=name]", "Events by sourcetype");
  await page.click("[data-testid=save-submit]");
  await page.waitForSelector("[data-testid=save-form]", { state: "detached" });
  await page.click("[data-testid=nav-reports]");
  await page.waitForSelector("[data-testid=reports] tr[data-name='Events by sourcetype']");
  await page.screenshot({ path: join(shots, "reports.png") });
  await page.click("tr[data-name='Events by sourcetype'] [data-testid=open-report]");
  await waitDone();
  assert.equal(await page.inputValue("[data-testid=spl-editor]"), Q_STATS);
  await page.waitForSelector("[data-testid=stats-table] tbody tr");
  log("report saved and reopened");

  // Job inspector: phases with durations, buckets, the execution path and the split.
  await page.click("[data-testid=inspect]");
  await page.waitForSelector("[data-testid=inspector] table.kv");
  assert.match(await page.textContent("[data-testid=inspector]"), /scanCount/);
  const phases = await page.$$eval("[data-testid=inspector-phases] tr[data-phase]", (trs) => trs.map((tr) => tr.dataset.phase));
  for (const p of ["dispatch.evaluate", "dispatch.plan", "dispatch.fetch", "command.search", "dispatch.writeResults"]) assert.ok(phases.includes(p), `phase ${p} in ${phases}`);
  assert.ok(Number(await page.textContent("[data-testid=inspector-buckets] [data-key=read]")) > 0, "buckets read");
  assert.equal(await page.textContent("[data-testid=remote-search]"), "search index=main | stats count by sourcetype");
  assert.equal(await page.textContent("[data-testid=report-search]"), "stats count by sourcetype");
  assert.match(await page.textContent("[data-testid=inspector-explain]"), /term query:/);
  await page.screenshot({ path: join(shots, "inspector.png"), fullPage: true });
  log(`inspector shows ${phases.length} phases, buckets, explain and the split`);

  // A dashboard with two panels and a dropdown input.
  await page.click("[data-testid=nav-dashboards]");
  await page.fill("[data-testid=new-dashboard-title]", "Overview");
  await page.click("[data-testid=create-dashboard]");
  await page.waitForSelector("[data-testid=add-panel-form]");
  await page.fill("[data-testid=panel-title]", "Events by sourcetype");
  await page.fill("[data-testid=panel-search]", "index=main | stats count by sourcetype");
  await page.selectOption("[data-testid=panel-viz]", "column");
  await page.click("[data-testid=add-panel]");
  await page.waitForSelector("[data-testid=panel] [data-testid=chart] rect");
  await page.fill("[data-testid=panel-title]", "Total events");
  await page.fill("[data-testid=panel-search]", "index=main | stats count");
  await page.selectOption("[data-testid=panel-viz]", "single");
  await page.click("[data-testid=add-panel]");
  await page.waitForSelector("[data-testid=single-value]");
  // A panel that runs the saved report by name (its search and time range).
  await page.fill("[data-testid=panel-title]", "Saved: events by sourcetype");
  await page.waitForSelector("[data-testid=panel-saved] option[value='Events by sourcetype']", { state: "attached" });
  await page.selectOption("[data-testid=panel-saved]", "Events by sourcetype");
  await page.selectOption("[data-testid=panel-viz]", "table");
  await page.click("[data-testid=add-panel]");
  await page.waitForSelector("[data-testid=panel][data-saved='Events by sourcetype'] [data-testid=stats-table] tbody tr");
  await page.click("[data-testid=edit-dashboard]");
  await page.reload();
  await page.waitForSelector("[data-testid=single-value]");
  assert.equal((await page.$$("[data-testid=panel]")).length, 3);
  assert.equal(Number((await page.textContent("[data-testid=single-value]")).replace(/,/g, "")), total);
  const savedRows = await page.$$eval("[data-testid=panel][data-saved='Events by sourcetype'] [data-testid=stats-table] tbody tr", (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent).join("=")));
  // The report was saved with the timechart's range (day0..day1): the panel runs with it.
  const savedWant = cli(Q_STATS, "--earliest", String(day0), "--latest", String(day1)).map((r) => `${r.sourcetype}=${r.count}`);
  assert.deepEqual(savedRows.sort(), savedWant.sort(), "the saved-search panel shows the report's rows over its time range");
  await page.screenshot({ path: join(shots, "dashboard.png"), fullPage: true });
  log("dashboard with two inline panels and a saved-search panel");

  // Responsiveness: a page of 10,000 events and a timechart of 500 points by 10 series.
  const Q_10K = '| makeresults count=10000 | streamstats count as n | eval _raw="event ".n." user=u".(n % 50)." status=".(200 + n % 5)';
  await page.goto(`${base}/search?q=${encodeURIComponent(Q_10K)}&earliest=&latest=`);
  await waitDone();
  assert.equal(await tabCount("events"), 10000);
  await page.waitForSelector("[data-testid=event-list][data-complete]");
  await page.evaluate(() => (window.__t0 = performance.now()));
  await page.selectOption("select[aria-label='Events per page']", "10000");
  await page.waitForSelector("[data-testid=event-list][data-complete='10000']", { timeout: 60000 });
  const listMs = await page.evaluate(() => performance.now() - window.__t0);
  const renderMs = Number(await page.getAttribute("[data-testid=event-list]", "data-render-ms"));
  assert.equal(await page.$$eval("[data-testid=event-list] > li.event", (l) => l.length), 10000, "all 10,000 events rendered");
  console.log(`e2e figure: 10,000 events page: ${listMs.toFixed(0)} ms from choosing the page size to the last row (fetch included), ${renderMs.toFixed(0)} ms rendering`);

  const T0 = 1699999980; // a whole minute
  const Q_TC = `| makeresults count=5000 | streamstats count as n | eval _time=${T0} + floor((n - 1) / 10) * 60, s="s".((n - 1) % 10) | timechart span=1m limit=0 count by s`;
  await page.goto(`${base}/search?q=${encodeURIComponent(Q_TC)}&earliest=${T0}&latest=${T0 + 500 * 60}`);
  await waitDone();
  await page.waitForSelector("[data-testid=stats-table] tbody tr");
  const chartMs = await page.evaluate(() => {
    const t = performance.now();
    document.querySelector("[data-testid=tab-viz]").click();
    document.querySelector("[data-testid=chart] svg").getBoundingClientRect(); // force layout
    return performance.now() - t;
  });
  const lines = await page.$$eval("[data-testid=chart][data-chart=line] polyline", (ps) => ps.map((p) => p.getAttribute("points").trim().split(/\s+/).length));
  assert.deepEqual(lines, new Array(10).fill(500), "10 series of 500 points");
  console.log(`e2e figure: timechart of 500 points x 10 series: ${chartMs.toFixed(0)} ms rendering`);
  log("responsiveness figures printed");

  // Dark theme.
  await page.goto(base + "/search?q=" + encodeURIComponent(Q_EVENTS) + "&earliest=&latest=");
  await waitDone();
  await page.click("[data-testid=theme]");
  await page.waitForSelector("[data-testid=spl-editor]");
  await waitDone();
  await page.waitForSelector("[data-testid=timeline] rect.bar");
  await page.screenshot({ path: join(shots, "search-dark.png") });
  await page.evaluate(() => document.querySelector("[data-testid=job-status]")?.removeAttribute("data-state"));
  await page.click("[data-testid=theme]");
  await waitDone();

  // An expired session: the next call gets 401 and the login screen says why.
  allowed = ["status of 401"];
  await page.evaluate(() => sessionStorage.setItem("lode.key", "expired-key"));
  await page.click("[data-testid=nav-reports]");
  await page.waitForSelector("[data-testid=login-message]:has-text('expired')");
  await page.fill("input[name=password]", PASSWORD);
  await page.click("button[type=submit]");
  await page.waitForSelector("[data-testid=nav-reports]");
  allowed = [];
  log("expired session handled");

  assert.deepEqual(errors, [], "no console errors");

  // A dropped connection: stop the server, act, see the banner.
  allowed = ["ERR_CONNECTION_REFUSED", "Failed to load resource", "Failed to fetch"];
  await page.goto(base + "/search");
  await page.waitForSelector("[data-testid=spl-editor]");
  server.kill("SIGTERM");
  await new Promise((r) => server.once("exit", r));
  server = null;
  await page.fill("[data-testid=spl-editor]", "index=main");
  await page.press("[data-testid=spl-editor]", "Enter");
  await page.waitForSelector("[data-testid=banner]:not([hidden]):has-text('connection')");
  log("dropped connection shown");
  assert.deepEqual(errors, [], "no console errors");
  log("all passed");
} catch (e) {
  failed = true;
  console.error("e2e: FAILED:", e);
  try {
    const p = context?.pages()[0];
    if (p) await p.screenshot({ path: join(work, "failure.png") }), console.error(`e2e: screenshot of the failure: ${join(work, "failure.png")}`);
  } catch {
    /* best effort */
  }
} finally {
  await context?.close().catch(() => undefined);
  if (server) {
    server.kill("SIGTERM");
    await new Promise((r) => server.once("exit", r));
  }
  if (!failed) rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
