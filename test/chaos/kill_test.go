package chaos

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// pluginProgram is the local provider's program in bin/plugins.
const pluginProgram = "kubeopera-provider-local"

// kill SIGKILLs target and brings it back: the server, the controller and
// PostgreSQL are started again by the test (as their pods would be); the
// controller's plugin host restarts its plugin itself; a local cluster's
// kube-apiserver is started again with its own command line.
func (p *platform) kill(ctx context.Context, target string, reqs []*request) error {
	switch target {
	case "server", "controller":
		c := map[string]*component{"server": p.server, "controller": p.controller}[target]
		c.kill()
		return c.start(ctx)
	case "postgres":
		p.pg.kill()
		return p.pg.start(ctx)
	case "plugin":
		return p.killPlugin(ctx)
	case "apiserver":
		return p.killAPIServer(ctx, reqs)
	}
	return fmt.Errorf("unknown target %q", target)
}

// killPlugin kills the controller's local plugin and waits until its host
// has started a new one.
func (p *platform) killPlugin(ctx context.Context) error {
	var victim int
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		if pids := children(p.controller.pid(), pluginProgram); len(pids) > 0 {
			victim = pids[0]
		}
		return victim != 0, nil
	})
	if err != nil {
		return fmt.Errorf("no %s process under the controller: %w", pluginProgram, err)
	}
	if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
		return err
	}
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		for _, pid := range children(p.controller.pid(), pluginProgram) {
			if pid != victim && running(pid) {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("the controller did not restart its plugin after a SIGKILL: %w", err)
	}
	return nil
}

// killAPIServer kills the kube-apiserver of one of this round's clusters
// once one runs, else of any local cluster; within a minute (a loaded
// machine may take that long to start the first cluster's).
func (p *platform) killAPIServer(ctx context.Context, reqs []*request) error {
	var dir string
	var pid int
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		var prefer []string
		reqMu.Lock()
		defer reqMu.Unlock()
		for _, r := range reqs {
			if r.id != "" {
				prefer = append(prefer, r.id)
			}
		}
		dir, pid = livingAPIServer(p.env.LocalClusters, prefer)
		return pid != 0, nil
	})
	if err != nil {
		return fmt.Errorf("no local cluster's kube-apiserver ran: %w", err)
	}
	return killAndRestartAPIServer(dir, pid)
}
