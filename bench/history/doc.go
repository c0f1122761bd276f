// Command history is the Go side of bench/history.sh: it builds roots
// whose journals hold long histories, then measures the real rewind-lsp
// binary on them, to show whether what a call costs depends on how many
// turns the root has recorded.
//
//	history states  -bin B -dir D [-files N] [-turns K] [-seed S]
//	    a root of N files in D/root, git-initialized, and K real turns made
//	    with `rewind-lsp turn start|end` into the store D/store, each
//	    changing a few files; D/states.json lists the K+1 states they
//	    recorded (snapshot ids and what each file holds then).
//	history gen -bin B -states D -dir C -turns N [-seed S]
//	    C/run/root (a copy of D/root) and C/run/store (D/store's objects,
//	    a new journal): N-2 synthetic turns of mixed activity appended with
//	    the product's own journal writer, every snapshot among D's real
//	    states, then two real turns with B; C/pristine is a copy of C/run.
//	history key -states D -turns N [-seed S]
//	    the key gen writes to C/params: history.sh generates a root again
//	    when it differs.
//	history measure -bin B -dir C -states D [-n N] [-budget D] -out FILE
//	    C/run restored from C/pristine, then every measure (bench/README.md, history.sh) with B
//	    as processes and, for the running server, as an LSP client over
//	    its stdio; the samples are written to FILE as JSON.
//	history report FILE...
//	    the table of the results of several lengths, with the ratios of
//	    each length to the shortest and the goal.
//	history uptimes FILE...
//	    the load before and after each length's measures.
//
// The synthetic history is deterministic for one -seed except for its
// times (and so its entry ids, UUIDv7), which end a minute before the
// generation: automatic retention drops unpinned snapshots last referenced
// more than 30 days ago, so a history dated long ago would lose its states.
//
// It is a benchmark helper, not part of rewind-lsp: its LSP connection is
// testkit.Conn, the client the tests use.
package main
