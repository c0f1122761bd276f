package snapshot

import (
	"path/filepath"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/fileop"
)

// TestSkipLinks: where links cannot be made, a plan lists every link it
// would make as skipped with the reason, and keeps everything else (a link
// removed, files written).
func TestSkipLinks(t *testing.T) {
	objs, err := OpenObjects(filepath.Join(t.TempDir(), "objects"))
	if err != nil {
		t.Fatal(err)
	}
	put := func(data string) ID {
		id, err := objs.Put([]byte(data))
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	cur, err := WriteTree(objs, Manifest{
		"gone-link": {Kind: KindSymlink, ID: put("t1")},
		"becomes":   {Kind: KindFile, ID: put("file")},
		"f.txt":     {Kind: KindFile, ID: put("old")},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tgt, err := WriteTree(objs, Manifest{
		"new-link": {Kind: KindSymlink, ID: put("t2")},
		"becomes":  {Kind: KindSymlink, ID: put("t3")},
		"f.txt":    {Kind: KindFile, ID: put("new")},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Compare(objs, cur, tgt, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	d.SkipLinks("links refused")
	got := map[string]fileop.Change{}
	for _, op := range d.Ops {
		got[op.Path] = op.Change
	}
	if len(got) != 2 || got["gone-link"] != fileop.Delete || got["f.txt"] != fileop.Modify {
		t.Fatalf("ops left: %v", got)
	}
	skipped := map[string]string{}
	for _, s := range d.Skipped {
		skipped[s.Path] = s.Reason
	}
	if len(skipped) != 2 || skipped["new-link"] != "links refused" || skipped["becomes"] != "links refused" {
		t.Fatalf("skipped: %v", skipped)
	}
}
