package agent

// SetupOptions says how to install an agent's hooks.
type SetupOptions struct {
	// Command runs rewind-lsp in a hook (a shell word: "rewind-lsp", or a
	// quoted absolute path).
	Command string
	// Binary is the absolute path of the rewind-lsp binary, for
	// integrations that run it without a shell (pi's extension).
	Binary string
	// User installs for the user rather than for the project at Root
	// (the agents that run only user-level hooks always install there).
	User bool
	Root string
	// NoRoot, when Root is empty, says why no project was found here: an
	// agent whose hooks are installed in the project returns it unless
	// User.
	NoRoot error
}

// SetupResult is what Setup did.
type SetupResult struct {
	// File is the settings file written (or that already had the hooks).
	File string
	// Added are the events whose hooks were added; none when the file
	// already had them all.
	Added []string
	// Notes say what else happened ("trusted by Codex") or, in Steps,
	// what the person must still do for the hooks to run.
	Notes, Steps []string
}
