// The Rewind view: workspace roots → turns, checkpoints, rewinds and reports (newest first) → the
// files a turn changed, in the server's words (titles, ages, changes, session labels). Refreshed on `rewind/didChange`,
// and re-listed once a minute while the view is visible, so its ages stay true.

import * as vscode from 'vscode';
import { describeError, RewindClient, ServerMissingError } from './client';
import { emit } from './events';
import { basename, dirname, firstLine, isOpen, timelineEntries } from './format';
import { Command, type CheckpointInfo, type FileChange, type ListResult, type RewindInfo, type SummaryInfo, type TurnInfo } from './protocol';
import { joinRoot } from './uris';

export type TimelineNode =
  | { kind: 'root'; root: vscode.WorkspaceFolder }
  | { kind: 'turn'; root: vscode.WorkspaceFolder; turn: TurnInfo }
  | { kind: 'checkpoint'; root: vscode.WorkspaceFolder; checkpoint: CheckpointInfo }
  | { kind: 'rewind'; root: vscode.WorkspaceFolder; rewind: RewindInfo; undoable: boolean }
  | { kind: 'summary'; root: vscode.WorkspaceFolder; summary: SummaryInfo }
  | { kind: 'file'; root: vscode.WorkspaceFolder; turn: TurnInfo; file: FileChange }
  | { kind: 'message'; text: string; error?: boolean };

/** How often a visible Rewind view and the blame notes are re-read, so their ages stay true. */
export const AGE_REFRESH_MS = 60_000;

/** TimelineProvider feeds the `rewindLsp.timeline` tree view from `rewind.list`. */
export class TimelineProvider implements vscode.TreeDataProvider<TimelineNode> {
  private readonly emitter = new vscode.EventEmitter<TimelineNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private lists = new Map<string, Promise<ListResult>>();

  constructor(private readonly client: RewindClient) {}

  /** refresh drops the cached lists and redraws the view. */
  refresh(): void {
    this.lists.clear();
    this.emitter.fire(undefined);
  }

  /** keepFresh re-lists every AGE_REFRESH_MS while `view` is visible (and once when it shows
   *  again), so the ages the server wrote stay true; nothing runs while the view is hidden. */
  keepFresh(view: vscode.TreeView<TimelineNode>): vscode.Disposable {
    let timer: ReturnType<typeof setInterval> | undefined;
    let hidden = 0;
    const update = (visible: boolean) => {
      if (visible && !timer) {
        if (hidden && Date.now() - hidden >= AGE_REFRESH_MS) this.refresh();
        timer = setInterval(() => this.refresh(), AGE_REFRESH_MS);
      } else if (!visible && timer) {
        clearInterval(timer);
        timer = undefined;
        hidden = Date.now();
      }
    };
    update(view.visible);
    const sub = view.onDidChangeVisibility((e) => update(e.visible));
    return {
      dispose: () => {
        sub.dispose();
        if (timer) clearInterval(timer);
      },
    };
  }

  private list(root: vscode.WorkspaceFolder): Promise<ListResult> {
    const key = root.uri.toString();
    let p = this.lists.get(key);
    if (!p) {
      p = this.client.command(Command.list, { root: root.uri.fsPath });
      this.lists.set(key, p);
      p.catch(() => this.lists.delete(key));
    }
    return p;
  }

  async getChildren(node?: TimelineNode): Promise<TimelineNode[]> {
    if (!node) {
      const roots = vscode.workspace.workspaceFolders ?? [];
      return roots.map((root) => ({ kind: 'root', root }));
    }
    if (node.kind === 'root') {
      try {
        const list = await this.list(node.root);
        const nodes: TimelineNode[] = timelineEntries(list).map((e) => {
          switch (e.kind) {
            case 'turn':
              return { kind: 'turn', root: node.root, turn: e.turn };
            case 'checkpoint':
              return { kind: 'checkpoint', root: node.root, checkpoint: e.checkpoint };
            case 'summary':
              return { kind: 'summary', root: node.root, summary: e.summary };
            default:
              return { kind: 'rewind', root: node.root, rewind: e.rewind, undoable: e.undoable };
          }
        });
        emit('timelineLoaded', { root: node.root.uri.fsPath, turns: (list.turns ?? []).map((t) => t.turn), entries: nodes.length });
        return nodes.length ? nodes : [{ kind: 'message', text: 'No agent turns recorded yet.' }];
      } catch (err) {
        if (err instanceof ServerMissingError) return [{ kind: 'message', text: 'No working rewind-lsp server: set rewind.serverPath', error: true }];
        return [{ kind: 'message', text: `Could not list turns: ${describeError(err)}`, error: true }];
      }
    }
    if (node.kind === 'turn') {
      return (node.turn.changed ?? []).map((file) => ({ kind: 'file', root: node.root, turn: node.turn, file }));
    }
    return [];
  }

