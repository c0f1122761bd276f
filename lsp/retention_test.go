package lsp

import (
	"testing"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// TestRetentionOptions: initializationOptions maxStoreBytes and maxAgeDays
// set the store's automatic retention (rewind.status reports them); with
// none set, the defaults bound every store.
func TestRetentionOptions(t *testing.T) {
	for _, tc := range []struct {
		opts     map[string]any
		maxBytes int64
		maxAge   float64
	}{
		{map[string]any{}, 2 << 30, 30},
		{map[string]any{"maxStoreBytes": 1 << 20, "maxAgeDays": 7}, 1 << 20, 7},
		{map[string]any{"maxStoreBytes": 0, "maxAgeDays": 0}, 0, 0},
	} {
		w := testkit.NewSandbox(t)
		srv, c := testkit.StartServer(w)
		e := testkit.NewEditor(t, c, testkit.VSCodeLike)
		e.Server = srv
		tc.opts["storeDir"] = w.Store
		e.Initialize([]string{w.Root}, tc.opts)
		var st commands.StatusResult
		e.MustCmd(commands.NameStatus, map[string]any{}, &st)
		if st.MaxStoreBytes != tc.maxBytes || st.MaxAgeDays != tc.maxAge {
			t.Errorf("options %v: status says maxStoreBytes %d, maxAgeDays %g; want %d, %g", tc.opts, st.MaxStoreBytes, st.MaxAgeDays, tc.maxBytes, tc.maxAge)
		}
	}
}
