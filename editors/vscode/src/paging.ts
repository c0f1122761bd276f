// Paging through a long history. `rewind.list` answers one page: the latest `limit` turns of the
// active branch numbered below `before` (from the latest when absent), with the checkpoints,
// rewinds and reports recorded among them, and `more` when older turns were left out. The Rewind
// view and the turn picks list the latest page first and load older pages when asked; a view that
// re-lists asks for as many turns as it shows, so the pages loaded stay loaded.
// Nothing here imports `vscode`, so test/unit exercises it directly under `node --test`.

import type { ListResult } from './protocol';

/** The default of `rewind.turnsPerPage`: how many turns a page of the view or a pick lists. */
export const DEFAULT_TURNS_PER_PAGE = 50;

/** olderBefore is the `before` that lists the page older than `list` (its first turn's number),
 *  or undefined when `list` reaches the oldest turn. */
export function olderBefore(list: ListResult): number | undefined {
  const first = (list.turns ?? [])[0];
  return list.more && first ? first.turn : undefined;
}

/** appendOlder joins `older`, the page listed before `shown`'s first turn, to `shown`: every list
 *  stays oldest first, and `more` is the older page's. An entry both hold (the history moved
 *  between the two listings) is kept once, as `shown` has it. */
export function appendOlder(shown: ListResult, older: ListResult): ListResult {
  const join = <T extends { entry: string }>(a: T[] | null | undefined, b: T[] | null | undefined): T[] => {
    const have = new Set((b ?? []).map((x) => x.entry));
    return [...(a ?? []).filter((x) => !have.has(x.entry)), ...(b ?? [])];
  };
  return {
    turns: join(older.turns, shown.turns),
    checkpoints: join(older.checkpoints, shown.checkpoints),
    rewinds: join(older.rewinds, shown.rewinds),
    summaries: join(older.summaries, shown.summaries),
    more: !!older.more,
  };
}

/** turnsPerPage reads the setting: a whole number of turns, at least 1 (else the default). */
export function turnsPerPage(setting: unknown): number {
  return typeof setting === 'number' && Number.isFinite(setting) && setting >= 1 ? Math.floor(setting) : DEFAULT_TURNS_PER_PAGE;
}
