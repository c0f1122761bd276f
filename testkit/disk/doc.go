// Package disk gives tests file systems that misbehave the way real disks
// do: a small one that fills up (a tmpfs of a few megabytes mounted on a
// temporary folder), a folder that cannot be written (a read-only bind
// mount of it), and a filler that leaves a chosen number of bytes free.
// Mounting needs root (as the test machines run); elsewhere the tests that
// need it are skipped with that reason.
package disk
