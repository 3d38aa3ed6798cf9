package plugin

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// stableAfter is how long a plugin must run before its crash count resets.
const stableAfter = time.Minute

// errHostClosed is returned by calls made after Close.
var errHostClosed = errors.New("plugin host is closed")

// instance supervises one plugin: at most one process at a time, restarted
// with exponential backoff when it dies.
type instance struct {
	host *Host
	name string // cand.Name, which never changes; read without mu
	cand Candidate
	log  hclog.Logger

	mu        sync.Mutex
	proc      *process // nil while down
	info      sdk.Info // what the last process that ran reported
	crashes   int      // in a row
	restarts  int
	nextStart time.Time
	closed    bool

	failures      int // crashes and internal errors in a row
	lastReason    string
	lastFailure   time.Time
	degradedUntil time.Time

	// live and failing mirror proc (nil once closed) and failures, written
	// under mu, so a call to a healthy running plugin (nearly every call)
	// takes no lock: with 16 callers, three lock round trips per call were
	// a contended mutex.
	live    atomic.Pointer[process]
	failing atomic.Int32

	// refusedStamp is the file an upgrade could not launch, tried again
	// once it changes; upgradeRefused says why.
	refusedStamp   fileStamp
	upgradeRefused string
}

// adopt makes p the running process and watches it for exit.
func (i *instance) adopt(p *process) {
	i.proc = p
	i.live.Store(p)
	i.info = p.info
	go i.watch(p)
}

// watch waits for p to exit. go-plugin owns the process's Wait, so exit is
// observed by polling, which costs one atomic read per tick.
func (i *instance) watch(p *process) {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for range t.C {
		if p.client.Exited() {
			i.exited(p)
			return
		}
	}
}

// exited records a crash of p (unless the host stopped it) and schedules a
// restart after the backoff.
func (i *instance) exited(p *process) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.closed || i.proc != p {
		return
	}
	i.proc = nil
	i.live.Store(nil)
	if time.Since(p.started) > stableAfter {
		i.crashes = 0
	}
	i.crashes++
	wait := i.backoff()
	i.nextStart = time.Now().Add(wait)
	crash := p.stderr.crash()
	first, _, _ := strings.Cut(crash, "\n")
	i.failed("crashed: " + orDefault(first, "exited"))
	i.log.Error("provider "+i.cand.Name+" crashed", "stack", crash, "restart_in", wait.String())
	time.AfterFunc(wait, func() { _, _ = i.get(context.Background()) })
}

func (i *instance) backoff() time.Duration {
	d := i.host.opts.MinBackoff << (i.crashes - 1)
	if d > i.host.opts.MaxBackoff || d <= 0 {
		d = i.host.opts.MaxBackoff
	}
	return d
}

// get returns the running process, starting one when the last has died and
// its backoff has passed. Callers wait for the backoff within ctx.
func (i *instance) get(ctx context.Context) (*process, error) {
	if p := i.live.Load(); p != nil {
		return p, nil
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	for {
		if i.closed {
			return nil, errHostClosed
		}
		if i.proc != nil {
			return i.proc, nil
		}
		wait := time.Until(i.nextStart)
		if wait <= 0 {
			break
		}
		i.mu.Unlock()
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			i.mu.Lock()
			return nil, ctx.Err()
		}
		i.mu.Lock()
	}
	p, err := i.startFile(ctx)
	if err != nil {
		i.crashes++
		i.nextStart = time.Now().Add(i.backoff())
		i.failed("restart failed: " + err.Error())
		i.log.Error("restart failed", "error", err)
		return nil, err
	}
	i.restarts++
	i.log.Info("provider restarted", "restarts", i.restarts)
	i.adopt(p)
	return p, nil
}

// connectionLost handles a call whose connection broke: the process is
// dying or unusable, so make sure it is gone and let watch restart it.
func (i *instance) connectionLost(p *process) string {
	deadline := time.Now().Add(2 * time.Second)
	for !p.client.Exited() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !p.client.Exited() {
		p.forceKill()
		for !p.client.Exited() && time.Now().Before(deadline.Add(2*time.Second)) {
			time.Sleep(10 * time.Millisecond)
		}
	}
	i.exited(p)
	crash := p.stderr.crash()
	first, _, _ := strings.Cut(crash, "\n")
	return first
}

// healthCheck pings the running process; one that does not answer in time
// is killed and so restarted.
func (i *instance) healthCheck() {
	i.mu.Lock()
	p := i.proc
	i.mu.Unlock()
	if p == nil {
		return
	}
	done := make(chan error, 1)
	go func() { done <- p.rpc.Ping() }()
	select {
	case err := <-done:
		if err == nil {
			return
		}
		i.log.Warn("health check failed; restarting", "error", err)
	case <-time.After(min(5*time.Second, i.host.opts.HealthInterval)):
		i.log.Warn("health check timed out; restarting")
	}
	p.forceKill()
}

func (i *instance) describe() Plugin {
	i.mu.Lock()
	defer i.mu.Unlock()
	out := Plugin{
		Name: i.cand.Name, Path: i.cand.Path, Checksum: hexSum(i.cand.Checksum),
		Info: i.info, Restarts: i.restarts, UpgradeRefused: i.upgradeRefused,
	}
	out.Health, out.LastError = i.health()
	if i.proc != nil {
		out.PID = i.proc.pid
	}
	return out
}

func (i *instance) close() {
	i.mu.Lock()
	i.closed = true
	p := i.proc
	i.proc = nil
	i.live.Store(nil)
	i.mu.Unlock()
	if p != nil {
		p.client.Kill()
	}
}
