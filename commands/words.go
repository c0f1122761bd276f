package commands

import (
	"fmt"
	"time"
)

// The words every client shows the same way are made here, once, and sent
// in the results (docs/PROTOCOL.md, "Words"): the command line prints
// them, the Neovim plugin shows them as they come, and the server's own
// hovers use them.

// Age is how long ago an RFC 3339 time (as results carry it) was, for
// people: "42s ago", "5m ago", "3h ago", "2d ago"; a time it cannot read
// is returned as it is.
func Age(stamp string) string {
	t, err := time.Parse(time.RFC3339Nano, stamp)
	if err != nil {
		return stamp
	}
	d := time.Since(t)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

// ageOf is Age for a result's field: "" for no time.
func ageOf(stamp string) string {
	if stamp == "" {
		return ""
	}
	return Age(stamp)
}

// What describes one file's change for people: its line counts ("+3 -1"),
// or its kind when line counts do not apply ("binary", "symlink"), and a
// change of its executable bit ("mode +x").
func What(added, removed int, kind, mode string) string {
	s := kind
	if s == "" && (added != 0 || removed != 0 || mode == "") {
		s = fmt.Sprintf("+%d -%d", added, removed)
	}
	if mode != "" {
		if s != "" {
			s += " "
		}
		s += "mode " + mode
	}
	return s
}
