// Rewinding an agent's conversation in a real VS Code: a Claude Code session and a Gemini CLI
// session (hook payloads and session files as the agents write them), rewound with "Code and
// conversation"; the forked conversation is offered in a terminal with the agent's own resume
// command; the view shows sessions and kept reports.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { check, events, waitEvent, waitFor } from './harness.mjs';

/** claudeConversation: Claude Code's turn rewound with its conversation → Resume in Terminal; sessions and reports in the view. */
export async function claudeConversation(h) {
  const { page, section, runCommand, pickQuick, shot, dialog } = h;
  const { RUN, WS, LSP_BIN, STORE } = process.env;
  let mark = 0;
  await section('Conversation rewind → Resume in Terminal; sessions and reports in the view', async () => {
    // ---- A Claude Code session's turn (hook events on stdin, a transcript as Claude Code writes it),
    // rewound with "Code and conversation": the server forks the transcript (a copy cut before the
    // turn's prompt; the original is never changed) and VS Code offers to continue the fork in an
    // integrated terminal, running the agent's own resume command in the root.
    const sid = 'c0ffee00-1111-4222-8333-444455556666';
    const projects = path.join(RUN, 'claude-projects');
    fs.mkdirSync(projects, { recursive: true });
    const transcript = path.join(projects, sid + '.jsonl');
    const line = (o) => fs.appendFileSync(transcript, JSON.stringify({ parentUuid: null, sessionId: sid, cwd: WS, ...o }) + '\n');
    const hook = (ev) =>
      execFileSync(LSP_BIN, ['--root', WS, '--store', STORE, 'hook', 'claude-code'], {
        input: JSON.stringify({ session_id: sid, transcript_path: transcript, cwd: WS, ...ev }),
      }).toString();
    line({ type: 'user', uuid: 'u1', message: { role: 'user', content: 'look around' } });
    line({ type: 'assistant', uuid: 'a1', parentUuid: 'u1', message: { role: 'assistant', content: [{ type: 'text', text: 'Looked.' }] } });
    const before = fs.readFileSync(transcript);
    hook({ hook_event_name: 'SessionStart', source: 'startup' });
    hook({ hook_event_name: 'UserPromptSubmit', prompt: 'try the resume flow' });
    line({ type: 'user', uuid: 'u2', parentUuid: 'a1', message: { role: 'user', content: 'try the resume flow' } });
    line({ type: 'assistant', uuid: 'a2', parentUuid: 'u2', message: { role: 'assistant', content: [{ type: 'text', text: 'Tried.' }] } });
    hook({ hook_event_name: 'Stop' });
    await runCommand('Rewind: Focus on Timeline View');
    const turnRow = page.locator('.sidebar .monaco-list-row', { hasText: /Turn \d+: try the resume flow/ }).first();
    await turnRow.waitFor({ timeout: 20000 });
    const rowText = (await turnRow.innerText()).replace(/\s+/g, ' ');
    check('the Rewind view shows the turn\'s agent session', /claude-code c0ffee00/.test(rowText), rowText);
    const turnNo = /Turn (\d+):/.exec(rowText)[1];

    mark = events().length;
    await runCommand('Rewind: Rewind to Turn…');
    await pickQuick(`Turn ${turnNo}: try the resume flow`);
    await pickQuick('Code and conversation');
    await dialog.waitFor({ timeout: 15000 });
    await dialog.locator('.monaco-button', { hasText: /^Rewind$/ }).first().click();
    const rw = await waitEvent('rewound', { after: mark, ms: 60000 });
    const forked = await waitEvent('conversationForked', { after: mark });
    const forkFile = forked.data.transcript ? fs.readFileSync(forked.data.transcript) : Buffer.alloc(0);
    check('a conversation rewind forks the transcript before the turn\'s prompt (only sessionId changed)',
      rw.data.applied && forked.data.resume === `claude --resume ${forked.data.session}` &&
      forkFile.toString() === before.toString().replaceAll(`"sessionId":"${sid}"`, `"sessionId":"${forked.data.session}"`), { rw: rw.data, forked: forked.data, forkFile: forkFile.toString() });
    const toast = page.locator('.notification-toast', { hasText: 'claude --resume' }).first();
    await toast.waitFor({ timeout: 15000 });
    await shot(page, 'conversation-rewind.png');
    mark = events().length;
    await toast.locator('.monaco-button', { hasText: 'Resume in Terminal' }).first().click();
    const term = await waitEvent('resumeTerminal', { after: mark });
    const termShown = await waitFor('a terminal', async () => (await page.locator('.terminal-wrapper, .xterm').count()) > 0, 15000).then(() => true, () => false);
    check('"Resume in Terminal" opens a terminal in the root running the resume command', term.data.command === forked.data.resume && term.data.cwd === WS && termShown, term.data);
    mark = events().length;
    await runCommand('Rewind: Resume Rewound Conversation');
    const again = await waitEvent('resumeTerminal', { after: mark });
    check('the palette command rewindLsp.resume runs the latest resume command', again.data.command === forked.data.resume, again.data);
    await shot(page, 'resume-terminal.png');
    mark = events().length;
    await runCommand('Rewind: Undo Last Rewind');
    await waitEvent('undone', { after: mark, ms: 60000 });

    // A report kept with mode summarize shows in the view.
    execFileSync(LSP_BIN, ['--root', WS, '--store', STORE, 'rewind', '1', '--mode', 'summarize', '--report', 'greeting by name needs i18n first']);
    const report = await waitFor('the report in the view', async () => (await page.locator('.sidebar .monaco-list-row', { hasText: /Report since turn 1 \(add a greeting function\).*greeting by name needs i18n first/ }).count()) > 0, 20000).then(() => true, () => false);
    check('the Rewind view lists a kept report', report, (await page.locator('.sidebar .monaco-list-row').allInnerTexts()).slice(0, 12));
    await shot(page, 'timeline-report.png');
  });
}

