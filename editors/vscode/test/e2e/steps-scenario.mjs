// Steps in a real VS Code: a turn with three tool calls shows three step rows under it in the
// Rewind view, each with its files (a file opens its diff from before the step); Preview Step
// opens the diffs of the rewind to just before the step; Rewind to Before This Step restores the
// state step 1 left, byte for byte; Revert This Step Only takes back that step alone; Undo takes
// each back; the turn picks offer a turn's steps right after it; agent blame names the step that
// wrote a line, and its hover links that step's preview and revert in the file. Run by drive.mjs
// after the revert scenario: it adds two turns and three files of its own.
//   turns (command line and Claude Code's hook, as the agent would): "steps: set up" writes
//   steps-a.txt and steps-b.txt; "steps: three tools" (session steps-e2e) runs Write steps-c.txt,
//   Edit steps-a.txt (a line added) and Bash `sed` (steps-b.txt upper-cased), one step each.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export async function stepsScenario(h) {
  const { page, section, check, runCommand, quickInput, pickQuick, editorText, focusTab, contextMenu, dialog, waitEvent, waitFor, events, shot, lap } = h;
  const { WS, STORE, LSP_BIN } = process.env;
  const file = (name) => path.join(WS, name);
  const cli = (...args) => execFileSync(LSP_BIN, ['--root', WS, '--store', STORE, ...args]).toString();
  const SESSION = 'steps-e2e';
  /** tool runs one tool call as Claude Code's hooks report it: PreToolUse, the change, PostToolUse. */
  const tool = (id, name, input, change) => {
    const hook = (event) =>
      execFileSync(LSP_BIN, ['--root', WS, '--store', STORE, 'hook', 'claude-code'], {
        input: JSON.stringify({ hook_event_name: event, session_id: SESSION, cwd: WS, tool_name: name, tool_input: input, tool_use_id: id }),
      });
    hook('PreToolUse');
    change();
    hook('PostToolUse');
  };
  /** tree lists every file under WS (relative path → bytes; a symbolic link → its target's name). */
  const tree = (dir = WS, out = new Map()) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) tree(p, out);
      else out.set(path.relative(WS, p), e.isSymbolicLink() ? Buffer.from('-> ' + fs.readlinkSync(p)) : fs.readFileSync(p));
    }
    return out;
  };
  /** differs says how the workspace differs from `want` (a tree() of it), byte for byte; '' when the same. */
  const differs = (want) => {
    const got = tree();
    const out = [];
    for (const [p, bytes] of want) if (!got.has(p)) out.push(`missing ${p}`); else if (!bytes.equals(got.get(p))) out.push(`differs ${p}: ${JSON.stringify(got.get(p).toString())}`);
    for (const p of got.keys()) if (!want.has(p)) out.push(`extra ${p}`);
    return out.join('; ');
  };
  const same = (what, want) => waitFor(what, async () => (differs(want) === '' ? 'same' : ''), 15000).catch(() => differs(want));
  /** The turns the first section made: "steps: set up" (no tool calls) and "steps: three tools";
   *  the files at the end of the latter. */
  let setUp, n, end;

  await section('Steps: the rows of a turn\'s tool calls, Preview Step, Rewind to Before This Step, Revert This Step Only', async () => {
    let mark = events().length;
    cli('turn', 'start', '--prompt', 'steps: set up', '--session', SESSION);
    fs.writeFileSync(file('steps-a.txt'), 'alpha\n');
    fs.writeFileSync(file('steps-b.txt'), 'bravo\n');
    cli('turn', 'end', '--session', SESSION);
    cli('turn', 'start', '--prompt', 'steps: three tools', '--session', SESSION);
    tool('st1', 'Write', { file_path: file('steps-c.txt') }, () => fs.writeFileSync(file('steps-c.txt'), 'charlie\n'));
    const afterStep1 = tree();
    tool('st2', 'Edit', { file_path: file('steps-a.txt') }, () => fs.writeFileSync(file('steps-a.txt'), 'alpha\nALPHA 2\n'));
    const sed = 'sed -i s/bravo/BRAVO/ steps-b.txt';
    tool('st3', 'Bash', { command: sed }, () => execFileSync('sh', ['-c', sed], { cwd: WS }));
    cli('turn', 'end', '--session', SESSION);
    end = tree();
    const turns = JSON.parse(cli('--json', 'log')).turns;
    const t = turns.find((x) => x.prompt === 'steps: three tools');
    setUp = turns.find((x) => x.prompt === 'steps: set up').turn;
    n = t.turn;
    check('the command line records the turn\'s three tool calls as steps', JSON.stringify((t.steps ?? []).map((s) => `${s.target} ${s.tool}`)) === JSON.stringify([`${n}.1 Write`, `${n}.2 Edit`, `${n}.3 Bash`]), t.steps);
    lap(`steps turn ${n}`);

    // ---- The view: the turn expands to its three steps, then its files.
    await runCommand('Rewind: Focus on Timeline View');
    await waitEvent('timelineLoaded', { after: mark, ms: 30000, where: (d) => d.root === WS && d.turns.includes(n) });
    const turnRow = page.locator('.sidebar .monaco-list-row[aria-level="2"]', { hasText: new RegExp(`Turn ${n}: steps: three tools.*3 files changed`) }).first();
    await turnRow.waitFor({ timeout: 20000 });
    mark = events().length;
    await turnRow.click();
    const expanded = await waitEvent('turnExpanded', { after: mark, where: (d) => d.turn === n });
    const stepRow = (k) => page.locator('.sidebar .monaco-list-row[aria-level="3"]', { hasText: `turn ${n}, step ${k}:` }).first();
    await stepRow(3).waitFor({ timeout: 10000 });
    const stepRows = (await page.locator('.sidebar .monaco-list-row[aria-level="3"]', { hasText: new RegExp(`turn ${n}, step \\d+:`) }).allInnerTexts()).map((r) => r.replace(/\s+/g, ' ').trim());
    check('a turn with three tool calls shows three step rows, in order, titled by the server',
      stepRows.length === 3 && /^turn \d+, step 1: Write \S*steps-c\.txt/.test(stepRows[0]) && /^turn \d+, step 2: Edit \S*steps-a\.txt/.test(stepRows[1]) &&
      stepRows[2].startsWith(`turn ${n}, step 3: Bash "${sed}"`) && expanded.data.steps.length === 3, { stepRows, expanded: expanded.data });
    check('a step row says when and what it changed', /\d+[smhd] ago · 1 file changed \(\+1 -0\)/.test(stepRows[1]), stepRows[1]);
    const levels3 = (await page.locator('.sidebar .monaco-list-row[aria-level="3"]').allInnerTexts()).map((r) => r.replace(/\s+/g, ' ').trim());
    const firstFile = levels3.findIndex((r) => /^steps-[abc]\.txt/.test(r));
    check('after its steps the turn lists its files', firstFile > levels3.findIndex((r) => r.startsWith(`turn ${n}, step 3:`)), levels3);
    await shot(page, 'timeline-steps.png');

    // A step expands to its files; a file opens its diff from before the step.
    await stepRow(2).click();
    const stepFile = page.locator('.sidebar .monaco-list-row[aria-level="4"]', { hasText: 'steps-a.txt' }).first();
    await stepFile.waitFor({ timeout: 10000 });
    mark = events().length;
    await stepFile.click();
    const fd = await waitEvent('fileDiffOpened', { after: mark, ms: 15000 });
    await page.locator('.monaco-diff-editor').first().waitFor({ timeout: 20000 });
    const tab = await page.locator('.tab.active').first().innerText().catch(() => '');
    check('a step\'s file opens its diff, before the step ↔ now', fd.data.path === 'steps-a.txt' && fd.data.step === 2 && tab.includes(`before step 2 of turn ${n}`), { fd: fd.data, tab });
    await runCommand('View: Close Editor');

    /** onStep runs a step's menu item; when VS Code hands the command no row (it redraws the view),
     *  the command asks for the step in the turn pick, which a person then answers. */
    const onStep = async (k, label) => {
      await runCommand('Rewind: Focus on Timeline View');
      await stepRow(k).waitFor({ timeout: 20000 });
      const at = events().length;
      check(`the step's menu offers "${label}"`, await contextMenu(stepRow(k), label));
      const missing = await waitFor('the command to start', async () =>
        (await dialog.isVisible()) || events().slice(at).some((e) => ['previewOpened', 'revertPlanShown', 'viewItemMissing'].includes(e.event))
          ? (events().slice(at).some((e) => e.event === 'viewItemMissing') ? 'missing' : 'ok') : '', 15000);
      if (missing === 'missing') {
        console.log(`# the view passed "${label}" no step (it was being redrawn): picked the step`);
        await pickQuick(`turn ${n}, step ${k}:`);
      }
      return at;
    };

    // ---- Preview Step: the diffs of the rewind to just before step 2 (steps 2 and 3 taken back).
    mark = await onStep(2, 'Preview Step');
    const opened = await waitEvent('previewOpened', { after: mark, ms: 20000 });
    check('Preview Step opens the diffs of the rewind to just before the step: steps-a.txt and steps-b.txt',
      opened.data.target.step === 2 && opened.data.target.turn === n && JSON.stringify([...opened.data.files].sort()) === JSON.stringify(['steps-a.txt', 'steps-b.txt']), opened.data);
    await page.locator('.monaco-diff-editor').first().waitFor({ timeout: 20000 });
    const title = await page.locator('.tab.active').first().innerText().catch(() => '');
    check('… titled as the server names the step', title.includes(`before step 2 of turn ${n}`), title);
    await shot(page, 'preview-step.png');
    await runCommand('View: Close Editor');
    check('a preview changes nothing', differs(end) === '', differs(end));

    // ---- Rewind to Before This Step: no mode asked (a step moves files only), the plan, applied.
    mark = await onStep(2, 'Rewind to Before This Step');
    await dialog.waitFor({ timeout: 15000 });
    const plan = await dialog.innerText();
    check('the plan is the rewind to just before step 2, in mode code', new RegExp(`Rewind to before step 2 of turn ${n} \\(Edit `).test(plan) && /2 files will change: 2 restored/.test(plan), plan);
    await dialog.locator('.monaco-button', { hasText: /^Rewind$/ }).first().click();
    const rewound = await waitEvent('rewound', { after: mark, ms: 60000 });
    const d1 = await same('the workspace as step 1 left it', afterStep1);
    check('Rewind to Before This Step restores the state after step 1, byte for byte', rewound.data.applied && d1 === 'same', { rewound: rewound.data, d1 });
    mark = events().length;
    await runCommand('Rewind: Undo Last Rewind');
    const undone = await waitEvent('undone', { after: mark, ms: 60000 });
    const d2 = await same('the end of the turn', end);
    check('Undo brings back the end of the turn', undone.data.applied && d2 === 'same', { undone: undone.data, d2 });

    // ---- Revert This Step Only: step 2 goes back alone; steps 1 and 3 stay.
    mark = await onStep(2, 'Revert This Step Only');
    await dialog.waitFor({ timeout: 15000 });
    const confirm = await dialog.innerText();
    check('the confirmation names the step and keeps everything after it', /step 2 of turn \d+/.test(confirm) && /everything after the step is kept/.test(confirm) && /M steps-a\.txt\s+\+0 -1/.test(confirm), confirm);
    await dialog.locator('.monaco-button', { hasText: /^Revert$/ }).first().click();
    const reverted = await waitEvent('reverted', { after: mark, ms: 60000, where: (d) => d.applied });
    const want = new Map(end);
    want.set('steps-a.txt', Buffer.from('alpha\n'));
    const d3 = await same('step 2 taken back', want);
    check('Revert This Step Only takes back that step alone (steps 1 and 3 stay)', reverted.data.applied && d3 === 'same', { reverted: reverted.data, d3 });
    mark = events().length;
    await runCommand('Rewind: Undo Last Rewind');
    const undone2 = await waitEvent('undone', { after: mark, ms: 60000 });
    const d4 = await same('the end of the turn', end);
    check('Undo brings the reverted step back', undone2.data.applied && d4 === 'same', { undone: undone2.data, d4 });

    // ---- The turn picks offer the steps right after their turn; a step is rewound without a mode.
    mark = events().length;
    await runCommand('Rewind: Revert One Turn…');
    const revertPick = await waitEvent('quickPickShown', { after: mark, ms: 20000 });
    const at = revertPick.data.items.indexOf(`Turn ${n}: steps: three tools`);
    const following = revertPick.data.items.slice(at + 1, at + 4);
    check('Revert One Turn… offers the turn\'s three steps right after it (marked ↳)',
      at >= 0 && following.length === 3 && following.every((l, i) => l.startsWith(`↳ turn ${n}, step ${i + 1}:`)) && /^Turn \d+:/.test(revertPick.data.items[at + 4] ?? 'Turn'), revertPick.data.items.slice(Math.max(0, at - 1), at + 5));
    await page.keyboard.press('Escape');
    mark = events().length;
    await runCommand('Rewind: Rewind to Turn…');
    await waitEvent('quickPickShown', { after: mark, ms: 20000 });
    await quickInput.locator('input').fill(`turn ${n}, step 3`);
    await pickQuick(`turn ${n}, step 3: Bash`);
    await dialog.waitFor({ timeout: 15000 });
    const plan3 = await dialog.innerText();
    check('choosing a step in Rewind to Turn… plans the rewind to just before it ("N.3"), asking no mode',
      new RegExp(`Rewind to before step 3 of turn ${n} \\(Bash `).test(plan3) && events().slice(mark).some((e) => e.event === 'planShown' && e.data.target === `${n}.3` && e.data.mode === 'code'), plan3);
    await dialog.locator('.monaco-button', { hasText: /^Cancel$/ }).first().click().catch(() => page.keyboard.press('Escape'));
    await dialog.waitFor({ state: 'hidden', timeout: 10000 }).catch(() => {});
    check('cancelling changes nothing', differs(end) === '', differs(end));
    lap('steps scenario done');
  });

  // Agent blame: the line step 2 wrote (a rewind and a revert to it, each undone, leave it the
  // step's) names the step; the line of a turn that ran no tool names the turn.
  await section('Steps: agent blame names the step that wrote a line; its hover links the step\'s preview and revert', async () => {
    if (!check('the steps turn was made', n !== undefined)) return;
    const on = events().filter((e) => e.event === 'blameToggled').at(-1)?.data.on === true;
    let mark = events().length;
    const a = file('steps-a.txt');
    // Quick open by its full path: a file made seconds ago may not be in the file index yet.
    for (let i = 0; i < 5; i++) {
      await page.locator('.monaco-workbench').click({ position: { x: 720, y: 450 } }).catch(() => {});
      await page.keyboard.press('Control+P');
      await quickInput.locator('input').fill(a);
      if (await pickQuick('steps-a.txt').then(() => true, () => false)) break;
      await page.keyboard.press('Escape');
    }
    await waitFor('steps-a.txt editor', async () => (await editorText()).includes('ALPHA 2'));
    if (!on) await runCommand('Rewind: Toggle Agent Blame');
    const shown = await waitEvent('blameShown', { after: mark, ms: 20000, where: (d) => d.path === 'steps-a.txt' && d.lines.some((x) => x.line === 1 && x.step === 2) });
    const line = new Map(shown.data.lines.map((x) => [x.line, x]));
    const l0 = line.get(0) ?? {};
    const l1 = line.get(1) ?? {};
    check('blame: the line step 2 wrote names the step ("turn N, step 2: Edit steps-a.txt · 5s ago")',
      l1.turn === n && l1.step === 2 && new RegExp(`^turn ${n}, step 2: Edit \\S*steps-a\\.txt · \\d+[smhd] ago$`).test(l1.note), shown.data.lines);
    check('blame: the line of the turn that ran no tool names the turn ("Turn N: steps: set up · 5s ago")',
      l0.turn === setUp && l0.step === 0 && new RegExp(`^Turn ${setUp}: steps: set up · \\d+[smhd] ago$`).test(l0.note), shown.data.lines);
    // The notes as the editor draws them after the lines.
    const drawn = () =>
      page.evaluate(() =>
        [...document.querySelectorAll('.editor-group-container.active .monaco-editor .view-lines span')]
          .map((el) => getComputedStyle(el, '::after').content)
          .filter((c) => c && c !== 'none' && c !== 'normal'),
      );
    const notes = await waitFor('the notes drawn after the lines', async () => {
      const d = await drawn();
      return d.some((c) => c.includes(`turn ${n}, step 2: Edit`)) ? d : '';
    }, 10000).catch(drawn);
    check('the editor draws the step\'s note after its line', notes.some((c) => c.includes(`turn ${n}, step 2: Edit`)) && notes.some((c) => c.includes(`Turn ${setUp}: steps: set up`)), notes);
    await shot(page, 'blame-step.png');

    // The hover of the step's line: the step, as the server's own hover names it, and its links.
    const hover = page.locator('.monaco-hover:visible', { hasText: 'Agent turn' }).first();
    const hoverLine = async () => {
      await page.mouse.move(5, 5);
      await hover.waitFor({ state: 'hidden', timeout: 5000 }).catch(() => {});
      await page.locator('.editor-group-container.active .monaco-editor .view-line', { hasText: 'ALPHA 2' }).first().hover();
      await hover.waitFor({ timeout: 10000 });
      return (await hover.innerText()).replace(/\s+/g, ' ');
    };
    const said = await hoverLine();
    check('the hover names the step ("Agent turn N, step 2: Edit …") and links "Revert step 2 of turn N in this file"',
      said.includes(`Agent turn ${n}, step 2: Edit`) && said.includes('steps: three tools') && said.includes(`Revert step 2 of turn ${n} in this file`) && !said.includes(`Revert turn ${n}`), said);
    await shot(page, 'blame-step-hover.png');

    // Preview: the file before the step ↔ now.
    mark = events().length;
    await hover.locator('a', { hasText: /^Preview$/ }).first().click();
    const fd = await waitEvent('fileDiffOpened', { after: mark, ms: 15000 });
    await page.locator('.monaco-diff-editor').first().waitFor({ timeout: 20000 });
    const tab = await page.locator('.tab.active').first().innerText().catch(() => '');
    check('the hover\'s Preview opens steps-a.txt before the step ↔ now', fd.data.path === 'steps-a.txt' && fd.data.step === 2 && fd.data.turn === n && tab.includes(`before step 2 of turn ${n}`), { fd: fd.data, tab });
    await runCommand('View: Close Editor');

    // Revert: the dry run of reverting step 2 in this file alone; cancelled.
    await focusTab('steps-a.txt');
    await hoverLine();
    mark = events().length;
    await hover.locator('a', { hasText: `Revert step 2 of turn ${n} in this file` }).first().click();
    const plan = await waitEvent('revertPlanShown', { after: mark, ms: 20000 });
    await dialog.waitFor({ timeout: 15000 });
    const confirm = await dialog.innerText();
    check('the hover\'s Revert reverts the step in this file: its plan names step 2 and only steps-a.txt',
      plan.data.target === `${n}.2` && /step 2 of turn \d+/.test(confirm) && /in steps-a\.txt/.test(confirm) && /M steps-a\.txt\s+\+0 -1/.test(confirm) && !/steps-[bc]\.txt/.test(plan.data.detail), { plan: plan.data, confirm });
    await dialog.locator('.monaco-button', { hasText: /^Cancel$/ }).first().click().catch(() => page.keyboard.press('Escape'));
    await dialog.waitFor({ state: 'hidden', timeout: 10000 }).catch(() => {});
    check('cancelling changes nothing', differs(end) === '', differs(end));
    await runCommand('View: Close Editor');
    lap('steps blame done');
  });
}
