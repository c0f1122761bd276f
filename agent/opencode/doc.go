// Package opencode connects rewind-lsp to opencode and Kilo, its fork: the
// events rewind-lsp's plugin (extensions/opencode) hands on, the leaf the
// plugin reads as the fork point, the fork the agent makes itself (opencode
// serve, POST /session/{id}/fork), its own /undo seen in the leaves the
// prompts recorded, and the plugin setup installs.
package opencode
