package snapshot

import (
	"runtime"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/rootfs"
)

// TestKindOfStatKeepsRecordedExec: where files have an executable bit it
// decides; on Windows, which has none, a file recorded executable stays
// executable (and a new one is a plain file), as git's core.fileMode=false.
func TestKindOfStatKeepsRecordedExec(t *testing.T) {
	plain := uint32(rootfs.ModeFile | 0o644)
	exec := uint32(rootfs.ModeFile | 0o755)
	if k, _ := kindOfStat(exec, 0); k != KindExec {
		t.Fatalf("a file with its executable bit: %c", k)
	}
	k, _ := kindOfStat(plain, KindExec)
	want := KindFile
	if runtime.GOOS == "windows" {
		want = KindExec
	}
	if k != want {
		t.Fatalf("a file recorded executable, read back without the bit: %c, want %c", k, want)
	}
	if k, _ := kindOfStat(plain, 0); k != KindFile {
		t.Fatalf("a new file without the bit: %c", k)
	}
	if k, _ := kindOfStat(uint32(rootfs.ModeLink|0o777), KindExec); k != KindSymlink {
		t.Fatalf("a link: %c", k)
	}
	if _, ok := kindOfStat(uint32(rootfs.ModeDir|0o755), 0); ok {
		t.Fatal("a folder is no file")
	}
}
