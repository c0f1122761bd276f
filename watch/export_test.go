package watch

// Hooks for the tests of package watch_test, which drive an automatic turn
// of workspace/live over a watcher: the order of a batch and a Take.

// SetTestHooks sets the hooks run when a batch is about to reach OnBatch
// and when a Take waits for a batch under way (nil: none).
func SetTestHooks(batch func(paths []string), waits func()) {
	testHookBatch, flushWaits = batch, waits
}
