// Compares clapper's page helpers with Playwright's locators on the same
// pages: every element's role (getByRole), the accessible name clapper
// gives it (getByRole with that name, exact), text, label, placeholder,
// alt and title targets made from each page's own words (getByText and
// the others, exact and not), and every element's visibility
// (isVisible), and CSS selectors (locator('css=...')) whose combinators
// cross shadow roots, also inside :is(), :where(), :not() and :has(),
// made from each page's shadow hosts and the tags inside them, with a few
// general ones. It prints each difference and a count by kind.
//
//   node tools/versus-playwright-locators.cjs PLAYWRIGHT_DIR CHROMIUM PAGE.html...
//
// make versus-playwright-locators runs it on clapper's own test pages and
// sample site; any other pages (Playwright's test assets, the accname
// pages of the web platform tests) can be given the same way.
const path = require('path');
const fs = require('fs');
const [pwDir, chromiumPath, ...pages] = process.argv.slice(2);
const { chromium } = require(path.resolve(pwDir, 'node_modules/playwright-core'));
const jsdir = path.join(__dirname, '..', 'session', 'js');
const files = fs.readdirSync(jsdir).filter((n) => n.endsWith('.js'))
  .sort((a, b) => (a === 'clapper.js' ? -1 : b === 'clapper.js' ? 1 : a < b ? -1 : 1));
const bundle = files.map((n) => fs.readFileSync(path.join(jsdir, n), 'utf8')).join('\n;\n') + '\nwindow.clapper = clapper;';
const roles = ('alert alertdialog application article banner blockquote button caption cell checkbox code columnheader combobox ' +
  'complementary contentinfo definition deletion dialog directory document emphasis feed figure form generic grid gridcell group ' +
  'heading img insertion link list listbox listitem log main mark marquee math meter menu menubar menuitem menuitemcheckbox ' +
  'menuitemradio navigation none note option paragraph presentation progressbar radio radiogroup region row rowgroup rowheader ' +
  'scrollbar search searchbox separator slider spinbutton status strong subscript superscript switch tab table tablist tabpanel ' +
  'term textbox time timer toolbar tooltip tree treegrid treeitem').split(' ');

