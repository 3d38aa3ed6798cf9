//go:build !linux

package plugin

import "os/exec"

// setParentDeathSignal is Linux-only; elsewhere the host's Close stops plugins.
func setParentDeathSignal(*exec.Cmd) {}
