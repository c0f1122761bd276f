package e2e_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// damageContent flips a byte of every stored copy of content (small
// content is stored as it is inside a pack record, so it can be found).
func (w *ws) damageContent(content string) {
	w.t.Helper()
	packs, _ := filepath.Glob(filepath.Join(w.Store, "objects", "packs", "pack-*.pack"))
	n := 0
	for _, p := range packs {
		data, err := os.ReadFile(p)
		if err != nil {
			w.t.Fatal(err)
		}
		for i := bytes.Index(data, []byte(content)); i >= 0; {
			data[i] ^= 0x20
			n++
			j := bytes.Index(data[i+1:], []byte(content))
			if j < 0 {
				break
			}
			i += 1 + j
		}
		os.WriteFile(p, data, 0o600)
	}
	if n == 0 {
		w.t.Fatalf("no stored copy of %q to damage", content)
	}
}

// TestDamagedObjectHealedByCapture: damage fsck found
// is healed by the next capture of the file that still has the content,
// and the new checkpoint points at a good copy, not at the damaged one.
func TestDamagedObjectHealedByCapture(t *testing.T) {
	w := newWS(t)
	w.Write("keep.txt", "kept content, damaged in the store\n")
	w.Write("f.txt", "one\n")
	w.turn("t1", func() { w.Write("f.txt", "two\n") })
	w.damageContent("kept content, damaged in the store\n")
	r := w.run("fsck")
	if r.code != 1 || !strings.Contains(r.stderr, "damaged") {
		t.Fatalf("fsck of a damaged object: exit %d\n%s", r.code, r.stderr)
	}
	w.ok("checkpoint", "after-damage")
	if r := w.run("fsck"); r.code != 0 {
		t.Fatalf("fsck after the capture that had the content: exit %d\n%s", r.code, r.stderr)
	}
	w.Write("keep.txt", "changed\n")
	w.ok("rewind", "@after-damage", "--force")
	if got := w.Read("keep.txt"); got != "kept content, damaged in the store\n" {
		t.Fatalf("keep.txt after rewinding to the new checkpoint: %q", got)
	}
}

// TestDamagedObjectReadFromFile: a rewind that needs
// a damaged object whose content the file on disk still has reads the
// file (and heals the object); damage to an object a rewind does not need
// does not block it.
func TestDamagedObjectReadFromFile(t *testing.T) {
	w := newWS(t)
	w.Write("f.txt", "before the turn\n")
	w.Write("other.txt", "an object nobody needs below\n")
	w.turn("t1", func() {
		w.Write("f.txt", "written by the turn, still on disk\n")
		// Older than the stat cache: the next captures trust it unread.
		old := time.Now().Add(-time.Hour)
		os.Chtimes(filepath.Join(w.Root, "f.txt"), old, old)
	})
	w.damageContent("written by the turn, still on disk\n")
	w.damageContent("an object nobody needs below\n")
	d := w.ok("diff", "1").stdout
	if !strings.Contains(d, "-written by the turn, still on disk") {
		t.Fatalf("diff:\n%s", d)
	}
	w.ok("rewind", "1")
	if got := w.Read("f.txt"); got != "before the turn\n" {
		t.Fatalf("f.txt after rewind: %q", got)
	}
	// The undo needs the object read from the file: it was healed.
	w.ok("undo")
	if got := w.Read("f.txt"); got != "written by the turn, still on disk\n" {
		t.Fatalf("f.txt after undo: %q", got)
	}
	r := w.run("fsck")
	if strings.Contains(r.stderr, "written by the turn") || !strings.Contains(r.stderr, "damaged") {
		t.Fatalf("fsck: exit %d\n%s", r.code, r.stderr)
	}
	// other.txt's damage is healed by the next capture that has it.
	w.ok("checkpoint")
	if r := w.run("fsck"); r.code != 0 {
		t.Fatalf("fsck after a capture: exit %d\n%s", r.code, r.stderr)
	}
}

