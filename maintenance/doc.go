// Package maintenance keeps a root's store within its bounds and checks it:
// automatic retention after captures (a byte budget and an age bound,
// pinned snapshots always kept: labeled checkpoints, an agent's while it is
// active, the latest rewinds' undo snapshots, open turns, the last recorded
// state), gc on request, and fsck (every journal line, the journal's view,
// every stored object, every snapshot the journal needs). It works on a
// workspace through a narrow interface (Store), in its transactions.
package maintenance
