//go:build !unix

package agents

import "os/exec"

// groupKill leaves cmd as it is: without process groups, a cancel kills the
// agent only.
func groupKill(cmd *exec.Cmd) {}
