//go:build !linux

package childproc

import "os/exec"

// setParentDeathSignal is Linux-only; elsewhere Stop ends the children.
func setParentDeathSignal(*exec.Cmd) {}
