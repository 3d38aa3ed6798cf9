// Command pause is the pod sandbox's process on the test node (what
// registry.k8s.io/pause is elsewhere, which no registry here can serve): it
// holds the pod's namespaces and exits on SIGTERM or SIGINT. As PID 1 of
// its pod it also reaps orphans, which are re-parented to it.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for s := range sigs {
		if s != syscall.SIGCHLD {
			return
		}
		for {
			pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
