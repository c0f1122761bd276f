//go:build unix

package e2e_test

import "syscall"

// sigStop and sigCont stop and wake a process (tests of a hanging server).
const (
	sigStop = syscall.SIGSTOP
	sigCont = syscall.SIGCONT
)

// canStop reports whether a process can be stopped and woken here.
const canStop = true
