// Claude Code's own rewind in a real VS Code: the session the real Claude Code wrote in
// agent/testdata/claude-rewind (prompt one, prompt two, then Esc Esc back to before prompt two and
// prompt three), replayed through `rewind-lsp hook claude-code` as Claude Code runs it, while the
// extension's server runs. Claude Code restored no file ("Restore conversation"), so the server
// sends rewind/agentRewind and VS Code offers the rest: *Show Diff* opens the diff of the files it
// did not restore and changes nothing; *Rewind the Files* rewinds them, byte for byte, and Undo
// Last Rewind takes that back.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'agent', 'testdata', 'claude-rewind');

/** differs says how the files `got` differ from `want` (path → bytes, or null for absent); '' when
 *  equal. */
function differs(want, got) {
  const out = [];
  for (const [p, bytes] of want) {
    if (bytes === null) {
      if (got.has(p)) out.push(`extra ${p}`);
    } else if (!got.has(p)) out.push(`missing ${p}`);
    else if (!got.get(p).equals(bytes)) out.push(`differs ${p}: ${JSON.stringify(got.get(p).toString())}`);
  }
  for (const p of got.keys()) if (!want.has(p)) out.push(`extra ${p}`);
  return out.join('; ');
}

/** replay plays the fixture's session back in folder `sub` of the root: every hook payload as
 *  Claude Code sent it (its folders renamed, every id made this replay's own with `tag` so that
 *  two replays are two sessions), the transcript as it stood at each event, and the tools' effects
 *  (Write, Edit, the shell's commands). Between prompt two and prompt three the person edits c.txt
 *  and Claude Code rewinds its conversation to before prompt two, restoring no file. */
