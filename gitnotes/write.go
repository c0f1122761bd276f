package gitnotes

import "context"

// Write puts a's notes on its commit: the Git AI authorship log on
// GitAIRef and the Agent Trace record (written by rewind-lsp version) on
// TraceRef, each in place of the note the commit had there. Only those two
// refs move. A merge gets no notes (Attestation.Merge).
func Write(ctx context.Context, r Repo, a *Attestation, version string) error {
	if a.Merge {
		return nil
	}
	if err := r.AddNote(ctx, GitAIRef, a.Commit, GitAI(a).Marshal()); err != nil {
		return err
	}
	return r.AddNote(ctx, TraceRef, a.Commit, TraceRecord(a, version).Marshal())
}
