package osfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
)

// ErrBusy is the error (within others) of an operation on a file another
// program held open for longer than BusyWait (Windows).
var ErrBusy = errors.New("another program holds it open")

// ReadFile reads path, letting other processes rename or remove it
// meanwhile (os.ReadFile does not, on Windows).
func ReadFile(path string) ([]byte, error) {
	var f *os.File
	if err := Retry(func() (err error) { f, err = Open(path); return err }); err != nil {
		return nil, err
	}
	defer f.Close()
	var size int64
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	data := make([]byte, 0, size+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// Rename is os.Rename, retried while another program holds either file.
// On Windows a file open elsewhere (with delete sharing, as Open shares it)
// can be replaced, as on unix.
func Rename(oldpath, newpath string) error {
	return Retry(func() error { return rename(oldpath, newpath) })
}

// Remove is os.Remove, retried while another program holds the file. On
// Windows the name goes at once even while the file is open elsewhere
// (with delete sharing, as Open shares it), as on unix.
func Remove(path string) error {
	return Retry(func() error { return remove(path) })
}

// WriteFileAtomic writes data to path through a temp file in the same folder and
// a rename, so readers see the old file or the new one, never a torn one:
// the one helper for the store's own small files (format, indexes, the
// journal's view, the stat cache, the damaged list) and agents' settings
// files. The file gets mode perm.
// With sync it fsyncs the file and its folder.
func WriteFileAtomic(path string, data []byte, perm os.FileMode, sync bool) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if sync {
		if err = f.Sync(); err != nil {
			return err
		}
	}
	if perm != 0o600 { // CreateTemp made it 0600 already
		if err = f.Chmod(perm); err != nil {
			return err
		}
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = Rename(tmp, path); err != nil {
		return err
	}
	if sync {
		SyncDir(dir)
	}
	return nil
}
