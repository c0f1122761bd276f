package osfile

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// Identity returns the ID of open file f.
func Identity(f *os.File) (ID, error) {
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info); err != nil {
		return ID{}, fmt.Errorf("identify %s: %w", f.Name(), err)
	}
	return ID{Dev: uint64(info.VolumeSerialNumber), Ino: uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow)}, nil
}
