import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { bundledServerPath, checkServer, locateServer, makeExecutable } from '../../src/server';

describe('which server the extension runs', () => {
  const ext = '/ext';
  const bundled = bundledServerPath(ext, 'linux', 'x64');
  const base = { extensionPath: ext, pathEnv: '/usr/bin:/opt/bin', home: '/home/me', platform: 'linux', arch: 'x64' };
  const files = (...fs: string[]) => (p: string) => fs.includes(p);
  it('the bundled server sits in server/<platform>-<arch>/', () => {
    assert.equal(bundled, '/ext/server/linux-x64/rewind-lsp');
    assert.equal(bundledServerPath('/ext', 'win32', 'x64'), path.join('/ext', 'server', 'win32-x64', 'rewind-lsp.exe'));
  });
  it('prefers the setting, then the bundled server, then PATH', () => {
    const all = files('/my/rewind-lsp', bundled, '/opt/bin/rewind-lsp');
    assert.deepEqual(locateServer({ ...base, setting: '/my/rewind-lsp', isFile: all }), { command: '/my/rewind-lsp', source: 'setting' });
    assert.deepEqual(locateServer({ ...base, setting: '', isFile: all }), { command: bundled, source: 'bundled' });
    assert.deepEqual(locateServer({ ...base, setting: '', isFile: files('/opt/bin/rewind-lsp') }), { command: '/opt/bin/rewind-lsp', source: 'path' });
    assert.equal(locateServer({ ...base, setting: '', isFile: files() }), undefined);
  });
  it('a setting naming no file is not replaced by another binary', () => {
    assert.equal(locateServer({ ...base, setting: '/nonexistent/rewind-lsp', isFile: files(bundled) }), undefined);
    assert.deepEqual(locateServer({ ...base, setting: '~/bin/rw', isFile: files('/home/me/bin/rw') }), { command: '/home/me/bin/rw', source: 'setting' });
    assert.deepEqual(locateServer({ ...base, setting: 'rw', isFile: files('/opt/bin/rw') }), { command: '/opt/bin/rw', source: 'setting' });
  });
});

describe('checking that a server runs', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rewind-server-test-'));
  const script = (name: string, body: string, mode = 0o755) => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, body, { mode });
    return p;
  };
  it('reads the version of a working server', async () => {
    assert.deepEqual(await checkServer(script('good', '#!/bin/sh\necho "rewind-lsp 1.2.3"\n')), { ok: true, version: '1.2.3' });
  });
  it('says why a server does not run', async () => {
    const missing = await checkServer(path.join(dir, 'nope'));
    assert.ok(!missing.ok && /ENOENT/.test(missing.reason), JSON.stringify(missing));
    const failing = await checkServer(script('fails', '#!/bin/sh\necho "cannot start" >&2\nexit 3\n'));
    assert.ok(!failing.ok && failing.reason === 'it exited with status 3 (cannot start)', JSON.stringify(failing));
    const other = await checkServer(script('other', '#!/bin/sh\necho hello\n'));
    assert.ok(!other.ok && /not "rewind-lsp <version>"/.test(other.reason), JSON.stringify(other));
    const noExec = await checkServer(script('noexec', '#!/bin/sh\necho "rewind-lsp 1"\n', 0o644));
    assert.ok(!noExec.ok && /EACCES/.test(noExec.reason), JSON.stringify(noExec));
  });
  it('gives a bundled server back its executable bits', async () => {
    const p = script('unpacked', '#!/bin/sh\necho "rewind-lsp 0.1.0"\n', 0o644);
    assert.equal(makeExecutable(p), true);
    assert.equal(makeExecutable(p), false);
    assert.deepEqual(await checkServer(p), { ok: true, version: '0.1.0' });
  });
});
