// Drives Debian's Chromium (through playwright-core, no downloaded browser) over a
// waterfall page and prints what it saw as JSON.
//
//   node tests/observe/waterfall.mjs '{"page": "/abs/run.html", "chromium": "/usr/bin/chromium",
//     "steps": [{"hover": "run-1:ptc:5"}, {"click": "run-1:ptc:6"}, {"screenshot": "/abs/x.png"}]}'
//
// Steps: `hover` and `click` a call's bar (found with `window.ptcWaterfall.locate`), then
// record the tooltip or the details panel; `screenshot` saves the viewport (its top
// `height` pixels when given).
import { chromium } from "playwright-core";

const spec = JSON.parse(process.argv[2]);
const browser = await chromium.launch({
  executablePath: spec.chromium,
  headless: true,
  args: [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
  ],
});
const out = { requests: [], errors: [], steps: [] };
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 }, deviceScaleFactor: 1 });
  // Generous: a loaded 2-core machine; the test reports the times, it does not judge them.
  page.setDefaultTimeout(Number(process.env.PTC_BROWSER_TIMEOUT_MS || 180000));
  const url = "file://" + spec.page;
  page.on("request", (r) => { if (r.url() !== url) out.requests.push(r.url()); });
  page.on("pageerror", (e) => out.errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") out.errors.push(m.text()); });
  const started = Date.now();
  await page.goto(url);
  await page.waitForFunction(() => window.ptcWaterfall && window.ptcWaterfall.ready);
  out.readyMs = Date.now() - started;
  out.scriptMs = await page.evaluate(() => window.ptcWaterfall.loadMs);
  out.dom = await page.evaluate(() => ({
    body: { ...document.body.dataset },
    skipped: document.getElementById("skipped").hidden ? null : document.getElementById("skipped").textContent,
    legend: [...document.querySelectorAll("#legend li")].map((li) => li.textContent),
    sections: [...document.querySelectorAll("section.run")].map((s) => ({ ...s.dataset })),
    bars: [...document.querySelectorAll("li.bar")].map((li) => ({ ...li.dataset })),
    boldElements: document.querySelectorAll("b").length,
    scripts: [...document.scripts].map((s) => s.src).filter(Boolean),
  }));
  for (const step of spec.steps) {
    if (step.screenshot) {
      const clip = step.height ? { x: 0, y: 0, width: 1280, height: step.height } : undefined;
      await page.screenshot({ path: step.screenshot, clip });
      out.steps.push({ screenshot: step.screenshot });
      continue;
    }
    const id = step.hover || step.click;
    const t0 = Date.now();
    const at = await page.evaluate((id) => window.ptcWaterfall.locate(id), id);
    if (!at) { out.steps.push({ id, missing: true }); continue; }
    await page.mouse.move(at.x, at.y);
    if (step.hover) {
      await page.waitForFunction((id) => {
        const tip = document.getElementById("tip");
        return !tip.hidden && tip.dataset.callId === id;
      }, id);
      out.steps.push({ id, ms: Date.now() - t0, tip: await page.textContent("#tip"),
        rendered: await page.evaluate(() => document.querySelectorAll("section.run").length) });
    } else {
      await page.mouse.down();
      await page.mouse.up();
      await page.waitForFunction((id) => {
        const d = document.getElementById("details");
        return !d.hidden && d.dataset.callId === id;
      }, id);
      out.steps.push({
        id, ms: Date.now() - t0,
        title: await page.textContent("#d-title"),
        fields: await page.evaluate(() => Object.fromEntries(
          [...document.querySelectorAll("#d-fields dd")].map((dd) => [dd.dataset.field, dd.textContent]))),
      });
    }
  }
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(out));
