// The Rewind view: workspace roots → turns, checkpoints, rewinds and reports (newest first) → a
// turn's steps (the agent's tool calls that changed files, each with its files) and the files the
// turn changed, in the server's words (titles, ages, changes, session labels). A root lists
// the latest page of turns (`rewind.turnsPerPage`); when older turns were left out, its last row,
// "Show Older Turns…", loads the next page below the ones shown. Re-listed on `rewind/didChange`,
// and once a minute while the view is visible, so its ages stay true: a re-listing asks for as
// many turns as the pages loaded hold, and redraws only the rows whose words changed
// (viewUpdate.ts says why).

import * as vscode from 'vscode';
import { describeError, RewindClient, ServerMissingError } from './client';
import { config } from './config';
import { emit } from './events';
import { basename, dirname, firstLine, isOpen, timelineEntries } from './format';
import { appendOlder, olderBefore } from './paging';
import { Command, type CheckpointInfo, type FileChange, type ListResult, type RewindInfo, type StepInfo, type SummaryInfo, type TurnInfo } from './protocol';
import { beforeLabel, stepDescription, stepsOf, turnChildren } from './steps';
import { joinRoot } from './uris';
import { viewUpdate, type Row } from './viewUpdate';

export type TimelineNode =
  | { kind: 'root'; root: vscode.WorkspaceFolder }
  | { kind: 'turn'; root: vscode.WorkspaceFolder; turn: TurnInfo }
  | { kind: 'checkpoint'; root: vscode.WorkspaceFolder; checkpoint: CheckpointInfo }
  | { kind: 'rewind'; root: vscode.WorkspaceFolder; rewind: RewindInfo; undoable: boolean }
  | { kind: 'summary'; root: vscode.WorkspaceFolder; summary: SummaryInfo }
  | { kind: 'step'; root: vscode.WorkspaceFolder; turn: TurnInfo; step: StepInfo }
  /** A file a turn changed, or (with `step`) a file one of its steps changed. */
  | { kind: 'file'; root: vscode.WorkspaceFolder; turn: TurnInfo; step?: StepInfo; file: FileChange }
  | { kind: 'older'; root: vscode.WorkspaceFolder; before: number }
  | { kind: 'message'; text: string; error?: boolean };

type RootNode = Extract<TimelineNode, { kind: 'root' }>;

/** How often a visible Rewind view and the blame notes are re-read, so their ages stay true. */
export const AGE_REFRESH_MS = 60_000;

/** TimelineProvider feeds the `rewindLsp.timeline` tree view from `rewind.list`. */
export class TimelineProvider implements vscode.TreeDataProvider<TimelineNode> {
  private readonly emitter = new vscode.EventEmitter<TimelineNode | TimelineNode[] | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private lists = new Map<string, Promise<ListResult>>();
  /** The root nodes shown, and the nodes last shown under each, by root: kept so that a
   *  re-listing can update them in place. */
  private roots = new Map<string, RootNode>();
  private shown = new Map<string, TimelineNode[]>();
  /** How many pages of turns each root shows (1 unless older ones were loaded), by root. */
  private pages = new Map<string, number>();
  private relisting: Promise<void> = Promise.resolve();
  /** Set while a re-listing waits its turn: a change made meanwhile is seen by it. */
  private relistQueued = false;
  private view: vscode.TreeView<TimelineNode> | undefined;

  constructor(private readonly client: RewindClient) {}

  /** refresh re-lists the roots shown and redraws what changed: the rows whose words changed,
   *  or a root's whole list when its entries changed, or everything when the folders did or the
   *  view is hidden (keepFresh names the view). */
  refresh(): void {
    if (this.relistQueued) return;
    this.relistQueued = true;
    this.relisting = this.relisting
      .then(() => {
        this.relistQueued = false;
        return this.relist();
      })
      .catch(() => undefined);
  }

  /** listArgs asks for the pages a root shows: as many of the latest turns as they hold. */
  private listArgs(root: vscode.WorkspaceFolder): { root: string; limit: number } {
    return { root: root.uri.fsPath, limit: config().turnsPerPage * (this.pages.get(root.uri.toString()) ?? 1) };
  }

  /** showOlder lists the page of turns before the oldest one `node`'s root shows, and adds it
   *  below them (after any re-listing under way). */
  showOlder(node: TimelineNode | undefined): Promise<void> {
    const run = this.relisting.then(() => this.loadOlder(node));
    this.relisting = run.catch(() => undefined);
    return run;
  }

  private async loadOlder(node: TimelineNode | undefined): Promise<void> {
    // Without a row (VS Code can pass none while it redraws the view): every root with older turns.
    const keys = node?.kind === 'older' ? [node.root.uri.toString()] : [...this.roots.keys()];
    for (const key of keys) {
      const rootNode = this.roots.get(key);
      const listed = this.lists.get(key);
      if (!rootNode || !listed) continue;
      const shown = await listed;
      const before = olderBefore(shown);
      // A row clicked twice asks once: its page is listed by then.
      if (before === undefined || (node?.kind === 'older' && node.before !== before)) continue;
      const older = await this.client.command(Command.list, { root: rootNode.root.uri.fsPath, limit: config().turnsPerPage, before });
      const list = appendOlder(shown, older);
      this.pages.set(key, (this.pages.get(key) ?? 1) + 1);
      this.lists.set(key, Promise.resolve(list));
      this.shown.delete(key);
      emit('timelinePaged', { root: rootNode.root.uri.fsPath, before, turns: (older.turns ?? []).map((t) => t.turn), more: !!list.more });
      this.emitter.fire(rootNode); // its children are listed again, from the pages just joined
    }
  }

