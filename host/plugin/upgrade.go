package plugin

import (
	"context"
	"fmt"
	"os"
	"time"
)

// A plugin is upgraded in place by installing its new binary under the
// same name by rename (copy it to a temporary name in the plugin directory,
// then mv it over the old one; a copy over a running binary fails with
// "text file busy"). The host notices the new file within
// Options.RescanInterval, hashes it and launches it while the old process
// keeps serving; once the new one answered its handshake and GetInfo with
// the same name, calls go to it, and the old process is stopped when the
// calls it was serving have returned. Operations survive: a plugin finds
// everything again from the operation ID. A file the host cannot launch (a
// protocol it does not speak, another name, a failed handshake) is refused
// with the reason, and the old process keeps serving; the file is tried
// again once it changes.

// checkUpgrade upgrades i when the file at its path is not the one its
// process was started from.
func (i *instance) checkUpgrade(ctx context.Context) {
	i.mu.Lock()
	c := i.cand // written under mu by a restart from a new file
	i.mu.Unlock()
	fi, err := os.Stat(c.Path)
	if err != nil {
		return // removed or being replaced: the running process serves on
	}
	seen := stampOf(fi)
	i.mu.Lock()
	same := !seen.valid() || seen == i.cand.stamp || seen == i.refusedStamp || i.closed
	i.mu.Unlock()
	if same {
		return
	}
	i.upgrade(ctx, c, seen)
}

// upgrade launches the file of stamp seen and, when it starts, makes it the
// plugin's process and retires the old one.
func (i *instance) upgrade(ctx context.Context, cur Candidate, seen fileStamp) {
	c := Candidate{Name: cur.Name, Path: cur.Path, stamp: seen}
	p, err := hashAndLaunch(ctx, &c, i.host.opts)
	if err != nil {
		why := err.Error()
		if se, ok := err.(*StartError); ok {
			why = se.Detail
		}
		i.mu.Lock()
		i.refusedStamp = seen
		i.upgradeRefused = fmt.Sprintf("the new %s was not loaded (%s); the version running before keeps serving", c.Path, why)
		i.mu.Unlock()
		i.log.Error("upgrade refused", "path", c.Path, "reason", why)
		return
	}
	i.mu.Lock()
	if i.closed {
		i.mu.Unlock()
		p.client.Kill()
		return
	}
	old, from := i.proc, i.info.PluginVersion
	i.cand = c
	i.refusedStamp, i.upgradeRefused = fileStamp{}, ""
	i.crashes, i.nextStart = 0, time.Time{}
	i.adopt(p)
	i.mu.Unlock()
	i.log.Info("provider upgraded in place", "from", from, "to", p.info.PluginVersion, "checksum", c.ShortChecksum())
	if old != nil {
		go i.retire(old)
	}
}

// retire stops p once the calls it is serving have returned (or after the
// call timeout, the longest any may take). New calls no longer reach it.
func (i *instance) retire(p *process) {
	p.retired.Store(true)
	deadline := time.Now().Add(i.host.opts.CallTimeout)
	for p.inflight.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	p.client.Kill()
}

// acquire returns the process to call and counts the call as in flight on
// it; release with p.inflight.Add(-1). A process being retired is not
// returned: the count is taken before the retired flag is read, so retire
// either sees the call or the call sees the flag.
func (i *instance) acquire(ctx context.Context) (*process, error) {
	for {
		p, err := i.get(ctx)
		if err != nil {
			return nil, err
		}
		p.inflight.Add(1)
		if !p.retired.Load() {
			return p, nil
		}
		p.inflight.Add(-1)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		time.Sleep(time.Millisecond) // the swap is under way
	}
}

// startFile launches the plugin for a restart: the file at its path when
// it is the one discovered or last upgraded to, else (a rename happened
// while the plugin was down) the new file, which becomes the candidate.
// Called with i.mu held.
func (i *instance) startFile(ctx context.Context) (*process, error) {
	fi, err := os.Stat(i.cand.Path)
	if err != nil || stampOf(fi) == i.cand.stamp || !stampOf(fi).valid() {
		return launch(ctx, i.cand, i.host.opts)
	}
	c := Candidate{Name: i.cand.Name, Path: i.cand.Path, stamp: stampOf(fi)}
	p, err := hashAndLaunch(ctx, &c, i.host.opts)
	if err == nil {
		i.cand = c
		i.log.Info("provider restarted from its new file", "checksum", c.ShortChecksum())
	}
	return p, err
}
