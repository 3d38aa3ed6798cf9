package childproc

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal makes the kernel kill the child when the test process
// dies without stopping it (a panic, a timeout, SIGKILL).
func setParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
