// Package osfile holds what differs between operating systems for one open
// file of the store: its advisory lock (flock on unix; LockFileEx on Windows,
// on one byte far past the data so that readers are never blocked), its
// identity on its volume (device and inode; volume serial and file index), and
// how it is opened (on Windows with delete sharing, so that another process may
// rename or remove it while it is read).
package osfile
