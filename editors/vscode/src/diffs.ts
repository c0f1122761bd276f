// Diff views: the read-only `rewind:` content provider and the editors that compare snapshot
// content with the files on disk.

import * as vscode from 'vscode';
import { RewindClient } from './client';
import { emit } from './events';
import { basename, planTargetShort } from './format';
import type { Plan } from './protocol';
import { beforeLabel } from './steps';
import { ABSENT_QUERY, joinRoot, parseViewQuery, REWIND_SCHEME, rewindUriString, viewQuery } from './uris';

/** RewindContentProvider serves the editor-side `rewind:` documents (uris.ts) from the server's
 *  `rewind/content` request. Documents are read-only because they come from a content provider. */
export class RewindContentProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly client: RewindClient) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const parsed = parseViewQuery(uri.query);
    if (parsed === ABSENT_QUERY) return '';
    if (!parsed) throw new Error(`not a rewind: URI: ${uri.toString()}`);
    return this.client.content(rewindUriString(parsed.snapshot, parsed.rel));
  }
}

/** snapshotUri is the `rewind:` URI of one file of a root in a snapshot: the file's own path, the
 *  snapshot in the query. `absent` gives an empty document standing for a file that does not
 *  exist on that side. */
export function snapshotUri(root: vscode.WorkspaceFolder, snapshot: string, rel: string, absent = false): vscode.Uri {
  return vscode.Uri.from({ scheme: REWIND_SCHEME, path: fileUri(root, rel).path, query: absent ? ABSENT_QUERY : viewQuery(snapshot, rel) });
}

/** fileUri is the file:// URI of a root-relative path. */
export function fileUri(root: vscode.WorkspaceFolder, rel: string): vscode.Uri {
  return vscode.Uri.file(joinRoot(root.uri.fsPath, rel));
}

/** openPlanDiffs opens what a rewind would change: one diff editor for one file, VS Code's
 *  multi-file diff editor for several. Left: the file at the target (what the rewind restores);
 *  right: the file now. Titles read "README.md (turn 1 → now)". */
export async function openPlanDiffs(root: vscode.WorkspaceFolder, plan: Plan): Promise<number> {
  const files = (plan.files ?? []).filter((f) => !f.binary);
  const snapshot = plan.target.snapshot;
  const target = planTargetShort(plan);
  const pairs = files.map((f) => {
    // A rewind creates what is gone now and deletes what did not exist at the target.
    const then = snapshotUri(root, snapshot, f.path, f.change === 'delete');
    const now = f.change === 'create' ? snapshotUri(root, snapshot, f.path, true) : fileUri(root, f.path);
    return { file: f, resource: fileUri(root, f.path), then, now };
  });
  if (pairs.length === 1) {
    const p = pairs[0];
    await vscode.commands.executeCommand('vscode.diff', p.then, p.now, `${basename(p.file.path)} (${target} → now)`, {
      preview: true,
    } satisfies vscode.TextDocumentShowOptions);
  } else if (pairs.length > 1) {
    await vscode.commands.executeCommand(
      'vscode.changes',
      `Rewind preview: ${plan.target.title} → now`,
      pairs.map((p) => [p.resource, p.then, p.now]),
    );
  }
  emit('previewOpened', { target: plan.target, files: pairs.map((p) => p.file.path) });
  return pairs.length;
}

/** openTurnFileDiff compares a file as it was before a turn (or before one of its steps) with the
 *  file now. */
export async function openTurnFileDiff(
  root: vscode.WorkspaceFolder,
  at: { turn: number; step?: number },
  snapshot: string,
  rel: string,
  existedBefore: boolean,
): Promise<void> {
  const now = fileUri(root, rel);
  let existsNow = true;
  try {
    await vscode.workspace.fs.stat(now);
  } catch {
    existsNow = false;
  }
  const before = snapshotUri(root, snapshot, rel, !existedBefore);
  const right = existsNow ? now : snapshotUri(root, snapshot, rel, true);
  await vscode.commands.executeCommand('vscode.diff', before, right, `${basename(rel)} (${beforeLabel(at.turn, at.step)} → now)`, {
    preview: true,
  } satisfies vscode.TextDocumentShowOptions);
  emit('fileDiffOpened', { turn: at.turn, step: at.step ?? null, path: rel });
}
