// Pure presentation logic: quick-pick items, plan summaries, messages and timeline ordering.
// The words the server makes — a turn's title, how long ago, a file's change, a plan's lines, a
// target's name (docs/PROTOCOL.md, "Words") — are shown as they come, never made here.
// Nothing here imports `vscode`, so test/unit exercises it directly under `node --test`.

import { olderBefore } from './paging';
import type { AgentRewindAction, AgentRewindParams, CheckpointInfo, ConversationResult, FileChange, ListResult, Plan, PlanFile, RewindInfo, StepInfo, SummaryInfo, TurnInfo } from './protocol';
import { stepDescription, stepsOf } from './steps';

/** parseTime reads an RFC 3339 string or epoch seconds/milliseconds (to order the view); NaN
 *  when unreadable. */
export function parseTime(t: unknown): number {
  if (typeof t === 'number') return t < 1e12 ? t * 1000 : t;
  if (typeof t !== 'string' || t === '') return NaN;
  if (/^\d+$/.test(t)) return parseTime(Number(t));
  return Date.parse(t);
}

/** plural writes "1 file", "2 files". */
export function plural(n: number, word: string, many = word + 's'): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** firstLine shortens a goal or a report to its first line, at most `max` characters. */
export function firstLine(text: string | undefined, max = 80): string {
  const line = (text ?? '').trim().split(/\r?\n/)[0] ?? '';
  return line.length > max ? line.slice(0, max - 1) + '…' : line;
}

/** conversationMessage says what a conversation rewind did to the agent's conversation. */
export function conversationMessage(c: ConversationResult | undefined): string {
  if (!c) return '';
  if (c.agent && c.resume) return `The ${c.agent} conversation was forked: continue it with \`${c.resume}\`.`;
  return c.reason ? `Conversation: ${c.reason}.` : '';
}

/** isOpen tells whether a turn has started and not ended yet. */
export function isOpen(t: TurnInfo): boolean {
  return !t.ended || Number.isNaN(parseTime(t.ended));
}

/** A pickable rewind target: what the quick picks of the palette commands list. */
export interface TargetItem {
  label: string;
  description: string;
  detail: string;
  /** Target string for rewind.preview/rewind.rewind ("3", "3.2", "@label": docs/PROTOCOL.md, "Targets"). */
  target: string;
  kind: 'turn' | 'step' | 'checkpoint';
  turn?: TurnInfo;
  step?: StepInfo;
  checkpoint?: CheckpointInfo;
}

/** turnItem builds the quick-pick entry of a turn: its title, age and files changed. */
export function turnItem(t: TurnInfo): TargetItem {
  const state = isOpen(t) ? 'open' : '';
  return {
    label: t.title,
    description: [t.age, state, t.source ?? '', t.sessionLabel ?? ''].filter(Boolean).join(' · '),
    detail: (t.what ?? '') + fileList(t.changed),
    target: targetForTurn(t.turn),
    kind: 'turn',
    turn: t,
  };
}

/** The mark in front of a step in a turn pick, under its turn. */
export const STEP_MARK = '↳ ';

/** stepItem builds the quick-pick entry of a step, listed after its turn: its title (marked
 *  "↳"), age, what it changed and its files. */
export function stepItem(t: TurnInfo, s: StepInfo): TargetItem {
  return {
    label: STEP_MARK + s.title,
    description: stepDescription(s),
    detail: fileList(s.changed).replace(/^: /, ''),
    target: s.target,
    kind: 'step',
    turn: t,
    step: s,
  };
}

function fileList(changed: FileChange[] | null | undefined, max = 4): string {
  const files = changed ?? [];
  if (files.length === 0) return '';
  const names = files.slice(0, max).map((f) => `${basename(f.path)} ${f.what}`);
  return ': ' + names.join(', ') + (files.length > max ? `, … ${files.length - max} more` : '');
}

/** checkpointItem builds the quick-pick entry of a checkpoint: its title (with its goal) and age. */
export function checkpointItem(c: CheckpointInfo): TargetItem {
  return {
    label: c.title,
    description: c.age,
    detail: '',
    target: targetForCheckpoint(c),
    kind: 'checkpoint',
    checkpoint: c,
  };
}

