// Agent blame and Revert One Turn in a real VS Code: blame names the turn that wrote each line;
// reverting one turn keeps the later ones; a revert over the person's own edit is refused naming
// `user`; undo takes a revert back. Run last by drive.mjs: it adds turns and files of its own.
//   turns (command line, as an agent hook would): W writes story.txt; F edits its first line;
//   M edits its middle line and creates made.txt; L edits its last line.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const LINES = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const text = (edits) => LINES.map((l, i) => edits[i] ?? l).join('\n') + '\n';

export async function revertScenario(h) {
  const { page, section, check, runCommand, pickQuick, editorText, focusTab, contextMenu, dialog, waitEvent, waitFor, events, shot, lap, quickInput } = h;
  const { WS, STORE, LSP_BIN } = process.env;
  const story = path.join(WS, 'story.txt');
  const made = path.join(WS, 'made.txt');
  const cli = (...args) => execFileSync(LSP_BIN, ['--root', WS, '--store', STORE, ...args]).toString();
  const turn = (prompt, edit) => {
    cli('turn', 'start', '--prompt', prompt);
    edit();
    cli('turn', 'end');
  };
  const turnNumber = (prompt) => {
    const list = JSON.parse(cli('--json', 'log'));
    return list.turns.find((t) => t.prompt === prompt).turn;
  };
  /** blameAt waits for the blame of story.txt shown after `after` events that `ok` accepts. */
  const blameAt = (after, ok) =>
    waitEvent('blameShown', { after, ms: 20000, where: (d) => d.path === 'story.txt' && ok(new Map(d.lines.map((x) => [x.line, x.turn]))) });

  await section('Agent blame and Revert One Turn (keep later changes)', async () => {
    const listed = events().length;
    turn('story: write it', () => fs.writeFileSync(story, text({})));
    turn('story: shout the first line', () => fs.writeFileSync(story, text({ 0: 'ONE' })));
    turn('story: shout the middle line and add a file', () => {
      fs.writeFileSync(story, text({ 0: 'ONE', 4: 'FIVE' }));
      fs.writeFileSync(made, 'made by the middle turn\n');
    });
    turn('story: shout the last line', () => fs.writeFileSync(story, text({ 0: 'ONE', 4: 'FIVE', 8: 'NINE' })));
    const [tW, tF, tM, tL] = ['story: write it', 'story: shout the first line', 'story: shout the middle line and add a file', 'story: shout the last line'].map(turnNumber);
    lap(`story turns ${tW} ${tF} ${tM} ${tL}`);

    // Open story.txt and switch blame on: each line names the turn that wrote it.
    // Quick open by its full path: a file made seconds ago may not be in the file index yet.
    for (let i = 0; i < 5; i++) {
      await page.locator('.monaco-workbench').click({ position: { x: 720, y: 450 } }).catch(() => {});
      await page.keyboard.press('Control+P');
      await quickInput.locator('input').fill(story);
      if (await pickQuick('story.txt').then(() => true, () => false)) break;
      await page.keyboard.press('Escape');
    }
    await waitFor('story.txt editor', async () => (await editorText()).includes('FIVE'));
    let mark = events().length;
    await runCommand('Rewind: Toggle Agent Blame');
    const shown = await blameAt(mark, (m) => m.size > 0);
    const m1 = new Map(shown.data.lines.map((x) => [x.line, x.turn]));
    check('blame: each line names the turn that last wrote it', m1.get(0) === tF && m1.get(4) === tM && m1.get(8) === tL && m1.get(1) === tW, shown.data.lines);
    await shot(page, 'blame.png');

    // The person edits the middle line (unsaved): blame drops it, and reverting the middle turn is refused naming user.
    mark = events().length;
    await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+Home');
    for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('End');
    await page.keyboard.type(' (mine)');
    const edited = await blameAt(mark, (m) => !m.has(4) && m.get(0) === tF);
    check('blame: the line the person edited names no turn', !new Map(edited.data.lines.map((x) => [x.line, x.turn])).has(4), edited.data.lines);
    mark = events().length;
    await runCommand('Rewind: Revert One Turn…');
    await pickQuick(`Turn ${tM}: story: shout the middle line`);
    const refused = await waitEvent('reverted', { after: mark, ms: 30000 });
    const plan1 = await waitEvent('revertPlanShown', { after: mark });
    check('revert over the person\'s edit is refused naming user', refused.data.applied === false && /story\.txt\s+\(conflict: changed since by user\)/.test(plan1.data.detail), plan1.data);
    check('a refused revert changes nothing', fs.existsSync(made) && fs.readFileSync(story, 'utf8') === text({ 0: 'ONE', 4: 'FIVE', 8: 'NINE' }));
    await shot(page, 'revert-refused.png');
    await runCommand('File: Revert File');
    await waitFor('clean story.txt', async () => (await page.locator('.tab.dirty', { hasText: 'story.txt' }).count()) === 0);

    // "Revert This Turn Only" on the middle turn in the Rewind view, once the view has listed the
    // story's turns: nothing changes the journal after that, so no row is redrawn under the menu
    // (the view's once-a-minute re-listing updates the rows in place, keeping them).
    await runCommand('Rewind: Focus on Timeline View');
    await waitEvent('timelineLoaded', { after: listed, where: (d) => d.root === WS && d.turns.includes(tL) });
    const row = page.locator('.sidebar .monaco-list-row', { hasText: 'story: shout the middle line' }).first();
    await row.waitFor({ timeout: 20000 });
    mark = events().length;
    const menu = await contextMenu(row, 'Revert This Turn Only');
    check('the Rewind view offers "Revert This Turn Only" on a turn', menu);
    // The confirmation, or, when VS Code passed the command no turn (the view was being redrawn),
    // the turn pick a person then answers.
    const asked = await waitFor('the confirmation or the turn pick', async () =>
      (await dialog.isVisible()) ? 'confirmation' : events().slice(mark).some((e) => e.event === 'viewItemMissing') ? 'pick' : '', 15000);
    if (asked === 'pick') {
      console.log('# the view passed "Revert This Turn Only" no turn (it was being redrawn): picked the turn');
      await pickQuick(`Turn ${tM}: story: shout the middle line`);
    }
    await dialog.waitFor({ timeout: 15000 });
    const confirmText = await dialog.innerText();
    check('the confirmation says what changes and that later changes are kept', /2 files will change/.test(confirmText) && /everything after the turn is kept/.test(confirmText) && /D made\.txt\s+\+0 -1/.test(confirmText), confirmText);
    await dialog.locator('.monaco-button', { hasText: /^Revert$/ }).first().click();
    const done = await waitEvent('reverted', { after: mark, ms: 60000, where: (d) => d.applied });
    const want = text({ 0: 'ONE', 8: 'NINE' });
    const disk = await waitFor('story.txt reverted on disk', async () => (fs.readFileSync(story, 'utf8') === want ? 'ok' : ''), 15000).catch(() => fs.readFileSync(story, 'utf8'));
    check('revert keeps the turns before and after exactly and removes the created file', done.data.applied && disk === 'ok' && !fs.existsSync(made), { disk, made: fs.existsSync(made) });
    await focusTab('story.txt');
    check('the open editor shows the revert, saved', (await editorText()).includes('five') && (await page.locator('.tab.dirty', { hasText: 'story.txt' }).count()) === 0, await editorText());
    const after = await blameAt(mark, (m) => !m.has(4) && m.get(0) === tF && m.get(8) === tL).then((e) => e.data.lines, () => null);
    check('blame after the revert: the first and last turns on their lines, nothing on the reverted one', !!after, after);
    await shot(page, 'after-revert.png');

    // Undo brings the revert back.
    mark = events().length;
    await runCommand('Rewind: Undo Last Rewind');
    const undone = await waitEvent('undone', { after: mark, ms: 60000 });
    const back = await waitFor('story.txt back', async () => (fs.readFileSync(story, 'utf8') === text({ 0: 'ONE', 4: 'FIVE', 8: 'NINE' }) ? 'ok' : ''), 15000).catch(() => fs.readFileSync(story, 'utf8'));
    check('undo brings the reverted turn back (and its file)', undone.data.applied && back === 'ok' && fs.existsSync(made), { back, undone: undone.data });
    lap('revert scenario done');
  });
}
