// The extension's settings, read through one typed accessor.

import * as vscode from 'vscode';
import { turnsPerPage } from './paging';

export interface RewindConfig {
  /** `rewind.serverPath`: the binary; empty means `rewind-lsp` on PATH. */
  serverPath: string;
  /** `rewind.storeDir`: passed as initializationOptions.storeDir when set. */
  storeDir: string;
  saveAfterRewind: boolean;
  askForMode: boolean;
  confirmWithRefactorPreview: boolean;
  /** `rewind.turnsPerPage`: how many turns the Rewind view and the turn picks list at a time. */
  turnsPerPage: number;
}

/** config reads the current settings of the `rewind` section. */
export function config(): RewindConfig {
  const c = vscode.workspace.getConfiguration('rewind');
  return {
    serverPath: c.get<string>('serverPath', '').trim(),
    storeDir: c.get<string>('storeDir', '').trim(),
    saveAfterRewind: c.get<boolean>('saveAfterRewind', true),
    askForMode: c.get<boolean>('askForMode', true),
    confirmWithRefactorPreview: c.get<boolean>('confirmWithRefactorPreview', false),
    turnsPerPage: turnsPerPage(c.get<number>('turnsPerPage')),
  };
}

/** Settings whose change needs the server restarted. */
export const restartSettings = ['rewind.serverPath', 'rewind.storeDir'];
