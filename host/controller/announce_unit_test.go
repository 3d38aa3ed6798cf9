package controller

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

// noPipeline stands for the shared pipeline; announcePipeline never runs it.
type noPipeline struct{}

func (noPipeline) Run(context.Context, *v1.HostCluster, []byte) (string, error) {
	return "", nil
}

// A cluster just reached (its Provisioned condition True) is stored as
// BootstrappingFlux before the pipeline starts (its first step can take
// minutes); a cluster already in the pipeline, one not yet reached, or a
// controller without a pipeline, writes nothing here.
func TestAnnouncePipelineWritesBootstrappingFluxBeforeThePipelineRuns(t *testing.T) {
	cases := []struct {
		name      string
		phase     v1.Phase
		reached   bool
		pipeline  Pipeline
		announced bool
	}{
		{"first reconcile", v1.PhasePending, true, noPipeline{}, true},
		{"just provisioned", v1.PhaseProvisioning, true, noPipeline{}, true},
		{"still provisioning", v1.PhaseProvisioning, false, noPipeline{}, false},
		{"already in the pipeline", v1.PhaseGeneratingGitOpsTree, true, noPipeline{}, false},
		{"ready", v1.PhaseReady, true, noPipeline{}, false},
		{"no pipeline in this build", v1.PhaseProvisioning, true, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			hc := provisioned("an")
			hc.Status.Phase, hc.Status.Message = c.phase, "API server https://x answered"
			reached := metav1.ConditionFalse
			if c.reached {
				reached = metav1.ConditionTrue
			}
			hc.SetCondition(v1.ConditionProvisioned, reached, "Test", "")
			cl := fake.NewClientBuilder().WithScheme(scheme).WithObjects(hc).WithStatusSubresource(hc).Build()
			r := &Reconciler{Client: cl, Recorder: record.NewFakeRecorder(10), Pipeline: c.pipeline}
			if err := cl.Get(ctx, client.ObjectKeyFromObject(hc), hc); err != nil {
				t.Fatal(err)
			}
			p := &pass{hc: hc, before: hc.DeepCopy()}
			before := p.before
			if err := r.announceStep(ctx, p); err != nil {
				t.Fatalf("announceStep ended the steps: %v", err)
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
