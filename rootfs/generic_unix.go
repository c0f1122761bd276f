//go:build unix && (!linux || portable)

package rootfs

import (
	"errors"
	"syscall"
)

// syncFolders: a rename or creation is durable once its folder is synced.
const syncFolders = true

// openNonblock keeps an open of a file swapped for a pipe from blocking.
const openNonblock = syscall.O_NONBLOCK

// mapErr gives the errors rootfs promises their names.
func mapErr(err error) error {
	switch {
	case errors.Is(err, syscall.ELOOP):
		return ErrLink
	case errors.Is(err, syscall.ENOTDIR):
		return ErrNotDir
	case errors.Is(err, syscall.EISDIR):
		return ErrIsDir
	case errors.Is(err, syscall.ENOTEMPTY):
		return ErrNotEmpty
	}
	return err
}

// notEmpty reports whether a folder removal failed because it holds
// something.
func notEmpty(err error) bool {
	return errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST)
}

// linksRefused reports whether the system refused to make a link to this
// process: never here.
func linksRefused(err error) bool { return false }

// toSystemTarget and fromSystemTarget convert a link target: unix keeps it
// as it is.
func toSystemTarget(t string) string   { return t }
func fromSystemTarget(t string) string { return t }

// retryBusy runs op: unix files are never held open against a rename.
func retryBusy(op func() error) error { return op() }
