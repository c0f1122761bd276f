import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OLDER_TURNS_LABEL, pickRows, timelineEntries } from '../../src/format';
import { appendOlder, DEFAULT_TURNS_PER_PAGE, olderBefore, turnsPerPage } from '../../src/paging';
import type { CheckpointInfo, ListResult, RewindInfo, TurnInfo } from '../../src/protocol';

// Pages as the server lists them for a history of turns 1…7 with pages of three turns: the latest
// page holds turns 5-7 (and what was recorded among them), `before: 5` turns 2-4, `before: 2`
// turn 1. The words (titles, ages) are the server's.
const turn = (n: number): TurnInfo => ({
  turn: n,
  entry: `t${n}`,
  prompt: `prompt ${n}`,
  title: `Turn ${n}: prompt ${n}`,
  summary: '',
  started: new Date(Date.UTC(2026, 10, 22, 12, n)).toISOString(),
  ended: new Date(Date.UTC(2026, 10, 22, 12, n, 30)).toISOString(),
  age: `${60 - n}m ago`,
  source: 'cli',
  changed: [],
  what: 'no files changed',
  steps: [],
});
const checkpoint = (label: string, minute: number): CheckpointInfo => ({
  entry: `c-${label}`,
  label,
  goal: '',
  time: new Date(Date.UTC(2026, 10, 22, 12, minute, 40)).toISOString(),
  snapshot: 's',
  age: '1m ago',
  title: `Checkpoint @${label}`,
});
const rewind = (entry: string, minute: number, undone: boolean): RewindInfo => ({
  entry,
  target: '1',
  mode: 'code',
  time: new Date(Date.UTC(2026, 10, 22, 12, minute, 50)).toISOString(),
  undone,
  applied: true,
  age: '1m ago',
  title: `Rewind to turn 1 (prompt 1)${undone ? ' — undone' : ''}`,
});
const page = (turns: number[], more: boolean, extra: Partial<ListResult> = {}): ListResult => ({
  turns: turns.map(turn),
  checkpoints: [],
  rewinds: [],
  summaries: [],
  more,
  ...extra,
});

describe('paging', () => {
  it('olderBefore is the first listed turn while older turns were left out', () => {
    assert.equal(olderBefore(page([5, 6, 7], true)), 5);
    assert.equal(olderBefore(page([1], false)), undefined);
    assert.equal(olderBefore(page([], false)), undefined);
    assert.equal(olderBefore({ turns: null, checkpoints: null, rewinds: null, summaries: null }), undefined);
  });

  it('appendOlder puts the older page first, keeps every list oldest first and takes its more', () => {
    const latest = page([5, 6, 7], true, { checkpoints: [checkpoint('late', 6)], rewinds: [rewind('r2', 7, false)] });
    const older = page([2, 3, 4], true, { checkpoints: [checkpoint('early', 3)], rewinds: [rewind('r1', 4, true)] });
    const both = appendOlder(latest, older);
    assert.deepEqual(both.turns?.map((t) => t.turn), [2, 3, 4, 5, 6, 7]);
    assert.deepEqual(both.checkpoints?.map((c) => c.label), ['early', 'late']);
    assert.deepEqual(both.rewinds?.map((r) => r.entry), ['r1', 'r2']);
    assert.equal(both.more, true);
    assert.equal(olderBefore(both), 2);
    const all = appendOlder(both, page([1], false));
    assert.deepEqual(all.turns?.map((t) => t.turn), [1, 2, 3, 4, 5, 6, 7]);
    assert.equal(all.more, false);
    assert.equal(olderBefore(all), undefined);
  });

  it('appendOlder keeps an entry both pages hold once, as the newer listing has it', () => {
    const latest = page([4, 5, 6], true);
    const older = page([3, 4], true);
    older.turns![1] = { ...turn(4), age: 'stale' };
    const both = appendOlder(latest, older);
    assert.deepEqual(both.turns?.map((t) => [t.turn, t.age]), [[3, '57m ago'], [4, '56m ago'], [5, '55m ago'], [6, '54m ago']]);
  });

  it('the view of the pages joined is the view of one listing of as many turns', () => {
    // What a re-listing with limit 6 answers (checkpoints and rewinds from turn 2's start on).
    const one = page([2, 3, 4, 5, 6, 7], true, { checkpoints: [checkpoint('early', 3), checkpoint('late', 6)], rewinds: [rewind('r1', 4, true), rewind('r2', 7, false)] });
    const joined = appendOlder(
      page([5, 6, 7], true, { checkpoints: [checkpoint('late', 6)], rewinds: [rewind('r2', 7, false)] }),
      page([2, 3, 4], true, { checkpoints: [checkpoint('early', 3)], rewinds: [rewind('r1', 4, true)] }),
    );
    assert.deepEqual(timelineEntries(joined), timelineEntries(one));
  });

  it('turnsPerPage takes a whole number of at least 1, else the default', () => {
    assert.equal(turnsPerPage(20), 20);
    assert.equal(turnsPerPage(7.9), 7);
    assert.equal(turnsPerPage(0), DEFAULT_TURNS_PER_PAGE);
    assert.equal(turnsPerPage(-3), DEFAULT_TURNS_PER_PAGE);
    assert.equal(turnsPerPage('50'), DEFAULT_TURNS_PER_PAGE);
    assert.equal(turnsPerPage(undefined), DEFAULT_TURNS_PER_PAGE);
  });
});

describe('pickRows', () => {
  const rows = (list: ListResult, onlyTurns = false) =>
    pickRows(list, onlyTurns).map((r) => (r.kind === 'separator' ? `-- ${r.label}` : r.kind === 'older' ? `${r.label} (${r.description})` : r.item.label));

  it('lists the page\'s turns newest first, then the item that loads older ones, then the checkpoints', () => {
    const list = page([5, 6, 7], true, { checkpoints: [checkpoint('late', 6)] });
    assert.deepEqual(rows(list), ['-- Turns', 'Turn 7: prompt 7', 'Turn 6: prompt 6', 'Turn 5: prompt 5', 'Older turns… (before turn 5)', '-- Checkpoints', 'Checkpoint @late']);
    const older = pickRows(list).find((r) => r.kind === 'older');
    assert.deepEqual(older && older.kind === 'older' && [older.label, older.before], [OLDER_TURNS_LABEL, 5]);
  });

  it('offers no older turns once the oldest is listed, and no checkpoints when only turns are asked for', () => {
    const list = page([1, 2], false, { checkpoints: [checkpoint('cp', 1)] });
    assert.deepEqual(rows(list), ['-- Turns', 'Turn 2: prompt 2', 'Turn 1: prompt 1', '-- Checkpoints', 'Checkpoint @cp']);
    assert.deepEqual(rows(page([5, 6], true, { checkpoints: [checkpoint('cp', 5)] }), true), ['-- Turns', 'Turn 6: prompt 6', 'Turn 5: prompt 5', 'Older turns… (before turn 5)']);
  });

  it('a pick with nothing recorded has no rows', () => {
    assert.deepEqual(rows({ turns: null, checkpoints: null, rewinds: null, summaries: null }), []);
  });
});
