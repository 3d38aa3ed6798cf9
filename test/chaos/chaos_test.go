// Package chaos is the crash test of the whole platform (make test-chaos):
// the real server and controller as separate processes on one PostgreSQL
// and one management cluster, with the local provider. Each round sends
// provisions or a teardown, SIGKILLs one part at a random moment in its
// first 20 s, restarts it, and classifies every request once its cluster
// settles or the wait ends. Any cluster stuck, lost, duplicated or leaked
// fails the test.
package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const envChaos = "KUBEOPERA_TEST_CHAOS"

// targets are what a round may kill: the server, the controller, the
// controller's local plugin process, PostgreSQL, and a local cluster's
// kube-apiserver. Each block of len(targets) rounds kills each once.
var targets = []string{"server", "controller", "plugin", "postgres", "apiserver"}

// killWindow is when in a round the kill falls.
const killWindow = 20 * time.Second

func TestChaosEveryRequestEndsReadyFailedOrGone(t *testing.T) {
	if os.Getenv(envChaos) != "1" {
		t.Skipf("set %s=1 to run the crash test (make test-chaos): it takes about 3 minutes a round", envChaos)
	}
	rounds := envInt(t, "KUBEOPERA_CHAOS_ROUNDS", 30)
	wait, err := time.ParseDuration(envOr("KUBEOPERA_CHAOS_WAIT", "3m"))
	if err != nil {
		t.Fatalf("KUBEOPERA_CHAOS_WAIT: %v", err)
	}
	seed := uint64(envInt(t, "KUBEOPERA_CHAOS_SEED", int(time.Now().UnixNano()%1e9)))
	t.Logf("seed %d (KUBEOPERA_CHAOS_SEED replays the choices), %d rounds, wait %s", seed, rounds, wait)
	rng := rand.New(rand.NewPCG(seed, seed))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := startPlatform(ctx, t)
	fluxCtx, stopFlux := context.WithCancel(ctx)
	fluxDone := make(chan struct{})
	go func() { p.env.RunFlux(fluxCtx, p.mc, func(string, ...any) {}); close(fluxDone) }()
	t.Cleanup(func() { stopFlux(); <-fluxDone }) // before the environment stops
	tbl := table{}
	order := killOrder(rng, rounds, chosenTargets(t))
	for i, target := range order {
		reqs := p.round(ctx, t, rng, i, target)
		for _, r := range p.settle(ctx, t, reqs, wait) {
			tbl.add(target, r.out)
			t.Logf("round %d (%s): %s %s -> %s %s [answer: %s]", i, target, r.kind, r.name, r.out, r.detail, r.answer)
		}
	}
	p.leftovers(ctx, t, tbl)
	var b strings.Builder
	tbl.print(&b)
	t.Logf("kill target x outcome after %d rounds:\n%s", rounds, b.String())
	if n := tbl.bad(); n > 0 {
		t.Errorf("%d requests ended stuck, lost, duplicated or leaked (see the rounds above)", n)
	}
}

// killOrder spreads the targets evenly: every block of len(among)
// rounds is a random permutation of them.
func killOrder(rng *rand.Rand, rounds int, among []string) []string {
	var out []string
	for len(out) < rounds {
		for _, i := range rng.Perm(len(among)) {
			out = append(out, among[i])
		}
	}
	return out[:rounds]
}

// chosenTargets are KUBEOPERA_CHAOS_TARGETS (comma-separated), to rerun
// some targets only; every target by default.
func chosenTargets(t *testing.T) []string {
	v := os.Getenv("KUBEOPERA_CHAOS_TARGETS")
	if v == "" {
		return targets
	}
	var out []string
	for _, name := range strings.Split(v, ",") {
		if !slices.Contains(targets, name) {
			t.Fatalf("KUBEOPERA_CHAOS_TARGETS: %q is none of %s", name, strings.Join(targets, ", "))
		}
		out = append(out, name)
	}
	return out
}

