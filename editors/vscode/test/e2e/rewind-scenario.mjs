// The palette's rewind flows in a real VS Code: Preview Turn… (the diff editor of every file),
// Rewind to Turn… (mode, modal, applied and saved), Undo Last Rewind, the Refactor Preview as the
// confirmation, undo of a file deleted while open in a tab, and a conflict with unsaved edits.
import fs from 'node:fs';
import path from 'node:path';
import { check, lap, events, waitEvent, waitFor, treeDiff } from './harness.mjs';

/** previewTurn: Preview Turn… → turn 1 → the diff editor of every file the rewind changes. */
export async function previewTurn(h) {
  const { page, section, runCommand, pickQuick, quickRow, shot } = h;
  let mark = 0;
  await section('Preview Turn… → turn 1 → diff editor', async () => {
    // ---- Preview Turn… → turn 1 → diff editor.
    mark = events().length;
    await runCommand('Rewind: Preview Turn…');
    await quickRow('Turn 1: add a greeting function').waitFor({ timeout: 15000 });
    const turn2Row = await quickRow('Turn 2: greet by name and drop the notes').innerText().catch(() => '');
    check('turn pick lists turn 2 with the server\'s age and files changed', /\d+[smhd] ago/.test(turn2Row) && /3 files changed \(\+\d+ -\d+\)/.test(turn2Row), turn2Row);
    const turn1Row = await quickRow('Turn 1: add a greeting function').innerText();
    check('turn pick lists turn 1 with its files changed', /2 files changed/.test(turn1Row) && /greet\.go/.test(turn1Row), turn1Row);
    await pickQuick('Turn 1: add a greeting function');
    const opened = await waitEvent('previewOpened', { after: mark });
    check('preview covers main.go, greet.go and notes.txt', ['main.go', 'greet.go', 'notes.txt'].every((f) => opened.data.files.includes(f)), opened.data);
    await page.locator('.monaco-diff-editor').first().waitFor({ timeout: 20000 });
    await waitFor('diff decorations', async () =>
      (await page.locator('.monaco-diff-editor .line-insert, .monaco-diff-editor .char-insert, .monaco-diff-editor .line-delete, .monaco-diff-editor .char-delete').count()) > 0,
    );
    const activeTab = await page.locator('.tab.active').first().innerText().catch(() => '');
    check('the preview\'s title reads "turn 1 → now"', /turn 1 \(add a greeting function\) → now/.test(activeTab), activeTab);
    // Each file's header names the file (and its folder), never a snapshot id, and no side looks
    // like a rename (both sides have the file's own path).
    const headers = (await page.locator('.multiDiffEntry .header .file-path').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    check('file headers name main.go, greet.go and notes.txt', ['main.go', 'greet.go', 'notes.txt'].every((f) => headers.some((h) => h.includes(f))), headers);
    check('no header shows a snapshot id', headers.length > 0 && !headers.some((h) => /[0-9a-f]{12,}/.test(h)), headers);
    check('no header marks a rename', (await page.locator('.multiDiffEntry .status.renamed').count()) === 0, headers);
    const diffText = (await page.locator('.monaco-diff-editor').allInnerTexts()).join('\n').replace(/\u00a0/g, ' ');
    check('diff shows the turn-1 content on one side and the current on the other', diffText.includes('fmt.Println("hello")') && diffText.includes('greet(name)'), diffText.slice(0, 600));
    await shot(page, 'preview-diff.png');
    lap('preview diff screenshot');
    await runCommand('View: Close Editor');
  });
}

/** rewindToTurn: Rewind to Turn… → turn 1 → mode → modal → applied and saved. */
export async function rewindToTurn(h) {
  const { page, section, runCommand, pickQuick, editorText, focusTab, shot, dialog } = h;
  const { WS, EXPECT } = process.env;
  let mark = 0;
  await section('Rewind to Turn… → turn 1 → mode → modal → applied and saved', async () => {
    // ---- Rewind to Turn… → turn 1 → mode → modal → applied and saved.
    await focusTab('main.go');
    mark = events().length;
    await runCommand('Rewind: Rewind to Turn…');
    await pickQuick('Turn 1: add a greeting function');
    await pickQuick('Code');
    await dialog.waitFor({ timeout: 15000 });
    const dialogText = await dialog.innerText();
    check('modal shows the plan: target, counts, files', /Rewind to turn 1/.test(dialogText) && /3 files will change: 2 restored, 1 deleted/.test(dialogText) && /main\.go/.test(dialogText), dialogText);
    await shot(page, 'rewind-confirm.png');
    await dialog.locator('.monaco-button', { hasText: /^Rewind$/ }).first().click();
    const rewound = await waitEvent('rewound', { after: mark, ms: 60000 });
    check('rewind applied', rewound.data.applied === true, rewound.data);
    const done = page.locator('.notification-toast', { hasText: 'Rewound to turn 1' }).first();
    const doneText = await done.waitFor({ timeout: 15000 }).then(() => done.innerText(), () => '');
    check('the notification says "2 restored, 1 deleted"', /2 restored, 1 deleted/.test(doneText), doneText);
    const d1 = await waitFor('disk at the turn-1 state', async () => (treeDiff(path.join(EXPECT, 'turn1-start'), WS) === '' ? 'same' : ''), 15000).catch(() => treeDiff(path.join(EXPECT, 'turn1-start'), WS));
    check('files on disk are the turn-1 state byte for byte', d1 === 'same', d1);
    await focusTab('main.go');
    await waitFor('editor shows turn 1', async () => (await editorText()).includes('fmt.Println("hello")'), 10000).catch(() => {});
    const ed1 = await editorText();
    check('open editor shows the turn-1 content', ed1.includes('fmt.Println("hello")') && !ed1.includes('greet'), ed1);
    const dirty = await page.locator('.tab.dirty', { hasText: 'main.go' }).count();
    check('rewound documents were saved (no dirty tab)', dirty === 0, dirty);
    await shot(page, 'after-rewind.png');
    lap('rewind checked');
  });
}

/** undoLastRewind: Undo Last Rewind → back to the turn-2 state. */
export async function undoLastRewind(h) {
  const { section, runCommand, editorText, focusTab } = h;
  const { WS, EXPECT } = process.env;
  let mark = 0;
  await section('Undo Last Rewind → back to the turn-2 state', async () => {
    // ---- Undo Last Rewind → back to the turn-2 state.
    mark = events().length;
    await runCommand('Rewind: Undo Last Rewind');
    const undone = await waitEvent('undone', { after: mark, ms: 60000 });
    check('undo applied', undone.data.applied === true, undone.data);
    const d2 = await waitFor('disk at the turn-2 state', async () => (treeDiff(path.join(EXPECT, 'turn2-end'), WS) === '' ? 'same' : ''), 15000).catch(() => treeDiff(path.join(EXPECT, 'turn2-end'), WS));
    check('files on disk are back at the turn-2 state byte for byte', d2 === 'same', d2);
    await focusTab('main.go');
    await waitFor('editor shows turn 2', async () => (await editorText()).includes('greet(name)'), 10000).catch(() => {});
    check('open editor shows the turn-2 content again', (await editorText()).includes('greet(name)'), await editorText());
    lap('undo checked');
  });
}

/** refactorPreview: with rewind.confirmWithRefactorPreview the rewind is confirmed in the Refactor Preview. */
export async function refactorPreview(h) {
  const { page, section, runCommand, pickQuick, setSetting, shot } = h;
  const { WS, EXPECT } = process.env;
  let mark = 0;
  await section('Refactor Preview confirmation', async () => {
    // ---- rewind.confirmWithRefactorPreview: the rewind goes through the Refactor Preview.
    await setSetting('rewind.confirmWithRefactorPreview', true);
    mark = events().length;
    await runCommand('Rewind: Rewind to Turn…');
    await pickQuick('Turn 1: add a greeting function');
    await pickQuick('Code');
    const panel = page.locator('.part.panel');
    const apply = panel.locator('.monaco-button', { hasText: /^Apply$/ }).first();
    await apply.waitFor({ timeout: 20000 });
    const listed = await waitFor('files in the Refactor Preview', async () =>
      (await panel.locator('.monaco-list-row', { hasText: 'main.go' }).count()) > 0 && (await panel.locator('.monaco-list-row', { hasText: 'notes.txt' }).count()) > 0,
    ).then(() => true, () => false);
    check('Refactor Preview lists the rewind\'s files', listed, await panel.innerText().catch(() => ''));
    check('no modal when confirming in the Refactor Preview', (await page.locator('.monaco-dialog-box').count()) === 0);
    // Changes that need confirmation start unticked: tick every file, as a person would.
    // (The tree re-renders after each tick, so a row can vanish between finding and clicking it.)
    const unticked = panel.locator('.monaco-list-row input[type=checkbox]:not(:checked)');
    for (let i = 0; i < 30 && (await unticked.count()) > 0; i++) {
      await unticked.first().click({ timeout: 2000 }).catch(() => {});
    }
    check('every change of the rewind ticked', (await unticked.count()) === 0);
    await shot(page, 'refactor-preview.png');
    await apply.click();
    const rp = await waitEvent('rewound', { after: mark, ms: 60000 });
    check('rewind confirmed in the Refactor Preview applied', rp.data.applied === true, rp.data);
    const d3 = await waitFor('disk at turn 1', async () => (treeDiff(path.join(EXPECT, 'turn1-start'), WS) === '' ? 'same' : ''), 15000).catch(() => treeDiff(path.join(EXPECT, 'turn1-start'), WS));
    check('after the Refactor Preview, files on disk are the turn-1 state byte for byte', d3 === 'same', d3);
    await setSetting('rewind.confirmWithRefactorPreview', false);
    mark = events().length;
    await runCommand('Rewind: Undo Last Rewind');
    const u2 = await waitEvent('undone', { after: mark, ms: 60000 });
    const d4 = await waitFor('disk at turn 2', async () => (treeDiff(path.join(EXPECT, 'turn2-end'), WS) === '' ? 'same' : ''), 15000).catch(() => treeDiff(path.join(EXPECT, 'turn2-end'), WS));
    check('second undo applied and the turn-2 state is back', u2.data.applied === true && d4 === 'same', { u2: u2.data, d4 });
  });
}

/** undoDeletedTab: undo after a rewind that deleted a file open in a tab. */
export async function undoDeletedTab(h) {
  const { page, section, runCommand, pickQuick, quickInput } = h;
  const { WS, EXPECT } = process.env;
  let mark = 0;
  await section('Undo of a file deleted while open in a tab', async () => {
    // ---- Undo after a rewind that deleted a file open in an editor tab (the tab stays, marked
    // deleted). (The preview above also leaves such a document open, without a tab.)
    {
      await page.locator('.monaco-workbench').click({ position: { x: 720, y: 450 } }).catch(() => {});
      await page.keyboard.press('Control+P');
      await quickInput.locator('input').fill('greet.go');
      await pickQuick('greet.go');
      await waitFor('greet.go editor', async () => (await page.locator('.tab.active', { hasText: 'greet.go' }).count()) > 0);
      mark = events().length;
      await runCommand('Rewind: Rewind to Turn…');
      await pickQuick('Turn 1: add a greeting function');
      await pickQuick('Code');
      await page.locator('.monaco-dialog-box .monaco-button', { hasText: /^Rewind$/ }).first().click();
      const r5 = await waitEvent('rewound', { after: mark, ms: 60000 });
      mark = events().length;
      await runCommand('Rewind: Undo Last Rewind');
      const u5 = await waitEvent('undone', { after: mark, ms: 60000 });
      const d5 = await waitFor('disk at turn 2', async () => (treeDiff(path.join(EXPECT, 'turn2-end'), WS) === '' ? 'same' : ''), 15000).catch(() => treeDiff(path.join(EXPECT, 'turn2-end'), WS));
      check('undo restores a file the rewind deleted while it was open in a tab', r5.data.applied && u5.data.applied && d5 === 'same', { r5: r5.data, u5: u5.data, d5 });
    }
  });
}

/** conflict: a rewind over unsaved edits asks what to do; Enter cancels; "Rewind the other files" leaves the edited file alone. */
export async function conflict(h) {
  const { page, section, runCommand, pickQuick, quickInput, editorText, focusTab, shot } = h;
  const { WS, EXPECT } = process.env;
  let mark = 0;
  await section('A conflict', async () => {
    // ---- A conflict: unsaved edits in main.go.
    await focusTab('main.go');
    await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.type('// my own unsaved edit');
    await page.keyboard.press('Enter');
    await waitFor('dirty main.go', async () => (await page.locator('.tab.dirty', { hasText: 'main.go' }).count()) > 0);
    // The conflict chooser: it names the unsaved changes, and Enter cancels.
    mark = events().length;
    await runCommand('Rewind: Rewind to Turn…');
    await pickQuick('Turn 1: add a greeting function');
    await pickQuick('Code');
    const shown = await waitEvent('conflictsShown', { after: mark, ms: 30000 });
    check('the conflict chooser says "unsaved changes in main.go"', /unsaved changes in main\.go/.test(shown.data.placeHolder), shown.data);
    const activeRow = quickInput.locator('.quick-input-list .monaco-list-row.focused').first();
    await activeRow.waitFor({ timeout: 10000 });
    check('Cancel is the choice Enter takes', /^Cancel\b/.test((await activeRow.innerText()).trim()), await activeRow.innerText());
    await shot(page, 'conflict-chooser.png');
    await page.keyboard.press('Enter');
    const cancelled = await waitEvent('conflictChoice', { after: mark, ms: 15000 });
    const cancelledAt = events().length;
    const diffAfterCancel = treeDiff(path.join(EXPECT, 'turn2-end'), WS);
    // "Rewind the other files" restores the rest and leaves main.go's buffer (unsaved) and file alone.
    mark = events().length;
    await runCommand('Rewind: Rewind to Turn…');
    await pickQuick('Turn 1: add a greeting function');
    await pickQuick('Code');
    // The cancelled rewind rewound nothing by the time this one asks about the same conflict.
    await waitEvent('conflictsShown', { after: mark, ms: 30000 });
    const asked = events().findIndex((e, i) => i >= mark && e.event === 'conflictsShown');
    check('Enter cancels: nothing rewound, files as they were', cancelled.data.choice === 'cancel' &&
      !events().slice(cancelledAt, asked).some((e) => e.event === 'rewound') && diffAfterCancel === '', { cancelled: cancelled.data, diff: diffAfterCancel });
    await pickQuick('Rewind the other files');
    const r7 = await waitEvent('rewound', { after: mark, ms: 60000 });
    const mainNow = fs.readFileSync(path.join(WS, 'main.go'));
    check('the other files are rewound; main.go is left as it was on disk', r7.data.applied &&
      !fs.existsSync(path.join(WS, 'greet.go')) && fs.readFileSync(path.join(WS, 'notes.txt')).equals(fs.readFileSync(path.join(EXPECT, 'turn1-start', 'notes.txt'))) &&
      mainNow.equals(fs.readFileSync(path.join(EXPECT, 'turn2-end', 'main.go'))), r7.data);
    await focusTab('main.go');
    check('the unsaved edit stays in the editor, unsaved', (await editorText()).includes('// my own unsaved edit') && (await page.locator('.tab.dirty', { hasText: 'main.go' }).count()) > 0);
    mark = events().length;
    await runCommand('Rewind: Undo Last Rewind');
    const u7 = await waitEvent('undone', { after: mark, ms: 60000 });
    await runCommand('File: Revert File');
    await waitFor('clean main.go', async () => (await page.locator('.tab.dirty', { hasText: 'main.go' }).count()) === 0);
    const d7 = await waitFor('disk at turn 2', async () => (treeDiff(path.join(EXPECT, 'turn2-end'), WS) === '' ? 'same' : ''), 15000).catch(() => treeDiff(path.join(EXPECT, 'turn2-end'), WS));
    check('undo brings the other files back', u7.data.applied && d7 === 'same', { u7: u7.data, d7 });
  });
}
