// Pure presentation logic: labels, relative times, plan summaries and timeline ordering.
// Nothing here imports `vscode`, so test/unit exercises it directly under `node --test`.

import type { AgentRewindParams, CheckpointInfo, ConversationResult, FileChange, ListResult, Plan, PlanFile, RewindInfo, SummaryInfo, TurnInfo } from './protocol';

/** parseTime reads an RFC 3339 string or epoch seconds/milliseconds; NaN when unreadable. */
export function parseTime(t: unknown): number {
  if (typeof t === 'number') return t < 1e12 ? t * 1000 : t;
  if (typeof t !== 'string' || t === '') return NaN;
  if (/^\d+$/.test(t)) return parseTime(Number(t));
  return Date.parse(t);
}

/** relativeTime says how long before `now` the time `t` was, as people say it ("3 minutes ago"). */
export function relativeTime(t: unknown, now: number = Date.now()): string {
  const ms = parseTime(t);
  if (Number.isNaN(ms)) return '';
  const s = Math.round((now - ms) / 1000);
  if (s < -30) return 'in the future';
  if (s < 45) return 'just now';
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'} ago`;
  const m = Math.round(s / 60);
  if (m < 45) return plural(Math.max(1, m), 'minute');
  const h = Math.round(s / 3600);
  if (h < 22) return plural(Math.max(1, h), 'hour');
  const d = Math.round(s / 86400);
  if (d <= 1) return 'yesterday';
  if (d < 30) return plural(d, 'day');
  return new Date(ms).toISOString().slice(0, 10);
}

/** counts renders line counts as "+3 -1"; zero sides are left out, nothing at all for "0 0". */
export function counts(added: number, removed: number): string {
  const parts: string[] = [];
  if (added) parts.push(`+${added}`);
  if (removed) parts.push(`-${removed}`);
  return parts.join(' ');
}

/** fileWords says one file's change in the server's words (`what`: "+3 -1", "binary", "symlink",
 *  "mode +x"); from a server that predates them, its line counts. */
export function fileWords(f: Pick<FileChange, 'added' | 'removed' | 'what'>): string {
  return f.what ?? counts(f.added, f.removed);
}

/** plural writes "1 file", "2 files". */
export function plural(n: number, word: string, many = word + 's'): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** firstLine shortens a prompt to its first line, at most `max` characters. */
export function firstLine(text: string | undefined, max = 80): string {
  const line = (text ?? '').trim().split(/\r?\n/)[0] ?? '';
  return line.length > max ? line.slice(0, max - 1) + '…' : line;
}

/** turnTitle is how a turn is named everywhere: "Turn 2: rename greet". */
export function turnTitle(t: Pick<TurnInfo, 'turn' | 'prompt'>): string {
  const p = firstLine(t.prompt);
  return p ? `Turn ${t.turn}: ${p}` : `Turn ${t.turn}`;
}

/** sessionLabel names the agent session of a turn: "claude-code 1a2b3c4d". */
export function sessionLabel(t: Pick<TurnInfo, 'agent' | 'session'>): string {
  const s = (t.session ?? '').slice(0, 8);
  return [t.agent ?? '', s].filter(Boolean).join(' ');
}

