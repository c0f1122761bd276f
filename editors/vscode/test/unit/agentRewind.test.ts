import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentRewindChoice, agentRewindPrompt } from '../../src/format';
import type { AgentRewindParams } from '../../src/protocol';

// The message and the actions' titles are the server's words (package words, lsp/notify.go).
const base: AgentRewindParams = {
  root: '/w',
  entry: 'e1',
  agent: 'claude-code',
  session: 's1',
  turn: 2,
  prompt: 'add a cache\nwith details',
  target: '01a20f68-f002',
  mode: 'conversation',
  files: [],
  kept: [],
  offered: [],
  sessionLabel: 'claude-code s1',
  title: 'Claude Code rewound to turn 2 (add a cache…), conversation only',
  message: 'Claude Code rewound its conversation to turn 2 (add a cache…); no file needed restoring.',
  actions: [],
};

describe('agentRewindPrompt', () => {
  it('offers the files Claude Code did not restore', () => {
    const p: AgentRewindParams = {
      ...base,
      offered: ['a.txt', 'b.txt', 'c.txt', 'd.txt'],
      message: 'Claude Code rewound its conversation to turn 2 (add a cache…) but restored no files; 4 files still differ: a.txt, b.txt, c.txt and 1 more.',
      actions: [{ id: 'rewindFiles', title: 'Rewind the Files' }, { id: 'showDiff', title: 'Show Diff' }],
    };
    const m = agentRewindPrompt(p);
    assert.equal(
      m.text,
      'Rewind: Claude Code rewound its conversation to turn 2 (add a cache…) but restored no files; 4 files still differ: a.txt, b.txt, c.txt and 1 more.',
    );
    assert.deepEqual(m.buttons, ['Rewind the Files', 'Show Diff']);
    assert.equal(agentRewindChoice(p, 'Rewind the Files'), 'rewindFiles');
    assert.equal(agentRewindChoice(p, 'Show Diff'), 'showDiff');
    assert.equal(agentRewindChoice(p, undefined), undefined);
  });
  it('says what rewind-lsp restored besides, and what it left', () => {
    const p: AgentRewindParams = {
      ...base,
      mode: 'both',
      files: ['b.txt'],
      kept: ['c.txt'],
      message: 'Claude Code rewound to turn 2 (add a cache…) and restored its own edits; rewind-lsp restored what its shell changed too: b.txt. Left as they are (changed since by someone else): c.txt.',
      actions: [{ id: 'undo', title: 'Undo' }],
    };
    const m = agentRewindPrompt(p);
    assert.equal(m.text, `Rewind: ${p.message}`);
    assert.deepEqual(m.buttons, ['Undo']);
    assert.equal(agentRewindChoice(p, 'Undo'), 'undo');
  });
  it('offers nothing when nothing is left', () => {
    assert.deepEqual(agentRewindPrompt({ ...base, mode: 'both' }).buttons, []);
    assert.equal(agentRewindChoice({ ...base, mode: 'both' }, 'Undo'), undefined);
  });
});