function replay({ ws, store, bin, run, sub, tag }) {
  const cwd = path.join(ws, sub);
  const home = path.join(run, 'claude-home-' + tag);
  const transcript = path.join(home, '.claude', 'projects', 'session-' + tag + '.jsonl');
  fs.mkdirSync(cwd, { recursive: true });
  fs.mkdirSync(path.dirname(transcript), { recursive: true });
  const own = (s) =>
    s.replaceAll('/w/project', cwd).replaceAll('/w/home', home)
      .replace(/\b[0-9a-f]{8}(-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b/g, (_, rest) => tag + rest);
  const lines = own(fs.readFileSync(path.join(FIXTURE, 'transcript.jsonl'), 'utf8')).split(/(?<=\n)/);
  const forks = JSON.parse(fs.readFileSync(path.join(FIXTURE, 'prompts.json'), 'utf8')).map((p) => p.forkLines);
  const upTo = (n) => fs.writeFileSync(transcript, lines.slice(0, n).join(''));
  const tool = (p) => {
    const i = p.tool_input;
    if (p.tool_name === 'Write') fs.writeFileSync(i.file_path, i.content);
    else if (p.tool_name === 'Edit') fs.writeFileSync(i.file_path, fs.readFileSync(i.file_path, 'utf8').replace(i.old_string, i.new_string));
    else if (p.tool_name === 'Bash') execFileSync('sh', ['-c', i.command], { cwd: p.cwd });
  };
  let prompt = -1;
  let starts = 0;
  const done = new Set();
  for (const l of fs.readFileSync(path.join(FIXTURE, 'hooks.jsonl'), 'utf8').split('\n').filter(Boolean)) {
    const { event, payload } = JSON.parse(own(l));
    if (payload.transcript_path) payload.transcript_path = transcript;
    // A tool runs after its PreToolUse hook, before its PostToolUse (the hooks see PreToolUse only
    // for the shell).
    if (event === 'PostToolUse' && !done.has(payload.tool_use_id)) tool(payload);
    if (event === 'UserPromptSubmit') upTo(forks[++prompt]);
    else if (event === 'SessionStart') {
      // The third start is Claude Code run again after prompt two (its rewind): the person edited
      // c.txt meanwhile.
      if (++starts === 3) fs.writeFileSync(path.join(cwd, 'c.txt'), "the person's\n");
    } else if (prompt >= 0) upTo(prompt + 1 < forks.length ? forks[prompt + 1] : lines.length);
    execFileSync(bin, ['--root', ws, '--store', store, 'hook', 'claude-code'], { cwd, input: JSON.stringify(payload) });
    if (event === 'PreToolUse') {
      tool(payload);
      done.add(payload.tool_use_id);
    }
  }
}

export async function agentRewindScenario(h) {
  const { page, section, check, runCommand, waitEvent, waitFor, events, shot, lap, tree: files } = h;
  const { WS, STORE, LSP_BIN, RUN } = process.env;
  const toast = (text) => page.locator('.notification-toast', { hasText: text }).first();
  const offered = (sub) => ['a.txt', 'b.txt', 'c.txt'].map((f) => `${sub}/${f}`);
  /** agentRewind replays the session into `sub` and waits for VS Code's notification. */
  const agentRewind = async (sub, tag) => {
    await runCommand('Notifications: Clear All Notifications').catch(() => {});
    const mark = events().length;
    replay({ ws: WS, store: STORE, bin: LSP_BIN, run: RUN, sub, tag });
    const shown = await waitEvent('agentRewindShown', { after: mark, ms: 30000 });
    const t = toast(`${sub}/a.txt`);
    await t.waitFor({ timeout: 15000 });
    return { shown, toast: t };
  };

  await section('Claude Code\'s own rewind restored nothing: the notification, Show Diff', async () => {
    const sub = 'agent-a';
    const { shown, toast: t } = await agentRewind(sub, 'e2e0000a');
    const text = (await t.innerText()).replace(/\s+/g, ' ');
    check('VS Code tells of Claude Code\'s rewind to before turn 2 ("prompt two") and names the files it did not restore',
      ['Claude Code', 'prompt two', 'restored no files'].every((w) => text.includes(w)) &&
        offered(sub).every((f) => text.includes(f)), text);
    check('the notification offers Rewind the Files and Show Diff',
      (await t.locator('.monaco-button', { hasText: 'Rewind the Files' }).count()) > 0 &&
        (await t.locator('.monaco-button', { hasText: 'Show Diff' }).count()) > 0, shown.data);
    await shot(page, 'agent-rewind-notification.png');
    const before = files(WS);
    const mark = events().length;
    await t.locator('.monaco-button', { hasText: 'Show Diff' }).first().click();
    const opened = await waitEvent('previewOpened', { after: mark, ms: 30000 });
    check('Show Diff opens the diff of the files Claude Code did not restore, to before its turn',
      JSON.stringify([...opened.data.files].sort()) === JSON.stringify(offered(sub)), opened.data);
    await page.locator('.monaco-diff-editor').first().waitFor({ timeout: 20000 });
    await waitFor('diff text', async () => /b2/.test((await page.locator('.monaco-diff-editor').allInnerTexts()).join('\n')), 10000).catch(() => {});
    const diffText = (await page.locator('.monaco-diff-editor').allInnerTexts()).join('\n').replace(/\u00a0/g, ' ');
    check('the diff shows each file before the turn and now (b1 ↔ b2, one ↔ two)',
      ['b1', 'b2', 'one', 'two'].every((s) => diffText.includes(s)), diffText.slice(0, 600));
    await shot(page, 'agent-rewind-diff.png');
    await runCommand('View: Close Editor');
    check('Show Diff changed no file', differs(before, files(WS)) === '', differs(before, files(WS)));
    lap('agent rewind: Show Diff');
  });

  await section('Claude Code\'s own rewind restored nothing: Rewind the Files, then undo', async () => {
    const sub = 'agent-b';
    const { toast: t } = await agentRewind(sub, 'e2e0000b');
    const before = files(WS);
    check('the files are as Claude Code left them (its conversation rewound, no file restored)',
      ['two\n', 'b2\n', "the person's\n", 'd3\n'].every((s, i) => before.get(`${sub}/${'abcd'[i]}.txt`)?.toString() === s),
      ['a', 'b', 'c', 'd'].map((f) => before.get(`${sub}/${f}.txt`)?.toString()));
    const want = new Map(before);
    want.set(`${sub}/a.txt`, Buffer.from('one\n')).set(`${sub}/b.txt`, Buffer.from('b1\n')).set(`${sub}/c.txt`, null);
    let mark = events().length;
    await t.locator('.monaco-button', { hasText: 'Rewind the Files' }).first().click();
    const rewound = await waitEvent('rewound', { after: mark, ms: 60000 });
    check('Rewind the Files rewinds them', rewound.data.applied === true, rewound.data);
    const d1 = await waitFor('the files before prompt two', async () => (differs(want, files(WS)) === '' ? 'same' : ''), 15000).catch(() => differs(want, files(WS)));
    check('the files are back as before prompt two, byte for byte (c.txt gone, d.txt of the new prompt kept, nothing else touched)', d1 === 'same', d1);
    await shot(page, 'agent-rewind-files.png');
    mark = events().length;
    await runCommand('Rewind: Undo Last Rewind');
    const undone = await waitEvent('undone', { after: mark, ms: 60000 });
    const d2 = await waitFor('the files as Claude Code left them', async () => (differs(before, files(WS)) === '' ? 'same' : ''), 15000).catch(() => differs(before, files(WS)));
    check('Undo Last Rewind brings them back byte for byte', undone.data.applied === true && d2 === 'same', { undone: undone.data, d2 });
    lap('agent rewind: Rewind the Files');
  });
}
