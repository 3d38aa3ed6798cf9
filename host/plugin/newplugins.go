package plugin

import (
	"context"
	"sync"
)

// A plugin installed after the host started, under a name it does not run
// yet, is loaded by the rescan (Options.RescanInterval) as the ones found
// at the start were: hashed, launched, listed by Plugins and served by
// Provider, without a restart. A new file that does not start is listed by
// Skipped with the reason, and tried again once the file changes. Files
// that are no plugin are listed as the last scan found them.

// failedStart is a plugin file that did not start, and the file it was.
type failedStart struct {
	stamp   fileStamp
	skipped Skipped
}

// add makes c's started process a plugin of h, or records why it did not
// start.
func (h *Host) add(c Candidate, p *process, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if se, ok := err.(*StartError); ok {
		h.failed[c.Path] = failedStart{stamp: c.stamp, skipped: Skipped{Path: c.Path, Reason: se.Reason, Detail: se.Detail}}
		return
	}
	delete(h.failed, c.Path)
	inst := &instance{host: h, name: c.Name, cand: c, log: h.opts.Logger.Named(c.Name)}
	inst.adopt(p)
	h.insts[c.Name] = inst
}

// loadNew scans the directory and starts, in parallel, each plugin file
// whose name the host does not run and that did not already fail as it is.
func (h *Host) loadNew(ctx context.Context) {
	cands, notPlugins, err := discover(h.opts.Dir)
	if err != nil {
		return // the directory went away: the plugins running serve on
	}
	h.mu.Lock()
	h.notPlugins = notPlugins
	var fresh []Candidate
	for _, c := range cands {
		if _, running := h.insts[c.Name]; running {
			continue
		}
		if f, ok := h.failed[c.Path]; ok && (f.stamp == c.stamp || !c.stamp.valid()) {
			continue
		}
		fresh = append(fresh, c)
	}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range fresh {
		wg.Go(func() {
			p, err := hashAndLaunch(ctx, &c, h.opts)
			if se, ok := err.(*StartError); ok {
				h.opts.Logger.Error("new provider not loaded", "path", c.Path, "reason", se.Reason, "detail", se.Detail)
			} else {
				h.opts.Logger.Info("new provider loaded", "name", c.Name, "path", c.Path, "checksum", c.ShortChecksum())
			}
			h.add(c, p, err)
		})
	}
	wg.Wait()
}
