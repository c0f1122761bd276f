// The server's failures in a real VS Code: a killed server is restarted and rewinds still go
// through the extension; a missing server and one that does not run are each said clearly, with a
// way to the setting; clearing the setting brings the bundled server back.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { check, events, waitEvent, waitFor, treeDiff } from './harness.mjs';

/** serverCrash: the server is killed; the client restarts it and a rewind still applies through the extension and saves. */
export async function serverCrash(h) {
  const { page, section, runCommand, pickQuick, bundled } = h;
  const { WS, EXPECT } = process.env;
  let mark = 0;
  await section('The server crashes', async () => {
    // ---- The server crashes: the client restarts it, and rewinds still go through the
    // extension's applyEdit handler (saving what they touched).
    const pids = execFileSync('pgrep', ['-f', `^${bundled}$`]).toString().trim().split(/\s+/).filter(Boolean);
    mark = events().length;
    for (const pid of pids) process.kill(Number(pid), 'SIGKILL');
    const back = await waitEvent('serverRunning', { after: mark, ms: 30000 }).then(() => true, () => false);
    check(`a killed server (${pids.length} process) is restarted`, pids.length === 1 && back, pids);
    mark = events().length;
    await runCommand('Rewind: Rewind to Turn…');
    await pickQuick('Turn 1: add a greeting function');
    await pickQuick('Code');
    await page.locator('.monaco-dialog-box .monaco-button', { hasText: /^Rewind$/ }).first().click();
    const r6 = await waitEvent('rewound', { after: mark, ms: 60000 });
    const viaHandler = events().slice(mark).some((e) => e.event === 'applyEdit' && e.data.applied);
    check('after the restart, a rewind applies through the extension and saves', r6.data.applied && viaHandler && r6.data.saved > 0, r6.data);
    mark = events().length;
    await runCommand('Rewind: Undo Last Rewind');
    const u6 = await waitEvent('undone', { after: mark, ms: 60000 });
    check('and undo brings the turn-2 state back', u6.data.applied && treeDiff(path.join(EXPECT, 'turn2-end'), WS) === '', u6.data);
  });
}

/** missingServer: a rewind.serverPath that does not exist: a notification with "Open Settings" and a warning in the status bar. */
export async function missingServer(h) {
  const { page, section, runCommand, setSetting, shot } = h;
  let mark = 0;
  await section('A missing server', async () => {
    // ---- A missing server: a clear notification with "Open Settings".
    mark = events().length;
    await setSetting('rewind.serverPath', '/nonexistent/rewind-lsp');
    await waitEvent('serverMissing', { after: mark, ms: 30000 });
    const toast = page.locator('.notification-toast', { hasText: 'was not found' }).first();
    const toastOk = await toast.waitFor({ timeout: 15000 }).then(() => true, () => false);
    check('missing server: notification with "Open Settings"', toastOk && (await toast.locator('.monaco-button', { hasText: 'Open Settings' }).count()) > 0, await page.locator('.notifications-toasts').innerText().catch(() => ''));
    const warn = await waitFor('warning in the status bar', async () => (await page.locator('.statusbar-item', { hasText: 'Rewind' }).locator('.codicon-warning').count()) > 0, 10000).then(() => true, () => false);
    check('status bar shows the missing server', warn, await page.locator('.statusbar').innerText().catch(() => ''));
    await shot(page, 'server-missing.png');
    await runCommand('Notifications: Clear All Notifications').catch(() => {});
  });
}

/** brokenServer: a rewind.serverPath that does not run: a notification naming it; clearing the setting restarts the bundled server. */
export async function brokenServer(h) {
  const { page, section, setSetting, shot, bundled } = h;
  const { RUN } = process.env;
  let mark = 0;
  await section('A server that does not run', async () => {
    // ---- A server that exists but does not run: checked before starting, said clearly.
    const broken = path.join(RUN, 'broken-rewind-lsp');
    fs.writeFileSync(broken, 'this is not a program\n', { mode: 0o755 });
    mark = events().length;
    await setSetting('rewind.serverPath', broken);
    const ev = await waitEvent('serverBroken', { after: mark, ms: 30000 });
    const toast = page.locator('.notification-toast', { hasText: 'does not run' }).first();
    const toastOk = await toast.waitFor({ timeout: 15000 }).then(() => true, () => false);
    const text = await toast.innerText().catch(() => '');
    check('a server that does not run: notification naming it, with "Open Settings"',
      toastOk && text.includes(broken) && (await toast.locator('.monaco-button', { hasText: 'Open Settings' }).count()) > 0, { ev: ev.data, text });
    await shot(page, 'server-broken.png');
    // "Open Settings" leads to rewind.serverPath; clearing it goes back to the bundled server.
    mark = events().length;
    await toast.locator('.monaco-button', { hasText: 'Open Settings' }).first().click();
    await setSetting('rewind.serverPath', '', { opened: true });
    const again = await waitEvent('serverStarted', { after: mark, ms: 30000 }).catch(() => undefined);
    check('clearing rewind.serverPath restarts the bundled server', again && again.data.source === 'bundled' && again.data.command === bundled, again?.data);
  });
}
