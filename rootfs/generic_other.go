//go:build !unix && !windows

package rootfs

import "errors"

const syncFolders = false

const openNonblock = 0

func mapErr(err error) error { return err }

func notEmpty(err error) bool { return false }

func linksRefused(err error) bool { return errors.Is(err, errors.ErrUnsupported) }

func toSystemTarget(t string) string   { return t }
func fromSystemTarget(t string) string { return t }

func retryBusy(op func() error) error { return op() }
