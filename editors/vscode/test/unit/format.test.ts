import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  changeCounts,
  conflictPrompt,
  conversationMessage,
  firstLine,
  openTurnNumber,
  planTargetShort,
  resultMessage,
  statusText,
  summarizePlan,
  targetItems,
  timelineEntries,
  turnItem,
} from '../../src/format';
import type { FileChange, ListResult, Plan, TurnInfo } from '../../src/protocol';

// The words in these fixtures (titles, ages, changes, lines) are the server's, as
// commands/words.go and package words make them; the extension shows them as they come.
const NOW = Date.parse('2026-11-22T12:00:00Z');
const ago = (s: number) => new Date(NOW - s * 1000).toISOString();

describe('labels', () => {
  it('firstLine keeps the first line and shortens it', () => {
    assert.equal(firstLine('  fix auth\nthen tests'), 'fix auth');
    assert.equal(firstLine('x'.repeat(100), 10), 'xxxxxxxxx…');
    assert.equal(firstLine(undefined), '');
  });
});

const change = (path: string, added: number, removed: number): FileChange => ({
  path,
  change: 'modify',
  added,
  removed,
  what: `+${added} -${removed}`,
  line: `M ${path}  +${added} -${removed}`,
});

const turn = (n: number, startedAgo: number, extra: Partial<TurnInfo> = {}): TurnInfo => ({
  turn: n,
  entry: `entry-${n}`,
  prompt: `prompt ${n}\nwith more`,
  title: `Turn ${n}: prompt ${n}…`,
  summary: '',
  started: ago(startedAgo),
  ended: ago(startedAgo - 10),
  age: `${Math.floor(startedAgo / 60)}m ago`,
  source: 'cli',
  changed: [change(`src/f${n}.go`, n, 1)],
  what: `1 file changed (+${n} -1)`,
  steps: [],
  ...extra,
});

describe('quick pick items', () => {
  it('turnItem shows the server\'s title, age and changes', () => {
    const item = turnItem(turn(2, 300));
    assert.equal(item.label, 'Turn 2: prompt 2…');
    assert.equal(item.description, '5m ago · cli');
    assert.equal(item.detail, '1 file changed (+2 -1): f2.go +2 -1');
    assert.equal(item.target, '2');
  });
  it('an open turn says so', () => {
    const item = turnItem(turn(3, 60, { ended: '', changed: [], what: undefined }));
    assert.match(item.description, /open/);
    assert.equal(item.detail, '');
  });
  it('a file\'s kind is the server\'s word for it', () => {
    const item = turnItem(turn(4, 60, { changed: [{ ...change('logo.png', 0, 0), what: 'binary' }, { ...change('run.sh', 0, 0), what: 'mode +x' }] }));
    assert.match(item.detail, /logo\.png binary, run\.sh mode \+x$/);
  });
  it('targetItems lists turns newest first, then checkpoints', () => {
    const list: ListResult = {
      turns: [turn(1, 600), turn(2, 300)],
      checkpoints: [
        { entry: 'c1', label: 'old', time: ago(900), snapshot: 's1', goal: '', age: '15m ago', title: 'Checkpoint @old' },
        { entry: 'c2', label: 'new', time: ago(100), snapshot: 's2', goal: 'try JWT', age: '1m ago', title: 'Checkpoint @new: try JWT' },
        { entry: '0190abcdef0123456789', label: '', time: ago(50), snapshot: 's3', goal: '', age: '50s ago', title: 'Checkpoint 0190abcd' },
      ],
      rewinds: [],
      summaries: [],
    };
    const items = targetItems(list);
    assert.equal(items[2].description, '50s ago');
    assert.deepEqual(
      items.map((i) => [i.label, i.target]),
      [
        ['Turn 2: prompt 2…', '2'],
        ['Turn 1: prompt 1…', '1'],
        ['Checkpoint 0190abcd', '0190abcdef0123456789'],
        ['Checkpoint @new: try JWT', '@new'],
        ['Checkpoint @old', '@old'],
      ],
    );
  });
  it('targetItems copes with null lists', () => {
    assert.deepEqual(targetItems({ turns: null, checkpoints: null, rewinds: null, summaries: null }), []);
  });
});