// TestGCRemovesStrayTemporaryFiles: temporary files a
// crash left in the store (a pack being named, an atomic write, a loose
// object of an older release) are removed by gc once they are old.
func TestGCRemovesStrayTemporaryFiles(t *testing.T) {
	w := newWS(t)
	w.Write("f.txt", "x\n")
	w.ok("checkpoint")
	objs := filepath.Join(w.Store, "objects")
	old := time.Now().Add(-time.Hour)
	var strays []string
	for _, p := range []string{filepath.Join(objs, "packs", ".tmp-pack-0123456789abcdef"), filepath.Join(objs, ".tmp-42"), filepath.Join(objs, "ab", ".tmp-7")} {
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte("half written"), 0o600)
		os.Chtimes(p, old, old)
		strays = append(strays, p)
	}
	fresh := filepath.Join(objs, "packs", ".tmp-pack-fedcba9876543210")
	os.WriteFile(fresh, []byte("being written"), 0o600)
	w.ok("gc")
	for _, p := range strays {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s survived gc", p)
		}
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("gc removed a temporary file that may still be written: %v", err)
	}
	if r := w.run("fsck"); r.code != 0 {
		t.Fatalf("fsck after gc: %s", r.stderr)
	}
}

// TestTornJournalTailSetAside: a crash mid-append leaves the journal cut
// inside a line. fsck reports it; the next append sets the torn bytes aside
// in a file beside the journal, fsck says once that it repaired it and is
// clean from then on, and nothing recorded before is lost.
func TestTornJournalTailSetAside(t *testing.T) {
	w := newWS(t)
	for i := 1; i <= 5; i++ {
		w.Write("f.txt", strings.Repeat("x", i)+"\n")
		w.ok("checkpoint", "c"+strings.Repeat("i", i))
	}
	jp := filepath.Join(w.Store, "journal")
	data, err := os.ReadFile(jp)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	lines = lines[:len(lines)-1] // the empty string after the last newline
	// Cut 40 bytes into the second-to-last line, as a crash mid-append of
	// that line would (the last line was never written).
	keep := len(strings.Join(lines[:len(lines)-2], ""))
	tail := lines[len(lines)-2][:40]
	if err := os.WriteFile(jp, data[:keep+40], 0o600); err != nil {
		t.Fatal(err)
	}
	r := w.run("fsck")
	if r.code != 1 || !strings.Contains(r.stderr, "torn") {
		t.Fatalf("fsck of a torn journal: exit %d\n%s", r.code, r.stderr)
	}
	w.ok("log")
	w.Write("f.txt", "after the crash\n")
	w.ok("checkpoint", "after")
	r = w.run("fsck")
	if r.code != 0 || !strings.Contains(r.stderr, "repaired") {
		t.Fatalf("fsck after the next append: exit %d (want 0, saying it repaired the torn line)\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The torn bytes are kept in the file fsck names.
	m := regexp.MustCompile(`its bytes are in (\S+)`).FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("fsck does not name the file holding the torn bytes:\n%s", r.stderr)
	}
	if kept, err := os.ReadFile(m[1]); err != nil || string(kept) != tail {
		t.Fatalf("the set-aside file %s holds %q (%v), want the torn bytes %q", m[1], kept, err, tail)
	}
	if filepath.Dir(m[1]) != filepath.Dir(jp) {
		t.Fatalf("the torn bytes are kept in %s, not beside the journal", m[1])
	}
	// Said once: later runs are clean and silent about it.
	for i := 0; i < 2; i++ {
		if r := w.run("fsck"); r.code != 0 || strings.Contains(r.stderr, "repaired") || strings.Contains(r.stderr, "torn") {
			t.Fatalf("fsck run %d after the repair: exit %d\n%s", i+2, r.code, r.stderr)
		}
	}
	var list struct {
		Checkpoints []struct{ Label string }
	}
	w.okJSON(&list, "log")
	var labels []string
	for _, c := range list.Checkpoints {
		labels = append(labels, c.Label)
	}
	if got := strings.Join(labels, " "); got != "ci cii ciii after" {
		t.Fatalf("checkpoints after the repair: %s (want the three whole ones before the cut and the new one)", got)
	}
	w.Write("f.txt", "changed\n")
	w.ok("rewind", "@after", "--force")
	if got := w.Read("f.txt"); got != "after the crash\n" {
		t.Fatalf("rewind to the checkpoint made after the repair: f.txt = %q", got)
	}
}
