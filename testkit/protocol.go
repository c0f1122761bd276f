package testkit

import (
	"encoding/json"
	"fmt"
)

// The client's view of the protocol: only what a fake editor reads and
// sends, declared here independently of the server's own types.

// Position is a position in a document: a 0-based line and a character
// offset in the negotiated encoding (UTF-16 code units unless UTF-8).
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a half-open range between two positions.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// TextEdit replaces Range with NewText.
type TextEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// WorkspaceEdit is the edit of workspace/applyEdit: the `changes` form or
// the `documentChanges` form.
type WorkspaceEdit struct {
	Changes         map[string][]TextEdit `json:"changes,omitempty"`
	DocumentChanges []DocumentChange      `json:"documentChanges,omitempty"`
}

// DocumentChange is one element of documentChanges: exactly one of its
// fields is set.
type DocumentChange struct {
	Edit   *TextDocumentEdit
	Create *CreateFile
	Rename *RenameFile
	Delete *DeleteFile
}

// TextDocumentEdit edits one document; Version is nil when the edit is not
// versioned.
type TextDocumentEdit struct {
	TextDocument struct {
		URI     string `json:"uri"`
		Version *int   `json:"version"`
	} `json:"textDocument"`
	Edits []TextEdit `json:"edits"`
}

// CreateFile creates a file.
type CreateFile struct {
	URI     string `json:"uri"`
	Options *struct {
		Overwrite      bool `json:"overwrite"`
		IgnoreIfExists bool `json:"ignoreIfExists"`
	} `json:"options"`
}

// RenameFile renames a file.
type RenameFile struct {
	OldURI  string `json:"oldUri"`
	NewURI  string `json:"newUri"`
	Options *struct {
		Overwrite      bool `json:"overwrite"`
		IgnoreIfExists bool `json:"ignoreIfExists"`
	} `json:"options"`
}

// DeleteFile deletes a file.
type DeleteFile struct {
	URI     string `json:"uri"`
	Options *struct {
		Recursive         bool `json:"recursive"`
		IgnoreIfNotExists bool `json:"ignoreIfNotExists"`
	} `json:"options"`
}

// UnmarshalJSON reads a variant by its "kind" field (none means a text
// edit); an unknown kind is an error.
func (d *DocumentChange) UnmarshalJSON(b []byte) error {
	var k struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(b, &k); err != nil {
		return err
	}
	*d = DocumentChange{}
	switch k.Kind {
	case "":
		d.Edit = new(TextDocumentEdit)
		return json.Unmarshal(b, d.Edit)
	case "create":
		d.Create = new(CreateFile)
		return json.Unmarshal(b, d.Create)
	case "rename":
		d.Rename = new(RenameFile)
		return json.Unmarshal(b, d.Rename)
	case "delete":
		d.Delete = new(DeleteFile)
		return json.Unmarshal(b, d.Delete)
	}
	return fmt.Errorf("unsupported document change kind %q", k.Kind)
}

// applyEditParams are the parameters of workspace/applyEdit.
type applyEditParams struct {
	Label string        `json:"label"`
	Edit  WorkspaceEdit `json:"edit"`
}
