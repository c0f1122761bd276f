package workspace

import "fmt"

// The errors a request meets, declared once: package commands names them
// for its clients, and each wire (the socket, LSP, MCP, the command line's
// exit status) maps them once.

// ArgError is a bad argument of a request; Field names it.
type ArgError struct{ Field, Msg string }

func (e *ArgError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return fmt.Sprintf("argument %q: %s", e.Field, e.Msg)
}

// RefusedError is a request refused for a reason the user can fix: a
// conflict, nothing to undo. The command line exits 3 on it.
type RefusedError struct{ Msg string }

func (e *RefusedError) Error() string { return e.Msg }

// NotAppliedError reports that the editor (or the disk) did not apply a
// change; Reason becomes the result's failureReason.
type NotAppliedError struct{ Reason string }

func (e *NotAppliedError) Error() string { return "not applied: " + e.Reason }
