// Package watch tells a running server what changed under a workspace root
// and in its store, and since when: Changes gathers the paths a Tree of
// file-system notifications (or, when notifications fail, periodic rescans)
// reports between two captures; File reports changes of one file (the
// journal another process appends to). Replacing the notification source,
// or what counts as a change (attribute events: a chmod), touches this
// package only. It knows nothing of turns or journals: workspace decides
// what a change means.
package watch
