// Drives the code-server workbench like a person: command palette → Rewind commands → quick
// picks → modal → diff editors and the Rewind view; checks the DOM and the files on disk.
// Waits on real signals only: DOM selectors, files on disk, and the events file the extension
// appends to (REWIND_LSP_E2E_EVENTS). The scenarios are in *-scenario.mjs, run in the order below
// (each starts from the state the one before left); harness.mjs and workbench.mjs are the helpers.
import path from 'node:path';
import { agentRewindScenario } from './agent-rewind-scenario.mjs';
import { claudeConversation, geminiConversation } from './conversation-scenario.mjs';
import { check, events, lap, results, tree, waitEvent, waitFor } from './harness.mjs';
import { pagingScenario } from './paging-scenario.mjs';
import { revertScenario } from './revert-scenario.mjs';
import { stepsScenario } from './steps-scenario.mjs';
import { conflict, previewTurn, refactorPreview, rewindToTurn, undoDeletedTab, undoLastRewind } from './rewind-scenario.mjs';
import { brokenServer, missingServer, serverCrash } from './server-scenario.mjs';
import { ages, checkpoint, didChange, kinds, timelineView } from './view-scenario.mjs';
import { openWorkbench } from './workbench.mjs';

const { RUN, CS_URL, EXT_VERSION } = process.env;

const wb = await openWorkbench();
const { ctx, page, quickInput, pickQuick, editorText, shot } = wb;

try {
  await page.goto(CS_URL);
  await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
  lap('workbench rendered');
  const act = await waitEvent('activated', { ms: 90000 });
  check('extension activated in the remote extension host', !!act, act);
  const started = await waitEvent('serverStarted', { ms: 30000 });
  // No rewind-lsp on PATH, no rewind.serverPath: the server is the one the .vsix carries.
  const bundled = started.data.command;
  check('rewind-lsp started over stdio from the server inside the installed .vsix (none on PATH, no setting)',
    started.data.source === 'bundled' && bundled.startsWith(path.join(RUN, 'extensions') + '/') && bundled.endsWith('/server/linux-x64/rewind-lsp'), started.data);
  const checked = events().find((e) => e.event === 'serverChecked');
  check(`the extension checked that it runs: rewind-lsp ${EXT_VERSION}`, checked && checked.data.version === EXT_VERSION && checked.data.command === bundled, checked?.data);
  lap(`server started, VS Code ${act.data.vscodeVersion}`);

  // Status bar: the number of turns.
  const status = page.locator('.statusbar-item', { hasText: /\d+ turns?/ }).first();
  await status.waitFor({ timeout: 20000 }).catch(() => {});
  check('status bar shows "2 turns"', /\b2 turns\b/.test(await status.innerText().catch(() => '')), await status.innerText().catch((e) => String(e)));

  // Open main.go so we can later see the rewind land in an open editor.
  await page.locator('.monaco-workbench').click({ position: { x: 720, y: 450 } }).catch(() => {});
  await page.keyboard.press('Control+P');
  await quickInput.locator('input').fill('main.go');
  await pickQuick('main.go');
  await waitFor('main.go editor', async () => (await page.locator('.tab.active', { hasText: 'main.go' }).count()) > 0);
  await waitFor('main.go text', async () => (await editorText()).includes('greet(name)'));
  check('main.go open at the turn-2 state', (await editorText()).includes('greet(name)'));
  lap('main.go open');

  const h = { ...wb, bundled, check, events, lap, tree, waitEvent, waitFor };
  await previewTurn(h);
  await rewindToTurn(h);
  await undoLastRewind(h);
  await timelineView(h);
  await didChange(h);
  await checkpoint(h);
  await refactorPreview(h);
  await undoDeletedTab(h);
  await serverCrash(h);
  await conflict(h);
  await claudeConversation(h);
  await geminiConversation(h);
  await kinds(h);
  await ages(h);
  await missingServer(h);
  await brokenServer(h);
  await agentRewindScenario(h);
  // Last: they add turns and files of their own.
  await revertScenario(h);
  await stepsScenario(h);
  await pagingScenario(h);
} catch (e) {
  results.fail++;
  console.log('FAIL - unexpected error:', e);
  await shot(page, 'failure.png').catch(() => {});
} finally {
  await ctx.close();
}
console.log(`e2e: ${results.pass} passed, ${results.fail} failed`);
process.exit(results.fail ? 1 : 0);
