// Test hook: when REWIND_LSP_E2E_EVENTS names a file, the extension appends one JSON line per
// notable event to it, so an end-to-end test can wait on real signals instead of sleeping.

import * as fs from 'node:fs';

const file = process.env.REWIND_LSP_E2E_EVENTS;

/** emit records an event for tests; a no-op unless REWIND_LSP_E2E_EVENTS is set. */
export function emit(event: string, data: unknown = {}): void {
  if (!file) return;
  try {
    fs.appendFileSync(file, JSON.stringify({ event, time: Date.now(), data }) + '\n');
  } catch {
    // A test hook must never break the extension.
  }
}
