package fluxrun

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal makes the kernel kill a controller when the test
// process dies without running its cleanups.
func setParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