describe('timelineEntries', () => {
  it('merges turns, checkpoints and rewinds newest first and marks the undoable rewind', () => {
    const list: ListResult = {
      turns: [turn(1, 600), turn(2, 300)],
      checkpoints: [{ entry: 'c', label: 'cp', time: ago(400), snapshot: 's', goal: '', age: '6m ago', title: 'Checkpoint @cp' }],
      rewinds: [
        { entry: 'r1', target: '2', mode: 'code', time: ago(200), undone: true, applied: true, age: '3m ago', title: 'Rewind to turn 2 (prompt 2…) — undone' },
        { entry: 'r2', target: '1', mode: 'code', time: ago(100), undone: false, applied: true, age: '1m ago', title: 'Rewind to turn 1 (prompt 1…)' },
        { entry: 'r3', target: '1', mode: 'code', time: ago(50), undone: true, applied: true, age: '50s ago', title: 'Rewind to turn 1 (prompt 1…) — undone' },
      ],
      summaries: [],
    };
    const got = timelineEntries(list).map((e) =>
      e.kind === 'turn' ? `turn ${e.turn.turn}` : e.kind === 'checkpoint' ? `cp ${e.checkpoint.label}` : e.kind === 'rewind' ? `rewind ${e.rewind.entry}${e.undoable ? '*' : ''}` : e.kind,
    );
    assert.deepEqual(got, ['rewind r3', 'rewind r2*', 'rewind r1', 'turn 2', 'cp cp', 'turn 1']);
  });
  it('lists kept reports with the rest, newest first', () => {
    const got = timelineEntries({
      turns: [turn(1, 600)],
      checkpoints: [],
      rewinds: [{ entry: 'r1', target: '1', mode: 'code', time: ago(300), undone: false, applied: true, age: '5m ago', title: 'Rewind to turn 1 (prompt 1…)' }],
      summaries: [{ entry: 's1', target: '1', report: 'the cache idea was wrong\nbecause…', time: ago(299), age: '4m ago', title: 'Report since turn 1 (prompt 1…)' }],
    }).map((e) => e.kind);
    assert.deepEqual(got, ['summary', 'rewind', 'turn']);
  });
  it('orders turns with equal times by number', () => {
    const t = ago(100);
    const got = timelineEntries({ turns: [turn(1, 0, { started: t }), turn(2, 0, { started: t })], checkpoints: [], rewinds: [], summaries: [] });
    assert.deepEqual(got.map((e) => (e.kind === 'turn' ? e.turn.turn : 0)), [2, 1]);
  });
});

const plan = (over: Partial<Plan> = {}): Plan => ({
  target: { id: '0190aaaa', turn: 1, label: '', prompt: 'add greeting', snapshot: 'snap1', kind: 'turnStart', title: 'turn 1 (add greeting)' },
  mode: 'code',
  files: [
    { path: 'main.go', change: 'modify', added: 1, removed: 3, binary: false, conflict: false, via: 'edit', what: '+1 -3', line: 'M main.go  +1 -3' },
    { path: 'util.go', change: 'delete', added: 0, removed: 5, binary: false, conflict: false, via: 'edit', what: '+0 -5', line: 'D util.go  +0 -5' },
    {
      path: 'old.txt', change: 'create', added: 2, removed: 0, binary: false, conflict: true, via: 'edit', what: '+2 -0',
      line: 'A old.txt  +2 -0  (conflict: changed since recorded)',
    },
    {
      path: 'logo.png', change: 'create', added: 0, removed: 0, binary: true, conflict: false, via: 'disk', kind: 'binary', what: 'binary',
      line: 'A logo.png  binary  (written on disk)',
    },
  ],
  skipped: [{ path: 'dump.sql', reason: 'larger than maxFileBytes when captured' }],
  conversation: { entriesAffected: 4 },
  diff: '',
  ...over,
});

