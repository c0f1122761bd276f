package conv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// wholeFile is a file that appears under its name only once it is written
// whole, or never: a conversation fork beside the agent's own files must
// not be seen half-written by the agent (a session list, `--continue`)
// when the process is killed mid-copy or the disk fills. On Linux it is an
// unnamed file (O_TMPFILE) linked in at the end, so a crash leaves
// nothing; elsewhere a hidden temporary file that is no transcript (no
// agent's suffix), removed on failure, and by a later fork once it is
// stale.
type wholeFile struct {
	*os.File
	temp string // the temporary name, "" for an unnamed file
}

// PartialPrefix starts the names of temporary files a fork is being
// written to (where files cannot be unnamed).
const PartialPrefix = ".rewind-lsp-partial-"

// createTemp creates a named temporary file in dir, first removing those a
// crash left there more than an hour ago.
func createTemp(dir string, perm os.FileMode) (*wholeFile, error) {
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			if !strings.HasPrefix(e.Name(), PartialPrefix) {
				continue
			}
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Hour {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	f, err := os.CreateTemp(dir, PartialPrefix+"*")
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &wholeFile{File: f, temp: f.Name()}, nil
}

// publish makes the written file durable and gives it the name dst; an
// existing dst is never replaced (the error then says so).
func (w *wholeFile) publish(dst string) error {
	if err := w.Sync(); err != nil {
		return err
	}
	if w.temp == "" {
		if err := linkUnnamed(w.File, dst); err != nil {
			return err
		}
	} else {
		if err := w.Close(); err != nil {
			return err
		}
		if err := os.Link(w.temp, dst); err != nil {
			return err
		}
		os.Remove(w.temp)
		w.temp = ""
	}
	w.Close()
	if d, err := os.Open(filepath.Dir(dst)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// discard drops a file that will not be published.
func (w *wholeFile) discard() {
	w.Close()
	if w.temp != "" {
		os.Remove(w.temp)
	}
}

var errNoUnnamed = errors.New("unnamed files are not supported here")

// createWhole starts a whole file in dir with mode perm.
func createWhole(dir string, perm os.FileMode) (*wholeFile, error) {
	f, err := createUnnamed(dir, perm)
	if err == nil {
		return &wholeFile{File: f}, nil
	}
	if !errors.Is(err, errNoUnnamed) {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return createTemp(dir, perm)
}
