// How the Rewind view takes a new listing of a root. Rows keep their identity while the entries
// stay the same (same keys, same order): only the rows whose words changed are redrawn, in place,
// and none when nothing changed. VS Code forgets every row of a tree whose whole content is
// redrawn until it has listed them again, and a menu command chosen on a row meanwhile gets no
// row at all; so the view redraws everything only when entries were added, removed or moved.

/** A row as the view compares it: its stable key and everything it shows. */
export type Row = readonly [key: string, words: string];

/** ViewUpdate: redraw the whole list, or only the rows at `changed` (none: nothing to do). */
export type ViewUpdate = { kind: 'rebuild' } | { kind: 'rows'; changed: number[] };

/** viewUpdate says how to show `fresh` where `shown` is shown. */
export function viewUpdate(shown: readonly Row[], fresh: readonly Row[]): ViewUpdate {
  if (shown.length !== fresh.length || shown.some(([key], i) => key !== fresh[i][0])) return { kind: 'rebuild' };
  const changed: number[] = [];
  shown.forEach(([, words], i) => {
    if (words !== fresh[i][1]) changed.push(i);
  });
  return { kind: 'rows', changed };
}
