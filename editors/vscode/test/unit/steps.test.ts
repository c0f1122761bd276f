import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OLDER_TURNS_LABEL, pickRows, planTargetShort, STEP_MARK, stepItem } from '../../src/format';
import type { FileChange, ListResult, Plan, RewindResult, StepInfo, TurnInfo } from '../../src/protocol';
import { revertPrompt } from '../../src/revertFormat';
import { beforeLabel, isStepTarget, stepDescription, stepsOf, turnChildren } from '../../src/steps';

// A turn with three tool calls, in the server's words (commands/words.go, package words): step 1
// wrote c.txt, step 2 edited a.txt, step 3 ran a shell command that changed b.txt.
const change = (path: string, kind: 'create' | 'modify', added: number, removed: number): FileChange => ({
  path,
  change: kind,
  added,
  removed,
  what: `+${added} -${removed}`,
  line: `${kind === 'create' ? 'A' : 'M'} ${path}  +${added} -${removed}`,
});
const step = (n: number, tool: string, detail: string, title: string, changed: FileChange[]): StepInfo => ({
  step: n,
  entry: `step-${n}`,
  target: `3.${n}`,
  tool,
  detail,
  time: '2026-11-22T12:00:00Z',
  age: '5m ago',
  changed,
  what: '1 file changed (+1 -0)',
  title,
});
const STEPS = [
  step(1, 'Write', '/w/c.txt', 'turn 3, step 1: Write /w/c.txt', [change('c.txt', 'create', 1, 0)]),
  step(2, 'Edit', '/w/a.txt', 'turn 3, step 2: Edit /w/a.txt', [change('a.txt', 'modify', 1, 0)]),
  step(3, 'Bash', 'npm test', 'turn 3, step 3: Bash "npm test"', [change('b.txt', 'modify', 1, 1)]),
];
const turn = (n: number, steps: StepInfo[] = []): TurnInfo => ({
  turn: n,
  entry: `turn-${n}`,
  prompt: `prompt ${n}`,
  title: `Turn ${n}: prompt ${n}`,
  summary: '',
  started: new Date(Date.UTC(2026, 10, 22, 11, n)).toISOString(),
  ended: new Date(Date.UTC(2026, 10, 22, 11, n, 30)).toISOString(),
  age: `${60 - n}m ago`,
  source: 'hook',
  changed: steps.flatMap((s) => s.changed ?? []),
  what: `${steps.length} files changed`,
  steps,
});
const list = (turns: TurnInfo[], more = false): ListResult => ({ turns, checkpoints: [], rewinds: [], summaries: [], more });

describe('step targets', () => {
  it('isStepTarget knows 3.2 and turn:3:step:2 from the other targets', () => {
    for (const t of ['3.2', 'turn:3:step:2', ' 12.10 ']) assert.equal(isStepTarget(t), true, t);
    for (const t of ['3', 'turn:3', 'turn:3:end', '~1', '@a.b', '0190a0b1', '3.', '.2']) assert.equal(isStepTarget(t), false, t);
  });

  it('stepsOf lists a turn\'s steps in order, none for a turn without (null from the server)', () => {
    assert.deepEqual(stepsOf(turn(3, STEPS)).map((s) => s.target), ['3.1', '3.2', '3.3']);
    assert.deepEqual(stepsOf({ ...turn(2), steps: null }), []);
  });
});

describe('the Rewind view', () => {
  it('a turn shows its steps first, in order, then every file it changed', () => {
    const children = turnChildren(turn(3, STEPS));
    assert.deepEqual(
      children.map((c) => (c.kind === 'step' ? `step ${c.step.title}` : `file ${c.file.path}`)),
      [
        'step turn 3, step 1: Write /w/c.txt',
        'step turn 3, step 2: Edit /w/a.txt',
        'step turn 3, step 3: Bash "npm test"',
        'file c.txt',
        'file a.txt',
        'file b.txt',
      ],
    );
    assert.deepEqual(turnChildren({ ...turn(1), changed: [change('x.go', 'modify', 2, 1)], steps: null }).map((c) => c.kind), ['file']);
  });

  it('a step\'s row says when and what, in the server\'s words', () => {
    assert.equal(stepDescription(STEPS[1]), '5m ago · 1 file changed (+1 -0)');
  });

  it('a file\'s diff starts before its turn, or before its step', () => {
    assert.equal(beforeLabel(3), 'before turn 3');
    assert.equal(beforeLabel(3, 2), 'before step 2 of turn 3');
  });
});

describe('turn picks', () => {
  it('stepItem marks the step under its turn and targets the state just before it', () => {
    const item = stepItem(turn(3, STEPS), STEPS[2]);
    assert.equal(item.label, `${STEP_MARK}turn 3, step 3: Bash "npm test"`);
    assert.equal(item.description, '5m ago · 1 file changed (+1 -0)');
    assert.equal(item.detail, 'b.txt +1 -1');
    assert.equal(item.target, '3.3');
    assert.equal(item.kind, 'step');
  });

  it('pickRows offers a turn\'s steps right after the turn, newest turn first', () => {
    const rows = pickRows(list([turn(2), turn(3, STEPS), turn(4)], true));
    assert.deepEqual(
      rows.map((r) => (r.kind === 'target' ? `${r.item.kind} ${r.item.target}` : r.kind === 'older' ? OLDER_TURNS_LABEL : `-- ${r.label}`)),
      ['-- Turns', 'turn 4', 'turn 3', 'step 3.1', 'step 3.2', 'step 3.3', 'turn 2', OLDER_TURNS_LABEL],
    );
  });

  it('a revert\'s pick (turns only) offers the steps too', () => {
    const rows = pickRows(list([turn(3, STEPS)]), true);
    assert.deepEqual(rows.filter((r) => r.kind === 'target').map((r) => (r.kind === 'target' ? r.item.target : '')), ['3', '3.1', '3.2', '3.3']);
  });
});

describe('plans and reverts of a step', () => {
  const plan = (mode: string, title: string): Plan => ({
    target: { id: 'step-2', turn: 3, step: 2, label: '', prompt: 'prompt 3', snapshot: 'snap', kind: 'tool', title },
    mode,
    files: [{ path: 'a.txt', change: 'modify', added: 0, removed: 1, binary: false, conflict: false, via: 'edit', what: '+0 -1', line: 'M a.txt  +0 -1' }],
    skipped: [],
    conversation: { entriesAffected: 0 },
    diff: '',
  });

  it('a diff tab names the step shortly: "step 3.2"', () => {
    assert.equal(planTargetShort(plan('code', 'before step 2 of turn 3 (Edit /w/a.txt)')), 'step 3.2');
  });

  it('the revert of a step keeps everything after the step', () => {
    const dry: RewindResult = { applied: false, entry: '', plan: plan('revert', 'step 2 of turn 3 (Edit /w/a.txt)') };
    const p = revertPrompt(dry.plan!.target.title, dry);
    assert.equal(p.blocked, false);
    assert.equal(p.message, 'Revert step 2 of turn 3 (Edit /w/a.txt)? 1 file will change; everything after the step is kept.');
    assert.equal(p.detail, 'M a.txt  +0 -1');
  });
});
