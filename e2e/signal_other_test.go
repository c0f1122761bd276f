//go:build !unix

package e2e_test

import "syscall"

// Windows cannot stop a process and wake it: the tests that need it skip.
const (
	sigStop = syscall.Signal(-1)
	sigCont = syscall.Signal(-2)
	canStop = false
)
