package snapshot

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/rewind-lsp/rewind-lsp/fileop"
	"github.com/rewind-lsp/rewind-lsp/textdiff"
)

// FileOp is what a restore does to one file.
type FileOp struct {
	Path     string
	Change   fileop.Change
	Added    int  // lines added by the change
	Removed  int  // lines removed by the change
	Binary   bool // either side is binary or invalid UTF-8
	Conflict bool // the current content is not the last recorded one
	Via      Via  // how the file reaches the disk; see workspace.ViaPolicy

	Before     []byte // current content (nil for create)
	After      []byte // target content (nil for delete)
	BeforeKind Kind
	AfterKind  Kind
	Diff       string // unified diff text, current → target
}

// Via is how a file operation reaches the disk, as the workspace decides
// it for the client applying it (workspace.ViaPolicy; a plan file's
// `via`, docs/PROTOCOL.md, "The plan").
type Via string

// The ways to the disk.
const (
	// ViaEdit is text the editor applies: the file travels in its
	// WorkspaceEdit (or an ACP editor's fs/write_text_file), so an open
	// buffer changes with it.
	ViaEdit Via = "edit"
	// ViaDisk is what the server writes itself, with Writer: binary or
	// invalid UTF-8 content, links, modes, and the creates and deletes an
	// editor cannot make.
	ViaDisk Via = "disk"
)

// SkippedFile is a file a restore leaves alone: its content was not
// captured, or it is a symbolic link the system refuses to make.
type SkippedFile struct {
	Path   string
	Reason string
}

// Diff is the difference between the current state and a target state.
type Diff struct {
	Ops     []FileOp
	Skipped []SkippedFile
}

// Text is the unified diff of every op, in path order. It is made when
// asked for (on all cores): a turn's change list needs only line counts.
func (d *Diff) Text() string {
	parallel(len(d.Ops), func(i int) error {
		if op := &d.Ops[i]; op.Diff == "" {
			op.Diff = DiffText(op)
		}
		return nil
	})
	var b strings.Builder
	for _, op := range d.Ops {
		b.WriteString(op.Diff)
	}
	return b.String()
}

