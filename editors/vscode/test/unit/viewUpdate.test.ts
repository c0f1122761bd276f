import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { viewUpdate, type Row } from '../../src/viewUpdate';

const rows = (...r: [string, string][]): Row[] => r;

describe('viewUpdate', () => {
  it('changes nothing when the listing shows the same', () => {
    const shown = rows(['turn:2', 'Turn 2 · 1m ago'], ['turn:1', 'Turn 1 · 2m ago']);
    assert.deepEqual(viewUpdate(shown, rows(['turn:2', 'Turn 2 · 1m ago'], ['turn:1', 'Turn 1 · 2m ago'])), { kind: 'rows', changed: [] });
  });
  it('redraws in place only the rows whose words changed (the ages a minute later)', () => {
    const shown = rows(['turn:2', 'Turn 2 · 50s ago'], ['turn:1', 'Turn 1 · 5m ago']);
    assert.deepEqual(viewUpdate(shown, rows(['turn:2', 'Turn 2 · 1m ago'], ['turn:1', 'Turn 1 · 5m ago'])), { kind: 'rows', changed: [0] });
  });
  it('redraws everything when an entry was added, removed or moved', () => {
    const shown = rows(['turn:2', 'a'], ['turn:1', 'b']);
    assert.deepEqual(viewUpdate(shown, rows(['turn:3', 'c'], ['turn:2', 'a'], ['turn:1', 'b'])), { kind: 'rebuild' });
    assert.deepEqual(viewUpdate(shown, rows(['turn:2', 'a'])), { kind: 'rebuild' });
    assert.deepEqual(viewUpdate(shown, rows(['turn:1', 'b'], ['turn:2', 'a'])), { kind: 'rebuild' });
  });
});
