// The browser side of the e2e: Debian's Chromium on code-server's workbench, and what a person
// does there (the command palette, quick picks, editors, the Settings editor), screenshots, and
// sections whose failure is recorded without stopping the run.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { events, results, waitEvent, waitFor } from './harness.mjs';

const require = createRequire(path.join(process.env.TOOLS_NODE_MODULES, 'noop.js'));
const { chromium } = require('playwright-core');

const { RUN, ARTIFACTS_DIR } = process.env;

export const shot = (page, name) => page.screenshot({ path: path.join(ARTIFACTS_DIR, 'vscode-' + name) });

/** openWorkbench starts Chromium (its profile in $RUN) and returns the page with the helpers that
 *  drive it; the page's errors and console errors and warnings are appended to files in $RUN. */
export async function openWorkbench() {
  const ctx = await chromium.launchPersistentContext(path.join(RUN, 'chromium-profile'), {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1440, height: 900 },
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
    ],
  });
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  page.on('pageerror', (e) => fs.appendFileSync(path.join(RUN, 'page-errors.log'), String(e) + '\n'));
  // The workbench's own errors and warnings (a tree view that failed to list, a command that threw).
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') fs.appendFileSync(path.join(RUN, 'page-console.log'), `${new Date().toISOString()} ${m.type()}: ${m.text()}\n`);
  });

  const quickInput = page.locator('.quick-input-widget');
  const quickRow = (text) => quickInput.locator('.quick-input-list .monaco-list-row', { hasText: text }).first();

  async function runCommand(title) {
    await page.locator('.monaco-workbench').click({ position: { x: 720, y: 450 } }).catch(() => {});
    await page.keyboard.press('F1');
    const input = quickInput.locator('input');
    await input.waitFor({ state: 'visible', timeout: 10000 });
    await input.fill('>' + title);
    // The row whose label is exactly the title ("View: Close Editor", not "… Close Editor Group").
    const exact = new RegExp('^' + title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$');
    const row = quickInput.locator('.quick-input-list .monaco-list-row').filter({ has: page.locator('.label-name', { hasText: exact }) }).first();
    await row.waitFor({ timeout: 10000 });
    await row.click();
  }
  async function pickQuick(text) {
    const row = quickRow(text);
    await row.waitFor({ timeout: 15000 });
    await row.click();
  }
  /** editorText reads the visible lines of the active (non-diff) editor. */
  async function editorText() {
    const lines = await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().innerText();
    return lines.replace(/\u00a0/g, ' ');
  }
  async function focusTab(name) {
    const tab = page.locator('.tabs-container .tab', { hasText: name }).first();
    await tab.click();
    await waitFor(`tab ${name} active`, async () => (await page.locator('.tab.active', { hasText: name }).count()) > 0);
  }

  /** setSetting changes a setting through the Settings editor, as a person would, and waits until
   *  the extension saw the change. (code-server does not notice settings.json edited on disk.)
   *  Machine-scoped settings are on the "Remote" tab. With `opened`, the editor is already open
   *  (from a notification's "Open Settings"). */
  async function setSetting(key, value, { opened = false } = {}) {
    const mark = events().length;
    if (!opened) await runCommand('Preferences: Open User Settings');
    const editor = page.locator('.settings-editor');
    await editor.waitFor({ timeout: 15000 });
    if (!opened) {
      await editor.locator('.settings-header .suggest-input-container .monaco-editor').first().click();
      await page.keyboard.press('Control+A');
      await page.keyboard.type(key);
    }
    let item = editor.locator(`[data-key="${key}"]`).first();
    if (!(await item.waitFor({ timeout: 5000 }).then(() => true, () => false))) {
      await editor.locator('.settings-tabs-widget .action-label', { hasText: 'Remote' }).first().click();
      item = editor.locator(`[data-key="${key}"]`).first();
      await item.waitFor({ timeout: 10000 });
    }
    if (typeof value === 'boolean') {
      const box = item.locator('.setting-value-checkbox').first();
      if ((await box.getAttribute('aria-checked')) !== String(value)) await box.click();
    } else {
      await item.locator('input').first().fill(String(value));
    }
    const short = key.replace(/^rewind\./, '');
    await waitEvent('configChanged', { after: mark, where: (d) => JSON.stringify(d[short]) === JSON.stringify(value) });
    await runCommand('View: Close Editor');
  }

  /** contextMenu right-clicks `row` and chooses `label` in the menu that opens, with the keyboard;
   *  it returns false when the menu does not offer `label`. A menu item takes mouse clicks only
   *  once it has been shown for 100 ms (so that the mouse-up of the right-click itself never
   *  chooses an item), later still on a loaded machine, and drops a click that comes sooner,
   *  leaving the menu open; nothing on the page says when that time is over. The keyboard has no
   *  such wait: the arrow keys move the menu's focus, which the page shows, and Enter runs the
   *  focused item, as for a person who chooses with the keyboard. */
  async function contextMenu(row, label) {
    await row.click({ button: 'right' });
    const menu = page.locator('.context-view .monaco-menu');
    await menu.waitFor({ timeout: 10000 });
    const items = (await menu.locator('.action-item:not(.disabled) .action-label').allInnerTexts()).map((t) => t.trim());
    if (!items.includes(label)) {
      await page.keyboard.press('Escape');
      return false;
    }
    const focused = async () => ((await menu.locator('.action-item.focused .action-label').allInnerTexts())[0] ?? '').trim();
    for (let i = 0; i < items.length && (await focused()) !== label; i++) {
      const was = await focused();
      await page.keyboard.press('ArrowDown');
      await waitFor('the menu\'s focus to move', async () => (await focused()) !== was, 5000);
    }
    if ((await focused()) !== label) throw new Error(`the menu's focus never reached "${label}" (items: ${items.join(', ')})`);
    await page.keyboard.press('Enter');
    await menu.waitFor({ state: 'hidden', timeout: 10000 });
    return true;
  }

  const dialog = page.locator('.monaco-dialog-box');
  /** section runs one scenario; a failure is counted and recorded, and the next scenario still runs
   *  (after closing whatever dialog or picker the failure left open). */
  async function section(name, fn) {
    try {
      await fn();
    } catch (e) {
      results.fail++;
      console.log(`FAIL - ${name}: unexpected error:`, e);
      await shot(page, `failure-${name.replace(/[^A-Za-z0-9]+/g, '-').toLowerCase()}.png`).catch(() => {});
      for (let i = 0; i < 3; i++) await page.keyboard.press('Escape').catch(() => {});
    }
  }

  return { ctx, page, quickInput, quickRow, runCommand, pickQuick, editorText, focusTab, setSetting, contextMenu, dialog, section, shot };
}
