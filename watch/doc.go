// Package watch tells a running server what changed under a workspace root
// and in its store, and since when: Changes gathers the paths a Tree of
// file-system notifications (or, when notifications fail, periodic rescans)
// reports between two captures; File reports changes of one file (the
// journal another process appends to). Replacing the notification source,
// or what counts as a change (attribute events: a chmod), touches this
// package only. It knows nothing of turns or journals: workspace decides
// what a change means.
//
// The contract with the receiver, in the order things happen:
//
//   - A change made before Take is called is in what Take returns: Take
//     makes a sentinel file of its own (in SentinelDir) and waits for its
//     event, so every notification queued before it has been read.
//   - Batches reach OnBatch one at a time, in the order the changes came,
//     and Take returns a path only once OnBatch returned for the batch
//     that brought it; a Take that finds a batch under way waits for it.
//     A receiver that keeps a conclusion about a path (workspace/live
//     judges whether a change was an agent's) and drops it in OnBatch when
//     the path changes again never gets from Take a path whose new content
//     would meet the conclusion about its old one: an automatic turn does
//     not put a change nobody judged into its start.
//   - A change made after Take collected is the next Take's, even when the
//     receiver reads the file afterwards and sees it (a capture reads the
//     disk as it is when it reads it).
//   - OnBatch must not call Take (it would wait for itself); Pending and
//     GiveBack are fine. No batch is delivered after Close returns.
package watch
