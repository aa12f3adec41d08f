// Drives Debian's Chromium (headless, through playwright-core) for tests/e2e/test_dashboard.py. One JSON command
// per line on stdin, one JSON answer per line on stdout ({"ok": true, ...} or {"ok": false, "error": ...}), so
// the Python test keeps the story (SQL, timing, assertions) and this file only works the browser.
//   node dashboard_driver.mjs /usr/bin/chromium
import readline from "node:readline";
import { chromium } from "playwright-core";

const browser = await chromium.launch({
  executablePath: process.argv[2],
  headless: true,
  // Tests run as root in containers, where Chromium's sandbox cannot start.
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
const pages = new Map();     // name -> page
const problems = new Map();  // name -> console errors and page errors (CSP violations show up here)

async function run(cmd) {
  const page = pages.get(cmd.page);
  switch (cmd.op) {
    case "open": {
      const context = await browser.newContext({
        viewport: { width: cmd.width || 1440, height: cmd.height || 900 },
        deviceScaleFactor: 1,
        httpCredentials: cmd.user === undefined ? undefined : { username: cmd.user, password: cmd.password || "" },
      });
      const p = await context.newPage();
      const seen = [];
      p.on("console", (m) => { if (m.type() === "error") seen.push("console: " + m.text()); });
      p.on("pageerror", (e) => seen.push("page error: " + e.message));
      pages.set(cmd.page, p);
      problems.set(cmd.page, seen);
      const res = await p.goto(cmd.url, { waitUntil: "load" });
      return { status: res ? res.status() : null };
    }
    case "wait": {  // until `selector` matches something; answers how long that took
      const t0 = Date.now();
      await page.waitForSelector(cmd.selector, { timeout: cmd.timeout_ms || 5000, state: cmd.state || "visible" });
      return { elapsed_ms: Date.now() - t0 };
    }
    case "count":
      return { count: await page.locator(cmd.selector).count() };
    case "texts":
      return { texts: await page.locator(cmd.selector).allInnerTexts() };
    case "attrs":
      return { values: await page.locator(cmd.selector).evaluateAll((els, a) => els.map((e) => e.getAttribute(a)), cmd.attr) };
    case "click":
      await page.locator(cmd.selector).first().click({ timeout: cmd.timeout_ms || 5000 });
      return {};
    case "goto":
      await page.goto(cmd.url, { waitUntil: "load" });
      return {};
    case "screenshot":
      await page.screenshot({ path: cmd.path, fullPage: !!cmd.full_page });
      return { path: cmd.path };
    case "scroll_width":  // how wide the page's content is (more than the window: a sideways scroll bar)
      return { width: await page.evaluate(() => document.documentElement.scrollWidth) };
    case "problems":
      return { problems: problems.get(cmd.page) || [] };
    case "close":
      await browser.close();
      return {};
    default:
      throw new Error("unknown op " + cmd.op);
  }
}

const lines = readline.createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  let answer;
  try {
    answer = { ok: true, ...(await run(JSON.parse(line))) };
  } catch (e) {
    answer = { ok: false, error: String(e && e.message ? e.message : e) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
  if (JSON.parse(line).op === "close") break;
}
process.exit(0);
