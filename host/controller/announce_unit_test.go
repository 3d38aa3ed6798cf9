package controller

import (
	"context"
	"strings"
	"testing"

	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

// noPipeline stands for the shared pipeline; announcePipeline never runs it.
type noPipeline struct{}

func (noPipeline) Run(context.Context, *v1.HostCluster, []byte) (v1.Phase, string, error) {
	return v1.PhaseReady, "", nil
}

// A cluster just reached is stored as BootstrappingFlux before the pipeline
// starts (its first step can take minutes); a cluster already in the
// pipeline, or a controller without one, writes nothing here.
func TestAnnouncePipelineWritesBootstrappingFluxBeforeThePipelineRuns(t *testing.T) {
	cases := []struct {
		name      string
		phase     v1.Phase
		pipeline  Pipeline
		announced bool
	}{
		{"access just validated", v1.PhaseValidatingAccess, noPipeline{}, true},
		{"first reconcile", v1.PhasePending, noPipeline{}, true},
		{"just provisioned", v1.PhaseProvisioning, noPipeline{}, true},
		{"already in the pipeline", v1.PhaseGeneratingGitOpsTree, noPipeline{}, false},
		{"ready", v1.PhaseReady, noPipeline{}, false},
		{"no pipeline in this build", v1.PhaseValidatingAccess, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			hc := provisioned("an")
			hc.Status.Phase, hc.Status.Message = c.phase, "API server https://x answered"
			cl := fake.NewClientBuilder().WithScheme(scheme).WithObjects(hc).WithStatusSubresource(hc).Build()
			r := &Reconciler{Client: cl, Recorder: record.NewFakeRecorder(10), Pipeline: c.pipeline}
			if err := cl.Get(ctx, client.ObjectKeyFromObject(hc), hc); err != nil {
				t.Fatal(err)
			}
			before := hc.DeepCopy()
			if err := r.announcePipeline(ctx, hc, before); err != nil {
				t.Fatal(err)
			}
			stored := &v1.HostCluster{}
			if err := cl.Get(ctx, client.ObjectKeyFromObject(hc), stored); err != nil {
				t.Fatal(err)
			}
			want := c.phase
			if c.announced {
				want = v1.PhaseBootstrappingFlux
			}
			if stored.Status.Phase != want || before.Status.Phase != want {
				t.Errorf("stored phase %s, before %s; want %s", stored.Status.Phase, before.Status.Phase, want)
			}
			if got := strings.Contains(stored.Status.Message, "installing Flux"); got != c.announced ||
				!strings.Contains(stored.Status.Message, "answered") {
				t.Errorf("stored message %q", stored.Status.Message)
			}
		})
	}
}