  private async relist(): Promise<void> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    // A hidden view lists nothing now: it lists everything when it shows.
    if (!this.view?.visible || folders.length !== this.roots.size || folders.some((f) => !this.roots.has(f.uri.toString()))) {
      this.lists.clear();
      this.shown.clear();
      this.emitter.fire(undefined);
      return;
    }
    for (const [key, rootNode] of this.roots) {
      if (!this.shown.has(key)) {
        this.lists.delete(key); // not listed yet: it is when it shows
        continue;
      }
      let list: ListResult;
      try {
        list = await this.client.command(Command.list, this.listArgs(rootNode.root));
      } catch {
        this.lists.delete(key);
        this.shown.delete(key);
        this.emitter.fire(rootNode); // its message says why
        continue;
      }
      this.lists.set(key, Promise.resolve(list));
      const shown = this.shown.get(key) ?? []; // getChildren may have replaced it meanwhile
      const fresh = this.entryNodes(rootNode.root, list);
      const update = viewUpdate(shown.map(row), fresh.map(row));
      if (update.kind === 'rebuild') {
        this.shown.delete(key);
        this.emitter.fire(rootNode); // its children are listed again (from the list just read)
        continue;
      }
      const changed = update.changed.map((i) => Object.assign(shown[i], fresh[i]));
      if (changed.length) this.emitter.fire(changed);
      emit('timelineRefreshed', { root: rootNode.root.uri.fsPath, changed: changed.length });
    }
  }

  /** keepFresh re-lists every AGE_REFRESH_MS while `view` is visible (and once when it shows
   *  again), so the ages the server wrote stay true; nothing runs while the view is hidden. */
  keepFresh(view: vscode.TreeView<TimelineNode>): vscode.Disposable {
    this.view = view;
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
      p = this.client.command(Command.list, this.listArgs(root));
      this.lists.set(key, p);
      p.catch(() => this.lists.delete(key));
    }
    return p;
  }

  /** entryNodes are the nodes of a root's listing, newest first, and last, when older turns were
   *  left out, the row that loads them. */
  private entryNodes(root: vscode.WorkspaceFolder, list: ListResult): TimelineNode[] {
    const nodes: TimelineNode[] = timelineEntries(list).map((e) => {
      switch (e.kind) {
        case 'turn':
          return { kind: 'turn', root, turn: e.turn };
        case 'checkpoint':
          return { kind: 'checkpoint', root, checkpoint: e.checkpoint };
        case 'summary':
          return { kind: 'summary', root, summary: e.summary };
        default:
          return { kind: 'rewind', root, rewind: e.rewind, undoable: e.undoable };
      }
    });
    const before = olderBefore(list);
    if (before !== undefined) nodes.push({ kind: 'older', root, before });
    return nodes.length ? nodes : [{ kind: 'message', text: 'No agent turns recorded yet.' }];
  }

  async getChildren(node?: TimelineNode): Promise<TimelineNode[]> {
    if (!node) {
      const roots = (vscode.workspace.workspaceFolders ?? []).map((root): RootNode => {
        const known = this.roots.get(root.uri.toString());
        if (known) known.root = root;
        return known ?? { kind: 'root', root };
      });
      this.roots = new Map(roots.map((r) => [r.root.uri.toString(), r]));
      return roots;
    }
    if (node.kind === 'root') {
      const key = node.root.uri.toString();
      try {
        const list = await this.list(node.root);
        const nodes = this.entryNodes(node.root, list);
        this.shown.set(key, nodes);
        emit('timelineLoaded', {
          root: node.root.uri.fsPath,
          turns: (list.turns ?? []).map((t) => t.turn),
          entries: nodes.filter((n) => n.kind !== 'message' && n.kind !== 'older').length,
          more: !!list.more,
        });
        return nodes;
      } catch (err) {
        this.shown.delete(key);
        if (err instanceof ServerMissingError) return [{ kind: 'message', text: 'No working rewind-lsp server: set rewind.serverPath', error: true }];
        return [{ kind: 'message', text: `Could not list turns: ${describeError(err)}`, error: true }];
      }
    }
    if (node.kind === 'turn') {
      const children = turnChildren(node.turn).map((c): TimelineNode =>
        c.kind === 'step' ? { kind: 'step', root: node.root, turn: node.turn, step: c.step } : { kind: 'file', root: node.root, turn: node.turn, file: c.file },
      );
      emit('turnExpanded', { root: node.root.uri.fsPath, turn: node.turn.turn, steps: stepsOf(node.turn).map((st) => st.title) });
      return children;
    }
    if (node.kind === 'step') {
      return (node.step.changed ?? []).map((file) => ({ kind: 'file', root: node.root, turn: node.turn, step: node.step, file }));
    }
    return [];
  }

  getTreeItem(node: TimelineNode): vscode.TreeItem {
    switch (node.kind) {
      case 'root': {
        const item = new vscode.TreeItem(node.root.name, vscode.TreeItemCollapsibleState.Expanded);
        item.id = idOf(node);
        item.iconPath = new vscode.ThemeIcon('root-folder');
        item.tooltip = node.root.uri.fsPath;
        item.contextValue = 'rewind.root';
        return item;
      }
      case 'turn': {
        const t = node.turn;
        const open = isOpen(t);
        const item = new vscode.TreeItem(
          t.title,
          turnChildren(t).length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
        );
        item.id = idOf(node);
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
      case 'step': {
        const s = node.step;
        const item = new vscode.TreeItem(
          s.title,
          (s.changed ?? []).length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
        );
        item.id = idOf(node);
        item.description = stepDescription(s);
        item.iconPath = new vscode.ThemeIcon('tools');
        item.contextValue = 'rewind.step';
        const md = new vscode.MarkdownString();
        md.appendMarkdown(`**Step ${s.step} of turn ${node.turn.turn}** — ${s.age}\n\n`);
        if (s.tool) md.appendText(s.detail ? `${s.tool}: ${s.detail}\n\n` : `${s.tool}\n\n`);
        if (s.what) md.appendText(s.what + '\n\n');
        md.appendMarkdown('*Preview Step*, *Rewind to Before This Step* and *Revert This Step Only* are in its menu.');
        item.tooltip = md;
        return item;
      }
      case 'checkpoint': {
        const c = node.checkpoint;
        const item = new vscode.TreeItem(c.title);
        item.id = idOf(node);
        item.description = c.age;
        item.iconPath = new vscode.ThemeIcon('bookmark');
        item.contextValue = 'rewind.checkpoint';
        item.tooltip = c.goal || c.title;
        return item;
      }
      case 'rewind': {
        const r = node.rewind;
        const item = new vscode.TreeItem(r.title);
        item.id = idOf(node);
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
        item.id = idOf(node);
        item.description = [s.age, firstLine(s.report, 70)].filter(Boolean).join(' · ');
        item.iconPath = new vscode.ThemeIcon('note');
        item.contextValue = 'rewind.summary';
        item.tooltip = s.report;
        return item;
      }
      case 'file': {
        const f = node.file;
        const item = new vscode.TreeItem(basename(f.path));
        item.id = idOf(node);
        item.resourceUri = vscode.Uri.file(joinRoot(node.root.uri.fsPath, f.path));
        item.description = [dirname(f.path), f.what, f.change === 'modify' ? '' : f.change === 'create' ? 'created' : f.change === 'delete' ? 'deleted' : f.change]
          .filter(Boolean)
          .join(' · ');
        const where = node.step ? `step ${node.step.step} of turn ${node.turn.turn}` : `turn ${node.turn.turn}`;
        item.tooltip = `${f.path}: ${f.change} ${f.what} in ${where}. Click to compare the file ${beforeLabel(node.turn.turn, node.step?.step)} with now.`;
        item.contextValue = 'rewind.file';
        item.command = { command: 'rewindLsp.openFileDiff', title: 'Open Diff', arguments: [node] };
        return item;
      }
      case 'older': {
        const item = new vscode.TreeItem('Show Older Turns…');
        item.id = idOf(node);
        item.description = `before turn ${node.before}`;
        item.iconPath = new vscode.ThemeIcon('fold-down');
        item.contextValue = 'rewind.older';
        item.tooltip = `List the turns before turn ${node.before} (up to ${config().turnsPerPage}), with the checkpoints, rewinds and reports recorded among them.`;
        item.command = { command: 'rewindLsp.showOlderTurns', title: 'Show Older Turns', arguments: [node] };
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

/** idOf is a node's stable id: its kind, root and journal entry (and path, for a file). */
function idOf(node: TimelineNode): string {
  if (node.kind === 'message') return `message:${node.text}`;
  const root = node.root.uri.toString();
  switch (node.kind) {
    case 'root':
      return `root:${root}`;
    case 'turn':
      return `turn:${root}:${node.turn.entry}`;
    case 'checkpoint':
      return `checkpoint:${root}:${node.checkpoint.entry}`;
    case 'rewind':
      return `rewind:${root}:${node.rewind.entry}`;
    case 'summary':
      return `summary:${root}:${node.summary.entry}`;
    case 'step':
      return `step:${root}:${node.step.entry}`;
    case 'file':
      return node.step ? `file:${root}:${node.turn.entry}:${node.step.entry}:${node.file.path}` : `file:${root}:${node.turn.entry}:${node.file.path}`;
    case 'older':
      return `older:${root}`;
  }
}

/** row is a node as viewUpdate compares it: its id and everything the row shows. */
function row(node: TimelineNode): Row {
  return [idOf(node), JSON.stringify(node, (k, v) => (k === 'root' ? undefined : v))];
}
