package fluxsync

import (
	"context"
	"fmt"
	"os"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ochestra-tech/kubeopera/internal/fluxrun"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

// One target cluster with the Flux CRDs for the whole package; tests that
// need the controllers start them (fluxrun needs a test for its cleanup).
var (
	target *sandbox.Sandbox
	kube   client.Client
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ctx := context.Background()
	crds, err := fluxrun.CRDDirs(ctx)
	if err == nil {
		target, err = sandbox.Start(ctx, sandbox.Options{CRDDirs: crds})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fluxsync tests: start a target with the Flux CRDs:", err)
		return 1
	}
	defer target.Stop()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		panic(err)
	}
	if err := AddToScheme(scheme); err != nil {
		panic(err)
	}
	if kube, err = client.New(target.Config, client.Options{Scheme: scheme}); err != nil {
		fmt.Fprintln(os.Stderr, "fluxsync tests: client:", err)
		return 1
	}
	return m.Run()
}
