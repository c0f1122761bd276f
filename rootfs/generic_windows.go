package rootfs

import (
	"errors"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/osfile"
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

// retryBusy runs op, retrying while another program holds the file.
func retryBusy(op func() error) error { return osfile.Retry(op) }
