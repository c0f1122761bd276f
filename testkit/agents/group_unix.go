//go:build unix

package agents

import (
	"os/exec"
	"syscall"
)

// groupKill makes cmd the leader of a process group that is killed whole
// when cmd is cancelled.
func groupKill(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
