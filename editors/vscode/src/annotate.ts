// Routing a rewind through VS Code's Refactor Preview: every change of the server's
// WorkspaceEdit is tagged with one change annotation marked `needsConfirmation`, which makes
// VS Code show the edit for review instead of applying it at once. Pure: unit-tested directly.

import type {
  AnnotatedTextEdit,
  ChangeAnnotation,
  TextDocumentEdit,
  TextEdit,
  WorkspaceEdit,
} from 'vscode-languageserver-protocol';

/** The annotation id this extension adds. */
export const CONFIRM_ANNOTATION = 'rewind.confirm';

/** annotateForConfirmation returns a copy of `edit` where every text edit and resource operation
 *  needs confirmation. Plain `changes` are moved into `documentChanges` (annotations live only
 *  there). Existing annotations are kept but switched to `needsConfirmation`. */
export function annotateForConfirmation(edit: WorkspaceEdit, label: string): WorkspaceEdit {
  const annotations: Record<string, ChangeAnnotation> = {};
  for (const [id, a] of Object.entries(edit.changeAnnotations ?? {})) annotations[id] = { ...a, needsConfirmation: true };
  annotations[CONFIRM_ANNOTATION] = { label, needsConfirmation: true, description: 'rewind-lsp' };

  const annotate = (e: TextEdit | AnnotatedTextEdit): AnnotatedTextEdit => ({
    ...e,
    annotationId: (e as AnnotatedTextEdit).annotationId ?? CONFIRM_ANNOTATION,
  });

  const documentChanges: NonNullable<WorkspaceEdit['documentChanges']> = [];
  for (const change of edit.documentChanges ?? []) {
    if ('textDocument' in change) {
      const tde = change as TextDocumentEdit;
      documentChanges.push({ textDocument: tde.textDocument, edits: (tde.edits ?? []).map(annotate) });
    } else {
      documentChanges.push({ ...change, annotationId: change.annotationId ?? CONFIRM_ANNOTATION });
    }
  }
  for (const [uri, edits] of Object.entries(edit.changes ?? {})) {
    documentChanges.push({ textDocument: { uri, version: null }, edits: (edits ?? []).map(annotate) });
  }
  return { documentChanges, changeAnnotations: annotations };
}

/** touchedUris lists the document URIs a WorkspaceEdit edits or creates (not the ones it deletes):
 *  the documents to save after a rewind. */
export function touchedUris(edit: WorkspaceEdit): string[] {
  const out = new Set<string>();
  for (const change of edit.documentChanges ?? []) {
    if ('textDocument' in change) out.add(change.textDocument.uri);
    else if (change.kind === 'create') out.add(change.uri);
    else if (change.kind === 'rename') {
      out.delete(change.oldUri);
      out.add(change.newUri);
    } else if (change.kind === 'delete') out.delete(change.uri);
  }
  for (const uri of Object.keys(edit.changes ?? {})) out.add(uri);
  return [...out];
}
