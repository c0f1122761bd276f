package commands

import (
	"io/fs"
	"os"
)

// userTag names this user's folder: the temporary folder is the user's own
// on Windows (%LOCALAPPDATA%\Temp), so no tag is needed.
func userTag() string { return os.Getenv("USERNAME") }

// ownerOnly: the temporary folder Windows gives a user is closed to other
// users, and so is what is made in it.
func ownerOnly(dir string, fi fs.FileInfo) error { return nil }
