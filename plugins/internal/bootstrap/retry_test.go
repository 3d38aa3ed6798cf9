package bootstrap

import (
	"regexp"
	"strings"
	"testing"
)

// A first boot meets a mirror, the snap store or (once member 0 unmapped
// the endpoint) an API behind the internal NLB that fails for a moment:
// each of those calls is tried again, and member 0 still reports ready.
func TestTransientFailuresAreRetried(t *testing.T) {
	r := newRelay(t)
	res := r.run(node{name: "cp0", variant: "cp0", ip: "10.0.1.10",
		env: []string{"STUB_FLAKY=apt-get snap kubectl-apply kubectl-create"}})
	requireExit(t, res, "cp0", 0)
	if m := r.marker(MemberParameter(testClusterID, 0)); m.State != Ready {
		t.Fatalf("member 0 marker = %+v, want ready after retries", m)
	}
	counts := map[string]int{}
	for _, e := range r.events() {
		switch {
		case e.name == "snap":
			counts["snap install"]++
		case e.name == "apt-get" && strings.HasSuffix(e.args, " update"):
			counts["apt-get update"]++
		case e.name == "kubectl" && strings.Contains(e.args, " apply -f ") && strings.HasSuffix(e.args, "/cni.yaml"):
			counts["kubectl apply (the CNI)"]++
		case e.name == "kubectl" && strings.Contains(e.args, " create token "):
			counts["kubectl create token"]++
		}
	}
	// apt-get update runs twice (Ubuntu's lists, then pkgs.k8s.io's): one
	// more for the failed try.
	for what, want := range map[string]int{"snap install": 2, "apt-get update": 3, "kubectl apply (the CNI)": 2, "kubectl create token": 2} {
		if counts[what] != want {
			t.Errorf("%s ran %d times, want %d (one failure, then a retry)", what, counts[what], want)
		}
	}
}

var curlRE = regexp.MustCompile(`(?m)^.*\bcurl\s+-.*$`)

// curl's --retry alone retries only some failures (timeouts, 5xx), not a
// refused connection or a 4xx from a mirror: every download retries all.
func TestEveryCurlRetriesAllErrors(t *testing.T) {
	for name, s := range scripts(t) {
		calls := curlRE.FindAllString(s, -1)
		if len(calls) == 0 {
			t.Fatalf("%s: no curl call found; the test no longer sees the downloads", name)
		}
		for _, c := range calls {
			if !strings.Contains(c, "--retry-all-errors") {
				t.Errorf("%s: curl without --retry-all-errors: %s", name, strings.TrimSpace(c))
			}
		}
	}
}
