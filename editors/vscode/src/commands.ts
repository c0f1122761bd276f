// The palette commands (`rewindLsp.*`, declared in package.json) and the Rewind view's item actions. Server
// commands (`rewind.*`) are registered by the language client itself and are called from here
// through RewindClient.command.

import * as vscode from 'vscode';
import { describeError, RewindClient, saveDocuments, ServerMissingError } from './client';
import { config } from './config';
import { fileUri, openPlanDiffs, openTurnFileDiff } from './diffs';
import { emit } from './events';
import { agentRewindChoice, agentRewindPrompt, ConflictChoice, conflictPrompt, conversationMessage, pickRows, plural, resultMessage, summarizePlan, TargetItem, targetForCheckpoint, targetForTurn } from './format';
import { appendOlder } from './paging';
import { Command, type AgentRewindParams, type ListResult, type Plan, type RewindMode, type RewindResult } from './protocol';
import { isStepTarget } from './steps';
import type { TimelineNode, TimelineProvider } from './timeline';

/** A target chosen in the view, so the palette flow can skip its pickers. */
interface Preset {
  root: vscode.WorkspaceFolder;
  target: string;
  /** Set when the caller chose already: the mode (no mode picker), the files (the rewind is
   *  limited to them) and that the person asked for it (no second confirmation). */
  mode?: RewindMode;
  paths?: string[];
  confirmed?: boolean;
}

export class Commands {
  /** Plans whose target is the start of a turn (or the state just before a step), by root and
   *  turn (or step) entry: their snapshot is the "before" side of the view's file diffs (neither
   *  state ever changes). */
  private readonly turnSnapshots = new Map<string, Promise<Plan>>();
  /** The latest conversation rewind of this window: the command that resumes it, and where. */
  private lastResume: { root: vscode.WorkspaceFolder; command: string } | undefined;

  constructor(
    private readonly client: RewindClient,
    private readonly timeline: TimelineProvider,
  ) {}

  register(): vscode.Disposable[] {
    const reg = (id: string, fn: (...args: any[]) => Promise<unknown>) => this.registerGuarded(id, fn);
    return [
      reg('rewindLsp.rewind', () => this.rewind()),
      reg('rewindLsp.preview', () => this.preview()),
      reg('rewindLsp.undo', () => this.undo()),
      reg('rewindLsp.checkpoint', () => this.checkpoint()),
      reg('rewindLsp.resume', () => this.resume()),
      reg('rewindLsp.showTimeline', () => Promise.resolve(vscode.commands.executeCommand('rewindLsp.timeline.focus'))),
      reg('rewindLsp.restartServer', async () => {
        await this.client.restart();
        void vscode.window.showInformationMessage('Rewind: server restarted.');
      }),
      reg('rewindLsp.showOutput', async () => this.client.output.show(true)),
      reg('rewindLsp.refreshTimeline', async () => this.timeline.refresh()),
      reg('rewindLsp.previewItem', (node: TimelineNode) => this.preview(presetOf(node))),
      reg('rewindLsp.rewindToItem', (node: TimelineNode) => this.rewind(presetOf(node))),
      reg('rewindLsp.undoItem', (node: TimelineNode) => this.undo(node && 'root' in node ? node.root : undefined)),
      reg('rewindLsp.openFileDiff', (node: TimelineNode) => this.openFileDiff(node)),
      reg('rewindLsp.showOlderTurns', (node: TimelineNode) => this.timeline.showOlder(node)),
      reg('rewindLsp.previewStep', (node: TimelineNode) => this.preview(stepPreset(node, 'rewindLsp.previewStep'))),
      reg('rewindLsp.rewindToStep', (node: TimelineNode) => this.rewind(stepPreset(node, 'rewindLsp.rewindToStep'))),
    ];
  }

  /** registerGuarded registers a command whose failures are reported like every Rewind command's. */
  registerGuarded(id: string, fn: (...args: any[]) => Promise<unknown>): vscode.Disposable {
    return vscode.commands.registerCommand(id, (...args: unknown[]) => this.guard(id, () => fn(...args)));
  }

