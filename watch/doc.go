// Package watch tells a running server what changed under a workspace root
// and in its store, and since when: Changes gathers the paths a Tree of
// file-system notifications (or, when notifications fail, periodic rescans)
// reports between two captures; File reports changes of one file (the
// journal another process appends to). Replacing the notification source,
// or what counts as a change (attribute events: a chmod), touches this
// package only. It knows nothing of turns or journals: workspace decides
// what a change means.
//
// The order of batches and Takes is the contract its receiver builds on.
// Batches reach OnBatch one at a time, in the order the changes came, and
// a Take returns a path only once OnBatch returned for the batch that
// brought it: a Take that finds a batch under way waits for it. So a
// receiver that keeps a conclusion about a path — workspace/live's
// judgement that a change was no agent's — and drops it in OnBatch when
// the path changes again never finds a Take pairing the path's new
// content with the conclusion about its old one: an automatic turn never
// loses a change to a file whose earlier change was judged. OnBatch must
// not call Take (it would wait for itself); Pending and GiveBack are
// fine. No batch is delivered after Close returns.
package watch