// parallel runs fn(0..n-1) on all cores and returns the first error in
// index order. Each worker takes the next index from a counter: handing
// indexes over a channel woke the workers one at a time on the sender's
// core, and a thousand files' contents were read at the speed of one.
func parallel(n int, fn func(i int) error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	var next atomic.Int64
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				errs[i] = fn(i)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// SkipLinks moves the ops that would make a symbolic link (a link created,
// changed, or a file or folder becoming one) to Skipped with reason: the
// system refuses to make links. The file a link would replace stays.
func (d *Diff) SkipLinks(reason string) {
	ops := d.Ops[:0]
	for _, op := range d.Ops {
		if op.AfterKind == KindSymlink && op.Change != fileop.Delete {
			d.Skipped = append(d.Skipped, SkippedFile{Path: op.Path, Reason: reason})
			continue
		}
		ops = append(ops, op)
	}
	d.Ops = ops
}

// Conflicts lists the paths in conflict.
func (d *Diff) Conflicts() []string {
	var cs []string
	for _, op := range d.Ops {
		if op.Conflict {
			cs = append(cs, op.Path)
		}
	}
	return cs
}

// Compare computes what restoring snapshot target over snapshot current
// does. baseline, when not nil, is the last recorded state: a file whose
// current entry differs from its baseline entry is in conflict. keep, when
// not nil, limits the result to the paths it accepts. Content comes from o.
func Compare(o *Objects, current, target ID, baseline *ID, keep func(string) bool) (*Diff, error) {
	diffs, err := DiffTrees(o, current, target)
	if err != nil {
		return nil, err
	}
	d := &Diff{}
	var ids [][2]ID
	for _, pd := range diffs {
		p := pd.Path
		if keep != nil && !keep(p) {
			continue
		}
		cur, inCur := pd.A, pd.InA
		tgt, inTgt := pd.B, pd.InB
		if inTgt && tgt.Kind == KindSkipped {
			d.Skipped = append(d.Skipped, SkippedFile{Path: p, Reason: "larger than maxFileBytes when captured"})
			continue
		}
		if inCur && cur.Kind == KindSkipped {
			d.Skipped = append(d.Skipped, SkippedFile{Path: p, Reason: "larger than maxFileBytes now; left as it is"})
			continue
		}
		op := FileOp{Path: p, BeforeKind: cur.Kind, AfterKind: tgt.Kind}
		switch {
		case !inCur:
			op.Change, op.BeforeKind = fileop.Create, 0
		case !inTgt:
			op.Change, op.AfterKind = fileop.Delete, 0
		default:
			op.Change = fileop.Modify
		}
		if baseline != nil {
			base, inBase, err := Lookup(o, *baseline, p)
			if err != nil {
				return nil, fmt.Errorf("plan %s: last recorded state: %w", p, err)
			}
			op.Conflict = inBase != inCur || (inCur && base != cur)
		}
		d.Ops = append(d.Ops, op)
		ids = append(ids, [2]ID{cur.ID, tgt.ID})
	}
	if keep != nil {
		if err := blockedConflicts(o, current, d); err != nil {
			return nil, err
		}
	}
	// Reading contents and counting lines is the costly part: all cores.
	if err := parallel(len(d.Ops), func(i int) error { return fillContent(o, &d.Ops[i], ids[i]) }); err != nil {
		return nil, err
	}
	return d, nil
}

// blockedConflicts marks in conflict every file a partial restore (some
// paths only: an undo, a revert) would write below a folder that is a file
// in current and that the restore leaves alone — someone made the folder a
// file since. Nothing could be written there; found now, the restore is
// refused before it writes anything.
func blockedConflicts(o *Objects, current ID, d *Diff) error {
	gone := map[string]bool{}
	for _, op := range d.Ops {
		if op.Change == fileop.Delete {
			gone[op.Path] = true
		}
	}
	blocked := map[string]bool{}
	for i := range d.Ops {
		op := &d.Ops[i]
		if op.Change == fileop.Delete {
			continue
		}
		for dir := parentDir(op.Path); dir != ""; dir = parentDir(dir) {
			b, seen := blocked[dir]
			if !seen {
				_, isFile, err := Lookup(o, current, dir)
				if err != nil {
					return fmt.Errorf("plan %s: %w", op.Path, err)
				}
				b = isFile && !gone[dir]
				blocked[dir] = b
			}
			if b {
				op.Conflict = true
				break
			}
		}
	}
	return nil
}

// fillContent loads an op's contents (ids: current, target) and fills in
// the rest.
func fillContent(o *Objects, op *FileOp, ids [2]ID) error {
	if op.Change != fileop.Create {
		data, err := o.Get(ids[0])
		if err != nil {
			return fmt.Errorf("plan %s: current content: %w", op.Path, err)
		}
		op.Before = data
	}
	if op.Change != fileop.Delete {
		data, err := o.Get(ids[1])
		if err != nil {
			return fmt.Errorf("plan %s: target content: %w", op.Path, err)
		}
		op.After = data
	}
	FillOp(op)
	return nil
}

// FillOp sets an op's binary flag and line counts, and clears its diff
// text (Diff.Text makes it when asked). Its via is decided by the
// operation that applies it.
func FillOp(op *FileOp) {
	op.Binary = (op.Before != nil && !IsText(op.Before)) || (op.After != nil && !IsText(op.After))
	op.Added, op.Removed, op.Diff = 0, 0, ""
	if !op.Binary && op.BeforeKind != KindSymlink && op.AfterKind != KindSymlink {
		op.Added, op.Removed = textdiff.LineCounts(op.Before, op.After)
	}
}

// DiffText is op's diff in git's format (see gitDiff).
func DiffText(op *FileOp) string {
	if op.Change == fileop.Modify && (op.BeforeKind == KindSymlink) != (op.AfterKind == KindSymlink) {
		// A file became a link or the other way round: git shows the old
		// one deleted and the new one created.
		del := FileOp{Path: op.Path, Change: fileop.Delete, Before: op.Before, BeforeKind: op.BeforeKind, Binary: op.Binary}
		cre := FileOp{Path: op.Path, Change: fileop.Create, After: op.After, AfterKind: op.AfterKind, Binary: op.Binary}
		del.Binary = del.Before != nil && !IsText(del.Before)
		cre.Binary = cre.After != nil && !IsText(cre.After)
		return gitDiff(&del) + gitDiff(&cre)
	}
	return gitDiff(op)
}

// gitMode is how git writes a kind's mode.
func gitMode(k Kind) string {
	switch k {
	case KindExec:
		return "100755"
	case KindSymlink:
		return "120000"
	}
	return "100644"
}

// gitDiff is op's diff as git writes it: a "diff --git" line, the extended
// header lines for creations, deletions and mode changes, then the unified
// diff of the content (a link's content is its target), or "Binary files …
// differ". So `git apply` and every diff viewer read it.
func gitDiff(op *FileOp) string {
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\n", op.Path, op.Path)
	from, to := "a/"+op.Path, "b/"+op.Path
	switch op.Change {
	case fileop.Create:
		from = "/dev/null"
		fmt.Fprintf(&b, "new file mode %s\n", gitMode(op.AfterKind))
	case fileop.Delete:
		to = "/dev/null"
		fmt.Fprintf(&b, "deleted file mode %s\n", gitMode(op.BeforeKind))
	default:
		if gitMode(op.BeforeKind) != gitMode(op.AfterKind) {
			fmt.Fprintf(&b, "old mode %s\nnew mode %s\n", gitMode(op.BeforeKind), gitMode(op.AfterKind))
		}
	}
	if op.Binary {
		fmt.Fprintf(&b, "Binary files %s and %s differ\n", from, to)
		return b.String()
	}
	_, _, text := textdiff.LineDiff(from, to, string(op.Before), string(op.After))
	b.WriteString(text)
	return b.String()
}

// IsText reports whether data can travel as editor text: valid UTF-8 with
// no NUL byte.
func IsText(data []byte) bool {
	return bytes.IndexByte(data, 0) < 0 && utf8.Valid(data)
}
