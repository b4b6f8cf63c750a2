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
  const browser = await chromium.launch({ executablePath: o.chromium, args: o.args || [], chromiumSandbox: !o.no_sandbox });
  const context = await browser.newContext({
    viewport: { width: o.width, height: o.height },
    recordVideo: { dir: o.dir, size: { width: o.width, height: o.height }, fps: o.fps },
  });
  const page = await context.newPage();
  // The scenario starts on the blank tab, before the first goto, as
  // clapper's take does.
  t.launched_ms = since();
  t.scenario_start_ms = since();
  await page.goto(o.url);
  await page.waitForTimeout(2000);
  await page.click('#field');
  mark('click');
  await page.locator('#field').pressSequentially(o.text, { delay: o.type_delay_ms });
  mark('type');
  await page.waitForTimeout(2000);
  await page.goto(o.url + 'second');
  mark('goto');
  await page.waitForTimeout(2000);
  // A wheel scroll over the same time as clapper's, paced as clapper
  // paces it: n slots of a 60 Hz frame, the distance eased in and out,
  // slot i sent at its time, and the slots whose time has passed when an
  // event is acknowledged sent as one (Playwright's mouse.wheel is a
  // single event, which makes the page jump; one event a slot, each
  // waited for, took several times as long on a busy page). Then the
  // page draws two more frames, as clapper's step lets the scroll settle.
  const box = await page.locator('#list').boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const n = Math.max(1, Math.floor(o.scroll_ms / (1000 / 60)));
  const ease = (u) => (u < 0.5 ? 4 * u * u * u : 1 - Math.pow(-2 * u + 2, 3) / 2);
  const t0 = Date.now();
  let sent = 0;
  for (let i = 1; i <= n; i++) {
    while (i < n && ((i + 1) * o.scroll_ms) / n <= Date.now() - t0) i++;
    const dy = i === n ? o.scroll_by - sent : Math.round(o.scroll_by * ease(i / n) - sent);
    if (dy !== 0) {
      await page.mouse.wheel(0, dy);
      sent += dy;
    }
    const wait = t0 + (i * o.scroll_ms) / n - Date.now();
    if (wait > 0) await page.waitForTimeout(wait);
  }
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
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
