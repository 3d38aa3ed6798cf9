//go:build !linux

package fluxrun

import "os/exec"

func setParentDeathSignal(*exec.Cmd) {}
