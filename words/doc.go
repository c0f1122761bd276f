// Package words makes the words people read about a root's history — a
// turn's title, the name of a rewind's target, how long ago something
// happened, a file's change and its line in a list — once, for every
// client: the results carry them (docs/PROTOCOL.md, "Words"), and the
// command line, the server's own hovers and edit labels, and the editors
// show them as they come.
package words
