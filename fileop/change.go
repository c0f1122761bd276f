package fileop

// Change is what a file operation does to one file. It is written as its
// name ("create", "modify", "delete") in the journal and on the wire.
type Change string

// The changes of a file.
const (
	// Create makes a file (or link) where there was none: it has no
	// content before.
	Create Change = "create"
	// Modify changes a file's content, its mode or what a link points at.
	Modify Change = "modify"
	// Delete removes a file (or link): it has no content after.
	Delete Change = "delete"
)
