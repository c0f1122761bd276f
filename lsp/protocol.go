package lsp

import (
	"encoding/json"
	"errors"
	"fmt"
)

// The protocol types below are the small subset of LSP 3.17 that rewind-lsp
// reads or writes. They are written by hand so that their JSON is exactly
// what clients expect: arrays are never null, versions are null only where
// the protocol allows it, and unknown fields are ignored.

// Position is a zero-based line and character offset; the unit of Character
// is the negotiated position encoding (UTF-16 code units by default).
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

type textDocumentIdentifier struct {
	URI string `json:"uri"`
}

type versionedTextDocumentIdentifier struct {
	URI     string `json:"uri"`
	Version int    `json:"version"`
}

// optionalVersionedTextDocumentIdentifier marshals a nil Version as null,
// which the protocol requires for documents the client does not hold open.
type optionalVersionedTextDocumentIdentifier struct {
	URI     string `json:"uri"`
	Version *int   `json:"version"`
}

type textDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int    `json:"version"`
	Text       string `json:"text"`
}

type didOpenParams struct {
	TextDocument textDocumentItem `json:"textDocument"`
}

type contentChange struct {
	Range *Range `json:"range,omitempty"`
	Text  string `json:"text"`
}

type didChangeParams struct {
	TextDocument   versionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []contentChange                 `json:"contentChanges"`
}

type didSaveParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
	Text         *string                `json:"text,omitempty"`
}

type didCloseParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
}

// textDocumentEdit is one entry of WorkspaceEdit.documentChanges.
type textDocumentEdit struct {
	TextDocument optionalVersionedTextDocumentIdentifier `json:"textDocument"`
	Edits        []TextEdit                              `json:"edits"`
}

type createFileOptions struct {
	Overwrite      bool `json:"overwrite,omitempty"`
	IgnoreIfExists bool `json:"ignoreIfExists,omitempty"`
}

type createFile struct {
	Kind    string             `json:"kind"` // "create"
	URI     string             `json:"uri"`
	Options *createFileOptions `json:"options,omitempty"`
}

type deleteFileOptions struct {
	Recursive         bool `json:"recursive,omitempty"`
	IgnoreIfNotExists bool `json:"ignoreIfNotExists,omitempty"`
}

type deleteFile struct {
	Kind    string             `json:"kind"` // "delete"
	URI     string             `json:"uri"`
	Options *deleteFileOptions `json:"options,omitempty"`
}

// documentChange is one element of WorkspaceEdit.documentChanges: exactly
// one of its fields is set.
type documentChange struct {
	Edit   *textDocumentEdit
	Create *createFile
	Delete *deleteFile
}

// MarshalJSON writes whichever variant is set.
func (d documentChange) MarshalJSON() ([]byte, error) {
	switch {
	case d.Edit != nil:
		e := *d.Edit
		if e.Edits == nil {
			e.Edits = []TextEdit{}
		}
		return json.Marshal(e)
	case d.Create != nil:
		return json.Marshal(d.Create)
	case d.Delete != nil:
		return json.Marshal(d.Delete)
	}
	return nil, errors.New("lsp: empty document change")
}

// UnmarshalJSON reads a variant by its "kind" field (none means a text edit).
func (d *documentChange) UnmarshalJSON(b []byte) error {
	var k struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(b, &k); err != nil {
		return err
	}
	*d = documentChange{}
	switch k.Kind {
	case "":
		d.Edit = new(textDocumentEdit)
		return json.Unmarshal(b, d.Edit)
	case "create":
		d.Create = new(createFile)
		return json.Unmarshal(b, d.Create)
	case "delete":
		d.Delete = new(deleteFile)
		return json.Unmarshal(b, d.Delete)
	}
	return fmt.Errorf("lsp: unsupported document change kind %q", k.Kind)
}

// workspaceEdit is either the `changes` form or the `documentChanges` form.
type workspaceEdit struct {
	Changes         map[string][]TextEdit `json:"changes,omitempty"`
	DocumentChanges []documentChange      `json:"documentChanges,omitempty"`
}

type applyWorkspaceEditParams struct {
	Label string        `json:"label,omitempty"`
	Edit  workspaceEdit `json:"edit"`
}

type applyWorkspaceEditResult struct {
	Applied       bool   `json:"applied"`
	FailureReason string `json:"failureReason,omitempty"`
	FailedChange  *int   `json:"failedChange,omitempty"`
}

// workspaceFolder is a folder of a multi-root workspace.
type workspaceFolder struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

type initializeParams struct {
	ProcessID  *int `json:"processId"`
	ClientInfo *struct {
		Name string `json:"name"`
	} `json:"clientInfo"`
	RootURI               *string            `json:"rootUri"`
	RootPath              *string            `json:"rootPath"`
	WorkspaceFolders      []workspaceFolder  `json:"workspaceFolders"`
	Capabilities          clientCapabilities `json:"capabilities"`
	InitializationOptions json.RawMessage    `json:"initializationOptions"`
}

type clientCapabilities struct {
	General struct {
		PositionEncodings []string `json:"positionEncodings"`
	} `json:"general"`
	Workspace struct {
		WorkspaceEdit struct {
			DocumentChanges    bool     `json:"documentChanges"`
			ResourceOperations []string `json:"resourceOperations"`
		} `json:"workspaceEdit"`
		WorkspaceFolders bool `json:"workspaceFolders"`
	} `json:"workspace"`
	Window struct {
		WorkDoneProgress bool `json:"workDoneProgress"`
		ShowDocument     struct {
			Support bool `json:"support"`
		} `json:"showDocument"`
	} `json:"window"`
	TextDocument struct {
		Hover struct {
			ContentFormat []string `json:"contentFormat"`
		} `json:"hover"`
	} `json:"textDocument"`
}

