// Agent blame (`rewindLsp.toggleBlame`): after each line an agent turn wrote and nobody
// changed since, a faint note (the turn's title and age, as the server wrote them; the step's
// title when one tool call of the turn wrote the line); its hover shows the turn (or that step)
// and links to its diff for the file and to reverting it in the file.
// Refreshed on `rewind/didChange`, on text changes, and once a minute while shown (the ages).

import * as vscode from 'vscode';
import { describeError, RewindClient } from './client';
import { emit } from './events';
import { Command, type BlameRange } from './protocol';
import { blameHoverMarkdown, blameNote, blameStep, commandUri } from './revertFormat';
import { AGE_REFRESH_MS } from './timeline';
import { toRootRelative } from './uris';

/** Argument of the hover's command links: a turn, or one of its steps, in one file. */
export interface TurnFileArg {
  root: string;
  turn: number;
  path: string;
  /** The step of the turn that wrote the line, and its target (the state just before it, "3.2"). */
  step?: number;
  target?: string;
}

const DEBOUNCE_MS = 300;

export class BlameController implements vscode.Disposable {
  private on = false;
  private readonly decoration = vscode.window.createTextEditorDecorationType({
    after: { color: new vscode.ThemeColor('editorCodeLens.foreground'), margin: '0 0 0 3em', fontStyle: 'italic' },
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  });
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private ages: ReturnType<typeof setInterval> | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly client: RewindClient) {
    this.subscriptions.push(
      client.onDidChange(() => this.refreshVisible()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.refreshVisible()),
      vscode.workspace.onDidChangeTextDocument((e) => this.schedule(e.document)),
    );
  }

  get enabled(): boolean {
    return this.on;
  }

  /** toggle shows or hides the notes in every visible editor. */
  toggle(): void {
    this.on = !this.on;
    emit('blameToggled', { on: this.on });
    if (this.ages) clearInterval(this.ages);
    this.ages = undefined;
    if (this.on) {
      this.refreshVisible();
      this.ages = setInterval(() => this.refreshVisible(), AGE_REFRESH_MS);
    } else for (const ed of vscode.window.visibleTextEditors) ed.setDecorations(this.decoration, []);
  }

  private refreshVisible(): void {
    if (!this.on) return;
    for (const ed of vscode.window.visibleTextEditors) void this.refresh(ed.document);
  }

  /** schedule refreshes a document shortly after the person stops typing. */
  private schedule(doc: vscode.TextDocument): void {
    if (!this.on || doc.uri.scheme !== 'file') return;
    const key = doc.uri.toString();
    const t = this.timers.get(key);
    if (t) clearTimeout(t);
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        void this.refresh(doc);
      }, DEBOUNCE_MS),
    );
  }

  /** refresh asks the server for the blame of a document (its open buffer: the server has it) and
   *  decorates its editors; an answer for a version the document has left is dropped. */
  private async refresh(doc: vscode.TextDocument): Promise<void> {
    if (!this.on || doc.uri.scheme !== 'file') return;
    const root = vscode.workspace.getWorkspaceFolder(doc.uri);
    if (!root) return;
    const version = doc.version;
    let ranges: BlameRange[];
    try {
      ranges = (await this.client.command(Command.blame, { root: root.uri.fsPath, uri: doc.uri.toString() })).ranges ?? [];
    } catch (err) {
      this.client.output.appendLine(`blame of ${doc.uri.fsPath}: ${describeError(err)}`);
      return;
    }
    if (!this.on || doc.version !== version) return;
    const rel = toRootRelative(root.uri.fsPath, doc.uri.fsPath) ?? doc.uri.fsPath;
    const options: vscode.DecorationOptions[] = [];
    const lines: { line: number; turn: number; step: number; note: string }[] = [];
    for (const r of ranges) {
      const step = blameStep(r);
      const arg: TurnFileArg = { root: root.uri.fsPath, turn: r.turn, path: rel, ...(step ?? {}) };
      const md = new vscode.MarkdownString(
        blameHoverMarkdown(r, commandUri('rewindLsp.previewTurnFile', arg), commandUri('rewindLsp.revertTurnFile', arg)),
      );
      md.isTrusted = { enabledCommands: ['rewindLsp.previewTurnFile', 'rewindLsp.revertTurnFile'] };
      const note = blameNote(r);
      for (let line = r.startLine; line < r.endLine && line < doc.lineCount; line++) {
        options.push({ range: doc.lineAt(line).range, hoverMessage: md, renderOptions: { after: { contentText: note } } });
        lines.push({ line, turn: r.turn, step: step?.step ?? 0, note });
      }
    }
    for (const ed of vscode.window.visibleTextEditors) {
      if (ed.document.uri.toString() === doc.uri.toString()) ed.setDecorations(this.decoration, options);
    }
    emit('blameShown', { path: rel, version, lines });
  }

  dispose(): void {
    if (this.ages) clearInterval(this.ages);
    for (const t of this.timers.values()) clearTimeout(t);
    for (const s of this.subscriptions) s.dispose();
    this.decoration.dispose();
  }
}