  /** pickTurn picks a root and one of its turns or steps (for a revert): its target ("3", "3.2"). */
  async pickTurn(placeHolder: string): Promise<{ root: vscode.WorkspaceFolder; target: string } | undefined> {
    const root = await this.pickRoot();
    if (!root) return undefined;
    const t = await this.pickTarget(root, placeHolder, true);
    return t ? { root, target: t.target } : undefined;
  }

  /** guard reports a command's failure as a notification with "Open Logs", never silently. */
  private async guard(id: string, fn: () => Promise<unknown>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      if (err instanceof ServerMissingError) {
        if (!err.notified) this.client.notifyMissing(err.message); // an explicit command: say it again
        return;
      }
      emit('commandFailed', { id, error: describeError(err) });
      this.client.output.appendLine(`${id} failed: ${describeError(err)}`);
      const pick = await vscode.window.showErrorMessage(`Rewind: ${describeError(err)}`, 'Open Logs');
      if (pick === 'Open Logs') this.client.output.show(true);
    }
  }

  private async pickRoot(): Promise<vscode.WorkspaceFolder | undefined> {
    const roots = vscode.workspace.workspaceFolders ?? [];
    if (roots.length === 0) {
      void vscode.window.showWarningMessage('Rewind: open a folder first; rewind-lsp records turns per workspace folder.');
      return undefined;
    }
    if (roots.length === 1) return roots[0];
    return vscode.window.showWorkspaceFolderPick({ placeHolder: 'Workspace folder to rewind' });
  }

  /** pickTarget shows the latest page of turns (number and prompt, relative time, files changed),
   *  each followed by its steps, and the checkpoints recorded among them; "Older turns…" loads the
   *  page before into the same pick, as often as there are older turns. A step is a rewind of the
   *  files alone: its preset carries mode `code`, so no mode is asked. */
  private async pickTarget(root: vscode.WorkspaceFolder, placeHolder: string, onlyTurns = false): Promise<Preset | undefined> {
    const perPage = config().turnsPerPage;
    let list: ListResult = await this.client.command(Command.list, { root: root.uri.fsPath, limit: perPage });
    type Item = vscode.QuickPickItem & { item?: TargetItem; before?: number };
    const items = (): Item[] =>
      pickRows(list, onlyTurns).map((r): Item => {
        switch (r.kind) {
          case 'separator':
            return { label: r.label, kind: vscode.QuickPickItemKind.Separator };
          case 'older':
            // Shown whatever is typed: the turn sought may be on an older page.
            return { label: r.label, description: r.description, alwaysShow: true, before: r.before };
          default:
            return { label: r.item.label, description: r.item.description, detail: r.item.detail, item: r.item };
        }
      });
    const labels = (picks: Item[]) => picks.filter((p) => p.item || p.before !== undefined).map((p) => p.label);
    const first = items();
    if (!first.some((p) => p.item)) {
      void vscode.window.showInformationMessage(`Rewind: no agent turns recorded yet in ${root.name}.`);
      return undefined;
    }
    const pick = vscode.window.createQuickPick<Item>();
    pick.placeholder = placeHolder;
    pick.matchOnDescription = true;
    pick.matchOnDetail = true;
    pick.items = first;
    return new Promise<Preset | undefined>((resolve, reject) => {
      let loading = false;
      let hidden = false;
      pick.onDidAccept(async () => {
        const chosen = pick.selectedItems[0] ?? pick.activeItems[0];
        if (chosen?.before === undefined) {
          const item = chosen?.item;
          resolve(item ? { root, target: item.target, ...(item.kind === 'step' ? { mode: 'code' as const } : {}) } : undefined);
          pick.hide();
          return;
        }
        if (loading) return;
        loading = true;
        pick.busy = true;
        try {
          const older = await this.client.command(Command.list, { root: root.uri.fsPath, limit: perPage, before: chosen.before });
          if (hidden) return;
          list = appendOlder(list, older);
          const picks = items();
          pick.items = picks;
          // Where the older turns begin, so the keyboard goes on from there (while nothing is
          // typed: a filter decides itself which rows show).
          const next = picks.find((p) => p.item?.turn && p.item.turn.turn < chosen.before!);
          if (next && !pick.value) pick.activeItems = [next];
          emit('quickPickPaged', { before: chosen.before, turns: (older.turns ?? []).map((t) => t.turn), items: labels(picks) });
        } catch (err) {
          reject(err);
          pick.hide();
        } finally {
          loading = false;
          pick.busy = false;
        }
      });
      pick.onDidHide(() => {
        hidden = true;
        resolve(undefined);
        pick.dispose();
      });
      pick.show();
      emit('quickPickShown', { items: labels(first) });
    });
  }

  private async pickMode(): Promise<RewindMode | undefined> {
    if (!config().askForMode) return 'code';
    const modes: (vscode.QuickPickItem & { mode: RewindMode })[] = [
      { label: 'Code', description: 'default', detail: 'Restore the files; the conversation stays as it is.', mode: 'code' },
      { label: 'Code and conversation', detail: "Restore the files and move the agent's conversation back to that point.", mode: 'both' },
      { label: 'Conversation only', detail: 'Move the conversation back; the files stay as they are.', mode: 'conversation' },
      { label: 'Summarize', detail: 'Keep files and conversation; record what was learnt since then as a summary.', mode: 'summarize' },
    ];
    const chosen = await vscode.window.showQuickPick(modes, { placeHolder: 'What to rewind' });
    return chosen?.mode;
  }

  /** preview opens the diff of every file a rewind to the picked turn would change. */
  async preview(preset?: Preset): Promise<void> {
    const root = preset?.root ?? (await this.pickRoot());
    if (!root) return;
    const target = preset ?? (await this.pickTarget(root, 'Preview the rewind to… (the state when the turn started, or just before a step)'));
    if (!target) return;
    const paths = preset?.paths ? { paths: preset.paths } : {};
    const plan = await this.client.command(Command.preview, { root: root.uri.fsPath, target: target.target, mode: 'code', ...paths });
    const n = await openPlanDiffs(root, plan);
    const binary = (plan.files ?? []).filter((f) => f.binary).length;
    if (n === 0 && binary === 0) {
      void vscode.window.showInformationMessage(`Rewind: the files already match ${plan.target.title}; nothing to preview.`);
    } else if (binary) {
      void vscode.window.showInformationMessage(`Rewind: ${plural(binary, 'binary file')} not shown in the diff.`);
    }
  }

  /** rewind picks a target and a mode, shows the plan, applies it and saves what it touched. */
  async rewind(preset?: Preset): Promise<void> {
    const root = preset?.root ?? (await this.pickRoot());
    if (!root) return;
    const target = preset ?? (await this.pickTarget(root, 'Rewind to… (the state when the turn started, or just before a step)'));
    if (!target) return;
    // A step moves the files only: a conversation goes back to a turn's start or end.
    const mode = target.mode ?? (isStepTarget(target.target) ? 'code' : await this.pickMode());
    if (!mode) return;
    let report: string | undefined;
    if (mode === 'summarize') {
      report = await vscode.window.showInputBox({
        prompt: 'What was learnt since then (kept as a summary entry)',
        placeHolder: 'e.g. the JWT approach broke the session tests',
      });
      if (report === undefined) return;
    }
    const rootArg = root.uri.fsPath;
    const plan = await this.client.command(Command.preview, { root: rootArg, target: target.target, mode, ...(preset?.paths ? { paths: preset.paths } : {}) });
    const summary = summarizePlan(plan);
    emit('planShown', { target: target.target, mode, summary });
    if (summary.nothingToDo) {
      void vscode.window.showInformationMessage(`Rewind: the files already match ${plan.target.title}; nothing to do.`);
      return;
    }
    // With the Refactor Preview the edit itself is the confirmation; conflicts still need a choice.
    const confirmInPreview = config().confirmWithRefactorPreview && summary.changing + summary.conflicts > 0;
    let force = false;
    let paths: string[] | undefined = preset?.paths;
    if (summary.conflicts) {
      const choice = await this.chooseForConflicts(root, plan);
      if (choice === 'diff') {
        await openPlanDiffs(root, plan);
        return;
      }
      if (choice === 'cancel') return;
      force = choice === 'overwrite';
      // The server refuses a rewind with conflicts unless forced: leave them out by naming the others.
      if (choice === 'others') paths = (plan.files ?? []).filter((f) => !f.conflict).map((f) => f.path);
    } else if (!confirmInPreview && !preset?.confirmed) {
      const pick = await vscode.window.showWarningMessage(summary.message, { modal: true, detail: summary.detail }, 'Rewind', 'Show Diff');
      if (pick === 'Show Diff') {
        await openPlanDiffs(root, plan);
        return;
      }
      if (pick !== 'Rewind') return;
    }
    const { result, touched } = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Rewinding to ${plan.target.title}…` },
      () =>
        this.client.editing({ confirm: confirmInPreview }, () =>
          this.client.command(Command.rewind, { root: rootArg, target: target.target, mode, force, report, ...(paths ? { paths } : {}) }),
        ),
    );
    await this.finish('rewound', 'rewind', result, touched, root);
  }

  /** chooseForConflicts asks what to do about a plan's conflicts. Cancel comes first and is the
   *  active item, so Enter (or Escape) changes nothing. */
  private async chooseForConflicts(root: vscode.WorkspaceFolder, plan: Plan): Promise<ConflictChoice> {
    const unsaved = (rel: string) => {
      const p = fileUri(root, rel).toString();
      return vscode.workspace.textDocuments.some((d) => d.isDirty && d.uri.toString() === p);
    };
    const prompt = conflictPrompt(plan, unsaved);
    const items = prompt.choices.map((c) => ({ label: c.label, detail: c.detail, id: c.id }));
    emit('conflictsShown', { title: prompt.title, placeHolder: prompt.placeHolder, choices: items.map((i) => i.label) });
    const picked = await vscode.window.showQuickPick(items, { title: prompt.title, placeHolder: prompt.placeHolder, ignoreFocusOut: true });
    const choice = picked?.id ?? 'cancel';
    emit('conflictChoice', { choice });
    return choice;
  }

  /** undo restores the state before the latest rewind not yet undone. */
  async undo(presetRoot?: vscode.WorkspaceFolder): Promise<void> {
    const root = presetRoot ?? (await this.pickRoot());
    if (!root) return;
    const { result, touched } = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Undoing the last rewind…' },
      () => this.client.editing({ confirm: false }, () => this.client.command(Command.undo, { root: root.uri.fsPath })),
    );
    await this.finish('undone', 'undo', result, touched);
  }

  private async finish(
    event: string,
    kind: 'rewind' | 'undo',
    result: RewindResult,
    touched: vscode.Uri[],
    root?: vscode.WorkspaceFolder,
  ): Promise<void> {
    let saved = 0;
    if (result.applied && config().saveAfterRewind) {
      // Only the documents the edit itself touched: a conflicted file left alone keeps its
      // unsaved changes unsaved.
      saved = await saveDocuments(touched);
    }
    emit(event, { applied: result.applied, failureReason: result.failureReason ?? null, saved, touched: touched.map((u) => u.toString()) });
    this.timeline.refresh();
    if (!result.applied) {
      const reason = result.failureReason || 'the editor did not apply the edit';
      const pick = await vscode.window.showWarningMessage(`Rewind: nothing was changed: ${reason}`, 'Open Logs');
      if (pick === 'Open Logs') this.client.output.show(true);
      return;
    }
    const conv = result.conversation;
    const text = `Rewind: ${resultMessage(kind, result.plan, saved)}${conv ? ' ' + conversationMessage(conv) : ''}`;
    if (conv?.agent && conv.resume && root) {
      this.lastResume = { root, command: conv.resume };
      emit('conversationForked', conv);
      const resume = 'Resume in Terminal';
      if ((await vscode.window.showInformationMessage(text, resume)) === resume) await this.resume();
      return;
    }
    if (conv) emit('conversationNotForked', conv);
    void vscode.window.showInformationMessage(text);
  }

  /** agentRewound tells the person what an agent's own rewind did (`rewind/agentRewind`) and
   *  offers what is left: the files it did not restore (Rewind the Files, Show Diff), or the
   *  undo of what rewind-lsp restored for it. */
  async agentRewound(p: AgentRewindParams): Promise<void> {
    const root = (vscode.workspace.workspaceFolders ?? []).find((f) => f.uri.fsPath === p.root);
    const msg = agentRewindPrompt(p);
    emit('agentRewindShown', { text: msg.text, actions: msg.buttons });
    const pick = await vscode.window.showInformationMessage(msg.text, ...msg.buttons);
    emit('agentRewindChoice', { choice: pick ?? null });
    const action = agentRewindChoice(p, pick);
    if (!action || !root) return;
    const preset: Preset = { root, target: p.target, mode: 'code', paths: p.offered, confirmed: true };
    if (action === 'rewindFiles') await this.rewind(preset);
    else if (action === 'showDiff') await this.preview(preset);
    else if (action === 'undo') await this.undo(root);
  }

  /** resume opens an integrated terminal in the root running the latest conversation rewind's
   *  `resume` command. */
  async resume(): Promise<void> {
    const last = this.lastResume;
    if (!last) {
      void vscode.window.showInformationMessage(
        'Rewind: no conversation was rewound in this window yet. Rewind to a turn with "Code and conversation" or "Conversation only" first.',
      );
      return;
    }
    const terminal = vscode.window.createTerminal({ name: 'Resumed conversation', cwd: last.root.uri });
    terminal.show();
    terminal.sendText(last.command);
    emit('resumeTerminal', { command: last.command, cwd: last.root.uri.fsPath });
  }

  async checkpoint(): Promise<void> {
    const root = await this.pickRoot();
    if (!root) return;
    const label = await vscode.window.showInputBox({
      prompt: 'Checkpoint label (labeled checkpoints are never dropped; rewind to it as @label)',
      placeHolder: 'e.g. before-refactor',
      validateInput: (v) => (/\s/.test(v.trim()) ? 'A label has no spaces' : /^[@~]/.test(v) ? 'A label does not start with @ or ~' : undefined),
    });
    if (label === undefined) return;
    const r = await this.client.command(Command.checkpoint, { root: root.uri.fsPath, ...(label.trim() ? { label: label.trim() } : {}) });
    emit('checkpointCreated', r);
    this.timeline.refresh();
    void vscode.window.showInformationMessage(
      `Rewind: checkpoint ${label.trim() ? '@' + label.trim() : r.entry.slice(0, 8)} created (${plural(r.files ?? 0, 'file')}).`,
    );
  }

  /** openFileDiff compares a file of a turn as it was before the turn (a file of a step: before
   *  the step) with the file now. */
  async openFileDiff(node: TimelineNode): Promise<void> {
    if (!node || node.kind !== 'file') return;
    const step = node.step;
    const key = `${node.root.uri.toString()}#${step ? step.entry : node.turn.entry}`;
    let plan = this.turnSnapshots.get(key);
    if (!plan) {
      // The plan's target carries the snapshot taken when the turn started (or just before the step).
      const target = step ? step.target : targetForTurn(node.turn.turn);
      plan = this.client.command(Command.preview, { root: node.root.uri.fsPath, target, mode: 'code', paths: [node.file.path] });
      this.turnSnapshots.set(key, plan);
      plan.catch(() => this.turnSnapshots.delete(key));
    }
    const snapshot = (await plan).target.snapshot;
    await openTurnFileDiff(node.root, { turn: node.turn.turn, step: step?.step }, snapshot, node.file.path, node.file.change !== 'create');
  }
}

/** stepPreset is the target of a step's row: the state just before it, rewound in mode code.
 *  Without a step (VS Code can pass no row while it redraws the view) the command asks, as the
 *  palette's do. */
function stepPreset(node: TimelineNode | undefined, command: string): Preset | undefined {
  if (node?.kind !== 'step') {
    emit('viewItemMissing', { command });
    return undefined;
  }
  return { root: node.root, target: node.step.target, mode: 'code' };
}

function presetOf(node: TimelineNode | undefined): Preset | undefined {
  if (!node) return undefined;
  if (node.kind === 'turn') return { root: node.root, target: targetForTurn(node.turn.turn) };
  if (node.kind === 'checkpoint') return { root: node.root, target: targetForCheckpoint(node.checkpoint) };
  return undefined;
}
