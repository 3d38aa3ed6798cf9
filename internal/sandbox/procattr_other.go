//go:build !linux

package sandbox

import "os/exec"

// setParentDeathSignal is Linux-only; elsewhere Stop ends the processes.
func setParentDeathSignal(*exec.Cmd) {}
