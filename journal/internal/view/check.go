package view

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/rewind-lsp/rewind-lsp/osfile"
)

// Check compares the view on disk with one built afresh from the part
// of the journal it covers (fsck). Problems are disagreements of a view
// whose files are intact: the view is then built again. Notes say what was
// no damage: view files missing or damaged, built again from the journal
// (the view is derived: nothing was lost).
func (v *Store[E]) Check() (problems, notes []string, err error) {
	f, err := osfile.Open(v.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	rebuild := func() {
		os.Remove(v.manifestPath())
		v.Close() // what it holds of the old view: read afresh below
		if _, err := v.Current(); err == nil {
			v.mu.Lock()
			if unlock := v.lockView(0); unlock != nil {
				v.persistLocked()
				unlock()
			}
			v.mu.Unlock()
		}
	}
	if _, err := os.Stat(v.manifestPath()); errors.Is(err, fs.ErrNotExist) {
		rebuild() // a short journal has none yet: no damage
		return nil, nil, nil
	}
	m, segs, _ := v.readView(f, fi.Size())
	if segs == nil {
		rebuild()
		why := "its manifest is damaged, of another format, or not about this journal"
		if m != nil {
			why = "a segment file is missing"
		}
		return nil, []string{fmt.Sprintf("view %s: %s; built again from the journal (nothing was lost: the view is derived from it)", v.dir, why)}, nil
	}
	defer closeSegs(segs)
	tmp, err := os.MkdirTemp(filepath.Dir(v.path), "view.check-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(tmp)
	fresh := New(v.path, tmp, v.schema)
	defer fresh.Close() // before its folder is removed
	fresh.mu.Lock()
	if nf, err := osfile.Open(v.path); err == nil {
		id, _ := osfile.Identity(nf)
		fresh.load(nf, id, m.State.Offset)
		err = fresh.extendOnce(m.State.Offset)
		if err == nil {
			if unlock := fresh.lockView(0); unlock != nil {
				err = fresh.persistLocked()
				unlock()
			}
		}
		if err != nil {
			fresh.mu.Unlock()
			return nil, nil, fmt.Errorf("check the view: %w", err)
		}
	}
	want, wantSegs := fresh.cur.State, fresh.st.segs
	fresh.mu.Unlock()

	diff, err := compareViews(segs, wantSegs)
	if err != nil {
		rebuild()
		return nil, []string{fmt.Sprintf("view %s: damaged (%v); built again from the journal (nothing was lost: the view is derived from it)", v.dir, err)}, nil
	}
	if diff == "" {
		got, _ := json.Marshal(m.State)
		exp, _ := json.Marshal(want)
		if !bytes.Equal(got, exp) {
			diff = fmt.Sprintf("its state is %s, the journal's %s", got, exp)
		}
	}
	if diff != "" {
		rebuild()
		return []string{fmt.Sprintf("view %s disagrees with the journal: %s; built again from the journal", v.dir, diff)}, nil, nil
	}
	return nil, nil, nil
}

// compareViews says where two views of the same journal differ ("" when
// they do not), reading every record and table of both.
func compareViews(got, want []*segment) (string, error) {
	recs := func(segs []*segment) ([][]byte, error) {
		var out [][]byte
		for _, s := range segs {
			if err := s.f.Each("rec", func(r []byte) bool { out = append(out, slices.Clone(r)); return true }); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	g, err := recs(got)
	if err != nil {
		return "", err
	}
	w, err := recs(want)
	if err != nil {
		return "", fmt.Errorf("the fresh view: %w", err)
	}
	if len(g) != len(w) {
		return fmt.Sprintf("%d positions, the journal gives %d", len(g), len(w)), nil
	}
	for i := range g {
		if !bytes.Equal(g[i], w[i]) {
			return fmt.Sprintf("position %d: its record is %+v, the journal's %+v", i, DecodeRecord(g[i]), DecodeRecord(w[i])), nil
		}
	}
	for t := Table(0); t < NumTables; t++ {
		name := tableInfo[t].name
		pairs := func(segs []*segment) ([][]byte, error) {
			var out [][]byte
			for _, s := range segs {
				if err := s.f.Each(name, func(r []byte) bool { out = append(out, slices.Clone(r)); return true }); err != nil {
					return nil, err
				}
			}
			slices.SortFunc(out, bytes.Compare)
			return out, nil
		}
		g, err := pairs(got)
		if err != nil {
			return "", err
		}
		w, err := pairs(want)
		if err != nil {
			return "", fmt.Errorf("the fresh view: %w", err)
		}
		if len(g) != len(w) {
			return fmt.Sprintf("table %s holds %d pairs, the journal gives %d", name, len(g), len(w)), nil
		}
		for i := range g {
			if !bytes.Equal(g[i], w[i]) {
				return fmt.Sprintf("table %s: pair %x, the journal gives %x", name, g[i], w[i]), nil
			}
		}
	}
	return "", nil
}
