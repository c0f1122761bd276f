package e2e_test

import (
	"strings"
	"testing"
)

// TestStatusShowsRetention: status shows the store's budget and age bound
// (the defaults, or --max-store-bytes / --max-age-days); a bad size is bad
// usage.
func TestStatusShowsRetention(t *testing.T) {
	w := newWS(t)
	w.Write("f.txt", "x\n")
	w.ok("checkpoint")
	out := w.ok("status").stdout
	if !strings.Contains(out, "store budget 2.0 GiB") || !strings.Contains(out, "kept 30 days") {
		t.Fatalf("status without settings:\n%s", out)
	}
	var st struct {
		MaxStoreBytes int64
		MaxAgeDays    float64
	}
	w.okJSON(&st, "--max-store-bytes", "500M", "--max-age-days=7", "status")
	if st.MaxStoreBytes != 500<<20 || st.MaxAgeDays != 7 {
		t.Fatalf("status --json with bounds: %+v", st)
	}
	w.okJSON(&st, "--max-store-bytes", "0", "status")
	if st.MaxStoreBytes != 0 {
		t.Fatalf("--max-store-bytes 0 should switch the budget off: %+v", st)
	}
	if r := w.run("--max-store-bytes", "lots", "status"); r.code != 2 || !strings.Contains(r.stderr, "max-store-bytes") {
		t.Fatalf("a bad size: exit %d %q", r.code, r.stderr)
	}
}