/** geminiConversation: Resume in Terminal runs Gemini CLI's own resume command. */
export async function geminiConversation(h) {
  const { page, section, runCommand, pickQuick, shot, dialog } = h;
  const { RUN, WS, LSP_BIN, STORE } = process.env;
  let mark = 0;
  await section('Resume in Terminal runs the forked agent\'s own resume command (Gemini CLI)', async () => {
    // ---- A Gemini CLI session of two prompts fed to `rewind-lsp hook gemini` as Gemini CLI runs it,
    // its session file written as Gemini CLI writes one (a header, then message records).
    const sid = '9e3d1c2b-5a4f-4e6d-8c7b-0a1b2c3d4e5f';
    const chats = path.join(RUN, 'gemini-chats');
    fs.mkdirSync(chats, { recursive: true });
    const file = path.join(chats, `session-2026-11-24T20-37-${sid.slice(0, 8)}.jsonl`);
    const record = (o) => fs.appendFileSync(file, JSON.stringify(o) + '\n');
    const hook = (ev) =>
      execFileSync(LSP_BIN, ['--root', WS, '--store', STORE, 'hook', 'gemini'], {
        input: JSON.stringify({ session_id: sid, transcript_path: file, cwd: WS, ...ev }),
      }).toString();
    record({ sessionId: sid, projectHash: 'p', startTime: '2026-11-24T20:37:00.000Z', lastUpdated: '2026-11-24T20:37:00.000Z', kind: 'main' });
    hook({ hook_event_name: 'BeforeAgent', prompt: 'gemini looks around' });
    record({ id: 'g-u1', timestamp: '2026-11-24T20:37:01.000Z', type: 'user', content: [{ text: 'gemini looks around' }] });
    record({ id: 'g-a1', timestamp: '2026-11-24T20:37:02.000Z', type: 'gemini', content: 'Looked around.' });
    hook({ hook_event_name: 'AfterAgent' });
    const before = fs.readFileSync(file);
    hook({ hook_event_name: 'BeforeAgent', prompt: 'gemini resumes later' });
    record({ id: 'g-u2', timestamp: '2026-11-24T20:37:03.000Z', type: 'user', content: [{ text: 'gemini resumes later' }] });
    hook({ hook_event_name: 'AfterAgent' });
    await runCommand('Rewind: Focus on Timeline View');
    const turnRow = page.locator('.sidebar .monaco-list-row', { hasText: /Turn \d+: gemini resumes later/ }).first();
    await turnRow.waitFor({ timeout: 20000 });
    const rowText = (await turnRow.innerText()).replace(/\s+/g, ' ');
    check('the Rewind view names the turn\'s agent, Gemini CLI', /gemini 9e3d1c2b/.test(rowText), rowText);
    const turnNo = /Turn (\d+):/.exec(rowText)[1];

    mark = events().length;
    await runCommand('Rewind: Rewind to Turn…');
    await pickQuick(`Turn ${turnNo}: gemini resumes later`);
    await pickQuick('Code and conversation');
    await dialog.waitFor({ timeout: 15000 });
    await dialog.locator('.monaco-button', { hasText: /^Rewind$/ }).first().click();
    const rw = await waitEvent('rewound', { after: mark, ms: 60000 });
    const forked = await waitEvent('conversationForked', { after: mark });
    const forkFile = forked.data.transcript ? fs.readFileSync(forked.data.transcript) : Buffer.alloc(0);
    check('the Gemini CLI session is forked as a copy cut before the prompt (only sessionId changed)',
      rw.data.applied && forked.data.resume === `gemini --resume ${forked.data.session}` &&
      forkFile.toString() === before.toString().replaceAll(`"sessionId":"${sid}"`, `"sessionId":"${forked.data.session}"`), { rw: rw.data, forked: forked.data, forkFile: forkFile.toString() });
    const toast = page.locator('.notification-toast', { hasText: 'gemini --resume' }).first();
    await toast.waitFor({ timeout: 15000 });
    mark = events().length;
    await toast.locator('.monaco-button', { hasText: 'Resume in Terminal' }).first().click();
    const term = await waitEvent('resumeTerminal', { after: mark });
    check('"Resume in Terminal" runs `gemini --resume <id>` in the root', term.data.command === forked.data.resume && term.data.cwd === WS, term.data);
    await shot(page, 'resume-terminal-gemini.png');
    mark = events().length;
    await runCommand('Rewind: Undo Last Rewind');
    await waitEvent('undone', { after: mark, ms: 60000 });
  });
}
