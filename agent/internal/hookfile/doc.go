// Package hookfile installs rewind-lsp's hooks into an agent's settings
// file for the agents' packages: the command a hook runs, merging hook
// entries into a JSON settings file (keeping every other member as it was
// written), and writing the file in one step.
package hookfile
