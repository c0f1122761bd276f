// Diff views: the read-only `rewind:` content provider and the editors that compare snapshot
// content with the files on disk.

import * as vscode from 'vscode';
import { RewindClient } from './client';
import { emit } from './events';
import { basename, planTargetName } from './format';
import type { Plan } from './protocol';
import { ABSENT_QUERY, joinRoot, parseRewindPath, REWIND_SCHEME, rewindPath, rewindUriString } from './uris';

/** RewindContentProvider serves `rewind:/<snapshot>/<path>` documents from the server's
 *  `rewind/content` request. Documents are read-only because they come from a content provider. */
export class RewindContentProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly client: RewindClient) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    if (uri.query === ABSENT_QUERY) return '';
    const parsed = parseRewindPath(uri.path);
    if (!parsed) throw new Error(`not a rewind: URI: ${uri.toString()}`);
    return this.client.content(rewindUriString(parsed.snapshot, parsed.rel));
  }
}

/** snapshotUri is the `rewind:` URI of one file in a snapshot; `absent` gives an empty document
 *  standing for a file that does not exist on that side. */
export function snapshotUri(snapshot: string, rel: string, absent = false): vscode.Uri {
  return vscode.Uri.from({ scheme: REWIND_SCHEME, path: rewindPath(snapshot, rel), query: absent ? ABSENT_QUERY : '' });
}

/** fileUri is the file:// URI of a root-relative path. */
export function fileUri(root: vscode.WorkspaceFolder, rel: string): vscode.Uri {
  return vscode.Uri.file(joinRoot(root.uri.fsPath, rel));
}

/** openPlanDiffs opens what a rewind would change: one diff editor for one file, VS Code's
 *  multi-file diff editor for several. Left: the file now; right: the file after the rewind. */
export async function openPlanDiffs(root: vscode.WorkspaceFolder, plan: Plan): Promise<number> {
  const files = (plan.files ?? []).filter((f) => !f.binary);
  const snapshot = plan.target.snapshot;
  const target = planTargetName(plan);
  const pairs = files.map((f) => {
    const current = f.change === 'create' ? snapshotUri(snapshot, f.path, true) : fileUri(root, f.path);
    const after = snapshotUri(snapshot, f.path, f.change === 'delete');
    return { file: f, resource: fileUri(root, f.path), current, after };
  });
  if (pairs.length === 1) {
    const p = pairs[0];
    await vscode.commands.executeCommand('vscode.diff', p.current, p.after, `${basename(p.file.path)} (now ↔ ${target})`, {
      preview: true,
    } satisfies vscode.TextDocumentShowOptions);
  } else if (pairs.length > 1) {
    await vscode.commands.executeCommand(
      'vscode.changes',
      `Rewind to ${target}`,
      pairs.map((p) => [p.resource, p.current, p.after]),
    );
  }
  emit('previewOpened', { target: plan.target, files: pairs.map((p) => p.file.path) });
  return pairs.length;
}

/** openTurnFileDiff compares a file as it was before a turn with the file now. */
export async function openTurnFileDiff(
  root: vscode.WorkspaceFolder,
  turn: number,
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
  const before = snapshotUri(snapshot, rel, !existedBefore);
  const right = existsNow ? now : snapshotUri(snapshot, rel, true);
  await vscode.commands.executeCommand('vscode.diff', before, right, `${basename(rel)} (before turn ${turn} ↔ now)`, {
    preview: true,
  } satisfies vscode.TextDocumentShowOptions);
  emit('fileDiffOpened', { turn, path: rel });
}
