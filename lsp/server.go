package lsp

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/sourcegraph/jsonrpc2"
)

// Server is one language-server session on one connection.
type Server struct {
	conn    *jsonrpc2.Conn
	ready   chan struct{} // closed once conn is set
	log     *log.Logger
	disp    *dispatcher
	baseCtx context.Context // cancelled at exit; parent of every request
	stop    context.CancelFunc

	mu        sync.Mutex
	state     int
	exited    chan struct{}
	exitOnce  sync.Once
	hadFolder bool // a folder was opened once: storeDir went to it

	// Set by initialize, read-only afterwards.
	caps     clientCaps
	opts     initOptions
	progress bool

	docs *documents
	ws   folderSet

	blameWarm sync.Mutex // one blame warm-up at a time (hover.go)

	// Tunables, shortened by tests.
	verifyTimeout time.Duration // how long to wait for an edit's echo
	applyTimeout  time.Duration // how long to wait for the editor to apply an edit
	progressDelay time.Duration // commands slower than this report progress
}

// clientCaps is what rewind-lsp needs to know about the client.
type clientCaps struct {
	enc             encoding
	documentChanges bool
	createFiles     bool
	deleteFiles     bool
	// hoverMarkdown: hovers may be markdown (with command links).
	hoverMarkdown bool
	// showDocument: the client opens documents on window/showDocument.
	showDocument bool
	// wholeFirstLine: the client (Neovim) keeps an empty buffer as one
	// empty line, so text inserted at 0:0 ends with a stray empty line.
	// Filling an empty document then replaces 0:0–1:0 instead.
	wholeFirstLine bool
}

// initOptions are the initializationOptions rewind-lsp reads.
type initOptions struct {
	// StoreDir overrides the store of the first workspace folder (by
	// default it lives under $REWIND_LSP_HOME: rootpath.DefaultStoreDir).
	StoreDir string `json:"storeDir"`
	// AutoTurnQuietMs is the quiet time that ends an automatic turn.
	AutoTurnQuietMs int `json:"autoTurnQuietMs"`
	// StepQuietMs is the quiet time that ends a step of an automatic
	// turn (a burst of changes); default 1000, < 0: one step per turn.
	StepQuietMs int `json:"stepQuietMs"`
	// MaxFileBytes bounds the size of captured files.
	MaxFileBytes int64 `json:"maxFileBytes"`
	// MaxStoreBytes is each root's store budget for automatic retention
	// (default 2 GiB; 0 switches it off).
	MaxStoreBytes *int64 `json:"maxStoreBytes"`
	// MaxAgeDays drops unpinned snapshots older than this automatically
	// (default 30; 0 switches it off).
	MaxAgeDays *float64 `json:"maxAgeDays"`
	// AutoTurns switches automatic turns off when false (default on).
	AutoTurns *bool `json:"autoTurns"`
	// MaxWatches bounds the watches per root (one per folder; with kqueue on
	// macOS and the BSDs one per file and folder); past it the server polls
	// (0 is the kernel's limit; with kqueue half the open files allowed).
	MaxWatches int `json:"maxWatches"`
	// PollIntervalMs is the rescan period when polling (default 2000).
	PollIntervalMs int `json:"pollIntervalMs"`
	// RewindDidChange: the client handles the rewind/didChange
	// notification. Only such clients are sent it (notify.go): a plain
	// LSP client would warn about an unknown notification on every
	// journal change.
	RewindDidChange bool `json:"rewindDidChange"`
	// BlameHover switches agent blame in textDocument/hover off when
	// false (default on).
	BlameHover *bool `json:"blameHover"`
}

// Run serves the Language Server Protocol on in/out until the client sends
// exit or closes the input, and returns the process exit code: 0 after a
// shutdown request, 1 otherwise. Nothing but protocol frames is written to
// out; logs go to logw.
func Run(ctx context.Context, in io.Reader, out io.Writer, logw io.Writer) int {
	return run(ctx, in, out, logw, nil)
}

