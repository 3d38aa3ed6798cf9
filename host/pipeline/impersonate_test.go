package pipeline

import (
	"context"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

// A Ready cluster's message says when KubeOpera's credential may not
// impersonate, which the kubectl proxy needs, and says nothing when it may.
func TestImpersonateAdviceSaysWhenTheCredentialMayNotImpersonate(t *testing.T) {
	ctx := context.Background()
	sb, err := sandbox.Start(ctx, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Stop() })
	if got := impersonateAdvice(ctx, sb.Client); got != "" {
		t.Errorf("a system:masters credential: advice %q, want none", got)
	}
	// The same API server, as a user RBAC grants nothing.
	cfg := rest.CopyConfig(sb.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "connected-without-impersonate"}
	weak, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := impersonateAdvice(ctx, weak)
	for _, want := range []string{"may not impersonate users and groups", "kubectl through KubeOpera"} {
		if !strings.Contains(got, want) {
			t.Errorf("advice %q does not say %q", got, want)
		}
	}
}
