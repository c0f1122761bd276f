// The e2e's bookkeeping: checks counted and printed, laps, the events file the extension appends
// to (REWIND_LSP_E2E_EVENTS) and waits on it, and folders compared byte for byte.
import fs from 'node:fs';
import path from 'node:path';

const EVENTS = process.env.REWIND_LSP_E2E_EVENTS;

/** results counts the checks that passed and failed. */
export const results = { pass: 0, fail: 0 };
/** check counts and prints one check; `extra` is printed when it fails. */
export const check = (name, cond, extra) => {
  if (cond) {
    results.pass++;
    console.log(`ok   - ${name}`);
  } else {
    results.fail++;
    console.log(`FAIL - ${name}`, extra === undefined ? '' : JSON.stringify(extra).slice(0, 800));
  }
  return cond;
};
const T0 = Date.now();
export const lap = (what) => console.log(`  [${((Date.now() - T0) / 1000).toFixed(1)}s] ${what}`);
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** events reads every event the extension recorded so far, oldest first. */
export const events = () =>
  (fs.existsSync(EVENTS) ? fs.readFileSync(EVENTS, 'utf8') : '')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/** waitEvent waits for an event named `name` after the first `after` events. */
export async function waitEvent(name, { after = 0, ms = 30000, where = () => true } = {}) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const e = events().slice(after).find((x) => x.event === name && where(x.data));
    if (e) return e;
    const failed = events().slice(after).find((x) => x.event === 'commandFailed');
    if (failed) throw new Error(`command failed while waiting for ${name}: ${JSON.stringify(failed.data)}`);
    await sleep(100);
  }
  throw new Error(`timeout waiting for event ${name}; events: ${JSON.stringify(events().slice(after)).slice(0, 2000)}`);
}

/** waitFor polls `fn` until it returns something truthy, and returns that. */
export async function waitFor(what, fn, ms = 20000) {
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    last = await fn();
    if (last) return last;
    await sleep(100);
  }
  throw new Error(`timeout waiting for ${what}`);
}

/** tree lists every regular file under dir (relative path → bytes). */
export function tree(dir) {
  const out = new Map();
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(path.relative(dir, p), fs.readFileSync(p));
    }
  };
  walk(dir);
  return out;
}
/** treeDiff says how `got` differs from `want`, byte for byte; '' when equal. */
export function treeDiff(want, got) {
  const a = tree(want);
  const b = tree(got);
  const diffs = [];
  for (const [p, bytes] of a) {
    if (!b.has(p)) diffs.push(`missing ${p}`);
    else if (!bytes.equals(b.get(p))) diffs.push(`differs ${p}: ${JSON.stringify(b.get(p).toString())}`);
  }
  for (const p of b.keys()) if (!a.has(p)) diffs.push(`extra ${p}`);
  return diffs.join('; ');
}
