// The one language client of the window: starts rewind-lsp over stdio, restarts it within
// bounds, applies the server's WorkspaceEdits (optionally through the Refactor Preview) and
// remembers which documents they touched so that commands can save them.

import * as fs from 'node:fs';
import * as vscode from 'vscode';
import {
  ApplyWorkspaceEditParams,
  ApplyWorkspaceEditRequest,
  ApplyWorkspaceEditResult,
  CloseAction,
  CloseHandlerResult,
  ErrorAction,
  ErrorHandler,
  ErrorHandlerResult,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  TextDocumentEdit,
} from 'vscode-languageclient/node';
import { annotateForConfirmation, touchedUris } from './annotate';
import { config } from './config';
import { emit } from './events';
import { AgentRewindParams, agentRewindNotification, CommandName, Commands, contentRequest, didChangeNotification, DidChangeParams } from './protocol';
import { checkServer, locateServer, makeExecutable, ServerChoice } from './server';

/** Thrown when no working rewind-lsp binary can be found (missing, or it does not run).
 *  `notified`: the user has just been told. */
export class ServerMissingError extends Error {
  constructor(
    message: string,
    readonly notified = false,
  ) {
    super(message);
  }
}

/** How many crashes within RESTART_WINDOW_MS are restarted before giving up. */
const MAX_RESTARTS = 4;
const RESTART_WINDOW_MS = 3 * 60 * 1000;

interface EditCollector {
  confirm: boolean;
  touched: vscode.Uri[];
}

/** RewindClient owns the language client and is the only way the rest of the extension talks to
 *  the server. */
export class RewindClient implements vscode.Disposable {
  readonly output = vscode.window.createOutputChannel('Rewind');
  private client: LanguageClient | undefined;
  private starting: Promise<LanguageClient> | undefined;
  /** Set once the user was told the binary is missing; cleared by restart() (settings change). */
  private missing: ServerMissingError | undefined;
  /** Set when the server crashed too often to be restarted; cleared by restart(). */
  private gaveUp = false;
  private collector: EditCollector | undefined;
  private editLock: Promise<unknown> = Promise.resolve();
  private readonly changeEmitter = new vscode.EventEmitter<DidChangeParams | undefined>();
  /** Fires when a root's journal changed (`rewind/didChange`) or the server (re)started. */
  readonly onDidChange = this.changeEmitter.event;
  private readonly agentRewindEmitter = new vscode.EventEmitter<AgentRewindParams>();
  /** Fires when an agent rewound its own conversation (`rewind/agentRewind`). */
  readonly onAgentRewind = this.agentRewindEmitter.event;
  private readonly stateEmitter = new vscode.EventEmitter<'running' | 'stopped' | 'missing'>();
  readonly onDidChangeState = this.stateEmitter.event;

  /** @param extensionPath the extension's folder: a platform-specific .vsix carries the server
   *  in `server/<platform>-<arch>/`. */
  constructor(private readonly extensionPath: string) {}

  /** serverCommand finds the binary: the setting (a path, or a name looked up on PATH), else the
   *  server the .vsix carries, else `rewind-lsp` on PATH. */
  serverCommand(): ServerChoice | undefined {
    const isFile = (p: string) => {
      try {
        return fs.statSync(p).isFile();
      } catch {
        return false;
      }
    };
    return locateServer({ setting: config().serverPath, extensionPath: this.extensionPath, pathEnv: process.env.PATH, home: process.env.HOME, isFile });
  }

