// Pure mapping between root-relative paths, file-system paths and `rewind:` URIs. No `vscode`
// import: unit-tested directly.
//
// Two forms: the server's (`rewind:/<snapshot>/<root-relative path>`, sent in
// `rewind/content`), and the one the editor shows: the file's own path with the snapshot in the
// query (`rewind:/home/me/proj/src/a.go?snapshot=<id>&path=src/a.go`), so that diff editors
// label both sides with the file's name and folder, never a snapshot id, and see the same path
// on both sides (not a rename).

/** The URI scheme of snapshot content served by `rewind/content`. */
export const REWIND_SCHEME = 'rewind';

/** Query of a `rewind:` URI whose side of a diff does not exist (a file the rewind creates or deletes). */
export const ABSENT_QUERY = 'absent';

/** encodePath percent-encodes a path the way URIs need it, keeping `/` and the usual safe characters. */
export function encodePath(p: string): string {
  return p
    .split('/')
    .map((seg) => encodeURIComponent(seg).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase()))
    .join('/');
}

/** rewindPath is the path part of a `rewind:` URI for one file of one snapshot. */
export function rewindPath(snapshot: string, rel: string): string {
  if (!snapshot || snapshot.includes('/')) throw new Error(`bad snapshot id ${JSON.stringify(snapshot)}`);
  return `/${snapshot}/${normalizeRel(rel)}`;
}

/** rewindUriString is the `uri` sent to the server's `rewind/content` request. */
export function rewindUriString(snapshot: string, rel: string): string {
  return `${REWIND_SCHEME}:${encodePath(rewindPath(snapshot, rel))}`;
}

/** viewQuery is the query of an editor-side `rewind:` URI of one file in a snapshot. */
export function viewQuery(snapshot: string, rel: string): string {
  if (!snapshot) throw new Error('bad snapshot id ""');
  return `snapshot=${encodeURIComponent(snapshot)}&path=${encodeURIComponent(normalizeRel(rel))}`;
}

/** parseViewQuery reads an editor-side `rewind:` URI's query: the snapshot and file, ABSENT for a
 *  side that does not exist, or undefined. */
export function parseViewQuery(query: string): { snapshot: string; rel: string } | typeof ABSENT_QUERY | undefined {
  if (query === ABSENT_QUERY) return ABSENT_QUERY;
  const q = new URLSearchParams(query);
  const snapshot = q.get('snapshot');
  const rel = q.get('path');
  if (!snapshot || !rel) return undefined;
  return { snapshot, rel: normalizeRel(rel) };
}

/** normalizeRel turns a root-relative path into the server's form: forward slashes, no leading `./` or `/`. */
export function normalizeRel(rel: string): string {
  return rel.replace(/\\/g, '/').replace(/^(\.\/)+/, '').replace(/^\/+/, '');
}

/** toRootRelative gives the root-relative path of `file` (both absolute, `/` or `\` separated),
 *  or undefined when the file is not inside the root. */
export function toRootRelative(root: string, file: string): string | undefined {
  const r = root.replace(/\\/g, '/').replace(/\/+$/, '');
  const f = file.replace(/\\/g, '/');
  if (!f.startsWith(r + '/')) return undefined;
  const rel = f.slice(r.length + 1);
  if (rel === '' || rel.split('/').includes('..')) return undefined;
  return rel;
}

/** joinRoot gives the absolute path of a root-relative path, refusing paths that leave the root. */
export function joinRoot(root: string, rel: string): string {
  const n = normalizeRel(rel);
  if (n === '' || n.split('/').includes('..')) throw new Error(`path ${JSON.stringify(rel)} leaves the workspace root`);
  return root.replace(/[\\/]+$/, '') + '/' + n;
}

/** findOnPath looks for an executable called `name` along a PATH-style list. */
export function findOnPath(
  name: string,
  pathEnv: string | undefined,
  exists: (candidate: string) => boolean,
  platform: string = process.platform,
): string | undefined {
  const sep = platform === 'win32' ? ';' : ':';
  const exts = platform === 'win32' ? ['.exe', '.cmd', ''] : [''];
  for (const dir of (pathEnv ?? '').split(sep)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = dir.replace(/[\\/]+$/, '') + (platform === 'win32' ? '\\' : '/') + name + ext;
      if (exists(candidate)) return candidate;
    }
  }
  return undefined;
}
