// Protocol extensions of rewind-lsp (docs/PROTOCOL.md). The commands, their arguments and results
// are generated from the server's command registry into protocol.gen.ts ("go generate ./commands");
// this module adds the messages of rewind-lsp's own. It imports nothing from `vscode` so that the
// pure helpers and their unit tests can use it too.

import { NotificationType, RequestType } from 'vscode-languageserver-protocol';

export * from './protocol.gen';

/** `rewind/content`: the text of a file in a snapshot, for diff views (docs/PROTOCOL.md, "Messages"). */
export const contentRequest = new RequestType<{ uri: string }, { text: string }, void>('rewind/content');

export interface DidChangeParams {
  root: string;
  turns: number;
  latest?: string;
}

/** `rewind/didChange`: the journal of a root changed, whoever changed it (docs/PROTOCOL.md, "Messages"). */
export const didChangeNotification = new NotificationType<DidChangeParams>('rewind/didChange');

/** `rewind/agentRewind`: an agent rewound its own conversation (Claude Code's Esc Esc, noticed by
 *  its hook afterwards) back to before turn `turn`. Mode `both`: the agent restored its files and
 *  rewind-lsp restored `files` besides, leaving `kept` (changed since by someone else). Mode
 *  `conversation`: the agent restored no file; `offered` lists what a code rewind to `target`
 *  (an entry id) would restore (docs/PROTOCOL.md, "Messages"). `message` says so in the server's
 *  words, and `actions` are what to offer ("Words"). */
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
  /** The session in words: "claude-code 6db2232a". */
  sessionLabel: string;
  /** The rewind as the Rewind view names it: "Claude Code rewound to turn 2 (add a cache), conversation only". */
  title: string;
  /** What the agent did and what rewind-lsp did about it, in a sentence. */
  message: string;
  /** What to offer, in order; none when nothing is left to do. */
  actions: AgentRewindAction[];
}

/** One action offered after an agent's own rewind: `rewindFiles` (rewind.rewind to `target`, mode
 *  code, paths `offered`), `showDiff` (its preview), `undo` (rewind.undo); `title` labels its button. */
export interface AgentRewindAction {
  id: 'rewindFiles' | 'showDiff' | 'undo';
  title: string;
}

export const agentRewindNotification = new NotificationType<AgentRewindParams>('rewind/agentRewind');
