// Package words makes the words people read about a root's history — a
// turn's title, the name of a rewind's target, a checkpoint's, a
// rewind's and a report's title, an agent session's label, how long ago
// something happened, a file's change and its line in a list, the
// sentence about an agent's own rewind, the server's code-action titles,
// the labels of an operation's edits, and who changed a file since ("turn
// 3", "user") — once, for every client: the results carry them
// (docs/PROTOCOL.md, "Words"), and the command line, the server's own
// hovers, code actions and edit labels, and the editors show them as they
// come.
package words