// round sends its requests and, at a random moment in the first
// killWindow, kills target and restarts it. A teardown when three
// clusters are Ready (so the machine is not filled) or on every other
// round with one; else one to three provisions.
func (p *platform) round(ctx context.Context, t *testing.T, rng *rand.Rand, i int, target string) []*request {
	ready := p.readyClusters(ctx)
	var reqs []*request
	if len(ready) >= 3 || (i%2 == 1 && len(ready) > 0) {
		r := ready[rng.IntN(len(ready))]
		reqs = append(reqs, &request{kind: "teardown", name: r.name, id: r.id})
	} else {
		for k := range 1 + rng.IntN(3) {
			reqs = append(reqs, &request{kind: "provision", name: fmt.Sprintf("chaos-r%02d-%d", i, k)})
		}
	}
	for _, r := range reqs {
		r.round, r.target = i, target
	}
	// Requests start at random moments in the window too, so some of them
	// are in flight when the kill falls.
	killAt := time.Duration(rng.Int64N(int64(killWindow)))
	var wg sync.WaitGroup
	for _, r := range reqs {
		sendAt := time.Duration(rng.Int64N(int64(killWindow)))
		wg.Go(func() {
			time.Sleep(sendAt)
			if r.kind == "teardown" {
				p.teardown(ctx, r)
			} else {
				p.provision(ctx, r)
			}
		})
	}
	wg.Go(func() {
		time.Sleep(killAt) // the random moment is the point: nothing to await
		if err := p.kill(ctx, target, reqs); err != nil {
			t.Errorf("round %d: kill and restart %s: %v", i, target, err)
		}
		t.Logf("round %d: killed and restarted %s at +%s", i, target, killAt.Round(time.Millisecond))
	})
	wg.Wait()
	return reqs
}

// readyClusters are the rows whose HostCluster is Ready.
func (p *platform) readyClusters(ctx context.Context) []row {
	w, err := p.observe(ctx)
	if err != nil {
		return nil
	}
	var out []row
	for _, r := range w.rows {
		if o, _ := classify(request{kind: "provision", name: r.name, id: r.id}, w); o == outReady {
			out = append(out, r)
		}
	}
	return out
}

// settled is a request with its outcome.
type settled struct {
	*request
	out    outcome
	detail string
}

// settle classifies reqs until every one has a fine outcome or within has
// passed, and returns the last classification.
func (p *platform) settle(ctx context.Context, t *testing.T, reqs []*request, within time.Duration) []settled {
	deadline := time.Now().Add(within)
	for {
		out, err := p.classifyAll(ctx, reqs)
		if err == nil && (allFine(out) || time.Now().After(deadline)) {
			return out
		}
		if err != nil && time.Now().After(deadline) {
			t.Fatalf("cannot observe the platform after %s: %v", within, err)
		}
		time.Sleep(2 * time.Second)
	}
}

func (p *platform) classifyAll(ctx context.Context, reqs []*request) ([]settled, error) {
	w, err := p.observe(ctx)
	if err != nil {
		return nil, err
	}
	var out []settled
	for _, r := range reqs {
		o, detail := classify(*r, w)
		out = append(out, settled{request: r, out: o, detail: detail})
	}
	return out, nil
}

func allFine(s []settled) bool {
	for _, r := range s {
		if r.out.bad() {
			return false
		}
	}
	return true
}

// leftovers looks at the whole platform once the rounds are done: every
// cluster that exists is classified again (a later round's kill may have
// harmed an earlier round's cluster), and every local cluster directory on
// the machine whose HostCluster is gone is leaked. Bad outcomes count
// under "end".
func (p *platform) leftovers(ctx context.Context, t *testing.T, tbl table) {
	w, err := p.observe(ctx)
	if err != nil {
		t.Errorf("observe the platform at the end: %v", err)
		return
	}
	names := map[string]bool{}
	for _, r := range w.rows {
		names[r.name] = true
	}
	have := map[string]bool{}
	for _, hc := range w.hcs {
		have[hc.Name], names[hc.Spec.DisplayName] = true, true
	}
	for _, name := range keys(names) {
		if o, detail := classify(request{kind: "provision", name: name}, w); o.bad() {
			tbl.add("end", o)
			t.Logf("end: cluster %s is %s: %s", name, o, detail)
		}
	}
	entries, _ := os.ReadDir(p.env.LocalClusters)
	for _, e := range entries {
		if !have[e.Name()] {
			tbl.add("end", outLeaked)
			t.Logf("end: local cluster %s has no HostCluster but its directory is left", e.Name())
		}
	}
}

func envInt(t *testing.T, key string, def int) int {
	v := os.Getenv(key)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a whole number", key, v)
	}
	return n
}
