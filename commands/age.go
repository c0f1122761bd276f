package commands

import (
	"fmt"
	"time"
)

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