// run is Run with a hook that sees the server before it serves (tests).
func run(ctx context.Context, in io.Reader, out io.Writer, logw io.Writer, ready func(*Server)) int {
	if logw == nil {
		logw = io.Discard
	}
	logger := log.New(logw, "rewind-lsp: ", log.LstdFlags|log.Lmicroseconds)
	if f, ok := out.(*os.File); ok && f == os.Stdout {
		// Anything printed by mistake must not corrupt the protocol stream.
		os.Stdout = os.Stderr
	}
	s := newServer(ctx, logger)
	if ready != nil {
		ready(s)
	}
	s.conn = jsonrpc2.NewConn(ctx, newFrameStream(in, out, logger), s.disp, jsonrpc2.SetLogger(logger))
	close(s.ready)
	select {
	case <-s.exited:
	case <-s.conn.DisconnectNotify():
		logger.Printf("the client closed the connection")
	case <-ctx.Done():
	}
	return s.finish()
}

func newServer(ctx context.Context, logger *log.Logger) *Server {
	s := &Server{
		log:           logger,
		exited:        make(chan struct{}),
		ready:         make(chan struct{}),
		docs:          newDocuments(),
		verifyTimeout: 2 * time.Second,
		applyTimeout:  time.Minute,
		progressDelay: 200 * time.Millisecond,
	}
	s.baseCtx, s.stop = context.WithCancel(ctx)
	s.disp = &dispatcher{s: s, inflight: map[string]context.CancelFunc{}}
	return s
}

// finish cancels what is in flight, closes the folders and the connection,
// and returns the exit code.
func (s *Server) finish() int {
	code := 1
	if s.lifecycle() == stateShutdown {
		code = 0
	}
	s.disp.cancelAll()
	s.stop()
	done := make(chan struct{})
	go func() { s.disp.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Second):
		s.log.Printf("requests still running at exit")
	}
	for _, f := range s.ws.list() {
		closeFolder(s, f)
	}
	s.conn.Close()
	return code
}

func (s *Server) lifecycle() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

func (s *Server) setLifecycle(state int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state = state
}

func (s *Server) exit() {
	s.exitOnce.Do(func() { close(s.exited) })
}

type (
	requestFunc      func(ctx context.Context, params json.RawMessage) (any, error)
	notificationFunc func(ctx context.Context, params json.RawMessage) error
)

func (s *Server) requestHandler(method string) (requestFunc, bool) {
	switch method {
	case "workspace/executeCommand":
		return s.executeCommand, true
	case "textDocument/codeAction":
		return s.codeAction, true
	case "textDocument/hover":
		return s.hover, true
	case "rewind/content":
		return s.content, true
	case "rewind/debugDocument":
		return s.debugDocument, true
	}
	return nil, false
}

func (s *Server) notificationHandler(method string) (notificationFunc, bool) {
	switch method {
	case "initialized", "workspace/didChangeConfiguration", "workspace/didChangeWatchedFiles":
		return func(context.Context, json.RawMessage) error { return nil }, true
	case "textDocument/didOpen":
		return s.didOpen, true
	case "textDocument/didChange":
		return s.didChange, true
	case "textDocument/didSave":
		return s.didSave, true
	case "textDocument/didClose":
		return s.didClose, true
	case "workspace/didChangeWorkspaceFolders":
		return s.didChangeWorkspaceFolders, true
	}
	return nil, false
}

