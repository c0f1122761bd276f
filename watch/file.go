package watch

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

const (
	// filePoll is the stat-polling fallback's period: a change made by
	// another process is seen within about a second even when file-system
	// notifications are missing.
	filePoll = 400 * time.Millisecond
	// fileSafetyPoll is the period of the check made even while
	// notifications work (and that adds a watch on a folder that appeared
	// later).
	fileSafetyPoll = 30 * time.Second
	// fileDebounce groups the bursts of writes of one change.
	fileDebounce = 50 * time.Millisecond
)

// stamp identifies a file's state cheaply.
type stamp struct {
	size  int64
	mtime time.Time
	ok    bool
}

func stampOf(p string) stamp {
	fi, err := os.Stat(p)
	if err != nil {
		return stamp{}
	}
	return stamp{size: fi.Size(), mtime: fi.ModTime(), ok: true}
}

// File calls onChange, on its own goroutine, each time the file at path
// changes (its size or time; it appearing or going away), whoever changed
// it: notifications on its folder say so at once, a stat check every 30 s
// (every 400 ms without notifications) catches what they miss. Any change
// made after File returns is reported: the folder is watched and the
// file's state noted before it returns. log, when set, hears why
// notifications are unavailable. It runs until ctx ends; the returned
// channel is closed once it stopped.
func File(ctx context.Context, path string, onChange func(), log func(string)) <-chan struct{} {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		fw = nil
		if log != nil {
			log("no file-system notifications for " + path + " (" + err.Error() + "); checking it every " + filePoll.String())
		}
	}
	watching := fw != nil && fw.Add(filepath.Dir(path)) == nil
	last := stampOf(path)
	done := make(chan struct{})
	go func() {
		defer close(done)
		runFile(ctx, path, fw, watching, last, onChange, log)
	}()
	return done
}

// runFile is File's loop: fw (nil without notifications) watches path's
// folder when watching, and last is the file's state File noted.
func runFile(ctx context.Context, path string, fw *fsnotify.Watcher, watching bool, last stamp, onChange func(), log func(string)) {
	var events chan fsnotify.Event
	var errs chan error
	addWatch := func() {
		if watching || fw == nil {
			return
		}
		if err := fw.Add(filepath.Dir(path)); err == nil {
			watching = true
		}
	}
	period := filePoll
	if fw != nil {
		defer fw.Close()
		events, errs = fw.Events, fw.Errors
		period = fileSafetyPoll
	}
	ticker := time.NewTicker(period)
	defer ticker.Stop()
	var debounce <-chan time.Time
	check := func() {
		if st := stampOf(path); st != last {
			last = st
			onChange()
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if filepath.Clean(ev.Name) == filepath.Clean(path) && debounce == nil {
				debounce = time.After(fileDebounce)
			}
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			// Events may be lost: look now rather than at the next tick.
			if log != nil && err != fsnotify.ErrEventOverflow {
				log("watching " + path + ": " + err.Error())
			}
			check()
		case <-debounce:
			debounce = nil
			check()
		case <-ticker.C:
			addWatch()
			check()
		}
	}
}
