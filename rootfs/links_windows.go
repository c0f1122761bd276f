package rootfs

import (
	"errors"
	"fmt"
	"os"
	"sync"
)

var linksAllowed sync.Map // root path → error (nil: links can be made)

// LinksAllowed reports whether this process may make symbolic links in
// the tree at root: nil, or an error wrapping ErrLinksRefused (Windows makes
// links only in Developer Mode or for administrators, and not on FAT). It
// tries once per root and process, with a link under a temporary name
// (".rewind-linkprobe-<pid>.tmp", which capture ignores) removed at once.
func LinksAllowed(root string) error {
	if v, ok := linksAllowed.Load(root); ok {
		err, _ := v.(error)
		return err
	}
	err := probeLinks(root)
	linksAllowed.Store(root, err)
	return err
}

func probeLinks(root string) error {
	r, err := Open(root)
	if err != nil {
		return nil // the operation itself will say what is wrong
	}
	defer r.Close()
	d, err := r.OpenDir("")
	if err != nil {
		return nil
	}
	defer d.Close()
	name := fmt.Sprintf(".rewind-linkprobe-%d.tmp", os.Getpid())
	err = d.Symlink("probe", name)
	if errors.Is(err, ErrLinksRefused) {
		return err
	}
	d.Remove(name)
	return nil
}
