// Which rewind-lsp binary the extension runs, and whether it runs. No `vscode` import: unit-tested
// directly.
//
// Order: the `rewind.serverPath` setting when set; else the binary this platform-specific .vsix
// carries (`server/<platform>-<arch>/rewind-lsp`, built from the same tree by scripts/vsix.sh);
// else `rewind-lsp` on PATH (a development build of the extension carries none).

import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findOnPath } from './uris';

export type ServerSource = 'setting' | 'bundled' | 'path';

export interface ServerChoice {
  command: string;
  source: ServerSource;
}

/** bundledServerPath is where a platform-specific .vsix keeps its server. */
export function bundledServerPath(extensionPath: string, platform: string = process.platform, arch: string = process.arch): string {
  return path.join(extensionPath, 'server', `${platform}-${arch}`, platform === 'win32' ? 'rewind-lsp.exe' : 'rewind-lsp');
}

export interface LocateOptions {
  /** `rewind.serverPath`, trimmed; empty when unset. */
  setting: string;
  extensionPath: string;
  pathEnv: string | undefined;
  home: string | undefined;
  isFile: (p: string) => boolean;
  platform?: string;
  arch?: string;
}

/** locateServer picks the binary (see the file comment); undefined when there is none. A setting
 *  that names no file is not replaced by another binary: the user asked for that one. */
export function locateServer(o: LocateOptions): ServerChoice | undefined {
  const platform = o.platform ?? process.platform;
  if (o.setting) {
    const expanded = o.setting.replace(/^~(?=$|[\\/])/, o.home ?? '~');
    if (expanded.includes('/') || expanded.includes('\\')) return o.isFile(expanded) ? { command: expanded, source: 'setting' } : undefined;
    const found = findOnPath(expanded, o.pathEnv, o.isFile, platform);
    return found ? { command: found, source: 'setting' } : undefined;
  }
  const bundled = bundledServerPath(o.extensionPath, platform, o.arch ?? process.arch);
  if (o.isFile(bundled)) return { command: bundled, source: 'bundled' };
  const found = findOnPath('rewind-lsp', o.pathEnv, o.isFile, platform);
  return found ? { command: found, source: 'path' } : undefined;
}

export type ServerCheck = { ok: true; version: string } | { ok: false; reason: string };

/** checkServer runs `COMMAND version` and says whether it is a working rewind-lsp. */
export function checkServer(command: string, timeoutMs = 15000): Promise<ServerCheck> {
  return new Promise((resolve) => {
    execFile(command, ['version'], { timeout: timeoutMs, windowsHide: true }, (err, stdout, stderr) => {
      const out = String(stdout ?? '').trim();
      if (err) {
        const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: unknown; signal?: string | null };
        let reason: string;
        if (e.killed) reason = `it did not answer within ${Math.round(timeoutMs / 1000)} s`;
        else if (typeof e.code === 'string') reason = `${e.code}: ${e.message.replace(/^spawn\s+/, '')}`;
        else if (typeof e.code === 'number') reason = `it exited with status ${e.code}`;
        else reason = e.signal ? `it was killed by ${e.signal}` : e.message;
        const detail = String(stderr ?? '').trim().split('\n')[0];
        resolve({ ok: false, reason: detail ? `${reason} (${detail})` : reason });
        return;
      }
      const m = /^rewind-lsp (\S+)/.exec(out);
      resolve(m ? { ok: true, version: m[1] } : { ok: false, reason: `its "version" printed ${JSON.stringify(out.slice(0, 80))}, not "rewind-lsp <version>"` });
    });
  });
}

/** makeExecutable gives a file the executable bits it lacks (an unpacked .vsix may drop them);
 *  true when it changed something. */
export function makeExecutable(file: string): boolean {
  try {
    const mode = fs.statSync(file).mode;
    if ((mode & 0o111) === 0o111) return false;
    fs.chmodSync(file, mode | 0o755);
    return true;
  } catch {
    return false;
  }
}