  /** ready returns the running client, starting it first if needed. While the client restarts
   *  after a crash it waits for it; once the crash limit was hit it fails until restart(). */
  ready(): Promise<LanguageClient> {
    const c = this.client;
    if (c?.state === State.Running) return Promise.resolve(c);
    // Views and the status bar ask often; tell the user about a missing binary once.
    if (this.missing) return Promise.reject(new ServerMissingError(this.missing.message));
    if (this.starting) return this.starting;
    if (c && this.gaveUp) return Promise.reject(new Error('the server stopped; run "Rewind: Restart Server"'));
    if (c && c.state === State.Starting) return this.whenRunning(c);
    this.starting = (async () => {
      if (c) await c.dispose(2000).catch(() => undefined);
      return this.start();
    })().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private whenRunning(c: LanguageClient): Promise<LanguageClient> {
    return new Promise((resolve, reject) => {
      const sub = c.onDidChangeState((e) => {
        if (e.newState === State.Running) resolve(c);
        else if (e.newState === State.Stopped) reject(new Error('the server stopped while starting'));
        else return;
        sub.dispose();
      });
    });
  }

  get running(): boolean {
    return this.client?.state === State.Running;
  }

  /** unusable records that no working server can be started: the user is told once, with a way
   *  to the setting, and the status bar shows it, until restart() (a settings change). */
  private unusable(event: string, data: object, msg: string): ServerMissingError {
    this.stateEmitter.fire('missing');
    emit(event, data);
    this.output.appendLine(msg);
    this.notifyMissing(msg);
    this.missing = new ServerMissingError(msg, true);
    return this.missing;
  }

  private async start(): Promise<LanguageClient> {
    const setting = config().serverPath;
    const choice = this.serverCommand();
    if (!choice) {
      throw this.unusable(
        'serverMissing',
        { setting },
        setting
          ? `Rewind: the server "${setting}" (setting rewind.serverPath) was not found.`
          : `Rewind: this package carries no rewind-lsp server for ${process.platform}-${process.arch} and none is on PATH. Install the .vsix built for your platform, or install rewind-lsp (go install ./cmd/rewind-lsp) and set "rewind.serverPath".`,
      );
    }
    const command = choice.command;
    // Check that it runs before the language client starts it (and restarts it in a loop).
    if (choice.source === 'bundled' && makeExecutable(command)) this.output.appendLine(`Made ${command} executable.`);
    const check = await checkServer(command);
    if (!check.ok) {
      const which =
        choice.source === 'setting'
          ? `the server "${command}" (setting rewind.serverPath)`
          : choice.source === 'bundled'
            ? `the rewind-lsp server bundled with the extension (${command})`
            : `the rewind-lsp found on PATH (${command})`;
      throw this.unusable(
        'serverBroken',
        { command, source: choice.source, reason: check.reason },
        `Rewind: ${which} does not run: ${check.reason}. Set "rewind.serverPath" to a working rewind-lsp.`,
      );
    }
    emit('serverChecked', { command, source: choice.source, version: check.version });
    this.output.appendLine(`rewind-lsp ${check.version} (${choice.source}): ${command}`);
    const cfg = config();
    const serverOptions: ServerOptions = {
      command,
      args: [],
      options: { env: { ...process.env } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }],
      outputChannel: this.output,
      traceOutputChannel: this.output,
      // rewindDidChange: this extension handles `rewind/didChange` (below); the server sends
      // that custom notification only to clients that declare it.
      // blameHover off: "Rewind: Toggle Agent Blame" shows the same in its own hover (blame.ts).
      initializationOptions: { rewindDidChange: true, blameHover: false, ...(cfg.storeDir ? { storeDir: cfg.storeDir } : {}) },
      errorHandler: this.errorHandler(),
      initializationFailedHandler: (err) => {
        this.output.appendLine(`initialize failed: ${String(err)}`);
        this.notifyError(`Rewind: the server failed to start: ${err instanceof Error ? err.message : String(err)}`);
        return false;
      },
    };
    // Client id "rewind" makes the client read the trace level from `rewind.trace.server`.
    const client = new LanguageClient('rewind', 'Rewind', serverOptions, clientOptions);
    client.onDidChangeState((e) => {
      if (e.newState === State.Running) {
        emit('serverRunning', {});
        this.stateEmitter.fire('running');
      }
      if (e.newState === State.Stopped) this.stateEmitter.fire('stopped');
    });
    // Registered before start so that they also replace the client's built-in handlers after
    // every automatic restart. The applyEdit handler has the built-in one's logic, plus the
    // confirmation annotations and knowing which documents an edit touched.
    client.onRequest(ApplyWorkspaceEditRequest.type, (params) => this.applyEdit(client, params));
    client.onNotification(didChangeNotification, (params) => {
      emit('didChange', params);
      this.changeEmitter.fire(params);
    });
    client.onNotification(agentRewindNotification, (params) => {
      emit('agentRewind', params);
      this.agentRewindEmitter.fire(params);
    });
    this.client = client;
    this.output.appendLine(`Starting ${command}`);
    try {
      await client.start();
    } catch (err) {
      this.client = undefined;
      await client.dispose(2000).catch(() => undefined);
      this.notifyError(`Rewind: could not start ${command}: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
    emit('serverStarted', { command, source: choice.source });
    this.changeEmitter.fire(undefined);
    return client;
  }

  /** notifyMissing tells the user the binary is missing, with a way to the setting. */
  notifyMissing(message: string): void {
    void vscode.window.showErrorMessage(message, 'Open Settings').then((pick) => {
      if (pick === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'rewind.serverPath');
    });
  }

  private errorHandler(): ErrorHandler {
    const restarts: number[] = [];
    return {
      error: (): ErrorHandlerResult => ({ action: ErrorAction.Continue }),
      closed: (): CloseHandlerResult => {
        const now = Date.now();
        while (restarts.length && now - restarts[0] > RESTART_WINDOW_MS) restarts.shift();
        if (restarts.length < MAX_RESTARTS) {
          restarts.push(now);
          this.output.appendLine(`The server stopped; restarting (${restarts.length}/${MAX_RESTARTS}).`);
          return { action: CloseAction.Restart, handled: true };
        }
        this.gaveUp = true;
        this.notifyError(`Rewind: the server stopped ${MAX_RESTARTS + 1} times in 3 minutes and will not be restarted.`);
        return { action: CloseAction.DoNotRestart, handled: true };
      },
    };
  }

  private notifyError(message: string): void {
    void vscode.window.showErrorMessage(message, 'Open Logs').then((pick) => {
      if (pick === 'Open Logs') this.output.show(true);
    });
  }

  /** restart stops the server and starts it again (also picks up changed settings). */
  async restart(): Promise<void> {
    this.missing = undefined;
    this.gaveUp = false;
    const old = this.client;
    this.client = undefined;
    if (old) {
      try {
        await old.stop(5000);
      } catch (err) {
        this.output.appendLine(`stop: ${String(err)}`);
      }
      await old.dispose().catch(() => undefined);
    }
    await this.ready();
  }

  /** command runs one `workspace/executeCommand` of the server with its single object argument. */
  async command<K extends CommandName>(name: K, args: Commands[K][0]): Promise<Commands[K][1]> {
    const client = await this.ready();
    const result = await client.sendRequest(ExecuteCommandRequest.type, { command: name, arguments: [args] });
    return result as Commands[K][1];
  }

  /** content asks the server for the text of a `rewind:` URI. */
  async content(uri: string): Promise<string> {
    const client = await this.ready();
    const r = await client.sendRequest(contentRequest, { uri });
    return r?.text ?? '';
  }

  /** editing runs `fn` (a command that makes the server send WorkspaceEdits) and returns what it
   *  returned with the documents the edits touched. Calls are serialized. */
  editing<T>(opts: { confirm: boolean }, fn: () => Promise<T>): Promise<{ result: T; touched: vscode.Uri[] }> {
    const run = async () => {
      const collector: EditCollector = { confirm: opts.confirm, touched: [] };
      this.collector = collector;
      try {
        const result = await fn();
        return { result, touched: collector.touched };
      } finally {
        this.collector = undefined;
      }
    };
    const p = this.editLock.then(run, run);
    this.editLock = p.catch(() => undefined);
    return p;
  }

  private async applyEdit(client: LanguageClient, params: ApplyWorkspaceEditParams): Promise<ApplyWorkspaceEditResult> {
    const collector = this.collector;
    const confirm = collector ? collector.confirm : config().confirmWithRefactorPreview;
    const edit = confirm ? annotateForConfirmation(params.edit, params.label ?? 'Rewind') : params.edit;
    // As the client's own handler does: refuse an edit made against an older version of an open document.
    for (const change of params.edit.documentChanges ?? []) {
      if (!TextDocumentEdit.is(change) || change.textDocument.version === null || change.textDocument.version < 0) continue;
      const uri = client.protocol2CodeConverter.asUri(change.textDocument.uri).toString();
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
      if (doc && doc.version !== change.textDocument.version) {
        emit('applyEdit', { label: params.label, applied: false, reason: 'version mismatch', uri });
        return { applied: false, failureReason: `${vscode.workspace.asRelativePath(doc.uri)} changed while the rewind was computed` };
      }
    }
    const converted = await client.protocol2CodeConverter.asWorkspaceEdit(edit);
    const applied = await vscode.workspace.applyEdit(converted);
    const uris = touchedUris(params.edit).map((u) => client.protocol2CodeConverter.asUri(u));
    emit('applyEdit', { label: params.label, applied, confirm, uris: uris.map((u) => u.toString()) });
    if (applied) {
      if (collector) collector.touched.push(...uris);
      else if (config().saveAfterRewind) setTimeout(() => void saveDocuments(uris), 0);
    }
    return { applied };
  }

  dispose(): void {
    void this.client?.stop(2000).catch(() => undefined);
    this.changeEmitter.dispose();
    this.agentRewindEmitter.dispose();
    this.stateEmitter.dispose();
    this.output.dispose();
  }
}

/** saveDocuments saves those of `uris` that are open and dirty; it returns how many it saved. */
export async function saveDocuments(uris: readonly vscode.Uri[]): Promise<number> {
  const wanted = new Set(uris.map((u) => u.toString()));
  let saved = 0;
  for (const doc of vscode.workspace.textDocuments) {
    if (!wanted.has(doc.uri.toString()) || !doc.isDirty) continue;
    if (await doc.save()) saved++;
  }
  return saved;
}

/** describeError turns a JSON-RPC or other error into one line for a notification. */
export function describeError(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (err && typeof err === 'object' && 'message' in err) return String((err as { message: unknown }).message);
  return String(err);
}

