package rootfs

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/sys/windows"
)

// syncFolders: Windows refuses to sync a folder ("Access is denied"); NTFS
// journals folder changes itself.
const syncFolders = false

const openNonblock = 0

// mapErr gives the errors rootfs promises their names.
func mapErr(err error) error {
	switch {
	case errors.Is(err, windows.ERROR_CANT_RESOLVE_FILENAME):
		return ErrLink
	case errors.Is(err, windows.ERROR_DIRECTORY):
		return ErrNotDir
	case errors.Is(err, windows.ERROR_DIR_NOT_EMPTY):
		return ErrNotEmpty
	}
	return err
}

func notEmpty(err error) bool { return errors.Is(err, windows.ERROR_DIR_NOT_EMPTY) }

// linksRefused reports whether Windows refused to make a link: to this
// process (it needs Developer Mode or administrator rights), or on this
// file system (FAT).
func linksRefused(err error) bool {
	return errors.Is(err, windows.ERROR_PRIVILEGE_NOT_HELD) || errors.Is(err, windows.ERROR_NOT_SUPPORTED)
}

// toSystemTarget and fromSystemTarget convert a link target between the
// / separators a snapshot keeps (as git does) and Windows' \.
func toSystemTarget(t string) string   { return strings.ReplaceAll(t, "/", `\`) }
func fromSystemTarget(t string) string { return strings.ReplaceAll(t, `\`, "/") }

// busyWait is how long an operation on a file another program holds open
// (an editor, a virus scanner, an indexer) is retried.
var busyWait = 2 * time.Second

// isBusy reports whether err says another program holds the file: a
// sharing or lock violation, or access denied (what a rename over a file
// open without delete sharing, or one pending deletion, returns).
func isBusy(err error) bool {
	return errors.Is(err, windows.ERROR_SHARING_VIOLATION) ||
		errors.Is(err, windows.ERROR_LOCK_VIOLATION) ||
		errors.Is(err, windows.ERROR_ACCESS_DENIED)
}

// retryBusy runs op until it succeeds, fails otherwise than busy, or
// busyWait passes; then the error is ErrBusy.
func retryBusy(op func() error) error {
	start := time.Now()
	pause := time.Millisecond
	for {
		err := op()
		if err == nil || !isBusy(err) {
			return err
		}
		if time.Since(start) >= busyWait {
			return &busyError{err: err, waited: time.Since(start)}
		}
		time.Sleep(pause)
		pause = min(2*pause, 100*time.Millisecond)
	}
}

// busyError is the last error of an operation retried for busyWait.
type busyError struct {
	err    error
	waited time.Duration
}

func (e *busyError) Error() string {
	return fmt.Sprintf("%v: another program may hold it open (retried for %v)", e.err, e.waited.Round(time.Millisecond))
}

func (e *busyError) Is(target error) bool { return target == ErrBusy }
func (e *busyError) Unwrap() error        { return e.err }
