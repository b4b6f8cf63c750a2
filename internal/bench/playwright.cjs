// The bench scenario as a Playwright user writes it, recorded with
// Playwright's own recordVideo, for clapper bench run --playwright.
// It takes one JSON argument (see playwrightArgs in playwright.go) and
// prints one JSON line of times, in milliseconds since the process began.
'use strict';
const started = Date.now() - process.uptime() * 1000;
const since = () => Date.now() - started;
const o = JSON.parse(process.argv[2]);
const marks = [];
const mark = (name) => marks.push([name, Math.round(since())]);
const { chromium } = require(o.playwright);

(async () => {
  const t = {};
  const browser = await chromium.launch({ executablePath: o.chromium, args: o.args });
  const context = await browser.newContext({
    viewport: { width: o.width, height: o.height },
    recordVideo: { dir: o.dir, size: { width: o.width, height: o.height }, fps: o.fps },
  });
  const page = await context.newPage();
  t.launched_ms = since();
  await page.goto(o.url);
  t.scenario_start_ms = since();
  await page.waitForTimeout(2000);
  await page.click('#field');
  mark('click');
  await page.locator('#field').pressSequentially(o.text, { delay: o.type_delay_ms });
  mark('type');
  await page.waitForTimeout(2000);
  await page.goto(o.url + 'second');
  mark('goto');
  await page.waitForTimeout(2000);
  // A wheel scroll over the same time as clapper's, paced by the clock
  // as clapper paces it: one event per 60 Hz slot, and the slots already
  // due when an event is acknowledged go in the next one (Playwright's
  // mouse.wheel is one event, which jumps the page; one event per slot,
  // each waited for, takes several times as long on a busy page).
  const box = await page.locator('#list').boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const slots = Math.max(1, Math.round(o.scroll_ms / (1000 / 60)));
  const t0 = Date.now();
  for (let sent = 0; sent < slots; ) {
    const due = Math.min(slots, Math.max(sent + 1, Math.floor(((Date.now() - t0) * slots) / o.scroll_ms) + 1));
    await page.mouse.wheel(0, ((due - sent) * o.scroll_by) / slots);
    sent = due;
    const wait = t0 + (sent * o.scroll_ms) / slots - Date.now();
    if (sent < slots && wait > 0) await page.waitForTimeout(wait);
  }
  mark('scroll');
  await page.waitForTimeout(2000);
  t.scenario_end_ms = since();
  const video = page.video();
  await context.close();
  t.video = await video.path();
  await browser.close();
  t.closed_ms = since();
  t.marks = marks;
  process.stdout.write(JSON.stringify(t) + '\n');
})().catch((e) => {
  process.stderr.write(String((e && e.stack) || e) + '\n');
  process.exit(1);
});