  getTreeItem(node: TimelineNode): vscode.TreeItem {
    switch (node.kind) {
      case 'root': {
        const item = new vscode.TreeItem(node.root.name, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `root:${node.root.uri.toString()}`;
        item.iconPath = new vscode.ThemeIcon('root-folder');
        item.tooltip = node.root.uri.fsPath;
        item.contextValue = 'rewind.root';
        return item;
      }
      case 'turn': {
        const t = node.turn;
        const open = isOpen(t);
        const files = t.changed ?? [];
        const item = new vscode.TreeItem(
          t.title,
          files.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
        );
        item.id = `turn:${node.root.uri.toString()}:${t.entry}`;
        item.description = [t.age, open ? 'open' : t.what, t.sessionLabel].filter(Boolean).join(' · ');
        item.iconPath = new vscode.ThemeIcon(open ? 'sync~spin' : 'hubot');
        item.contextValue = open ? 'rewind.turn.open' : 'rewind.turn';
        const md = new vscode.MarkdownString();
        md.appendMarkdown(`**Turn ${t.turn}**${open ? ' (open)' : ''} — ${t.age}${t.source ? `, ${t.source}` : ''}\n\n`);
        if (t.session) md.appendText(`Session ${t.session}${t.agent ? ` (${t.agent})` : ''}\n\n`);
        if (t.prompt) md.appendText(t.prompt + '\n\n');
        if (t.summary) md.appendMarkdown('*Summary:* ').appendText(t.summary + '\n\n');
        if (t.what) md.appendText(t.what);
        item.tooltip = md;
        return item;
      }
      case 'checkpoint': {
        const c = node.checkpoint;
        const item = new vscode.TreeItem(c.title);
        item.id = `checkpoint:${node.root.uri.toString()}:${c.entry}`;
        item.description = c.age;
        item.iconPath = new vscode.ThemeIcon('bookmark');
        item.contextValue = 'rewind.checkpoint';
        item.tooltip = c.goal || c.title;
        return item;
      }
      case 'rewind': {
        const r = node.rewind;
        const item = new vscode.TreeItem(r.title);
        item.id = `rewind:${node.root.uri.toString()}:${r.entry}`;
        item.description = [r.age, r.sessionLabel].filter(Boolean).join(' · ');
        item.iconPath = new vscode.ThemeIcon(r.undone ? 'circle-slash' : 'discard');
        item.contextValue = node.undoable ? 'rewind.rewind.active' : 'rewind.rewind';
        const undo = node.undoable ? 'The latest rewind: "Undo" restores the files as they were before it.' : '';
        item.tooltip = [r.message, undo].filter(Boolean).join('\n\n') || undefined;
        return item;
      }
      case 'summary': {
        const s = node.summary;
        const item = new vscode.TreeItem(s.title);
        item.id = `summary:${node.root.uri.toString()}:${s.entry}`;
        item.description = [s.age, firstLine(s.report, 70)].filter(Boolean).join(' · ');
        item.iconPath = new vscode.ThemeIcon('note');
        item.contextValue = 'rewind.summary';
        item.tooltip = s.report;
        return item;
      }
      case 'file': {
        const f = node.file;
        const item = new vscode.TreeItem(basename(f.path));
        item.id = `file:${node.root.uri.toString()}:${node.turn.entry}:${f.path}`;
        item.resourceUri = vscode.Uri.file(joinRoot(node.root.uri.fsPath, f.path));
        item.description = [dirname(f.path), f.what, f.change === 'modify' ? '' : f.change === 'create' ? 'created' : f.change === 'delete' ? 'deleted' : f.change]
          .filter(Boolean)
          .join(' · ');
        item.tooltip = `${f.path}: ${f.change} ${f.what} in turn ${node.turn.turn}. Click to compare the file before turn ${node.turn.turn} with now.`;
        item.contextValue = 'rewind.file';
        item.command = { command: 'rewindLsp.openFileDiff', title: 'Open Diff', arguments: [node] };
        return item;
      }
      case 'message': {
        const item = new vscode.TreeItem(node.text);
        item.iconPath = new vscode.ThemeIcon(node.error ? 'error' : 'info');
        return item;
      }
    }
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
