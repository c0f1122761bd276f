import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { blameHoverMarkdown, blameNote, blameStep, commandUri, revertedMessage, revertPrompt } from '../../src/revertFormat';
import type { BlameRange, RewindResult } from '../../src/protocol';

// The title and age are the server's words (package words); the extension shows them as they come.
const range: BlameRange = {
  startLine: 2, endLine: 3, turn: 3, entry: '0190-abc', prompt: 'shout [the] *name*\nand more', title: 'Turn 3: shout [the] *name*…',
  session: 'sess-1234567890', agent: 'claude-code', sessionLabel: 'claude-code sess-123', source: 'hook', time: '2026-11-22T11:55:00Z', age: '5m ago',
};

describe('blame', () => {
  it('notes the turn\'s title and its age', () => {
    assert.equal(blameNote(range), 'Turn 3: shout [the] *name*… · 5m ago');
  });
  it('hover escapes the prompt and links preview and revert', () => {
    const md = blameHoverMarkdown(range, 'command:p', 'command:r');
    assert.match(md, /^\*\*Agent turn 3\*\* · 5m ago/);
    assert.match(md, /> shout \\\[the\\\] \\\*name\\\*/);
    assert.match(md, /claude\\-code sess\\-123 · via hook/);
    assert.match(md, /\[Preview\]\(command:p\) · \[Revert turn 3 in this file\]\(command:r\)$/);
    assert.doesNotMatch(md, /step/);
  });
  it('a range no step wrote has no step: the turn stands for it', () => {
    assert.equal(blameStep(range), undefined);
    assert.equal(blameStep({ ...range, step: 0 }), undefined);
    assert.equal(blameStep({ ...range, step: 2 }), undefined, 'a step without its target');
  });
  // The lines one tool call of the turn wrote: the server names the step and its target.
  const stepped: BlameRange = { ...range, step: 2, stepTarget: '3.2', stepTitle: 'turn 3, step 2: Edit src/a_b.txt' };
  it('a range a step wrote names the step and its target', () => {
    assert.deepEqual(blameStep(stepped), { step: 2, target: '3.2' });
  });
  it('notes the step\'s title and its age when a step wrote the line', () => {
    assert.equal(blameNote(stepped), 'turn 3, step 2: Edit src/a_b.txt · 5m ago');
    assert.equal(blameNote({ ...stepped, stepTitle: undefined }), 'turn 3, step 2 · 5m ago');
  });
  it('hover names the step, as the server\'s hover does, and links its preview and revert', () => {
    const md = blameHoverMarkdown(stepped, 'command:p', 'command:r');
    assert.match(md, /^\*\*Agent turn 3, step 2: Edit src\/a\\_b\\\.txt\*\* · 5m ago\n\n/);
    assert.match(md, /> shout \\\[the\\\] \\\*name\\\*/, 'the turn\'s prompt still');
    assert.match(md, /\[Preview\]\(command:p\) · \[Revert step 2 of turn 3 in this file\]\(command:r\)$/);
    assert.doesNotMatch(md, /Revert turn 3/);
  });
  it('command links carry their one argument as JSON', () => {
    const u = commandUri('rewindLsp.revertTurnFile', { turn: 3, path: 'a b.go' });
    assert.equal(JSON.parse(decodeURIComponent(u.slice('command:rewindLsp.revertTurnFile?'.length)))[0].path, 'a b.go');
  });
});

describe('revertPrompt', () => {
  const plan = (files: object[]) => ({ target: { id: 'x', turn: 2, label: '', prompt: 'second', snapshot: 's', title: 'turn 2 (second)' }, mode: 'revert', files, skipped: [], conversation: { entriesAffected: 0 }, diff: '' });
  it('names each conflicting file and who changed it', () => {
    const dry: RewindResult = {
      applied: false, failureReason: 'conflict: …', entry: '',
      plan: plan([
        { path: 'f.txt', change: 'modify', added: 0, removed: 0, binary: false, conflict: true, via: 'edit', overlaps: ['user'], line: 'M f.txt  (conflict: changed since by user)' },
        { path: 'made.txt', change: 'delete', added: 0, removed: 1, binary: false, conflict: false, via: 'edit', what: '+0 -1', line: 'D made.txt  +0 -1' },
      ]) as RewindResult['plan'],
    };
    const p = revertPrompt('turn 2 (second)', dry);
    assert.equal(p.blocked, true);
    assert.match(p.message, /^Cannot revert turn 2 \(second\): later changes overlap it in 1 file/);
    assert.equal(p.detail, 'M f.txt  (conflict: changed since by user)');
  });
  it('lists what a revert that goes through does', () => {
    const dry: RewindResult = {
      applied: false,
      entry: '',
      plan: plan([
        { path: 'f.txt', change: 'modify', added: 1, removed: 1, binary: false, conflict: false, via: 'edit', what: '+1 -1', line: 'M f.txt  +1 -1' },
        { path: 'made.txt', change: 'delete', added: 0, removed: 1, binary: false, conflict: false, via: 'edit', what: '+0 -1', line: 'D made.txt  +0 -1' },
      ]) as RewindResult['plan'],
    };
    const p = revertPrompt('turn 2 (second)', dry);
    assert.equal(p.blocked, false);
    assert.match(p.message, /2 files will change; everything after the turn is kept/);
    assert.equal(p.detail, 'M f.txt  +1 -1\nD made.txt  +0 -1');
    assert.match(revertedMessage('turn 2 (second)', dry.plan, 1), /^reverted turn 2 \(second\): 2 files changed, 1 file saved/);
  });
  it('says when there is nothing to revert', () => {
    assert.equal(revertPrompt('turn 1', { applied: false, entry: '', plan: plan([]) as RewindResult['plan'] }).blocked, true);
  });
});
