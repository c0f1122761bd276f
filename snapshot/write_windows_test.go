package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/osfile"
	"github.com/rewind-lsp/rewind-lsp/rootfs"
	_ "github.com/rewind-lsp/rewind-lsp/testkit/wine" // removals work under wine
	"golang.org/x/sys/windows"
)

// TestWriteHeldFile: a file another program holds open without sharing
// (an editor, a scanner) is retried, then the write fails naming the
// reason, with the file as it was and no temporary file left beside it.
func TestWriteHeldFile(t *testing.T) {
	old := osfile.BusyWait
	osfile.BusyWait = 200 * time.Millisecond
	defer func() { osfile.BusyWait = old }()
	root := t.TempDir()
	p := filepath.Join(root, "held.txt")
	os.WriteFile(p, []byte("before\n"), 0o644)
	name, _ := windows.UTF16PtrFromString(p)
	h, err := windows.CreateFile(name, windows.GENERIC_READ|windows.GENERIC_WRITE, 0, nil, windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		t.Fatal(err)
	}
	w := openW(t, root)
	err = w.Write("held.txt", []byte("after\n"), KindFile)
	windows.CloseHandle(h)
	if !errors.Is(err, rootfs.ErrBusy) || !strings.Contains(err.Error(), "another program") {
		t.Fatalf("write of a held file: %v", err)
	}
	if data, _ := os.ReadFile(p); string(data) != "before\n" {
		t.Fatalf("the held file now holds %q", data)
	}
	ents, _ := os.ReadDir(root)
	if len(ents) != 1 {
		t.Fatalf("left beside it: %v", ents)
	}
	if err := w.Write("held.txt", []byte("after\n"), KindFile); err != nil {
		t.Fatalf("once released: %v", err)
	}
}
