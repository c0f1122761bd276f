// Package agents is the list of the coding agents rewind-lsp takes turns
// from (each a package of package agent's folder), found by their name on
// the command line and in the journal, or by the name their ACP server
// gives. Adding an agent is a package of its own and one name here.
package agents
