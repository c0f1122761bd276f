// Revert one turn (or one step of a turn), keeping the later ones: `rewindLsp.revert` (pick a turn
// or a step), "Revert This Turn Only" on a turn and "Revert This Step Only" on a step in the Rewind
// view, and the blame hover's links (revert a turn, or the step of it that wrote the line, in one
// file; preview its changes to that file). A dry run shows what the revert does, or why it cannot
// (the files later changes overlap, and who made them); the revert then goes to the editor as one
// WorkspaceEdit, and the documents it touched are saved.

import * as vscode from 'vscode';
import type { TurnFileArg } from './blame';
import { RewindClient, saveDocuments } from './client';
import { config } from './config';
import { openTurnFileDiff } from './diffs';
import { emit } from './events';
import { targetForTurn } from './format';
import { Command } from './protocol';
import { revertedMessage, revertPrompt } from './revertFormat';
import type { TimelineNode, TimelineProvider } from './timeline';

/** What to revert: one turn of a root ("3") or one step of a turn ("3.2"), optionally only some
 *  files. */
export interface RevertRequest {
  root: vscode.WorkspaceFolder;
  target: string;
  paths?: string[];
}

/** revertTurn runs the dry run, asks, reverts and saves. The messages name the turn (or step) as
 *  the dry run's plan does ("turn 3 (fix auth)"). */
export async function revertTurn(client: RewindClient, timeline: TimelineProvider, req: RevertRequest): Promise<void> {
  const args = { root: req.root.uri.fsPath, target: req.target, ...(req.paths ? { paths: req.paths } : {}) };
  const dry = await client.command(Command.revert, { ...args, dryRun: true });
  if (!dry.plan) throw new Error('the server answered the revert without a plan');
  const name = `${dry.plan.target.title}${req.paths ? ` in ${req.paths.join(', ')}` : ''}`;
  const prompt = revertPrompt(name, dry);
  emit('revertPlanShown', { target: req.target, blocked: prompt.blocked, message: prompt.message, detail: prompt.detail });
  if (prompt.blocked) {
    void vscode.window.showWarningMessage(`Rewind: ${prompt.message}`, { detail: prompt.detail });
    emit('reverted', { target: req.target, applied: false, failureReason: dry.failureReason ?? prompt.message, saved: 0 });
    return;
  }
  const pick = await vscode.window.showWarningMessage(prompt.message, { modal: true, detail: prompt.detail }, 'Revert');
  if (pick !== 'Revert') return;
  const { result, touched } = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Reverting ${name}…` },
    () => client.editing({ confirm: false }, () => client.command(Command.revert, args)),
  );
  const saved = result.applied && config().saveAfterRewind ? await saveDocuments(touched) : 0;
  emit('reverted', { target: req.target, applied: result.applied, failureReason: result.failureReason ?? null, saved });
  timeline.refresh();
  if (!result.applied) {
    void vscode.window.showWarningMessage(`Rewind: nothing was changed: ${result.failureReason || 'the editor did not apply the edit'}`);
    return;
  }
  void vscode.window.showInformationMessage(`Rewind: ${revertedMessage(name, result.plan, saved)}`);
}

/** RevertCommands are the command handlers of this file, registered by Commands. */
export class RevertCommands {
  constructor(
    private readonly client: RewindClient,
    private readonly timeline: TimelineProvider,
    private readonly pickTurn: () => Promise<RevertRequest | undefined>,
  ) {}

  /** palette: `rewindLsp.revert`. */
  async revert(): Promise<void> {
    const req = await this.pickTurn();
    if (req) await revertTurn(this.client, this.timeline, req);
  }

  /** view: "Revert This Turn Only" on a turn. VS Code passes no turn when the row was chosen
   *  while the view was being redrawn (it resolves the row only once it has listed the view
   *  again): then it asks which turn, as the palette command does, rather than do nothing; so do
   *  "Preview" and "Rewind to here". */
  async revertItem(node: TimelineNode | undefined): Promise<void> {
    if (node?.kind !== 'turn') {
      emit('viewItemMissing', { command: 'rewindLsp.revertItem' });
      return this.revert();
    }
    await revertTurn(this.client, this.timeline, { root: node.root, target: targetForTurn(node.turn.turn) });
  }

  /** view: "Revert This Step Only" on a step: its own changes go back; the later steps and turns
   *  and the person's edits stay. Without a row it asks, as revertItem does. */
  async revertStep(node: TimelineNode | undefined): Promise<void> {
    if (node?.kind !== 'step') {
      emit('viewItemMissing', { command: 'rewindLsp.revertStep' });
      return this.revert();
    }
    await revertTurn(this.client, this.timeline, { root: node.root, target: node.step.target });
  }

  /** blame hover: revert a turn (or the step of it that wrote the line) in one file. */
  async revertTurnFile(arg: TurnFileArg | undefined): Promise<void> {
    const root = arg && vscode.workspace.workspaceFolders?.find((f) => f.uri.fsPath === arg.root);
    if (!arg || !root) return;
    await revertTurn(this.client, this.timeline, { root, target: turnFileTarget(arg), paths: [arg.path] });
  }

  /** blame hover: the file before the turn (or before the step) ↔ now. */
  async previewTurnFile(arg: TurnFileArg | undefined): Promise<void> {
    const root = arg && vscode.workspace.workspaceFolders?.find((f) => f.uri.fsPath === arg.root);
    if (!arg || !root) return;
    // The plan of a rewind to the turn's start names the snapshot taken when the turn started (to
    // a step: the one taken just before the step).
    const step = arg.step && arg.target ? arg.step : undefined;
    const plan = await this.client.command(Command.preview, { root: arg.root, target: turnFileTarget(arg), paths: [arg.path] });
    const created = (plan.files ?? []).some((f) => f.path === arg.path && f.change === 'delete');
    await openTurnFileDiff(root, { turn: arg.turn, step }, plan.target.snapshot, arg.path, !created);
  }
}

/** turnFileTarget is the target of a blame link: the step's ("3.2") when a step wrote the line,
 *  else the turn's. */
function turnFileTarget(arg: TurnFileArg): string {
  return arg.step && arg.target ? arg.target : targetForTurn(arg.turn);
}
