import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ABSENT_QUERY, encodePath, findOnPath, joinRoot, normalizeRel, parseViewQuery, rewindPath, rewindUriString, toRootRelative, viewQuery } from '../../src/uris';

describe('rewind: URIs', () => {
  it('builds the path and the string sent to rewind/content', () => {
    assert.equal(rewindPath('abc123', 'src/main.go'), '/abc123/src/main.go');
    assert.equal(rewindUriString('abc123', 'src/main.go'), 'rewind:/abc123/src/main.go');
    assert.equal(rewindUriString('abc123', './src\\win.go'), 'rewind:/abc123/src/win.go');
  });
  it('percent-encodes unsafe characters but keeps slashes', () => {
    assert.equal(encodePath('/s/my file#1?.go'), '/s/my%20file%231%3F.go');
    assert.equal(rewindUriString('s', 'dir/ü (1).txt'), 'rewind:/s/dir/%C3%BC%20%281%29.txt');
  });
  it('keeps the snapshot of an editor-side URI in its query, round-tripping odd names', () => {
    assert.equal(viewQuery('ab12', 'src/a b&c=d.go'), 'snapshot=ab12&path=src%2Fa%20b%26c%3Dd.go');
    assert.deepEqual(parseViewQuery(viewQuery('ab12', './dir\\ü (1).txt')), { snapshot: 'ab12', rel: 'dir/ü (1).txt' });
    assert.equal(parseViewQuery(ABSENT_QUERY), ABSENT_QUERY);
    assert.equal(parseViewQuery(''), undefined);
    assert.equal(parseViewQuery('snapshot=ab12'), undefined);
    assert.throws(() => viewQuery('', 'x'));
  });
  it('rejects snapshot ids with slashes', () => {
    assert.throws(() => rewindPath('a/b', 'x'));
    assert.throws(() => rewindPath('', 'x'));
  });
});

describe('root-relative paths', () => {
  it('normalizes separators and leading ./', () => {
    assert.equal(normalizeRel('./a/b'), 'a/b');
    assert.equal(normalizeRel('/a'), 'a');
    assert.equal(normalizeRel('a\\b\\c'), 'a/b/c');
  });
  it('toRootRelative keeps paths inside the root only', () => {
    assert.equal(toRootRelative('/ws/proj', '/ws/proj/src/a.go'), 'src/a.go');
    assert.equal(toRootRelative('/ws/proj/', '/ws/proj/a.go'), 'a.go');
    assert.equal(toRootRelative('/ws/proj', '/ws/project/a.go'), undefined);
    assert.equal(toRootRelative('/ws/proj', '/ws/proj'), undefined);
    assert.equal(toRootRelative('C:\\ws\\proj', 'C:\\ws\\proj\\src\\a.go'), 'src/a.go');
  });
  it('joinRoot refuses paths that leave the root', () => {
    assert.equal(joinRoot('/ws/proj', 'src/a.go'), '/ws/proj/src/a.go');
    assert.equal(joinRoot('/ws/proj/', './a.go'), '/ws/proj/a.go');
    assert.throws(() => joinRoot('/ws/proj', '../etc/passwd'), /leaves the workspace root/);
    assert.throws(() => joinRoot('/ws/proj', 'a/../../b'), /leaves the workspace root/);
    assert.throws(() => joinRoot('/ws/proj', ''), /leaves the workspace root/);
  });
});

describe('findOnPath', () => {
  const files = new Set(['/opt/bin/rewind-lsp', 'C:\\tools\\rewind-lsp.exe']);
  const exists = (p: string) => files.has(p);
  it('finds the first match along PATH', () => {
    assert.equal(findOnPath('rewind-lsp', '/usr/bin::/opt/bin/', exists, 'linux'), '/opt/bin/rewind-lsp');
    assert.equal(findOnPath('rewind-lsp', '/usr/bin', exists, 'linux'), undefined);
    assert.equal(findOnPath('rewind-lsp', undefined, exists, 'linux'), undefined);
  });
  it('tries .exe on Windows', () => {
    assert.equal(findOnPath('rewind-lsp', 'C:\\Windows;C:\\tools', exists, 'win32'), 'C:\\tools\\rewind-lsp.exe');
  });
});