/** summaryTitle names a kept report in the view: "Report: the JWT idea broke login". */
export function summaryTitle(s: SummaryInfo): string {
  return `Report: ${firstLine(s.report, 70) || '(empty)'}`;
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

/** changedSummary says how many files a turn changed and the total line counts. */
export function changedSummary(changed: FileChange[] | null | undefined): string {
  const files = changed ?? [];
  if (files.length === 0) return 'no files changed';
  const added = files.reduce((n, f) => n + (f.added || 0), 0);
  const removed = files.reduce((n, f) => n + (f.removed || 0), 0);
  const c = counts(added, removed);
  return `${plural(files.length, 'file')} changed${c ? ` (${c})` : ''}`;
}

/** A pickable rewind target: what the quick picks of the palette commands list. */
export interface TargetItem {
  label: string;
  description: string;
  detail: string;
  /** Target string for rewind.preview/rewind.rewind ("3", "@label": docs/PROTOCOL.md, "Targets"). */
  target: string;
  kind: 'turn' | 'checkpoint';
  turn?: TurnInfo;
  checkpoint?: CheckpointInfo;
}

/** turnItem builds the quick-pick entry of a turn: number and prompt, relative time, files changed. */
export function turnItem(t: TurnInfo, now = Date.now()): TargetItem {
  const when = relativeTime(t.started, now);
  const state = isOpen(t) ? 'open' : '';
  return {
    label: turnTitle(t),
    description: [when, state, t.source ?? '', sessionLabel(t)].filter(Boolean).join(' · '),
    detail: changedSummary(t.changed) + fileList(t.changed),
    target: targetForTurn(t.turn),
    kind: 'turn',
    turn: t,
  };
}

function fileList(changed: FileChange[] | null | undefined, max = 4): string {
  const files = changed ?? [];
  if (files.length === 0) return '';
  const names = files.slice(0, max).map((f) => `${basename(f.path)} ${fileWords(f)}`.trim());
  return ': ' + names.join(', ') + (files.length > max ? `, … ${files.length - max} more` : '');
}

/** checkpointItem builds the quick-pick entry of a checkpoint. */
export function checkpointItem(c: CheckpointInfo, now = Date.now()): TargetItem {
  return {
    label: `Checkpoint: ${c.label || shortId(c.entry)}`,
    description: relativeTime(c.time, now),
    detail: firstLine(c.goal) || 'labeled checkpoint',
    target: targetForCheckpoint(c),
    kind: 'checkpoint',
    checkpoint: c,
  };
}

/** targetItems lists turns then checkpoints, newest first. */
export function targetItems(list: ListResult, now = Date.now()): TargetItem[] {
  const turns = [...(list.turns ?? [])].sort((a, b) => b.turn - a.turn).map((t) => turnItem(t, now));
  const cps = [...(list.checkpoints ?? [])].sort((a, b) => parseTime(b.time) - parseTime(a.time)).map((c) => checkpointItem(c, now));
  return [...turns, ...cps];
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

/** planTargetName names a plan's target: "turn 1 (add greeting)", "checkpoint @before-refactor". */
export function planTargetName(plan: Plan): string {
  const t = plan.target;
  if (t.turn) return t.prompt ? `turn ${t.turn} (${firstLine(t.prompt, 60)})` : `turn ${t.turn}`;
  if (t.label) return `checkpoint @${t.label}`;
  return `entry ${shortId(t.id)}`;
}

/** planTargetShort names a plan's target in a diff title: "turn 1", "@before-refactor", "entry 0190a0b1". */
export function planTargetShort(plan: Plan): string {
  const t = plan.target;
  if (t.turn) return `turn ${t.turn}`;
  if (t.label) return `@${t.label}`;
  return `entry ${shortId(t.id)}`;
}

const changeLetter: Record<string, string> = { modify: 'M', create: 'A', delete: 'D' };

/** planFileLine renders one file of a plan: "M src/auth.go +12 -30 (conflict)", "A logo.png binary",
 *  "M run.sh mode +x". */
export function planFileLine(f: PlanFile): string {
  const notes: string[] = [];
  if (f.binary && f.what === undefined) notes.push('binary');
  if (f.conflict) notes.push('conflict: edited since, left alone');
  if (f.via === 'disk') notes.push('written on disk');
  const c = f.what ?? (f.binary ? '' : counts(f.added, f.removed));
  return [changeLetter[f.change] ?? '?', f.path, c, notes.length ? `(${notes.join(', ')})` : ''].filter(Boolean).join(' ');
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
  const added = changing.reduce((n, f) => n + (f.added || 0), 0);
  const removed = changing.reduce((n, f) => n + (f.removed || 0), 0);
  const touchesFiles = plan.mode !== 'conversation' && plan.mode !== 'summarize' && plan.mode !== 'plan';
  const entries = plan.conversation?.entriesAffected ?? 0;
  const touchesConversation = plan.mode === 'conversation' || plan.mode === 'both';

  const lines: string[] = [];
  if (touchesFiles) {
    if (changing.length) {
      const c = counts(added, removed);
      lines.push(`${plural(changing.length, 'file')} will change: ${changeCounts(changing)}${c ? ` (${c} lines)` : ''}.`);
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
    for (const f of files.slice(0, max)) lines.push(planFileLine(f));
    if (files.length > max) lines.push(`… and ${files.length - max} more`);
  }
  lines.push('', 'The rewind can be undone with "Rewind: Undo Last Rewind".');
  return {
    message: `Rewind to ${planTargetName(plan)}?`,
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
    title: `Rewind to ${planTargetName(plan)}?`,
    placeHolder: `Not rewound yet: ${reasons.join('; ')}. Enter cancels.`,
    choices,
  };
}

/** resultMessage says what a finished rewind or undo did, for the notification after it. */
export function resultMessage(kind: 'rewind' | 'undo', plan: Plan | null | undefined, saved: number): string {
  const done = changeCounts((plan?.files ?? []).filter((f) => !f.conflict));
  const s = saved ? `, ${plural(saved, 'document')} saved` : '';
  if (kind === 'undo') return `Undid the last rewind: ${done}${s}.`;
  return `Rewound to ${plan ? planTargetName(plan) : 'the target'}: ${done}${s}.`;
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

/** rewindTitle names a recorded rewind in the view: "Rewind to 1 (code)", "… undone". */
export function rewindTitle(r: RewindInfo): string {
  const target = /^\d+$/.test(r.target) ? `turn ${r.target}` : r.target;
  if (r.mode === 'revert') return `Revert ${target} (later changes kept)${r.undone ? ' — undone' : ''}`;
  return `Rewind to ${target}${r.mode && r.mode !== 'code' ? ` (${r.mode})` : ''}${r.undone ? ' — undone' : ''}`;
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

/** agentRewindMessage says what an agent's own rewind did and what rewind-lsp did about it (the
 *  notification of `rewind/agentRewind`), and which actions to offer. */
export function agentRewindMessage(p: AgentRewindParams): { text: string; actions: string[] } {
  const who = p.agent === 'claude-code' ? 'Claude Code' : p.agent;
  const prompt = firstLine(p.prompt, 60);
  const where = `before turn ${p.turn}${prompt ? ` (“${prompt}”)` : ''}`;
  const list = (fs: string[]) => (fs.length > 3 ? `${fs.slice(0, 3).join(', ')} and ${fs.length - 3} more` : fs.join(', '));
  if ((p.offered ?? []).length > 0) {
    return {
      text: `Rewind: ${who} rewound its conversation to ${where} but restored no files; ${plural(p.offered.length, 'file')} ${p.offered.length === 1 ? 'still differs' : 'still differ'}: ${list(p.offered)}.`,
      actions: ['Rewind the Files', 'Show Diff'],
    };
  }
  if ((p.files ?? []).length > 0) {
    const kept = (p.kept ?? []).length ? ` Left as they are (changed since by someone else): ${list(p.kept)}.` : '';
    return {
      text: `Rewind: ${who} rewound to ${where} and restored its own edits; rewind-lsp restored what its shell changed too: ${list(p.files)}.${kept}`,
      actions: ['Undo'],
    };
  }
  return { text: `Rewind: ${who} rewound its conversation to ${where}; no file needed restoring.`, actions: [] };
}
