package lsp

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/rewind-lsp/rewind-lsp/rootpath"
	"github.com/rewind-lsp/rewind-lsp/workspace/live"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
)

// folder is one workspace folder with its own commands.Service (and so its
// own store and journal).
type folder struct {
	uri   string // as the client sent it
	path  string // clean absolute path
	svc   *commands.Service
	watch *journalWatcher
	sock  *commands.SocketServer // serves the command line of this root; nil when another server does
	// tracker watches the disk: captures cost what changed, and agent
	// changes with no turn open become automatic turns.
	tracker *live.Tracker
}

// roots returns the folder's path as the client named it and, when it
// differs (a folder reached through a symbolic link), the service's root,
// which is the real path: a document under either is in the folder.
func (f *folder) roots() []string {
	r := []string{f.path}
	if sr := filepath.Clean(f.svc.Root()); sr != f.path && sr != "." {
		r = append(r, sr)
	}
	return r
}

// rel returns p relative to the folder when p is inside it.
func (f *folder) rel(p string) (string, bool) {
	rel, _, ok := f.match(p)
	return rel, ok
}

// match returns p relative to the folder and the length of the root it
// was found under. p may name the folder by either of its roots, or by
// another link to it: then p's folders are resolved (one root, one name).
func (f *folder) match(p string) (rel string, rootLen int, ok bool) {
	for _, r := range f.roots() {
		if rel, ok := rootpath.Rel(r, p); ok {
			return rel, len(r), true
		}
	}
	sr := filepath.Clean(f.svc.Root())
	if real := rootpath.RealPath(p); real != p {
		if rel, ok := rootpath.Rel(sr, real); ok {
			return rel, len(sr), true
		}
	}
	return "", 0, false
}

// folderSet is the set of open folders, in the order the client gave them.
type folderSet struct {
	mu      sync.RWMutex
	folders []*folder
}

func (w *folderSet) list() []*folder {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return append([]*folder(nil), w.folders...)
}

// storeFor returns the store directory for a folder: the storeDir option for
// the first folder, and a sibling named after the folder for any other one,
// so that two roots never share a store (and two spellings of one root,
// through a symbolic link and by its real path, do). Empty means the
// default location.
func storeFor(storeDir string, first bool, path string) string {
	if storeDir == "" || first {
		return storeDir
	}
	if real, err := rootpath.RealRoot(path); err == nil {
		path = real
	}
	sum := sha256.Sum256([]byte(path))
	return fmt.Sprintf("%s-%s-%s", filepath.Clean(storeDir), filepath.Base(path), hex.EncodeToString(sum[:])[:12])
}

// addFolder opens the service of a folder; adding a folder twice is a no-op.
func (s *Server) addFolder(wf workspaceFolder) error {
	p, err := pathFromURI(wf.URI)
	if err != nil {
		return fmt.Errorf("workspace folder %q: %w", wf.Name, err)
	}
	s.ws.mu.Lock()
	defer s.ws.mu.Unlock()
	for _, f := range s.ws.folders {
		if f.path == p {
			return nil
		}
	}
	f := &folder{uri: wf.URI, path: p}
	overlay := &rootOverlay{docs: s.docs, roots: []string{p}}
	maxBytes, maxAge := s.opts.retentionOptions()
	svc, err := commands.Open(commands.Options{
		Root:          p,
		StoreDir:      storeFor(s.opts.StoreDir, len(s.ws.folders) == 0 && !s.hadFolder, p),
		Actor:         "editor",
		Overlay:       overlay,
		Applier:       &applier{s: s, f: f},
		MaxFileBytes:  s.opts.MaxFileBytes,
		MaxStoreBytes: maxBytes,
		MaxAgeDays:    maxAge,
	})
	if err != nil {
		return fmt.Errorf("opening the store of %s: %w", p, err)
	}
	f.svc = svc
	// A rewind, revert or undo that a killed process left half done is
	// finished before anything else reads the files.
	if r, err := commands.Recover.Call(s.baseCtx, svc, commands.RecoverArgs{}); err != nil {
		s.log.Printf("folder %s: finishing an interrupted rewind: %v", p, err)
	} else if r.Finished > 0 {
		s.log.Printf("folder %s: finished %d interrupted rewind(s)", p, r.Finished)
	}
	overlay.roots = f.roots()
	s.hadFolder = true
	s.ws.folders = append(s.ws.folders, f)
	f.watch = s.watchJournal(f)
	f.tracker = svc.Track(s.trackOptions(f))
	if sock, err := commands.ServeSocket(svc); err != nil {
		s.log.Printf("folder %s: the command line cannot use this server: %v", p, err)
	} else {
		f.sock = sock
	}
	s.log.Printf("folder %s: store %s", p, svc.StoreDir())
	return nil
}