describe('plan formatting', () => {
  it('summarizePlan lists each file as the server wrote its line', () => {
    const lines = summarizePlan(plan()).detail.split('\n');
    for (const f of plan().files!) assert.ok(lines.includes(f.line), f.line);
  });
  it('summarizePlan gives counts, conflicts and skipped files', () => {
    const s = summarizePlan(plan());
    assert.equal(s.message, 'Rewind to turn 1 (add greeting)?');
    assert.equal(s.changing, 3);
    assert.equal(s.conflicts, 1);
    assert.equal(s.nothingToDo, false);
    const lines = s.detail.split('\n');
    assert.equal(lines[0], '3 files will change: 2 restored, 1 deleted.');
    assert.equal(lines[1], '1 conflict (edited since the agent\'s last turn): old.txt.');
    assert.equal(lines[2], '1 file skipped: dump.sql (larger than maxFileBytes when captured).');
    assert.ok(lines.includes('D util.go  +0 -5'));
    assert.doesNotMatch(s.detail, /Conversation/);
  });
  it('forced plans overwrite conflicts', () => {
    const s = summarizePlan(plan(), { force: true });
    assert.equal(s.changing, 4);
    assert.match(s.detail, /will be overwritten: old\.txt/);
  });
  it('conversation modes mention the conversation, not files', () => {
    const s = summarizePlan(plan({ mode: 'conversation' }));
    assert.equal(s.changing, 0);
    assert.equal(s.nothingToDo, false);
    assert.match(s.detail, /^Files stay as they are\.\nConversation: 4 entries moved/);
    assert.doesNotMatch(s.detail, /conflict|skipped/);
    assert.match(summarizePlan(plan({ mode: 'both' })).detail, /Conversation: 4 entries/);
  });
  it('an empty plan is nothing to do', () => {
    const s = summarizePlan(plan({ files: [], skipped: null }));
    assert.equal(s.nothingToDo, true);
    assert.match(s.detail, /^No file will change\./);
  });
  it('checkpoint targets are named by label', () => {
    const s = summarizePlan(plan({ target: { id: 'x', turn: 0, label: 'base', prompt: '', snapshot: 's', kind: 'checkpoint', title: 'checkpoint @base' } }));
    assert.equal(s.message, 'Rewind to checkpoint @base?');
  });
  it('resultMessage says how many files were restored and deleted, and saved', () => {
    assert.equal(resultMessage('rewind', plan(), 2), 'Rewound to turn 1 (add greeting): 2 restored, 1 deleted, 2 documents saved.');
    assert.equal(resultMessage('undo', plan(), 1), 'Undid the last rewind: 2 restored, 1 deleted, 1 document saved.');
    assert.equal(resultMessage('undo', undefined, 0), 'Undid the last rewind: no file changed.');
  });
  it('changeCounts counts a re-created file as restored', () => {
    assert.equal(changeCounts([{ change: 'modify' }, { change: 'create' }, { change: 'create' }, { change: 'delete' }, { change: 'delete' }]), '3 restored, 2 deleted');
    assert.equal(changeCounts([{ change: 'delete' }]), '1 deleted');
  });
  it('conflictPrompt puts Cancel first and names unsaved changes', () => {
    const p = conflictPrompt(plan(), (path) => path === 'old.txt');
    assert.equal(p.title, 'Rewind to turn 1 (add greeting)?');
    assert.equal(p.placeHolder, 'Not rewound yet: unsaved changes in old.txt. Enter cancels.');
    assert.deepEqual(p.choices.map((c) => c.id), ['cancel', 'others', 'overwrite', 'diff']);
    assert.equal(p.choices[1].detail, '2 restored, 1 deleted; old.txt stays as it is.');
    assert.equal(p.choices[2].label, 'Rewind and overwrite old.txt');
    const edited = conflictPrompt(plan(), () => false);
    assert.equal(edited.placeHolder, "Not rewound yet: old.txt changed after the agent's last turn. Enter cancels.");
    const onlyConflicts = conflictPrompt(plan({ files: [plan().files![2]] }), () => true);
    assert.deepEqual(onlyConflicts.choices.map((c) => c.id), ['cancel', 'overwrite', 'diff']);
  });
  it('diff titles name the target, never a snapshot id', () => {
    assert.equal(planTargetShort(plan()), 'turn 1');
    assert.equal(planTargetShort(plan({ target: { id: 'x', turn: 0, label: 'base', prompt: '', snapshot: 's', title: 'checkpoint @base' } })), '@base');
    assert.equal(planTargetShort(plan({ target: { id: '0190abcdef012345', turn: 0, label: '', prompt: '', snapshot: 's', title: 'entry 0190abcd' } })), 'entry 0190abcd');
  });
});

describe('status bar', () => {
  it('reads openTurn in any shape', () => {
    assert.equal(openTurnNumber(null), undefined);
    assert.equal(openTurnNumber(undefined), undefined);
    assert.equal(openTurnNumber(0), undefined);
    assert.equal(openTurnNumber(3), 3);
    assert.equal(openTurnNumber({ turn: 4, entry: 'x' }), 4);
    assert.equal(openTurnNumber(true), -1);
    assert.equal(openTurnNumber('5'), 5);
  });
  it('spins while a turn is open', () => {
    assert.equal(statusText(2, undefined).text, '$(history) 2 turns');
    assert.equal(statusText(1, undefined).text, '$(history) 1 turn');
    assert.equal(statusText(2, 3).text, '$(sync~spin) Turn 3 open');
    assert.equal(statusText(2, -1).text, '$(sync~spin) Agent turn open');
  });
});

describe('agent sessions and conversations', () => {
  it('names a turn\'s session by the server\'s label', () => {
    const t = turn(3, 10, { agent: 'codex', session: '019a1b2c-3d4e-7f60-8a1b-2c3d4e5f6a7b', sessionLabel: 'codex …4e5f6a7b' });
    assert.equal(turnItem(t).description, '0m ago · cli · codex …4e5f6a7b');
    assert.equal(turnItem(turn(3, 10)).description, '0m ago · cli');
  });
  it('says how to resume a forked conversation, or why there is none', () => {
    assert.equal(
      conversationMessage({ agent: 'claude-code', session: 'x', transcript: '/t/x.jsonl', resume: 'claude --resume x' }),
      'The claude-code conversation was forked: continue it with `claude --resume x`.',
    );
    assert.equal(conversationMessage({ agent: '', reason: 'turn 2 was recorded by the command line' }), 'Conversation: turn 2 was recorded by the command line.');
    assert.equal(conversationMessage(undefined), '');
  });
});
