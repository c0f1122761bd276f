import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  changeCounts,
  changedSummary,
  conflictPrompt,
  conversationMessage,
  counts,
  fileWords,
  firstLine,
  openTurnNumber,
  planFileLine,
  planTargetShort,
  relativeTime,
  resultMessage,
  rewindTitle,
  sessionLabel,
  statusText,
  summaryTitle,
  summarizePlan,
  targetItems,
  timelineEntries,
  turnItem,
  turnTitle,
} from '../../src/format';
import type { ListResult, Plan, PlanFile, TurnInfo } from '../../src/protocol';

const NOW = Date.parse('2026-11-22T12:00:00Z');
const ago = (s: number) => new Date(NOW - s * 1000).toISOString();

describe('relativeTime', () => {
  const cases: [unknown, string][] = [
    [ago(5), 'just now'],
    [ago(60), '1 minute ago'],
    [ago(150), '3 minutes ago'],
    [ago(50 * 60), '1 hour ago'],
    [ago(5 * 3600), '5 hours ago'],
    [ago(30 * 3600), 'yesterday'],
    [ago(3 * 86400), '3 days ago'],
    [ago(90 * 86400), '2026-08-24'],
    [(NOW - 120_000) / 1000, '2 minutes ago'],
    [NOW - 120_000, '2 minutes ago'],
    ['', ''],
    ['not a time', ''],
    [undefined, ''],
  ];
  for (const [input, want] of cases) {
    it(`${JSON.stringify(input)} → ${want || '(empty)'}`, () => assert.equal(relativeTime(input, NOW), want));
  }
});

describe('labels', () => {
  it('counts leaves out zero sides', () => {
    assert.equal(counts(3, 1), '+3 -1');
    assert.equal(counts(3, 0), '+3');
    assert.equal(counts(0, 2), '-2');
    assert.equal(counts(0, 0), '');
  });
  it('firstLine keeps the first line and shortens it', () => {
    assert.equal(firstLine('  fix auth\nthen tests'), 'fix auth');
    assert.equal(firstLine('x'.repeat(100), 10), 'xxxxxxxxx…');
    assert.equal(firstLine(undefined), '');
  });
  it('turnTitle has the number and prompt', () => {
    assert.equal(turnTitle({ turn: 3, prompt: 'refactor auth to JWT\nplease' }), 'Turn 3: refactor auth to JWT');
    assert.equal(turnTitle({ turn: 4, prompt: '' }), 'Turn 4');
  });
  it('changedSummary counts files and lines', () => {
    assert.equal(changedSummary(null), 'no files changed');
    assert.equal(
      changedSummary([
        { path: 'a.go', change: 'modify', added: 2, removed: 1 },
        { path: 'b.go', change: 'create', added: 10, removed: 0 },
      ]),
      '2 files changed (+12 -1)',
    );
    assert.equal(changedSummary([{ path: 'a.bin', change: 'modify', added: 0, removed: 0 }]), '1 file changed');
  });
  it('rewindTitle names turn targets and undone rewinds', () => {
    assert.equal(rewindTitle({ entry: 'e', target: '1', mode: 'code', time: '', undone: false, applied: true }), 'Rewind to turn 1');
    assert.equal(rewindTitle({ entry: 'e', target: '@base', mode: 'both', time: '', undone: true, applied: true }), 'Rewind to @base (both) — undone');
  });
});

const turn = (n: number, startedAgo: number, extra: Partial<TurnInfo> = {}): TurnInfo => ({
  turn: n,
  entry: `entry-${n}`,
  prompt: `prompt ${n}`,
  summary: '',
  started: ago(startedAgo),
  ended: ago(startedAgo - 10),
  source: 'cli',
  changed: [{ path: `src/f${n}.go`, change: 'modify', added: n, removed: 1 }],
  ...extra,
});

describe('quick pick items', () => {
  it('turnItem shows number, prompt, time, files changed', () => {
    const item = turnItem(turn(2, 300), NOW);
    assert.equal(item.label, 'Turn 2: prompt 2');
    assert.equal(item.description, '5 minutes ago · cli');
    assert.equal(item.detail, '1 file changed (+2 -1): f2.go +2 -1');
    assert.equal(item.target, '2');
  });
  it('an open turn says so', () => {
    const item = turnItem(turn(3, 60, { ended: '' }), NOW);
    assert.match(item.description, /open/);
  });
  it('targetItems lists turns newest first, then checkpoints', () => {
    const list: ListResult = {
      turns: [turn(1, 600), turn(2, 300)],
      checkpoints: [
        { entry: 'c1', label: 'old', time: ago(900), snapshot: 's1', goal: '' },
        { entry: 'c2', label: 'new', time: ago(100), snapshot: 's2', goal: '' },
        { entry: '0190abcdef0123456789', label: '', time: ago(50), snapshot: 's3', goal: '' },
      ],
      rewinds: [],
      summaries: [],
    };
    const items = targetItems(list, NOW);
    assert.deepEqual(
      items.map((i) => [i.label, i.target]),
      [
        ['Turn 2: prompt 2', '2'],
        ['Turn 1: prompt 1', '1'],
        ['Checkpoint: 0190abcd', '0190abcdef0123456789'],
        ['Checkpoint: new', '@new'],
        ['Checkpoint: old', '@old'],
      ],
    );
  });
  it('targetItems copes with null lists', () => {
    assert.deepEqual(targetItems({ turns: null, checkpoints: null, rewinds: null, summaries: null }, NOW), []);
  });
});

