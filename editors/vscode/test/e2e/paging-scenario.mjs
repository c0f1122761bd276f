// A history longer than a page in a real VS Code: the Rewind view and the turn pick list the latest
// page of turns (rewind.turnsPerPage, 50); "Show Older Turns…" at the end of the view's list and
// "Older turns…" in the pick load the page before; a journal change keeps the pages loaded; and a
// rewind to a turn of an older page, chosen in the pick, restores that turn's start. Run last by
// drive.mjs: it adds 120 turns.
//   turns (command line, as an agent hook would): "paging turn 001 done" … "paging turn 120 done",
//   turn i writing pages.txt as "paging turn i done".
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const TURNS = 120;
const PAGE = 50;
const name = (i) => `paging turn ${String(i).padStart(3, '0')} done`;

export async function pagingScenario(h) {
  const { page, section, check, runCommand, quickInput, quickRow, pickQuick, dialog, waitEvent, waitFor, events, shot, lap } = h;
  const { WS, STORE, LSP_BIN } = process.env;
  const pages = path.join(WS, 'pages.txt');
  const cli = (...args) => execFileSync(LSP_BIN, ['--root', WS, '--store', STORE, ...args]).toString();

  await section('A history longer than a page: the view and the pick page back', async () => {
    let mark = events().length;
    const t0 = Date.now();
    for (let i = 1; i <= TURNS; i++) {
      cli('turn', 'start', '--prompt', name(i));
      fs.writeFileSync(pages, name(i) + '\n');
      cli('turn', 'end');
    }
    const latest = JSON.parse(cli('--json', 'log', '--limit', '1')).turns[0].turn;
    const first = latest - TURNS + 1; // the turn of name(1)
    const numbers = (from, to) => Array.from({ length: to - from + 1 }, (_, k) => from + k);
    lap(`${TURNS} turns made on the command line in ${((Date.now() - t0) / 1000).toFixed(1)}s (turns ${first}-${latest})`);

    // ---- The view: the latest page, then "Show Older Turns…" loads the page before.
    await runCommand('Rewind: Focus on Timeline View');
    const loaded = await waitEvent('timelineLoaded', { after: mark, ms: 60000, where: (d) => d.root === WS && d.turns.includes(latest) });
    check(`the Rewind view lists the latest page: turns ${latest - PAGE + 1}-${latest}, older ones left out`,
      JSON.stringify(loaded.data.turns) === JSON.stringify(numbers(latest - PAGE + 1, latest)) && loaded.data.more === true, loaded.data);
    const rows = page.locator('.sidebar .monaco-list-row');
    const older = rows.filter({ hasText: 'Show Older Turns…' }).first();
    // The list is long: the last row comes into view with End, from the view's keyboard focus.
    await rows.filter({ hasText: name(TURNS) }).first().waitFor({ timeout: 20000 });
    await page.keyboard.press('End');
    if (!(await older.waitFor({ timeout: 5000 }).then(() => true, () => false))) {
      await rows.filter({ hasText: name(TURNS) }).first().click();
      await page.keyboard.press('End');
    }
    await older.waitFor({ timeout: 10000 });
    const olderText = (await older.innerText()).replace(/\s+/g, ' ');
    check(`the view's last row is "Show Older Turns…", before turn ${latest - PAGE + 1}`, olderText.includes(`before turn ${latest - PAGE + 1}`), olderText);
    check('the first page leaves out the older turns', (await rows.filter({ hasText: name(TURNS - PAGE) }).count()) === 0);
    await shot(page, 'timeline-older.png');
    mark = events().length;
    await older.click();
    const paged = await waitEvent('timelinePaged', { after: mark, ms: 30000, where: (d) => d.root === WS });
    check(`"Show Older Turns…" lists the page before: turns ${latest - 2 * PAGE + 1}-${latest - PAGE}`,
      paged.data.before === latest - PAGE + 1 && JSON.stringify(paged.data.turns) === JSON.stringify(numbers(latest - 2 * PAGE + 1, latest - PAGE)) && paged.data.more === true, paged.data);
    const both = await waitEvent('timelineLoaded', { after: mark, ms: 30000, where: (d) => d.root === WS });
    check('the view shows both pages, the older one below', JSON.stringify(both.data.turns) === JSON.stringify(numbers(latest - 2 * PAGE + 1, latest)), both.data);
    await page.keyboard.press('End');
    const nextOlder = await waitFor('the next "Show Older Turns…"', async () => {
      const t = (await older.innerText().catch(() => '')).replace(/\s+/g, ' ');
      return t.includes(`before turn ${latest - 2 * PAGE + 1}`) ? t : '';
    }, 15000).catch(() => '');
    const oldest = await rows.filter({ hasText: name(TURNS - 2 * PAGE + 1) }).count();
    check('the older page\'s turns are rows of the view, and "Show Older Turns…" moved below them', !!nextOlder && oldest > 0, { nextOlder, oldest });
    await shot(page, 'timeline-two-pages.png');

    // A journal change re-lists as many turns as the view shows: the older page stays.
    mark = events().length;
    cli('checkpoint', 'paging-checkpoint');
    const relisted = await waitEvent('timelineLoaded', { after: mark, ms: 30000, where: (d) => d.root === WS });
    check('a journal change keeps the page loaded (both pages listed again)', relisted.data.turns.length === 2 * PAGE && relisted.data.turns.includes(latest - 2 * PAGE + 1) && relisted.data.more === true, relisted.data);
    lap('view paged');

    // ---- The pick: the latest page, "Older turns…" loads older pages into it; a rewind to a turn
    // of the oldest page (turn name(5)) restores its start.
    const target = first + 4;
    mark = events().length;
    await runCommand('Rewind: Rewind to Turn…');
    const shown = await waitEvent('quickPickShown', { after: mark, ms: 20000 });
    const turnLabels = shown.data.items.filter((l) => /^Turn \d+:/.test(l));
    check(`the turn pick lists the latest ${PAGE} turns, newest first, then "Older turns…"`,
      turnLabels.length === PAGE && turnLabels[0] === `Turn ${latest}: ${name(TURNS)}` && turnLabels[PAGE - 1] === `Turn ${latest - PAGE + 1}: ${name(TURNS - PAGE + 1)}` &&
      shown.data.items.includes('Older turns…'), shown.data.items.slice(0, 3).concat(shown.data.items.slice(-3)));
    // A person looking for the turn types its prompt: "Older turns…" stays in the pick.
    await quickInput.locator('input').fill(name(5));
    await quickRow('Older turns…').waitFor({ timeout: 10000 });
    check('the turn sought is not on the first page', (await quickRow(name(5)).count()) === 0);
    await shot(page, 'pick-older.png');
    for (let n = 1; n <= 2; n++) {
      const before = events().length;
      await pickQuick('Older turns…');
      const more = await waitEvent('quickPickPaged', { after: before, ms: 20000 });
      // The oldest page holds the rest: the turns made here and the scenarios' before them.
      const want = n === 1 ? numbers(latest - 2 * PAGE + 1, latest - PAGE) : numbers(Math.max(1, latest - 3 * PAGE + 1), latest - 2 * PAGE);
      check(`"Older turns…" loads page ${n + 1} into the pick (turns ${want[0]}-${want[want.length - 1]})`, JSON.stringify(more.data.turns) === JSON.stringify(want), more.data);
    }
    await quickRow(name(5)).waitFor({ timeout: 10000 });
    await pickQuick(name(5));
    await pickQuick('Code');
    await dialog.waitFor({ timeout: 15000 });
    const plan = await dialog.innerText();
    check(`the plan is the rewind to turn ${target}`, new RegExp(`Rewind to turn ${target}\\b`).test(plan) && /M pages\.txt/.test(plan), plan);
    mark = events().length;
    await dialog.locator('.monaco-button', { hasText: /^Rewind$/ }).first().click();
    const rewound = await waitEvent('rewound', { after: mark, ms: 60000 });
    const disk = await waitFor('pages.txt at turn 5\'s start', async () => (fs.readFileSync(pages, 'utf8') === name(4) + '\n' ? 'ok' : ''), 15000).catch(() => fs.readFileSync(pages, 'utf8'));
    check('the rewind to a turn of an older page restores its start (pages.txt as turn 4 left it)', rewound.data.applied && disk === 'ok', { rewound: rewound.data, disk });
    mark = events().length;
    await runCommand('Rewind: Undo Last Rewind');
    const undone = await waitEvent('undone', { after: mark, ms: 60000 });
    const back = await waitFor('pages.txt back', async () => (fs.readFileSync(pages, 'utf8') === name(TURNS) + '\n' ? 'ok' : ''), 15000).catch(() => fs.readFileSync(pages, 'utf8'));
    check('undo brings the latest turn\'s pages.txt back', undone.data.applied && back === 'ok', { undone: undone.data, back });
    lap('paging scenario done');
  });
}