// initialize negotiates capabilities and opens the workspace folders.
func (s *Server) initialize(p json.RawMessage) (any, error) {
	if s.lifecycle() != stateNew {
		return nil, &rpcError{codeInvalidRequest, "initialize was already received"}
	}
	var ip initializeParams
	if err := decodeParams(p, &ip); err != nil {
		return nil, err
	}
	var opts initOptions
	if len(ip.InitializationOptions) > 0 && string(ip.InitializationOptions) != "null" {
		if err := decodeParams(ip.InitializationOptions, &opts); err != nil {
			return nil, invalidParams("initializationOptions", "%v", err)
		}
	}
	s.opts = opts
	c := ip.Capabilities
	s.caps = clientCaps{
		documentChanges: c.Workspace.WorkspaceEdit.DocumentChanges,
		createFiles:     slices.Contains(c.Workspace.WorkspaceEdit.ResourceOperations, "create"),
		deleteFiles:     slices.Contains(c.Workspace.WorkspaceEdit.ResourceOperations, "delete"),
		wholeFirstLine:  ip.ClientInfo != nil && strings.Contains(strings.ToLower(ip.ClientInfo.Name), "neovim"),
		hoverMarkdown:   slices.Contains(c.TextDocument.Hover.ContentFormat, "markdown"),
		showDocument:    c.Window.ShowDocument.Support,
	}
	if slices.Contains(c.General.PositionEncodings, "utf-8") {
		s.caps.enc = encUTF8
	}
	s.docs.emptyAsLine.Store(s.caps.wholeFirstLine)
	s.progress = c.Window.WorkDoneProgress

	folders := ip.WorkspaceFolders
	if len(folders) == 0 {
		switch {
		case ip.RootURI != nil && *ip.RootURI != "":
			folders = []workspaceFolder{{URI: *ip.RootURI}}
		case ip.RootPath != nil && *ip.RootPath != "":
			folders = []workspaceFolder{{URI: uriFromPath(*ip.RootPath)}}
		}
	}
	for _, wf := range folders {
		if err := s.addFolder(wf); err != nil {
			s.log.Print(err)
			s.showMessageLater(messageError, "rewind-lsp: "+err.Error())
		}
	}
	s.setLifecycle(stateInitialized)
	return s.initializeResult(), nil
}

func (s *Server) initializeResult() initializeResult {
	return initializeResult{
		Capabilities: serverCapabilities{
			PositionEncoding: s.caps.enc.String(),
			TextDocumentSync: textDocumentSyncOpts{OpenClose: true, Change: 2, Save: saveOptions{IncludeText: true}},
			ExecuteCommandProvider: executeCommandOptions{
				Commands: append([]string{}, commands.All...),
			},
			CodeActionProvider: codeActionOptions{CodeActionKinds: []string{
				kindRewindFile, kindRewindPreview, kindRefactorRewrite,
			}},
			HoverProvider: s.blameHover(),
			Workspace: workspaceServerOptions{WorkspaceFolders: workspaceFoldersOptions{
				Supported: true, ChangeNotifications: true,
			}},
		},
		ServerInfo: serverInfo{Name: "rewind-lsp", Version: VersionString()},
	}
}

func (s *Server) didChangeWorkspaceFolders(_ context.Context, p json.RawMessage) error {
	var dp didChangeWorkspaceFoldersParams
	if err := decodeParams(p, &dp); err != nil {
		return err
	}
	for _, wf := range dp.Event.Removed {
		s.removeFolder(wf)
	}
	for _, wf := range dp.Event.Added {
		if err := s.addFolder(wf); err != nil {
			s.log.Print(err)
			s.showMessage(messageError, "rewind-lsp: "+err.Error())
		}
	}
	return nil
}

// showMessage tells the user about a failure they must see.
func (s *Server) showMessage(typ int, msg string) {
	s.log.Printf("showMessage: %s", msg)
	if err := s.conn.Notify(s.baseCtx, "window/showMessage", showMessageParams{Type: typ, Message: msg}); err != nil {
		s.log.Printf("window/showMessage: %v", err)
	}
}

// logMessage writes a line to the client's log (window/logMessage).
func (s *Server) logMessage(typ int, msg string) {
	s.log.Printf("logMessage: %s", msg)
	if err := s.conn.Notify(s.baseCtx, "window/logMessage", showMessageParams{Type: typ, Message: msg}); err != nil {
		s.log.Printf("window/logMessage: %v", err)
	}
}

// showMessageLater shows a message once initialize has been answered.
func (s *Server) showMessageLater(typ int, msg string) {
	go func() {
		time.Sleep(100 * time.Millisecond)
		s.showMessage(typ, msg)
	}()
}

// retentionOptions turns the retention options into commands.Options
// fields: unset is the default (0), 0 is no bound (-1).
func (o initOptions) retentionOptions() (maxBytes int64, maxAgeDays float64) {
	if o.MaxStoreBytes != nil {
		maxBytes = *o.MaxStoreBytes
		if maxBytes <= 0 {
			maxBytes = -1
		}
	}
	if o.MaxAgeDays != nil {
		maxAgeDays = *o.MaxAgeDays
		if maxAgeDays <= 0 {
			maxAgeDays = -1
		}
	}
	return maxBytes, maxAgeDays
}
