// Protocol extensions of rewind-lsp, declared once with their types (docs/PROTOCOL.md).
// This module mirrors the server's command set; it imports nothing from `vscode` so that the
// pure helpers and their unit tests can use it too.

import { NotificationType, RequestType } from 'vscode-languageserver-protocol';

/** Rewind modes (docs/PROTOCOL.md, "Rewind modes"). */
export type RewindMode = 'code' | 'conversation' | 'both' | 'summarize' | 'plan';

/** Selects one workspace root when the server has several (a path or a file:// URI). */
export interface RootArg {
  root?: string;
}

export interface ChangedFile {
  path: string;
  change: 'modify' | 'create' | 'delete' | string;
  added: number;
  removed: number;
}

export interface TurnInfo {
  turn: number;
  entry: string;
  prompt: string;
  summary?: string;
  /** RFC 3339 time the turn started. */
  started: string;
  /** RFC 3339 time the turn ended; empty while the turn is open. */
  ended?: string;
  source?: string;
  /** The agent session that ran the turn, and its agent ("claude-code"), when a hook said so. */
  session?: string;
  agent?: string;
  changed?: ChangedFile[] | null;
}

/** A report kept as a summary entry (a rewind's report, or mode summarize). */
export interface SummaryInfo {
  entry: string;
  /** The rewind's target as written ("3", "@label"). */
  target: string;
  report: string;
  time: string;
}

export interface CheckpointInfo {
  entry: string;
  label: string;
  goal?: string;
  time: string;
  snapshot: string;
}

export interface RewindInfo {
  entry: string;
  target: string;
  mode: string;
  time: string;
  undone: boolean;
  /** Set on an agent's own rewind (Claude Code's Esc Esc), completed by its hook. */
  agent?: string;
  session?: string;
  turn?: number;
  prompt?: string;
  files?: string[];
  kept?: string[];
  offered?: string[];
}

export interface ListArgs extends RootArg {
  limit?: number;
  all?: boolean;
}

/** Result of `rewind.list`: each list oldest first. */
export interface ListResult {
  turns: TurnInfo[] | null;
  checkpoints: CheckpointInfo[] | null;
  rewinds: RewindInfo[] | null;
  summaries?: SummaryInfo[] | null;
}

export interface PlanFile {
  path: string;
  change: 'modify' | 'create' | 'delete' | string;
  added: number;
  removed: number;
  binary: boolean;
  conflict: boolean;
  via: 'edit' | 'disk' | string;
  /** In a revert's plan: who changed the file since the reverted turn where that turn's change
   *  lies ("turn 4", "user"); the file is in conflict. */
  overlaps?: string[];
}

export interface Plan {
  target: { id: string; turn?: number; label?: string; prompt?: string; snapshot: string };
  mode: RewindMode | string;
  files: PlanFile[] | null;
  skipped: { path: string; reason: string }[] | null;
  conversation?: { entriesAffected: number };
  diff?: string;
}

export interface PreviewArgs extends RootArg {
  target: string;
  mode?: RewindMode;
  paths?: string[];
}

export interface RewindArgs extends PreviewArgs {
  force?: boolean;
  report?: string;
}

/** Result of `rewind.rewind` and `rewind.undo`. */
export interface RewindResult {
  applied: boolean;
  failureReason?: string;
  entry?: string;
  plan?: Plan;
  /** With mode conversation or both: the agent conversation the rewind forked, or
   *  (agent "") why only rewind-lsp's journal moved. */
  conversation?: ConversationResult;
}

export interface ConversationResult {
  agent: string;
  session?: string;
  transcript?: string;
  /** The command that continues the forked conversation: `claude --resume <id>`. */
  resume?: string;
  reason?: string;
}

/** Argument of `rewind.revert`: one turn (`target`) or every turn of one agent session. */
export interface RevertArgs extends RootArg {
  target?: string;
  session?: string;
  paths?: string[];
  range?: { start: { line: number; character: number }; end: { line: number; character: number } };
  dryRun?: boolean;
}

/** A run of lines (0-based, end exclusive) of a file's current content that one agent turn wrote
 *  and nobody changed since. */
export interface BlameRange {
  startLine: number;
  endLine: number;
  turn: number;
  entry: string;
  prompt: string;
  session: string;
  agent: string;
  source: string;
  /** RFC 3339 time the turn ended. */
  time: string;
}

export interface BlameResult {
  ranges: BlameRange[] | null;
}

export interface CheckpointArgs extends RootArg {
  label?: string;
  goal?: string;
}

export interface CheckpointResult {
  entry: string;
  snapshot: string;
  files: number;
}

export interface StatusResult {
  root: string;
  store: string;
  turns: number;
  snapshots: number;
  storeBytes: number;
  watching: boolean;
  /** The open turn: its number, or an object describing it; empty, 0, false or null when none. */
  openTurn?: unknown;
}

export interface FileHistoryResult {
  history: { turn: number; entry: string; change: string; added: number; removed: number; snapshot: string }[] | null;
}

/** Argument and result types of every `workspace/executeCommand` command (docs/PROTOCOL.md, "Commands"). */
export interface Commands {
  'rewind.checkpoint': [CheckpointArgs, CheckpointResult];
  'rewind.list': [ListArgs, ListResult];
  'rewind.preview': [PreviewArgs, Plan];
  'rewind.rewind': [RewindArgs, RewindResult];
  'rewind.undo': [RootArg, RewindResult];
  'rewind.fileHistory': [RootArg & { uri: string }, FileHistoryResult];
  'rewind.status': [RootArg, StatusResult];
  'rewind.revert': [RevertArgs, RewindResult];
  'rewind.blame': [RootArg & { uri: string }, BlameResult];
}

export type CommandName = keyof Commands;

/** `rewind/content`: the text of a file in a snapshot, for diff views. */
export const contentRequest = new RequestType<{ uri: string }, { text: string }, void>('rewind/content');

export interface DidChangeParams {
  root: string;
  turns: number;
  latest?: string;
}

/** `rewind/didChange`: the journal of a root changed, whoever changed it. */
export const didChangeNotification = new NotificationType<DidChangeParams>('rewind/didChange');

/** `rewind/agentRewind`: an agent rewound its own conversation (Claude Code's Esc Esc, noticed by
 *  its hook afterwards) back to before turn `turn`. Mode `both`: the agent restored its files and
 *  rewind-lsp restored `files` besides, leaving `kept` (changed since by someone else). Mode
 *  `conversation`: the agent restored no file; `offered` lists what a code rewind to `target`
 *  (an entry id) would restore. */
export interface AgentRewindParams {
  root: string;
  entry: string;
  agent: string;
  session: string;
  turn: number;
  prompt: string;
  target: string;
  mode: 'both' | 'conversation' | string;
  files: string[];
  kept: string[];
  offered: string[];
}

export const agentRewindNotification = new NotificationType<AgentRewindParams>('rewind/agentRewind');