/** targetItems lists turns then checkpoints, newest first. */
export function targetItems(list: ListResult): TargetItem[] {
  const turns = [...(list.turns ?? [])].sort((a, b) => b.turn - a.turn).map((t) => turnItem(t));
  const cps = [...(list.checkpoints ?? [])].sort((a, b) => parseTime(b.time) - parseTime(a.time)).map((c) => checkpointItem(c));
  return [...turns, ...cps];
}

/** A row of a turn pick: a separator, a target, or the item that loads the older turns. */
export type PickRow =
  | { kind: 'separator'; label: string }
  | { kind: 'target'; item: TargetItem }
  | { kind: 'older'; label: string; description: string; before: number };

/** The label of the pick's item that loads the page of older turns. */
export const OLDER_TURNS_LABEL = 'Older turns…';

/** pickRows lays out a turn pick of the pages listed: the turns, newest first, each followed by
 *  its steps, then, when older turns were left out, the item that loads them, then the
 *  checkpoints (none with onlyTurns). */
export function pickRows(list: ListResult, onlyTurns = false): PickRow[] {
  const items = targetItems(list);
  const rows: PickRow[] = [];
  const turns = items.filter((i) => i.kind === 'turn');
  const cps = onlyTurns ? [] : items.filter((i) => i.kind === 'checkpoint');
  const before = olderBefore(list);
  if (turns.length || before !== undefined) rows.push({ kind: 'separator', label: 'Turns' });
  for (const item of turns) {
    rows.push({ kind: 'target', item });
    for (const s of stepsOf(item.turn!)) rows.push({ kind: 'target', item: stepItem(item.turn!, s) });
  }
  if (before !== undefined) rows.push({ kind: 'older', label: OLDER_TURNS_LABEL, description: `before turn ${before}`, before });
  if (cps.length) rows.push({ kind: 'separator', label: 'Checkpoints' });
  for (const item of cps) rows.push({ kind: 'target', item });
  return rows;
}

export function targetForTurn(turn: number): string {
  return String(turn);
}

export function targetForCheckpoint(c: CheckpointInfo): string {
  return c.label ? `@${c.label}` : c.entry;
}

export function shortId(id: string): string {
  return id.length > 12 ? id.slice(0, 8) : id;
}

export function basename(p: string): string {
  const i = p.lastIndexOf('/');
  return i >= 0 ? p.slice(i + 1) : p;
}

export function dirname(p: string): string {
  const i = p.lastIndexOf('/');
  return i > 0 ? p.slice(0, i) : '';
}

/** planTargetShort names a plan's target in a diff editor's tab, where the server's title (the
 *  plan's `target.title`) is too long: "turn 1", "step 3.2", "@before-refactor", "entry 0190a0b1". */
export function planTargetShort(plan: Plan): string {
  const t = plan.target;
  if (t.turn && t.step) return `step ${t.turn}.${t.step}`;
  if (t.turn) return `turn ${t.turn}`;
  if (t.label) return `@${t.label}`;
  return `entry ${shortId(t.id)}`;
}

/** A plan made readable: a headline for the modal and the detail under it. */
export interface PlanSummary {
  message: string;
  detail: string;
  /** Files that will change (conflicts excluded unless forced). */
  changing: number;
  conflicts: number;
  nothingToDo: boolean;
}

/** changeCounts says what a rewind does to files: "3 restored, 2 deleted" (a file brought back to
 *  its earlier content, re-created or not, is restored). */
export function changeCounts(files: readonly Pick<PlanFile, 'change'>[]): string {
  const deleted = files.filter((f) => f.change === 'delete').length;
  const restored = files.length - deleted;
  const parts = [restored ? `${restored} restored` : '', deleted ? `${deleted} deleted` : ''].filter(Boolean);
  return parts.length ? parts.join(', ') : 'no file changed';
}

