// Entry point: wires the language client, the Rewind view, the status bar, the `rewind:`
// content provider and the commands together.

import * as vscode from 'vscode';
import { BlameController } from './blame';
import { RewindClient, ServerMissingError } from './client';
import { Commands } from './commands';
import { config, restartSettings } from './config';
import { RewindContentProvider } from './diffs';
import { emit } from './events';
import { RevertCommands } from './revert';
import { RewindStatusBar } from './statusBar';
import { TimelineProvider } from './timeline';
import { REWIND_SCHEME } from './uris';

let client: RewindClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  client = new RewindClient(context.extensionPath);
  const timeline = new TimelineProvider(client);
  const status = new RewindStatusBar(client);
  const view = vscode.window.createTreeView('rewindLsp.timeline', { treeDataProvider: timeline, showCollapseAll: true });
  const commands = new Commands(client, timeline);
  const blame = new BlameController(client);
  const reverts = new RevertCommands(client, timeline, () => commands.pickTurn('Revert which turn or step? (its changes are taken back, later ones kept)'));
  context.subscriptions.push(
    client,
    timeline,
    status,
    view,
    timeline.keepFresh(view),
    vscode.workspace.registerTextDocumentContentProvider(REWIND_SCHEME, new RewindContentProvider(client)),
    ...commands.register(),
    blame,
    commands.registerGuarded('rewindLsp.revert', () => reverts.revert()),
    commands.registerGuarded('rewindLsp.revertItem', (node) => reverts.revertItem(node)),
    commands.registerGuarded('rewindLsp.revertStep', (node) => reverts.revertStep(node)),
    commands.registerGuarded('rewindLsp.revertTurnFile', (arg) => reverts.revertTurnFile(arg)),
    commands.registerGuarded('rewindLsp.previewTurnFile', (arg) => reverts.previewTurnFile(arg)),
    commands.registerGuarded('rewindLsp.toggleBlame', async () => blame.toggle()),
  );

  let refresh: ReturnType<typeof setTimeout> | undefined;
  context.subscriptions.push(
    client.onDidChange(() => {
      // Bursts of journal changes (a turn's start and end, several roots) redraw once.
      if (refresh) clearTimeout(refresh);
      refresh = setTimeout(() => {
        timeline.refresh();
        status.update();
      }, 150);
    }),
    client.onAgentRewind((p) => void commands.agentRewound(p)),
    client.onDidChangeState((s) => {
      if (s === 'missing') status.missing();
      else status.update();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      timeline.refresh();
      status.update();
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('rewind')) emit('configChanged', config());
      if (restartSettings.some((s) => e.affectsConfiguration(s))) {
        void client?.restart().catch(() => undefined);
      }
    }),
  );

  emit('activated', { vscodeVersion: vscode.version });
  try {
    await client.ready();
  } catch (err) {
    if (!(err instanceof ServerMissingError)) client.output.appendLine(`start: ${String(err)}`);
  }
}

export async function deactivate(): Promise<void> {
  client?.dispose();
  client = undefined;
}
