package osfile

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// MkdirPrivate makes folder dir and its missing parents; a folder it makes
// is for this user alone: a protected access list granting the user full
// control, inherited by everything made in it (what 0700 is on unix). An
// existing dir keeps its access list.
func MkdirPrivate(dir string) error {
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return restrictToUser(dir)
}

// restrictToUser gives dir a protected access list with one entry: full
// control for this process's user, inherited by files and folders below.
func restrictToUser(dir string) error {
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return fmt.Errorf("restrict %s to its user: %w", dir, err)
	}
	sd, err := windows.SecurityDescriptorFromString("D:P(A;OICI;FA;;;" + tu.User.Sid.String() + ")")
	if err != nil {
		return fmt.Errorf("restrict %s to its user: %w", dir, err)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return fmt.Errorf("restrict %s to its user: %w", dir, err)
	}
	err = windows.SetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil)
	if err != nil {
		return fmt.Errorf("restrict %s to its user: %w", dir, err)
	}
	return nil
}
