// The status-bar item: how many turns are recorded, spinning while an agent turn is open; a click
// shows the Rewind view.

import * as vscode from 'vscode';
import { RewindClient, ServerMissingError } from './client';
import { emit } from './events';
import { openTurnNumber, statusText } from './format';
import { Command } from './protocol';

export class RewindStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('rewindLsp.status', vscode.StatusBarAlignment.Left, 10);
  private pending: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly client: RewindClient) {
    this.item.name = 'Rewind';
    this.item.command = 'rewindLsp.showTimeline';
    this.item.text = '$(history) Rewind';
    this.item.show();
  }

  /** missing shows that no server could be started; a click opens the setting. */
  missing(): void {
    this.item.text = '$(warning) Rewind';
    this.item.tooltip = 'rewind-lsp was not found. Click to set rewind.serverPath.';
    this.item.command = { command: 'workbench.action.openSettings', title: 'Open Settings', arguments: ['rewind.serverPath'] };
  }

  /** update re-reads `rewind.status` of every root (coalescing bursts of calls). */
  update(): void {
    if (this.pending) clearTimeout(this.pending);
    this.pending = setTimeout(() => void this.refresh(), 100);
  }

  private async refresh(): Promise<void> {
    const roots = vscode.workspace.workspaceFolders ?? [];
    let turns = 0;
    let open: number | undefined;
    try {
      for (const root of roots) {
        const s = await this.client.command(Command.status, { root: root.uri.fsPath });
        turns += s.turns ?? 0;
        const o = openTurnNumber(s.openTurn);
        if (o !== undefined) open = o;
      }
    } catch (err) {
      if (err instanceof ServerMissingError) return this.missing();
      this.item.text = '$(history) Rewind';
      this.item.tooltip = `Rewind: status unavailable (${err instanceof Error ? err.message : String(err)})`;
      return;
    }
    const { text, tooltip } = statusText(turns, open);
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.command = 'rewindLsp.showTimeline';
    emit('status', { turns, open: open ?? null });
  }

  dispose(): void {
    if (this.pending) clearTimeout(this.pending);
    this.item.dispose();
  }
}
