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
	opts Options
	// mu guards insts and the skipped files: the rescan adds plugins
	// installed after the start (newplugins.go).
	mu    sync.RWMutex
	insts map[string]*instance
	// notPlugins are the files of the last scan that are no plugin; failed
	// are the plugin files that did not start, by path, with the file they
	// were (tried again once it changes).
	notPlugins []Skipped
	failed     map[string]failedStart
	stop       chan struct{}
	wg         sync.WaitGroup
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
	h := &Host{opts: opts, insts: map[string]*instance{}, notPlugins: skipped, failed: map[string]failedStart{}, stop: make(chan struct{})}
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
		h.add(c, started[i], errs[i])
	}
	h.wg.Add(1)
	go h.healthLoop(context.WithoutCancel(ctx)) // ctx bounds the start only
	return h, nil
}

// Plugins lists the loaded plugins by name.
func (h *Host) Plugins() []Plugin {
	insts := h.instances()
	out := make([]Plugin, 0, len(insts))
	for _, inst := range insts {
		out = append(out, inst.describe())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Skipped lists the files in the plugin directory that were not loaded,
// by path.
func (h *Host) Skipped() []Skipped {
	h.mu.RLock()
	out := append([]Skipped{}, h.notPlugins...)
	for _, f := range h.failed {
		out = append(out, f.skipped)
	}
	h.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// instances are the loaded plugins' instances, in no order.
func (h *Host) instances() []*instance {
	h.mu.RLock()
	defer h.mu.RUnlock()
	out := make([]*instance, 0, len(h.insts))
	for _, inst := range h.insts {
		out = append(out, inst)
	}
	return out
}

// Provider returns the supervised provider called name. Calls through it get
// the host's deadline, and a plugin that crashed is restarted.
func (h *Host) Provider(name string) (*Supervised, error) {
	h.mu.RLock()
	inst, ok := h.insts[name]
	h.mu.RUnlock()
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
	for _, inst := range h.instances() {
		inst.close()
	}
}

// healthLoop pings every running plugin (one that does not answer is
// killed, and its watcher restarts it like any crashed plugin), loads a
// new file installed over a plugin (upgrade.go) and a plugin installed
// under a new name (newplugins.go).
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
			for _, inst := range h.instances() {
				inst.healthCheck()
			}
		case <-rescan.C:
			for _, inst := range h.instances() {
				inst.checkUpgrade(ctx)
			}
			h.loadNew(ctx)
		}
	}
}

func hexSum(b []byte) string { return hex.EncodeToString(b) }
