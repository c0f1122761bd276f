import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkspaceEdit } from 'vscode-languageserver-protocol';
import { annotateForConfirmation, CONFIRM_ANNOTATION, touchedUris } from '../../src/annotate';

const range = { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } };

const edit: WorkspaceEdit = {
  documentChanges: [
    { kind: 'create', uri: 'file:///ws/new.go', options: { ignoreIfExists: true } },
    { textDocument: { uri: 'file:///ws/new.go', version: null }, edits: [{ range, newText: 'package x\n' }] },
    { textDocument: { uri: 'file:///ws/main.go', version: 4 }, edits: [{ range, newText: '' }] },
    { kind: 'delete', uri: 'file:///ws/gone.go', options: { ignoreIfNotExists: true } },
  ],
};

describe('annotateForConfirmation', () => {
  it('marks every change as needing confirmation under one labelled annotation', () => {
    const got = annotateForConfirmation(edit, 'Rewind to turn 1: add greeting');
    assert.deepEqual(got.changeAnnotations?.[CONFIRM_ANNOTATION], {
      label: 'Rewind to turn 1: add greeting',
      needsConfirmation: true,
      description: 'rewind-lsp',
    });
    const changes = got.documentChanges!;
    assert.equal(changes.length, 4);
    for (const c of changes) {
      if ('textDocument' in c) for (const e of c.edits) assert.equal((e as { annotationId?: string }).annotationId, CONFIRM_ANNOTATION);
      else assert.equal(c.annotationId, CONFIRM_ANNOTATION);
    }
    // The original is left alone; versions are kept.
    assert.equal((edit.documentChanges![1] as { edits: object[] }).edits[0].hasOwnProperty('annotationId'), false);
    assert.equal((changes[2] as { textDocument: { version: number } }).textDocument.version, 4);
  });
  it('moves plain changes into documentChanges and keeps existing annotations', () => {
    const got = annotateForConfirmation(
      {
        changes: { 'file:///ws/a.go': [{ range, newText: 'x' }] },
        changeAnnotations: { mine: { label: 'server label' } },
      },
      'L',
    );
    assert.deepEqual(got.changeAnnotations?.mine, { label: 'server label', needsConfirmation: true });
    assert.deepEqual(got.documentChanges, [
      { textDocument: { uri: 'file:///ws/a.go', version: null }, edits: [{ range, newText: 'x', annotationId: CONFIRM_ANNOTATION }] },
    ]);
    assert.equal(got.changes, undefined);
  });
});

describe('touchedUris', () => {
  it('lists edited and created documents, not deleted ones', () => {
    assert.deepEqual(touchedUris(edit).sort(), ['file:///ws/main.go', 'file:///ws/new.go']);
  });
  it('follows renames and plain changes', () => {
    assert.deepEqual(
      touchedUris({
        documentChanges: [{ kind: 'rename', oldUri: 'file:///a', newUri: 'file:///b' }],
        changes: { 'file:///c': [] },
      }),
      ['file:///b', 'file:///c'],
    );
  });
});
