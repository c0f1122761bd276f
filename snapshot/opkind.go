package snapshot

import "github.com/rewind-lsp/rewind-lsp/fileop"

// ContentKind names what an op changes when line counts cannot describe
// it: "symlink" when either side is a symbolic link, "binary" when either
// side is binary or invalid UTF-8, "" for a text change. Call it after
// FillOp.
func (op *FileOp) ContentKind() string {
	switch {
	case op.BeforeKind == KindSymlink || op.AfterKind == KindSymlink:
		return "symlink"
	case op.Binary:
		return "binary"
	}
	return ""
}

// ModeChange is "+x" when a modify makes a regular file executable, "-x"
// when it drops the executable bit, and "" otherwise (creates, deletes,
// links, unchanged modes).
func (op *FileOp) ModeChange() string {
	if op.Change != fileop.Modify {
		return ""
	}
	switch {
	case op.BeforeKind == KindFile && op.AfterKind == KindExec:
		return "+x"
	case op.BeforeKind == KindExec && op.AfterKind == KindFile:
		return "-x"
	}
	return ""
}
