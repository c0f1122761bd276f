package workspace

import (
	"path"

	"github.com/rewind-lsp/rewind-lsp/fileop"
	"github.com/rewind-lsp/rewind-lsp/rootfs"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
)

// ViaPolicy is what the editor applying an operation can do. How each file
// reaches the disk (a plan file's `via`: "edit" or "disk") is decided
// here, once, on the file
// operation; the language server only translates the decision into a
// WorkspaceEdit and disk writes.
type ViaPolicy struct {
	// ResourceOps is true when the editor creates and deletes files itself
	// (it lists both in resourceOperations).
	ResourceOps bool
	// Open reports whether the editor holds rel open (nil: nothing open).
	Open func(rel string) bool
}

// Via is how op reaches the disk under p: ViaEdit for text the editor
// applies, ViaDisk for what the server writes itself — binary or invalid
// UTF-8 content, symbolic links, mode changes, an executable created, a
// create or delete the editor cannot do, and a create over a buffer the
// editor still holds for a missing file (the server writes the file, the
// buffer follows). A nil policy is the command line's: it writes every file
// itself, and plans say what an editor would get.
func (p *ViaPolicy) Via(op *snapshot.FileOp) snapshot.Via {
	link := op.BeforeKind == snapshot.KindSymlink || op.AfterKind == snapshot.KindSymlink
	modeChange := op.Change == fileop.Modify && op.BeforeKind != op.AfterKind
	if op.Binary || link || modeChange || (op.Change == fileop.Create && op.AfterKind == snapshot.KindExec) {
		return snapshot.ViaDisk
	}
	if p == nil {
		return snapshot.ViaEdit
	}
	if op.Change != fileop.Modify && !p.ResourceOps {
		return snapshot.ViaDisk
	}
	if op.Change == fileop.Create && p.Open != nil && p.Open(op.Path) {
		return snapshot.ViaDisk
	}
	return snapshot.ViaEdit
}

// decide sets the via of every op of d. A path that changes between a
// file (or link) and a folder has an op on it and ops under it; an editor
// makes a WorkspaceEdit's creates before its deletes, so it cannot swap
// them: all those ops go by disk, where Writer deletes first.
func (p *ViaPolicy) decide(d *snapshot.Diff) {
	at := map[string]int{}
	for i := range d.Ops {
		d.Ops[i].Via = p.Via(&d.Ops[i])
		at[d.Ops[i].Path] = i
	}
	for i := range d.Ops {
		for dir := path.Dir(d.Ops[i].Path); dir != "."; dir = path.Dir(dir) {
			if j, ok := at[dir]; ok {
				d.Ops[i].Via, d.Ops[j].Via = snapshot.ViaDisk, snapshot.ViaDisk
			}
		}
	}
}

// skipRefusedLinks moves the links d would make to its skipped files, with
// the reason, where the system refuses this process links (Windows without
// Developer Mode): the plan says so before anything is written.
func (s *Workspace) skipRefusedLinks(d *snapshot.Diff) {
	if err := rootfs.LinksAllowed(s.root); err != nil {
		d.SkipLinks("a symbolic link, which this system does not let rewind-lsp make (Windows: turn on Developer Mode)")
	}
}
