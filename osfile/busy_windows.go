package osfile

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/windows"
)

// BusyWait is how long an operation on a file another program holds open
// (an editor, a virus scanner, an indexer) is retried before it is
// reported busy.
var BusyWait = 2 * time.Second

// IsBusy reports whether err says another program holds the file: a
// sharing or lock violation, or access denied (what a rename over a file
// open without delete sharing, or one pending deletion, returns).
func IsBusy(err error) bool {
	return errors.Is(err, windows.ERROR_SHARING_VIOLATION) ||
		errors.Is(err, windows.ERROR_LOCK_VIOLATION) ||
		errors.Is(err, windows.ERROR_ACCESS_DENIED)
}

// Retry runs op until it succeeds, fails otherwise than busy, or BusyWait
// passes; then its error is also ErrBusy. Windows refuses to rename, remove
// or open a file another program holds without sharing; such holds are
// short (a scanner, an indexer), so they are waited out.
func Retry(op func() error) error {
	start := time.Now()
	pause := time.Millisecond
	for {
		err := op()
		if err == nil || !IsBusy(err) {
			return err
		}
		if time.Since(start) >= BusyWait {
			return &busyError{err: err, waited: time.Since(start)}
		}
		time.Sleep(pause)
		pause = min(2*pause, 100*time.Millisecond)
	}
}

// busyError is the last error of an operation retried for BusyWait.
type busyError struct {
	err    error
	waited time.Duration
}

func (e *busyError) Error() string {
	return fmt.Sprintf("%v: another program may hold it open (retried for %v)", e.err, e.waited.Round(time.Millisecond))
}

func (e *busyError) Is(target error) bool { return target == ErrBusy }
func (e *busyError) Unwrap() error        { return e.err }
