import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentRewindMessage } from '../../src/format';
import type { AgentRewindParams } from '../../src/protocol';

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
};

describe('agentRewindMessage', () => {
  it('offers the files Claude Code did not restore', () => {
    const m = agentRewindMessage({ ...base, offered: ['a.txt', 'b.txt', 'c.txt', 'd.txt'] });
    assert.equal(
      m.text,
      'Rewind: Claude Code rewound its conversation to before turn 2 (“add a cache”) but restored no files; 4 files still differ: a.txt, b.txt, c.txt and 1 more.',
    );
    assert.deepEqual(m.actions, ['Rewind the Files', 'Show Diff']);
  });
  it('says what rewind-lsp restored besides, and what it left', () => {
    const m = agentRewindMessage({ ...base, mode: 'both', files: ['b.txt'], kept: ['c.txt'] });
    assert.equal(
      m.text,
      'Rewind: Claude Code rewound to before turn 2 (“add a cache”) and restored its own edits; rewind-lsp restored what its shell changed too: b.txt. Left as they are (changed since by someone else): c.txt.',
    );
    assert.deepEqual(m.actions, ['Undo']);
  });
  it('offers nothing when nothing is left', () => {
    assert.deepEqual(agentRewindMessage({ ...base, mode: 'both' }).actions, []);
  });
});