(async () => {
  const browser = await chromium.launch({ executablePath: chromiumPath, args: process.getuid() === 0 ? ['--no-sandbox'] : [] });
  const page = await browser.newPage();
  const counts = {};
  const count = (kind, differs) => {
    counts[kind] = counts[kind] || { compared: 0, differences: 0 };
    counts[kind].compared++;
    if (differs) counts[kind].differences++;
  };
  const name = (f) => path.basename(f);
  for (const f of pages) {
    try {
      await page.goto('file://' + path.resolve(f), { timeout: 5000, waitUntil: 'load' });
      await page.waitForTimeout(1000); // what a page adds on a timer after its load is there
      await page.addScriptTag({ content: bundle });
      const mine = await page.evaluate((roles) => {
        let k = 0;
        const all = clapper.all(document);
        for (const e of all) e.setAttribute('data-k', String(k++));
        const cl = (spec) => { try { return clapper.find(spec).map((e) => e.getAttribute('data-k')); } catch (err) { return ['error: ' + err.message]; } };
        const out = { roles: {}, queries: [], visible: [] };
        for (const r of roles) out.roles[r] = clapper.byRole(r, null).map((e) => [e.getAttribute('data-k'), clapper.accessibleName(e)]);
        const words = new Set(), attrs = { label: new Set(), placeholder: new Set(), alt: new Set(), title: new Set() };
        for (const e of all) {
          for (const c of e.childNodes) {
            const t = c.nodeType === 3 ? c.nodeValue.trim().replace(/\s+/g, ' ') : '';
            if (t && t.length < 40) { words.add(t); if (t.includes(' ')) words.add(t.split(' ')[0]); }
          }
          for (const a of ['placeholder', 'alt', 'title']) if (e.getAttribute(a)) attrs[a].add(e.getAttribute(a));
          if (e.getAttribute('aria-label')) attrs.label.add(e.getAttribute('aria-label'));
          if (e.nodeName === 'LABEL') { const t = e.textContent.trim().replace(/\s+/g, ' '); if (t && t.length < 40) attrs.label.add(t); }
        }
        for (const t of [...words].slice(0, 60)) for (const exact of [false, true]) out.queries.push({ kind: 'text', v: t, exact, mine: cl({ text: t, exact }) });
        for (const kind of Object.keys(attrs)) for (const t of [...attrs[kind]].slice(0, 30)) for (const exact of [false, true]) out.queries.push({ kind, v: t, exact, mine: cl({ [kind]: t, exact }) });
        for (const e of all) out.visible.push([e.getAttribute('data-k'), clapper.visible(e)]);
        // CSS: the page's shadow hosts and the tags inside their roots.
        const hosts = [...new Set(all.filter((e) => e.shadowRoot).map((e) => e.localName))].slice(0, 4);
        const inner = [...new Set(all.filter((e) => e.getRootNode() !== document).map((e) => e.localName))].slice(0, 4);
        const sels = ['div:has(button)', 'li:has(~ li)', ':is(div p, section > p)', 'p:not(div *)', 'body > :has(a)', 'a:has(+ a)'];
        for (const h of hosts) {
          sels.push(`${h} *`, `${h}:has(*)`, `body :has(> ${h})`, `:is(${h} *)`);
          for (const t of inner) sels.push(`${h} ${t}`, `${h} > ${t}`, `${t}:is(${h} *)`, `${t}:not(${h} *)`, `${h}:has(${t})`, `${h}:has(> ${t})`, `:where(body ${h}) ${t}`, `:has(+ ${h}) ~ ${t}`);
        }
        for (const sel of sels) out.queries.push({ kind: 'css', v: sel, exact: false, mine: cl({ css: sel }) });
        return out;
      }, roles);
      const html = (k) => page.evaluate((k) => (document.querySelector(`[data-k="${k}"]`) || { outerHTML: '(in a shadow root)' }).outerHTML.slice(0, 100), k);
      for (const r of roles) {
        const pw = await page.getByRole(r).evaluateAll((els) => els.map((e) => e.getAttribute('data-k')));
        const theirs = new Set(pw), ours = new Set(mine.roles[r].map((x) => x[0]));
        for (const k of pw) { count('role', !ours.has(k)); if (!ours.has(k)) console.log(`role ${name(f)}: ${r} to Playwright only: ${await html(k)}`); }
        for (const k of ours) if (!theirs.has(k)) { count('role', true); console.log(`role ${name(f)}: ${r} to clapper only: ${await html(k)}`); }
        for (const [k, n] of mine.roles[r]) {
          if (!theirs.has(k) || !n) continue;
          const got = await page.getByRole(r, { name: n, exact: true }).evaluateAll((els) => els.map((e) => e.getAttribute('data-k')));
          count('name', !got.includes(k));
          if (!got.includes(k)) console.log(`name ${name(f)}: ${r} ${JSON.stringify(n)} is not its name to Playwright: ${await html(k)}`);
        }
      }
      const by = { text: 'getByText', label: 'getByLabel', placeholder: 'getByPlaceholder', alt: 'getByAltText', title: 'getByTitle' };
      for (const q of mine.queries) {
        const loc = q.kind === 'css' ? page.locator('css=' + q.v) : page[by[q.kind]](q.v, { exact: q.exact });
        const pw = await loc.evaluateAll((els) => els.map((e) => e.getAttribute('data-k')));
        const differs = JSON.stringify(pw) !== JSON.stringify(q.mine);
        count(q.kind, differs);
        if (differs) console.log(`${q.kind} ${name(f)}: ${JSON.stringify(q.v)} exact=${q.exact}: Playwright ${JSON.stringify(pw)}, clapper ${JSON.stringify(q.mine)}`);
      }
      for (const [k, vis] of mine.visible) {
        const v = await page.locator(`[data-k="${k}"]`).isVisible();
        count('visible', v !== vis);
        if (v !== vis) console.log(`visible ${name(f)}: Playwright ${v}, clapper ${vis}: ${await html(k)}`);
      }
    } catch (e) {
      console.log(`${name(f)}: ${e.message.split('\n')[0]}`);
    }
  }
  for (const [kind, c] of Object.entries(counts)) console.log(`${kind}: ${c.compared} compared, ${c.differences} different`);
  await browser.close();
})();