/** summarizePlan describes what a rewind would do: counts by change, conflicts, skipped files. */
export function summarizePlan(plan: Plan, opts: { force?: boolean; maxFiles?: number } = {}): PlanSummary {
  const files = plan.files ?? [];
  const skipped = plan.skipped ?? [];
  const conflicts = files.filter((f) => f.conflict);
  const changing = files.filter((f) => opts.force || !f.conflict);
  const touchesFiles = plan.mode !== 'conversation' && plan.mode !== 'summarize' && plan.mode !== 'plan';
  const entries = plan.conversation?.entriesAffected ?? 0;
  const touchesConversation = plan.mode === 'conversation' || plan.mode === 'both';

  const lines: string[] = [];
  if (touchesFiles) {
    if (changing.length) {
      lines.push(`${plural(changing.length, 'file')} will change: ${changeCounts(changing)}.`);
    } else {
      lines.push('No file will change.');
    }
  } else {
    lines.push('Files stay as they are.');
  }
  if (touchesConversation) lines.push(`Conversation: ${plural(entries, 'entry', 'entries')} moved to an abandoned branch.`);
  if (touchesFiles && conflicts.length) {
    const n = conflicts.length;
    const names = conflicts.map((f) => f.path).join(', ');
    lines.push(
      opts.force
        ? `${plural(n, 'conflict')} (edited since the agent's last turn) will be overwritten: ${names}.`
        : `${plural(n, 'conflict')} (edited since the agent's last turn): ${names}.`,
    );
  }
  if (touchesFiles && skipped.length) lines.push(`${plural(skipped.length, 'file')} skipped: ${skipped.map((s) => `${s.path} (${s.reason})`).join('; ')}.`);
  const max = opts.maxFiles ?? 12;
  if (touchesFiles && files.length) {
    lines.push('');
    for (const f of files.slice(0, max)) lines.push(f.line);
    if (files.length > max) lines.push(`… and ${files.length - max} more`);
  }
  lines.push('', 'The rewind can be undone with "Rewind: Undo Last Rewind".');
  return {
    message: `Rewind to ${plan.target.title}?`,
    detail: lines.join('\n'),
    changing: touchesFiles ? changing.length : 0,
    conflicts: touchesFiles ? conflicts.length : 0,
    nothingToDo: touchesFiles ? changing.length === 0 && !touchesConversation : !touchesConversation && plan.mode !== 'summarize',
  };
}

/** What the conflict chooser offers; `cancel` comes first, so Enter changes nothing. */
export type ConflictChoice = 'cancel' | 'others' | 'overwrite' | 'diff';

/** conflictPrompt describes a plan with conflicts for a chooser whose default is Cancel. A
 *  conflict whose file has unsaved changes in the editor (`unsaved`) says so. */
export function conflictPrompt(
  plan: Plan,
  unsaved: (path: string) => boolean,
): { title: string; placeHolder: string; choices: { id: ConflictChoice; label: string; detail: string }[] } {
  const files = plan.files ?? [];
  const conflicts = files.filter((f) => f.conflict);
  const others = files.filter((f) => !f.conflict);
  const dirty = conflicts.filter((f) => unsaved(f.path)).map((f) => f.path);
  const edited = conflicts.filter((f) => !unsaved(f.path)).map((f) => f.path);
  const reasons = [
    dirty.length ? `unsaved changes in ${dirty.join(', ')}` : '',
    edited.length ? `${edited.join(', ')} changed after the agent's last turn` : '',
  ].filter(Boolean);
  const names = conflicts.length <= 3 ? conflicts.map((f) => f.path).join(', ') : plural(conflicts.length, 'file');
  const them = conflicts.length === 1 ? 'it' : 'them';
  const choices: { id: ConflictChoice; label: string; detail: string }[] = [
    { id: 'cancel', label: 'Cancel', detail: 'Change nothing.' },
  ];
  if (others.length) {
    choices.push({
      id: 'others',
      label: 'Rewind the other files',
      detail: `${changeCounts(others)}; ${names} ${conflicts.length === 1 ? 'stays as it is' : 'stay as they are'}.`,
    });
  }
  choices.push(
    {
      id: 'overwrite',
      label: `Rewind and overwrite ${names}`,
      detail: `${changeCounts(files)}, ${names} included; "Undo Last Rewind" brings ${them} back.`,
    },
    { id: 'diff', label: 'Show Diff', detail: 'Open the preview; change nothing.' },
  );
  return {
    title: `Rewind to ${plan.target.title}?`,
    placeHolder: `Not rewound yet: ${reasons.join('; ')}. Enter cancels.`,
    choices,
  };
}

