package gitnotes

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
)

// change is one file a commit added or changed text in: its path in the
// commit, its blob there, and the lines (1-based, ascending) the commit
// added or changed against its first parent.
type change struct {
	path  string
	blob  string
	added []int
}

// diffArgs is the diff-tree invocation comparing commit with its first
// parent (every path against the empty tree for a root commit).
func diffArgs(commit string, parents []string, extra ...string) []string {
	args := append([]string{"diff-tree", "-r", "-M", "--no-commit-id", "--no-ext-diff", "--no-textconv"}, extra...)
	if len(parents) == 0 {
		return append(args, "--root", commit)
	}
	return append(args, parents[0], commit)
}

// changes lists the files of commit whose text it added to or changed
// against its first parent, with the lines it added. A binary file, a
// symbolic link, a submodule, a deletion and a pure rename add no lines; a
// renamed file's lines are compared with its old content.
func (r Repo) changes(ctx context.Context, commit string, parents []string) ([]change, error) {
	// The two diffs run at once: a commit's hook waits for both.
	var patch []byte
	var patchErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		patch, patchErr = r.git(ctx, nil, diffArgs(commit, parents, "-p", "-U0", "--no-color", "--src-prefix=a/", "--dst-prefix=b/")...)
	}()
	raw, err := r.git(ctx, nil, diffArgs(commit, parents, "-z", "--raw")...)
	<-done
	if err != nil {
		return nil, err
	}
	if patchErr != nil {
		return nil, patchErr
	}
	blobs, err := parseRaw(raw)
	if err != nil {
		return nil, err
	}
	if len(blobs) == 0 {
		return nil, nil
	}
	added, err := parsePatch(patch)
	if err != nil {
		return nil, err
	}
	var out []change
	for _, a := range added {
		b, ok := blobs[a.path]
		if !ok || len(a.added) == 0 {
			continue // not a regular file of the commit
		}
		out = append(out, change{path: a.path, blob: b, added: a.added})
	}
	return out, nil
}

// parseRaw reads diff-tree's -z --raw output into the new blob of each
// regular file the commit has (deletions, links and submodules left out).
func parseRaw(raw []byte) (map[string]string, error) {
	fields := bytes.Split(raw, []byte{0})
	out := map[string]string{}
	for i := 0; i < len(fields); {
		head := string(fields[i])
		if head == "" {
			i++
			continue
		}
		if !strings.HasPrefix(head, ":") {
			return nil, fmt.Errorf("git diff-tree: unexpected %q", head)
		}
		f := strings.Fields(head[1:])
		if len(f) != 5 {
			return nil, fmt.Errorf("git diff-tree: unexpected %q", head)
		}
		paths := 1
		if s := f[4][0]; s == 'R' || s == 'C' {
			paths = 2
		}
		if i+paths >= len(fields) {
			return nil, fmt.Errorf("git diff-tree: truncated after %q", head)
		}
		path := string(fields[i+paths])
		i += 1 + paths
		if mode := f[1]; mode == "100644" || mode == "100755" {
			out[path] = f[3]
		}
	}
	return out, nil
}

// fileAdds is what a patch added to one file.
type fileAdds struct {
	path  string
	added []int
}

// parsePatch reads diff-tree's -p -U0 output: for each file with hunks,
// its new path and the new side's lines of every hunk.
func parsePatch(patch []byte) ([]fileAdds, error) {
	var out []fileAdds
	var cur *fileAdds
	sc := bufio.NewScanner(bytes.NewReader(patch))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<30)
	inHunk := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "diff --git "):
			out = append(out, fileAdds{})
			cur, inHunk = &out[len(out)-1], false
		case cur == nil:
			continue
		case !inHunk && strings.HasPrefix(line, "+++ "):
			// git ends a name holding a space with a tab here.
			p := strings.TrimSuffix(strings.TrimPrefix(line, "+++ "), "\t")
			if p == "/dev/null" {
				continue
			}
			p, err := unquoteC(p)
			if err != nil {
				return nil, err
			}
			cur.path = strings.TrimPrefix(p, "b/")
		case strings.HasPrefix(line, "@@ "):
			inHunk = true
			start, n, err := hunkNew(line)
			if err != nil {
				return nil, err
			}
			for l := start; l < start+n; l++ {
				cur.added = append(cur.added, l)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	kept := out[:0]
	for _, f := range out {
		if f.path != "" && len(f.added) > 0 {
			kept = append(kept, f)
		}
	}
	return kept, nil
}

// hunkNew reads the new side of a hunk header "@@ -a,b +c,d @@": its first
// line and how many lines it has.
func hunkNew(h string) (start, n int, err error) {
	f := strings.Fields(h)
	if len(f) < 3 || !strings.HasPrefix(f[2], "+") {
		return 0, 0, fmt.Errorf("git diff: bad hunk header %q", h)
	}
	s, c, ok := strings.Cut(f[2][1:], ",")
	if start, err = strconv.Atoi(s); err != nil {
		return 0, 0, fmt.Errorf("git diff: bad hunk header %q", h)
	}
	n = 1
	if ok {
		if n, err = strconv.Atoi(c); err != nil {
			return 0, 0, fmt.Errorf("git diff: bad hunk header %q", h)
		}
	}
	return start, n, nil
}

// unquoteC undoes git's quoting of a path in a patch header: "..." with C
// escapes and octal bytes; an unquoted path is returned as it is.
func unquoteC(s string) (string, error) {
	if !strings.HasPrefix(s, `"`) {
		return s, nil
	}
	if len(s) < 2 || !strings.HasSuffix(s, `"`) {
		return "", fmt.Errorf("git diff: bad quoted path %s", s)
	}
	s = s[1 : len(s)-1]
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(s) {
			return "", fmt.Errorf("git diff: bad quoted path %q", s)
		}
		switch e := s[i]; e {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'v':
			b.WriteByte('\v')
		case 'f':
			b.WriteByte('\f')
		case 'r':
			b.WriteByte('\r')
		case '0', '1', '2', '3':
			if i+2 >= len(s) {
				return "", fmt.Errorf("git diff: bad quoted path %q", s)
			}
			v, err := strconv.ParseUint(s[i:i+3], 8, 8)
			if err != nil {
				return "", fmt.Errorf("git diff: bad quoted path %q", s)
			}
			b.WriteByte(byte(v))
			i += 2
		default:
			b.WriteByte(e) // \" and \\
		}
	}
	return b.String(), nil
}

// blobs reads the contents of ids with one git process.
func (r Repo) blobs(ctx context.Context, ids []string) ([][]byte, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	out, err := r.git(ctx, []byte(strings.Join(ids, "\n")+"\n"), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	res := make([][]byte, 0, len(ids))
	for _, id := range ids {
		nl := bytes.IndexByte(out, '\n')
		if nl < 0 {
			return nil, fmt.Errorf("git cat-file: truncated at %s", id)
		}
		f := strings.Fields(string(out[:nl]))
		if len(f) != 3 || f[1] != "blob" {
			return nil, fmt.Errorf("git cat-file: %s: %s", id, out[:nl])
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || nl+1+size > len(out) {
			return nil, fmt.Errorf("git cat-file: bad size for %s", id)
		}
		res = append(res, out[nl+1:nl+1+size])
		out = out[min(nl+2+size, len(out)):]
	}
	return res, nil
}