// removeFolder closes the service of a folder.
func (s *Server) removeFolder(wf workspaceFolder) {
	p, err := pathFromURI(wf.URI)
	if err != nil {
		s.log.Printf("removing workspace folder %q: %v", wf.URI, err)
		return
	}
	s.ws.mu.Lock()
	var gone *folder
	for i, f := range s.ws.folders {
		if f.path == p {
			gone = f
			s.ws.folders = append(s.ws.folders[:i:i], s.ws.folders[i+1:]...)
			break
		}
	}
	s.ws.mu.Unlock()
	if gone != nil {
		closeFolder(s, gone)
	}
}

func closeFolder(s *Server, f *folder) {
	if f.sock != nil {
		f.sock.Close()
	}
	if f.watch != nil {
		f.watch.stop()
	}
	if f.tracker != nil {
		f.tracker.Close()
	}
	if err := f.svc.Close(); err != nil {
		s.log.Printf("closing %s: %v", f.path, err)
	}
}

// selectFolder picks the folder a command acts on: `root` (a
// path or file:// URI) when given, else the folder holding `uri`, else the
// first folder.
func (s *Server) selectFolder(sc commands.Scope) (*folder, error) {
	folders := s.ws.list()
	if len(folders) == 0 {
		return nil, &rpcError{codeRequestFailed, "no workspace folder is open: the client sent neither workspaceFolders nor rootUri"}
	}
	if sc.Root != "" {
		p, err := pathArg(sc.Root)
		if err != nil {
			return nil, invalidParams("root", "%v", err)
		}
		for _, f := range folders {
			for _, r := range f.roots() {
				if r == p {
					return f, nil
				}
			}
		}
		if real, err := rootpath.RealRoot(p); err == nil { // another link to a folder
			for _, f := range folders {
				if filepath.Clean(f.svc.Root()) == real {
					return f, nil
				}
			}
		}
		names := make([]string, len(folders))
		for i, f := range folders {
			names[i] = f.path
		}
		return nil, invalidParams("root", "%q is not a workspace folder (folders: %s)", sc.Root, strings.Join(names, ", "))
	}
	if sc.URI != "" {
		p, err := pathArg(sc.URI)
		if err != nil {
			return nil, invalidParams("uri", "%v", err)
		}
		if f := folderOf(folders, p); f != nil {
			return f, nil
		}
	}
	return folders[0], nil
}

// folderOf returns the innermost folder holding p, or nil.
func folderOf(folders []*folder, p string) *folder {
	var best *folder
	bestLen := -1
	for _, f := range folders {
		if _, n, ok := f.match(p); ok && n > bestLen {
			best, bestLen = f, n
		}
	}
	return best
}

// editorSaveWait is how long a disk change that matches an open buffer may
// wait for the editor's didSave before it counts as someone else's write.
const editorSaveWait = 500 * time.Millisecond

// trackOptions configure live tracking of a folder: the server's
// initialization options, and the open documents to tell the person's saves
// from an agent's writes.
func (s *Server) trackOptions(f *folder) live.TrackOptions {
	o := live.TrackOptions{
		Quiet:        time.Duration(s.opts.AutoTurnQuietMs) * time.Millisecond,
		StepQuiet:    time.Duration(s.opts.StepQuietMs) * time.Millisecond,
		MaxWatches:   s.opts.MaxWatches,
		PollInterval: time.Duration(s.opts.PollIntervalMs) * time.Millisecond,
		NoAutoTurns:  s.opts.AutoTurns != nil && !*s.opts.AutoTurns,
		Log:          func(msg string) { s.logMessage(messageWarning, msg) },
		IsEditor: func(rel string, data []byte) bool {
			for _, r := range f.roots() {
				if s.docs.editorHolds(filepath.Join(r, filepath.FromSlash(rel)), data, editorSaveWait) {
					return true
				}
			}
			return false
		},
	}
	return o
}
