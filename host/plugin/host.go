package plugin

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/hostenv"
)

// Options configure a Host. Zero values take the defaults shown.
type Options struct {
	// Dir holds the plugin binaries.
	Dir    string
	Logger hclog.Logger
	// StartTimeout bounds a plugin's start and handshake
	// (hostenv.StartTimeout).
	StartTimeout time.Duration
	// CallTimeout bounds every call unless the caller's context is shorter
	// (hostenv.CallTimeout).
	CallTimeout time.Duration
	// HealthInterval is how often running plugins are pinged (10s); a ping
	// that takes longer than this (or 5s) counts as a failure.
	HealthInterval time.Duration
	// MinBackoff and MaxBackoff bound the wait before restarting a crashed
	// plugin; it doubles with each crash in a row (250ms, 30s).
	MinBackoff, MaxBackoff time.Duration
	// PassEnv names host environment variables passed to every plugin on
	// top of hostenv.BaseEnv (a trailing * makes a prefix); nil reads
	// KUBEOPERA_PLUGIN_PASS_ENV. See hostenv.PluginEnv for all a plugin
	// receives.
	PassEnv []string
	// RescanInterval is how often each plugin's file is looked at for a
	// new version installed by rename (2s), which is then loaded in place.
	RescanInterval time.Duration
	// DegradedAfter is how many failures in a row (crashes, panics,
	// internal errors) mark a plugin degraded (3). A degraded plugin gets
	// no calls until its backoff has passed; they fail at once with the
	// last reason instead.
	DegradedAfter int
}

// DefaultDir is where plugins are looked for when neither a flag nor
// KUBEOPERA_PLUGIN_DIR says otherwise.
const DefaultDir = "bin/plugins"

// DirFromEnv returns KUBEOPERA_PLUGIN_DIR, or DefaultDir.
func DirFromEnv() string {
	if d := os.Getenv("KUBEOPERA_PLUGIN_DIR"); d != "" {
		return d
	}
	return DefaultDir
}

func (o *Options) defaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&o.StartTimeout, hostenv.StartTimeout)
	def(&o.CallTimeout, hostenv.CallTimeout)
	def(&o.HealthInterval, 10*time.Second)
	def(&o.MinBackoff, 250*time.Millisecond)
	def(&o.MaxBackoff, 30*time.Second)
	def(&o.RescanInterval, 2*time.Second)
	if o.PassEnv == nil {
		o.PassEnv = hostenv.PassEnvFromHost()
	}
	if o.DegradedAfter == 0 {
		o.DegradedAfter = 3
	}
	if o.Logger == nil {
		o.Logger = hclog.New(&hclog.LoggerOptions{Name: "plugins", Output: os.Stderr, Level: hclog.Info})
	}
}

// Host runs the provider plugins of one directory.
type Host struct {
	opts    Options
	insts   map[string]*instance
	skipped []Skipped
	stop    chan struct{}
	wg      sync.WaitGroup
}

// Plugin describes a loaded plugin.
type Plugin struct {
	Name     string
	Path     string
	Checksum string // SHA-256, hex
	Info     sdk.Info
	// PID is the plugin's process ID; 0 while a crashed plugin waits to be
	// restarted.
	PID      int
	Restarts int
	// Health is Degraded after repeated failures; LastError then says how
	// many, when the last was, and why.
	Health    Health
	LastError string
	// UpgradeRefused says why a new file installed at Path was not loaded
	// (the version running before keeps serving); "" when none was refused.
	UpgradeRefused string
}

// Open discovers the plugins in opts.Dir and starts every one of them in
// parallel. Files that cannot be used are listed by Skipped. Open fails only
// when the directory cannot be read.
func Open(ctx context.Context, opts Options) (*Host, error) {
	opts.defaults()
	cands, skipped, err := discover(opts.Dir)
	if err != nil {
		return nil, err
	}
	h := &Host{opts: opts, insts: map[string]*instance{}, skipped: skipped, stop: make(chan struct{})}
	started := make([]*process, len(cands))
	errs := make([]error, len(cands))
	var wg sync.WaitGroup
	for i := range cands {
		wg.Add(1)
		go func() {
			defer wg.Done()
			started[i], errs[i] = hashAndLaunch(ctx, &cands[i], opts)
		}()
	}
	wg.Wait()
	for i, c := range cands {
		if se, ok := errs[i].(*StartError); ok {
			h.skipped = append(h.skipped, Skipped{Path: c.Path, Reason: se.Reason, Detail: se.Detail})
			continue
		}
		inst := &instance{host: h, name: c.Name, cand: c, log: opts.Logger.Named(c.Name)}
		inst.adopt(started[i])
		h.insts[c.Name] = inst
	}
	sort.Slice(h.skipped, func(i, j int) bool { return h.skipped[i].Path < h.skipped[j].Path })
	h.wg.Add(1)
	go h.healthLoop(context.WithoutCancel(ctx)) // ctx bounds the start only
	return h, nil
}

// Plugins lists the loaded plugins by name.
func (h *Host) Plugins() []Plugin {
	out := make([]Plugin, 0, len(h.insts))
	for _, inst := range h.insts {
		out = append(out, inst.describe())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Skipped lists the files in the plugin directory that were not loaded.
func (h *Host) Skipped() []Skipped { return h.skipped }

// Provider returns the supervised provider called name. Calls through it get
// the host's deadline, and a plugin that crashed is restarted.
func (h *Host) Provider(name string) (*Supervised, error) {
	inst, ok := h.insts[name]
	if !ok {
		return nil, fmt.Errorf("no provider plugin %q in %s (see 'kubeopera plugins list')", name, h.opts.Dir)
	}
	return &Supervised{inst: inst}, nil
}

// Close stops every plugin process and waits for them to exit.
func (h *Host) Close() {
	select {
	case <-h.stop:
		return
	default:
	}
	close(h.stop)
	h.wg.Wait()
	for _, inst := range h.insts {
		inst.close()
	}
}

// healthLoop pings every running plugin (one that does not answer is
// killed, and its watcher restarts it like any crashed plugin) and loads a
// new file installed over a plugin (upgrade.go).
func (h *Host) healthLoop(ctx context.Context) {
	defer h.wg.Done()
	t := time.NewTicker(h.opts.HealthInterval)
	defer t.Stop()
	rescan := time.NewTicker(h.opts.RescanInterval)
	defer rescan.Stop()
	ctx, cancel := context.WithCancel(ctx) // ends upgrades under way on Close
	defer cancel()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
			for _, inst := range h.insts {
				inst.healthCheck()
			}
		case <-rescan.C:
			for _, inst := range h.insts {
				inst.checkUpgrade(ctx)
			}
		}
	}
}

func hexSum(b []byte) string { return hex.EncodeToString(b) }
