package controller

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

// A provider kubeconfig whose credential expires (an EKS token) is replaced
// through the plugin before it runs out, again and again, while the cluster
// sits in a later phase: the stored Secret always holds a credential that
// is still valid.
func TestExpiringKubeconfigIsRefreshedBeforeItRunsOut(t *testing.T) {
	ctx := context.Background()
	target, err := sandbox.Start(ctx, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer target.Stop()
	const ttl, before = 3 * time.Second, 2 * time.Second
	t.Setenv("TESTCLOUD_KUBECONFIG_TTL", ttl.String())
	e := newEnv(t, 1, target.Kubeconfig)
	e.halt()
	e.refreshBefore = before
	e.start()
	e.credential("cred-1")
	if err := e.c.Create(ctx, provisioned("eks-1")); err != nil {
		t.Fatal(err)
	}
	e.waitPhase("eks-1", v1.PhaseBootstrappingFlux, 20*time.Second)

	calls := func() int {
		b, _ := os.ReadFile(filepath.Join(os.Getenv("TESTCLOUD_STATE"), "kubeconfig"))
		return strings.Count(string(b), "\n")
	}
	first := calls()
	var seen []string
	deadline := time.Now().Add(8 * time.Second)
	for time.Now().Before(deadline) {
		var s corev1.Secret
		if err := e.c.Get(ctx, client.ObjectKey{Namespace: v1.Namespace, Name: v1.KubeconfigSecretName("eks-1")}, &s); err != nil {
			t.Fatal(err)
		}
		raw := s.Annotations[v1.KubeconfigExpiresAnnotation]
		expires, err := time.Parse(time.RFC3339, raw)
		if err != nil {
			t.Fatalf("expiry annotation %q: %v", raw, err)
		}
		// RFC 3339 keeps whole seconds: allow that much rounding.
		if time.Until(expires) < -time.Second {
			t.Fatalf("stored kubeconfig expired at %s and was not refreshed", raw)
		}
		if string(s.Data[v1.KubeconfigSecretKey]) != string(target.Kubeconfig) {
			t.Fatal("refreshed Secret does not hold the provider's kubeconfig")
		}
		if len(seen) == 0 || seen[len(seen)-1] != raw {
			seen = append(seen, raw)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Every (ttl - before) = 1s a refresh: 8 s give about 8; ask for 4.
	if n := calls() - first; n < 4 || len(seen) < 4 {
		t.Errorf("in 8s with a %s credential refreshed %s before expiry: %d Kubeconfig calls, %d distinct expiries %v; want at least 4",
			ttl, before, n, len(seen), seen)
	}
}