/** resultMessage says what a finished rewind or undo did, for the notification after it. */
export function resultMessage(kind: 'rewind' | 'undo', plan: Plan | null | undefined, saved: number): string {
  const done = changeCounts((plan?.files ?? []).filter((f) => !f.conflict));
  const s = saved ? `, ${plural(saved, 'document')} saved` : '';
  if (kind === 'undo') return `Undid the last rewind: ${done}${s}.`;
  return `Rewound to ${plan ? plan.target.title : 'the target'}: ${done}${s}.`;
}

/** One row of the Rewind view under a root, newest first. */
export type TimelineEntry =
  | { kind: 'turn'; time: number; turn: TurnInfo }
  | { kind: 'checkpoint'; time: number; checkpoint: CheckpointInfo }
  | { kind: 'rewind'; time: number; rewind: RewindInfo; undoable: boolean }
  | { kind: 'summary'; time: number; summary: SummaryInfo };

/** timelineEntries merges turns, checkpoints, rewinds and reports newest first. The one rewind that
 *  `rewind.undo` would undo (the latest not undone) is marked undoable. */
export function timelineEntries(list: ListResult): TimelineEntry[] {
  const rewinds = list.rewinds ?? [];
  let undoable = -1;
  for (let i = rewinds.length - 1; i >= 0; i--) if (!rewinds[i].undone) { undoable = i; break; }
  const out: (TimelineEntry & { order: number })[] = [];
  let order = 0;
  for (const t of list.turns ?? []) out.push({ kind: 'turn', time: parseTime(t.started), turn: t, order: order++ });
  for (const c of list.checkpoints ?? []) out.push({ kind: 'checkpoint', time: parseTime(c.time), checkpoint: c, order: order++ });
  rewinds.forEach((r, i) => out.push({ kind: 'rewind', time: parseTime(r.time), rewind: r, undoable: i === undoable, order: order++ }));
  for (const s of list.summaries ?? []) out.push({ kind: 'summary', time: parseTime(s.time), summary: s, order: order++ });
  const key = (e: { time: number }) => (Number.isNaN(e.time) ? 0 : e.time);
  out.sort((a, b) => key(b) - key(a) || turnOrder(b) - turnOrder(a) || b.order - a.order);
  return out.map(({ order: _o, ...e }) => e as TimelineEntry);
}

function turnOrder(e: TimelineEntry): number {
  return e.kind === 'turn' ? e.turn.turn : 0;
}

/** openTurnNumber reads `rewind.status`'s openTurn, whatever shape the server gives it. */
export function openTurnNumber(openTurn: unknown): number | undefined {
  if (openTurn === null || openTurn === undefined || openTurn === false || openTurn === 0 || openTurn === '') return undefined;
  if (typeof openTurn === 'number') return openTurn;
  if (typeof openTurn === 'string') return /^\d+$/.test(openTurn) ? Number(openTurn) : -1;
  if (typeof openTurn === 'object') {
    const t = (openTurn as { turn?: unknown }).turn;
    return typeof t === 'number' ? t : -1;
  }
  return openTurn === true ? -1 : undefined;
}

/** statusText is the status-bar text: a spinning icon while an agent turn is open, else the count. */
export function statusText(turns: number, open: number | undefined): { text: string; tooltip: string } {
  if (open !== undefined) {
    const which = open > 0 ? `Turn ${open}` : 'Agent turn';
    return { text: `$(sync~spin) ${which} open`, tooltip: `${which} is open: the agent is editing. ${plural(turns, 'turn')} recorded. Click to show the Rewind timeline.` };
  }
  return { text: `$(history) ${plural(turns, 'turn')}`, tooltip: `${plural(turns, 'agent turn')} recorded. Click to show the Rewind timeline.` };
}

/** agentRewindPrompt is the notification of an agent's own rewind (`rewind/agentRewind`): the
 *  server's sentence, and its actions' titles as buttons. */
export function agentRewindPrompt(p: AgentRewindParams): { text: string; buttons: string[] } {
  return { text: `Rewind: ${p.message}`, buttons: (p.actions ?? []).map((a) => a.title) };
}

/** agentRewindChoice is the action whose button was picked, if any. */
export function agentRewindChoice(p: AgentRewindParams, pick: string | undefined): AgentRewindAction['id'] | undefined {
  return (p.actions ?? []).find((a) => a.title === pick)?.id;
}
