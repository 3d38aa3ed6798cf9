package sandbox

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal makes the kernel kill a sandbox process when the test
// process dies without calling Stop.
func setParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
