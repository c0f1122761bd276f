package osfile

// SyncDir does nothing on Windows: it refuses to sync a folder ("Access is
// denied"), and NTFS journals folder changes itself.
func SyncDir(dir string) {}