describe('timelineEntries', () => {
  it('merges turns, checkpoints and rewinds newest first and marks the undoable rewind', () => {
    const list: ListResult = {
      turns: [turn(1, 600), turn(2, 300)],
      checkpoints: [{ entry: 'c', label: 'cp', time: ago(400), snapshot: 's', goal: '' }],
      rewinds: [
        { entry: 'r1', target: '2', mode: 'code', time: ago(200), undone: true, applied: true },
        { entry: 'r2', target: '1', mode: 'code', time: ago(100), undone: false, applied: true },
        { entry: 'r3', target: '1', mode: 'code', time: ago(50), undone: true, applied: true },
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
      rewinds: [{ entry: 'r1', target: '1', mode: 'code', time: ago(300), undone: false, applied: true }],
      summaries: [{ entry: 's1', target: '1', report: 'the cache idea was wrong\nbecause…', time: ago(299) }],
    }).map((e) => e.kind);
    assert.deepEqual(got, ['summary', 'rewind', 'turn']);
    assert.equal(summaryTitle({ entry: 's1', target: '1', report: 'the cache idea was wrong\nbecause…', time: ago(1) }), 'Report: the cache idea was wrong');
  });
  it('orders turns with equal times by number', () => {
    const t = ago(100);
    const got = timelineEntries({ turns: [turn(1, 0, { started: t }), turn(2, 0, { started: t })], checkpoints: [], rewinds: [], summaries: [] });
    assert.deepEqual(got.map((e) => (e.kind === 'turn' ? e.turn.turn : 0)), [2, 1]);
  });
});

const plan = (over: Partial<Plan> = {}): Plan => ({
  target: { id: '0190aaaa', turn: 1, label: '', prompt: 'add greeting', snapshot: 'snap1' },
  mode: 'code',
  files: [
    { path: 'main.go', change: 'modify', added: 1, removed: 3, binary: false, conflict: false, via: 'edit' },
    { path: 'util.go', change: 'delete', added: 0, removed: 5, binary: false, conflict: false, via: 'edit' },
    { path: 'old.txt', change: 'create', added: 2, removed: 0, binary: false, conflict: true, via: 'edit' },
    { path: 'logo.png', change: 'create', added: 0, removed: 0, binary: true, conflict: false, via: 'disk' },
  ],
  skipped: [{ path: 'dump.sql', reason: 'larger than maxFileBytes when captured' }],
  conversation: { entriesAffected: 4 },
  diff: '',
  ...over,
});

describe('plan formatting', () => {
  it('planFileLine marks change, counts and notes', () => {
    assert.equal(planFileLine(plan().files![0]), 'M main.go +1 -3');
    assert.equal(planFileLine(plan().files![2]), 'A old.txt +2 (conflict: edited since, left alone)');
    assert.equal(planFileLine(plan().files![3]), 'A logo.png (binary, written on disk)');
  });
  it('planFileLine shows the server\'s words: kinds and the executable bit', () => {
    const f = (over: Partial<PlanFile>): PlanFile => ({ path: 'x', change: 'modify', added: 0, removed: 0, binary: false, conflict: false, via: 'edit', ...over });
    assert.equal(planFileLine(f({ path: 'logo.png', binary: true, kind: 'binary', what: 'binary', via: 'disk' })), 'M logo.png binary (written on disk)');
    assert.equal(planFileLine(f({ path: 'link', change: 'create', kind: 'symlink', what: 'symlink', via: 'disk' })), 'A link symlink (written on disk)');
    assert.equal(planFileLine(f({ path: 'run.sh', mode: '+x', what: 'mode +x', via: 'disk' })), 'M run.sh mode +x (written on disk)');
    assert.equal(planFileLine(f({ path: 'a.sh', added: 2, removed: 1, mode: '-x', what: '+2 -1 mode -x' })), 'M a.sh +2 -1 mode -x');
  });
  it('fileWords prefers the server\'s words', () => {
    assert.equal(fileWords({ added: 1, removed: 2, what: 'symlink' }), 'symlink');
    assert.equal(fileWords({ added: 1, removed: 2 }), '+1 -2');
  });
  it('summarizePlan gives counts, conflicts and skipped files', () => {
    const s = summarizePlan(plan());
    assert.equal(s.message, 'Rewind to turn 1 (add greeting)?');
    assert.equal(s.changing, 3);
    assert.equal(s.conflicts, 1);
    assert.equal(s.nothingToDo, false);
    const lines = s.detail.split('\n');
    assert.equal(lines[0], '3 files will change: 2 restored, 1 deleted (+1 -8 lines).');
    assert.equal(lines[1], '1 conflict (edited since the agent\'s last turn): old.txt.');
    assert.equal(lines[2], '1 file skipped: dump.sql (larger than maxFileBytes when captured).');
    assert.ok(lines.includes('D util.go -5'));
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
    const s = summarizePlan(plan({ target: { id: 'x', turn: 0, label: 'base', prompt: '', snapshot: 's' } }));
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
    assert.equal(planTargetShort(plan({ target: { id: 'x', turn: 0, label: 'base', prompt: '', snapshot: 's' } })), '@base');
    assert.equal(planTargetShort(plan({ target: { id: '0190abcdef012345', turn: 0, label: '', prompt: '', snapshot: 's' } })), 'entry 0190abcd');
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
  it('names a turn\'s session and agent', () => {
    assert.equal(sessionLabel({ agent: 'claude-code', session: '6db2232a-b3c4-4de3-a153-6da093ca6eba' }), 'claude-code 6db2232a');
    assert.equal(sessionLabel({ session: 'abc' }), 'abc');
    assert.equal(sessionLabel({}), '');
    assert.match(turnItem(turn(3, 10, { agent: 'claude-code', session: '6db2232a-b3c4' }), NOW).description, /claude-code 6db2232a/);
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