type initializeResult struct {
	Capabilities serverCapabilities `json:"capabilities"`
	ServerInfo   serverInfo         `json:"serverInfo"`
}

type serverInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type serverCapabilities struct {
	PositionEncoding       string                 `json:"positionEncoding"`
	TextDocumentSync       textDocumentSyncOpts   `json:"textDocumentSync"`
	ExecuteCommandProvider executeCommandOptions  `json:"executeCommandProvider"`
	CodeActionProvider     codeActionOptions      `json:"codeActionProvider"`
	HoverProvider          bool                   `json:"hoverProvider,omitempty"`
	Workspace              workspaceServerOptions `json:"workspace"`
}

type textDocumentSyncOpts struct {
	OpenClose bool        `json:"openClose"`
	Change    int         `json:"change"` // 2: incremental
	Save      saveOptions `json:"save"`
}

type saveOptions struct {
	IncludeText bool `json:"includeText"`
}

type executeCommandOptions struct {
	Commands []string `json:"commands"`
}

type codeActionOptions struct {
	CodeActionKinds []string `json:"codeActionKinds"`
}

type workspaceServerOptions struct {
	WorkspaceFolders workspaceFoldersOptions `json:"workspaceFolders"`
}

type workspaceFoldersOptions struct {
	Supported           bool `json:"supported"`
	ChangeNotifications bool `json:"changeNotifications"`
}

type didChangeWorkspaceFoldersParams struct {
	Event struct {
		Added   []workspaceFolder `json:"added"`
		Removed []workspaceFolder `json:"removed"`
	} `json:"event"`
}

type executeCommandParams struct {
	Command       string            `json:"command"`
	Arguments     []json.RawMessage `json:"arguments"`
	WorkDoneToken json.RawMessage   `json:"workDoneToken,omitempty"`
}

type codeActionParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
	Range        Range                  `json:"range"`
	Context      struct {
		Only []string `json:"only"`
	} `json:"context"`
}

// lspCommand is the protocol's Command: a title and a command to execute.
type lspCommand struct {
	Title     string `json:"title"`
	Command   string `json:"command"`
	Arguments []any  `json:"arguments"`
}

type codeAction struct {
	Title   string      `json:"title"`
	Kind    string      `json:"kind"`
	Command *lspCommand `json:"command"`
}

type showMessageParams struct {
	Type    int    `json:"type"`
	Message string `json:"message"`
}

// Message types of window/showMessage.
const (
	messageError   = 1
	messageWarning = 2
	messageInfo    = 3
)

type progressParams struct {
	Token json.RawMessage `json:"token"`
	Value any             `json:"value"`
}

type workDoneBegin struct {
	Kind        string `json:"kind"` // "begin"
	Title       string `json:"title"`
	Cancellable bool   `json:"cancellable"`
	Message     string `json:"message,omitempty"`
}

type workDoneEnd struct {
	Kind    string `json:"kind"` // "end"
	Message string `json:"message,omitempty"`
}

type workDoneCreateParams struct {
	Token json.RawMessage `json:"token"`
}

type cancelParams struct {
	ID json.RawMessage `json:"id"`
}

type contentParams struct {
	URI string `json:"uri"`
}

type contentResult struct {
	Text string `json:"text"`
}

type debugDocumentResult struct {
	URI     string `json:"uri"`
	Version int    `json:"version"`
	Text    string `json:"text"`
}

// didChangeJournal is the rewind/didChange notification.
type didChangeJournal struct {
	Root   string `json:"root"`
	Turns  int    `json:"turns"`
	Latest string `json:"latest"`
}

// agentRewindParams are the params of rewind/agentRewind: an agent's own
// rewind of session Session back to before turn Turn (its prompt Prompt),
// recorded as entry Entry. Target is the entry to rewind the files to;
// Mode is "both" when the agent restored its files and rewind-lsp restored
// Files besides and left Kept alone (changed since by someone else), or
// "conversation" when the agent restored nothing and Offered lists what a
// code rewind to Target would restore. Title, Message and the actions'
// titles are the words the editors show (docs/PROTOCOL.md, "Words").
type agentRewindParams struct {
	Root    string   `json:"root"`
	Entry   string   `json:"entry"`
	Agent   string   `json:"agent"`
	Session string   `json:"session"`
	Turn    int      `json:"turn"`
	Prompt  string   `json:"prompt"`
	Target  string   `json:"target"`
	Mode    string   `json:"mode"`
	Files   []string `json:"files"`
	Kept    []string `json:"kept"`
	Offered []string `json:"offered"`
	// SessionLabel names the session ("claude-code 6db2232a").
	SessionLabel string `json:"sessionLabel"`
	// Title names the rewind as rewind.list does ("Claude Code rewound to
	// turn 2 (add a cache), conversation only").
	Title string `json:"title"`
	// Message says what the agent did and what rewind-lsp did about it.
	Message string `json:"message"`
	// Actions are what to offer, in this order (none when nothing is left
	// to do).
	Actions []agentRewindAction `json:"actions"`
}

// agentRewindAction is one action an editor offers after an agent's own
// rewind: ID says what it does ("rewindFiles": rewind.rewind to Target,
// mode code, paths Offered; "showDiff": rewind.preview of the same;
// "undo": rewind.undo), Title is its label.
type agentRewindAction struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}
