// The Rewind view in a real VS Code: its rows (turns newest first, rewinds, checkpoints, the kinds
// of a turn's files), a file's diff from its row, the view following rewind/didChange, and its
// ages moving on while it is open.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { check, lap, events, waitEvent, waitFor } from './harness.mjs';

/** timelineView: the view lists both turns (newest first) and the undone rewind; a turn expands to its files; a file opens its diff. */
export async function timelineView(h) {
  const { page, section, runCommand, quickInput, shot } = h;
  let mark = 0;
  await section('The Rewind view lists both turns (newest first) and the undone rewind', async () => {
    // ---- The Rewind view lists both turns (newest first) and the undone rewind.
    // One command opens the view: VS Code's own "Focus on Timeline View" (no second "Show Timeline").
    await page.locator('.monaco-workbench').click({ position: { x: 720, y: 450 } }).catch(() => {});
    await page.keyboard.press('F1');
    await quickInput.locator('input').fill('>Rewind: Timeline');
    await quickInput.locator('.quick-input-list .monaco-list-row').first().waitFor({ timeout: 10000 });
    const timelineCmds = (await quickInput.locator('.quick-input-list .monaco-list-row .label-name').allInnerTexts()).filter((t) => /^Rewind: .*Timeline/.test(t));
    check('the palette offers one Rewind command to show the timeline (VS Code\'s own "Focus on Timeline View")', timelineCmds.length === 1 && /Focus on Timeline View/.test(timelineCmds[0]), timelineCmds);
    await page.keyboard.press('Escape');
    await runCommand('Rewind: Focus on Timeline View');
    // Widen the side bar so the screenshot shows whole rows (drag its sash).
    const sb = await page.locator('.part.sidebar').boundingBox();
    if (sb) {
      await page.mouse.move(sb.x + sb.width + 1, sb.y + sb.height / 2);
      await page.mouse.down();
      await page.mouse.move(sb.x + sb.width + 260, sb.y + sb.height / 2, { steps: 5 });
      await page.mouse.up();
    }
    const viewRows = page.locator('.sidebar .monaco-list-row');
    // The view shows the journal as the undo left it (both turns, the rewind marked undone):
    // nothing changes the journal until the next command, so no row is redrawn under the clicks
    // below.
    const shows = async (text) => (await page.locator('.sidebar .monaco-list-row', { hasText: text }).count()) > 0;
    await waitFor('view rows', async () => (await shows('Turn 1: add a greeting function')) && (await shows('Turn 2: greet by name')) && (await shows(/Rewind to turn 1 .* — undone/)));
    const rows = (await viewRows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    const i1 = rows.findIndex((r) => r.includes('Turn 1: add a greeting function'));
    const i2 = rows.findIndex((r) => r.includes('Turn 2: greet by name'));
    check('Rewind view lists both turns, newest first', i1 > 0 && i2 > 0 && i2 < i1, rows);
    check('Rewind view lists the undone rewind, titled by the server', rows.some((r) => /Rewind to turn 1 \(add a greeting function\) — undone/.test(r)), rows);
    check('Rewind view shows the server\'s ages and changes ("5m ago", "3 files changed (+4 -1)")',
      /\d+[smhd] ago · 3 files changed \(\+\d+ -\d+\)/.test(rows[i2]) && !/minutes? ago|just now|yesterday/.test(rows.join('\n')), rows);
    // The changes a rewind or undo makes are its own, and so are the editor's echoes of them (its
    // didChange and didSave, the watcher's events): none of them becomes a turn.
    const turnRows = rows.filter((r) => /^Turn \d+:/.test(r));
    check('the rewind and its undo recorded no turn (still 2 turns)', turnRows.length === 2, turnRows);
    // Expand turn 1 and open the diff of one of its files.
    const turn1Node = page.locator('.sidebar .monaco-list-row[aria-level="2"]', { hasText: 'Turn 1: add a greeting function' }).first();
    const fileRow = (name) => page.locator('.sidebar .monaco-list-row[aria-level="3"]', { hasText: name }).first();
    await turn1Node.click();
    await fileRow('greet.go').waitFor({ timeout: 10000 });
    const fileRowText = (await fileRow('greet.go').innerText()).replace(/\s+/g, ' ');
    check('a turn expands to its files with +/- counts', /\+\d+/.test(fileRowText), fileRowText);
    mark = events().length;
    await fileRow('main.go').click();
    const fd = await waitEvent('fileDiffOpened', { after: mark, ms: 15000 });
    await page.locator('.monaco-diff-editor').first().waitFor({ timeout: 20000 });
    const tab2 = await page.locator('.tab.active').first().innerText().catch(() => '');
    check('clicking a file opens its diff (before turn 1 ↔ now)', fd.data.path === 'main.go' && /before turn 1/.test(tab2), { fd: fd.data, tab2 });
    await waitFor('diff decorations', async () => (await page.locator('.monaco-diff-editor .line-insert, .monaco-diff-editor .char-insert').count()) > 0).catch(() => {});
    await runCommand('Notifications: Clear All Notifications').catch(() => {});
    await shot(page, 'timeline-view.png');
    lap('view screenshot');
  });
}

/** didChange: a turn made on the command line shows up without a manual refresh. */
export async function didChange(h) {
  const { page, section } = h;
  const { WS, LSP_BIN, STORE } = process.env;
  let mark = 0;
  await section('rewind/didChange', async () => {
    // ---- rewind/didChange: a turn made on the command line shows up without a manual refresh.
    if (LSP_BIN && STORE && process.env.E2E_CLI !== '0') {
      mark = events().length;
      execFileSync(LSP_BIN, ['--root', WS, '--store', STORE, 'turn', 'start', '--prompt', 'third turn from the CLI']);
      await waitEvent('didChange', { after: mark, ms: 20000 }).catch(() => {});
      const ok3 = await waitFor('the new turn in the view', async () => (await page.locator('.sidebar .monaco-list-row', { hasText: /Turn \d+: third turn from the CLI/ }).count()) > 0, 20000).then(() => true, () => false);
      check('rewind/didChange refreshes the view (the CLI turn appears)', ok3, events().slice(mark));
      const spin = await waitFor('open turn in the status bar', async () => (await page.locator('.statusbar-item', { hasText: /Turn \d+ open/ }).count()) > 0, 10000).then(() => true, () => false);
      check('status bar shows the open turn', spin, await page.locator('.statusbar').innerText().catch(() => ''));
      execFileSync(LSP_BIN, ['--root', WS, '--store', STORE, 'turn', 'end']);
    }
  });
}

/** checkpoint: Create Checkpoint… → the view shows it. */
export async function checkpoint(h) {
  const { page, section, runCommand, quickInput } = h;
  let mark = 0;
  await section('Create Checkpoint… → the view shows it', async () => {
    // ---- Create Checkpoint… → the view shows it.
    mark = events().length;
    await runCommand('Rewind: Create Checkpoint…');
    await quickInput.locator('input').waitFor({ state: 'visible', timeout: 10000 });
    await quickInput.locator('input').fill('e2e-checkpoint');
    await page.keyboard.press('Enter');
    const cp = await waitEvent('checkpointCreated', { after: mark });
    check('checkpoint created', !!cp.data.entry, cp.data);
    const cpRow = await waitFor('checkpoint in the view', async () => (await page.locator('.sidebar .monaco-list-row', { hasText: 'Checkpoint @e2e-checkpoint' }).count()) > 0, 15000).then(() => true, () => false);
    check('Rewind view lists the checkpoint', cpRow);
  });
}

/** kinds: a binary file, a link and an executable bit in the view, the pick and the plan. */
export async function kinds(h) {
  const { page, section, runCommand, pickQuick, quickRow, shot, dialog } = h;
  const { WS, LSP_BIN, STORE } = process.env;
  await section('Kinds: a binary file, a link and an executable bit in the view, the pick and the plan', async () => {
    // ---- A turn that adds a binary file and a symbolic link and makes a script executable: line
    // counts do not apply to them, so every place that lists files says what changed instead.
    execFileSync(LSP_BIN, ['--root', WS, '--store', STORE, 'turn', 'start', '--prompt', 'kinds of change']);
    fs.writeFileSync(path.join(WS, 'logo.bin'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]));
    fs.symlinkSync('greet.go', path.join(WS, 'greet-link'));
    fs.chmodSync(path.join(WS, 'greet.go'), 0o755);
    execFileSync(LSP_BIN, ['--root', WS, '--store', STORE, 'turn', 'end']);

    // Once the view shows the turn ended (its files counted), nothing changes the journal until the
    // next command: one click expands it.
    await runCommand('Rewind: Focus on Timeline View');
    const kindsNode = page.locator('.sidebar .monaco-list-row[aria-level="2"]', { hasText: /Turn \d+: kinds of change.*3 files changed/ }).first();
    await kindsNode.waitFor({ timeout: 20000 });
    await kindsNode.click();
    const fileRow = (name) => page.locator('.sidebar .monaco-list-row[aria-level="3"]', { hasText: name }).first();
    await fileRow('logo.bin').waitFor({ timeout: 10000 });
    const binRow = (await fileRow('logo.bin').innerText()).replace(/\s+/g, ' ');
    const linkRow = (await fileRow('greet-link').innerText()).replace(/\s+/g, ' ');
    check('the Rewind view says "binary" for a binary file and "symlink" for a link, not line counts',
      /binary/.test(binRow) && !/\+0/.test(binRow) && /symlink/.test(linkRow) && !/\+0/.test(linkRow), { binRow, linkRow });
    // greet.go is listed under turn 1 as well: one of its rows is this turn's.
    const modeRows = (await page.locator('.sidebar .monaco-list-row[aria-level="3"]', { hasText: 'greet.go' }).allInnerTexts()).map((t) => t.replace(/\s+/g, ' '));
    check('the Rewind view says "mode +x" for a file made executable', modeRows.some((r) => /mode \+x/.test(r)), modeRows);
    await shot(page, 'timeline-kinds.png');

    await runCommand('Rewind: Rewind to Turn…');
    const pickRow = quickRow('kinds of change');
    await pickRow.waitFor({ timeout: 15000 });
    const pickText = (await pickRow.innerText()).replace(/\s+/g, ' ');
    check('the turn pick lists the files with their kinds', /logo\.bin binary/.test(pickText) && /greet-link symlink/.test(pickText) && /greet\.go mode \+x/.test(pickText), pickText);
    await pickQuick('kinds of change');
    await pickQuick('Code');
    await dialog.waitFor({ timeout: 15000 });
    const planText = await dialog.innerText();
    check('the plan names the kinds: "D logo.bin binary", "D greet-link symlink", "M greet.go mode -x"',
      /D logo\.bin\s+binary/.test(planText) && /D greet-link\s+symlink/.test(planText) && /M greet\.go\s+mode -x/.test(planText), planText);
    await shot(page, 'plan-kinds.png');
    await dialog.locator('.monaco-button', { hasText: /^Cancel$/ }).first().click().catch(() => page.keyboard.press('Escape'));
    await dialog.waitFor({ state: 'hidden', timeout: 10000 }).catch(() => {});
  });
}

/** ages: the open view's ages move on with no journal change. */
export async function ages(h) {
  const { page, section, runCommand } = h;
  await section('Ages stay true while the Rewind view is open', async () => {
    // ---- Nothing changes in the journal, yet the view's ages move on: it re-lists once a minute
    // while visible (the server writes the ages; the extension never makes them).
    await runCommand('Rewind: Focus on Timeline View');
    const row = page.locator('.sidebar .monaco-list-row[aria-level="2"]', { hasText: 'Turn 1: add a greeting function' }).first();
    await row.waitFor({ timeout: 20000 });
    const seconds = (text) => {
      const m = /(\d+)([smhd]) ago/.exec(text);
      return m ? Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[m[2]] : NaN;
    };
    const before = (await row.innerText()).replace(/\s+/g, ' ');
    const t0 = Date.now();
    const after = await waitFor('the age to move on', async () => {
      const now = (await row.innerText().catch(() => '')).replace(/\s+/g, ' ');
      return seconds(now) > seconds(before) ? now : '';
    }, 80000).catch(() => '');
    check('the open Rewind view\'s ages move on within a minute, with no journal change', !!after, { before, after, waited: Date.now() - t0 });
    lap('ages refreshed');
  });
}
