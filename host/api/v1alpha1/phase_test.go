package v1alpha1

import (
	"os"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The phase follows from the conditions alone, for each way a cluster can
// be.
func TestDerivePhase(t *testing.T) {
	now := metav1.Now()
	type cond struct {
		typ    string
		status metav1.ConditionStatus
		gen    int64 // observed generation; the cluster is at 2
	}
	cases := []struct {
		name        string
		mode        Mode
		conds       []cond
		annotations map[string]string
		deleting    bool
		observed    int64  // status.observedGeneration
		retried     string // status.retried
		want        Phase
	}{
		{name: "nothing observed yet", mode: ModeConnectExisting, want: PhasePending},
		{name: "access being retried", mode: ModeConnectExisting,
			conds: []cond{{ConditionAccessValidated, metav1.ConditionFalse, 2}}, want: PhaseValidatingAccess},
		{name: "provider operation running", mode: ModeProvisionEKS,
			conds: []cond{{ConditionProvisioned, metav1.ConditionFalse, 2}}, want: PhaseProvisioning},
		{name: "provisioned, Flux not ready", mode: ModeProvision,
			conds: []cond{{ConditionProvisioned, metav1.ConditionTrue, 1}}, want: PhaseBootstrappingFlux},
		{name: "Flux ready for an older spec only", mode: ModeConnectExisting,
			conds: []cond{{ConditionAccessValidated, metav1.ConditionTrue, 1}, {ConditionFluxReady, metav1.ConditionTrue, 1}},
			want:  PhaseBootstrappingFlux},
		{name: "Flux ready, tree not pushed", mode: ModeConnectExisting,
			conds: []cond{{ConditionAccessValidated, metav1.ConditionTrue, 2}, {ConditionFluxReady, metav1.ConditionTrue, 2}},
			want:  PhaseGeneratingGitOpsTree},
		{name: "tree pushed, Flux applying", mode: ModeConnectExisting,
			conds: []cond{{ConditionAccessValidated, metav1.ConditionTrue, 2}, {ConditionFluxReady, metav1.ConditionTrue, 2},
				{ConditionGitOpsPushed, metav1.ConditionTrue, 2}, {ConditionKubeOperaInstalled, metav1.ConditionFalse, 2}},
			want: PhaseInstallingKubeOpera},
		{name: "ready", mode: ModeConnectExisting,
			conds: []cond{{ConditionAccessValidated, metav1.ConditionTrue, 2}, {ConditionReady, metav1.ConditionTrue, 2}},
			want:  PhaseReady},
		{name: "ready for an older spec is not ready", mode: ModeConnectExisting,
			conds: []cond{{ConditionAccessValidated, metav1.ConditionTrue, 2}, {ConditionReady, metav1.ConditionTrue, 1}},
			want:  PhaseBootstrappingFlux},
		{name: "stalled is Failed whatever else is true", mode: ModeConnectExisting,
			conds: []cond{{ConditionAccessValidated, metav1.ConditionTrue, 2}, {ConditionReady, metav1.ConditionTrue, 2},
				{ConditionStalled, metav1.ConditionTrue, 2}}, want: PhaseFailed},
		{name: "teardown requested", mode: ModeProvision, annotations: map[string]string{TeardownAnnotation: "r1"},
			conds: []cond{{ConditionProvisioned, metav1.ConditionTrue, 2}, {ConditionReady, metav1.ConditionTrue, 2}}, want: PhaseTearingDown},
		{name: "teardown request that failed", mode: ModeProvision,
			annotations: map[string]string{TeardownAnnotation: "r1", TeardownFailedAnnotation: "r1"},
			conds:       []cond{{ConditionProvisioned, metav1.ConditionTrue, 2}, {ConditionStalled, metav1.ConditionTrue, 2}}, want: PhaseFailed},
		{name: "a day-2 change asked for, not yet taken up", mode: ModeProvision, observed: 1,
			conds: []cond{{ConditionProvisioned, metav1.ConditionTrue, 1}, {ConditionReady, metav1.ConditionTrue, 1}}, want: PhaseUpdating},
		{name: "ready for an older spec, status written for this one", mode: ModeConnectExisting, observed: 2,
			conds: []cond{{ConditionAccessValidated, metav1.ConditionTrue, 2}, {ConditionReady, metav1.ConditionTrue, 1}},
			want:  PhaseBootstrappingFlux},
		{name: "a new spec of a cluster never Ready is not an update", mode: ModeProvision, observed: 1,
			conds: []cond{{ConditionProvisioned, metav1.ConditionFalse, 1}}, want: PhaseProvisioning},
		{name: "retry asked for, not yet taken up", mode: ModeProvision, annotations: map[string]string{RetryAnnotation: "r1"},
			conds: []cond{{ConditionProvisioned, metav1.ConditionFalse, 2}, {ConditionStalled, metav1.ConditionTrue, 2}}, want: PhaseProvisioning},
		{name: "retry taken up, failed again", mode: ModeProvision, annotations: map[string]string{RetryAnnotation: "r1"}, retried: "r1",
			conds: []cond{{ConditionProvisioned, metav1.ConditionFalse, 2}, {ConditionStalled, metav1.ConditionTrue, 2}}, want: PhaseFailed},
		{name: "teardown asked for on a Failed cluster", mode: ModeProvision, annotations: map[string]string{TeardownAnnotation: "r2"},
			conds: []cond{{ConditionProvisioned, metav1.ConditionFalse, 2}, {ConditionStalled, metav1.ConditionTrue, 2}}, want: PhaseTearingDown},
		{name: "being deleted", mode: ModeConnectExisting, deleting: true,
			conds: []cond{{ConditionStalled, metav1.ConditionTrue, 2}}, want: PhaseDeleting},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hc := &HostCluster{ObjectMeta: metav1.ObjectMeta{Generation: 2, Annotations: c.annotations}, Spec: HostClusterSpec{Mode: c.mode}}
			if c.deleting {
				hc.DeletionTimestamp = &now
			}
			for _, cd := range c.conds {
				hc.Generation = cd.gen
				hc.SetCondition(cd.typ, cd.status, "Test", "test")
			}
			hc.Generation = 2
			hc.Status.ObservedGeneration, hc.Status.Retried = c.observed, c.retried
			if got := DerivePhase(hc); got != c.want {
				t.Errorf("phase %s, want %s", got, c.want)
			}
		})
	}
}

// The CRD's enum (the kubebuilder marker on Phase, which controller-gen
// reads) lists exactly Phases, in order: the API server then refuses any
// phase the REST API's document does not know.
func TestPhaseEnumMarkerListsPhases(t *testing.T) {
	src, err := os.ReadFile("hostcluster_types.go")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(src), "+kubebuilder:validation:Enum=Pending")
	if !ok {
		t.Fatal("Phase has no Enum marker")
	}
	marker, _, _ := strings.Cut("Pending"+after, "\n")
	var want []string
	for _, p := range Phases {
		want = append(want, string(p))
	}
	if marker != strings.Join(want, ";") {
		t.Errorf("Enum marker %q, want %q (from Phases)", marker, strings.Join(want, ";"))
	}
}

// A running Update is its own phase; a failed one leaves the cluster Ready
// with the reason on the Updated condition, and one for an older spec does
// not count.
func TestDerivePhaseOfAnUpdate(t *testing.T) {
	cases := []struct {
		name   string
		reason string
		gen    int64
		want   Phase
	}{
		{"update running", ReasonInProgress, 2, PhaseUpdating},
		{"update failed", ReasonUpdateFailed, 2, PhaseReady},
		{"update of an older spec", ReasonInProgress, 1, PhaseReady},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hc := &HostCluster{ObjectMeta: metav1.ObjectMeta{Generation: 2}, Spec: HostClusterSpec{Mode: ModeProvision}}
			hc.SetCondition(ConditionProvisioned, metav1.ConditionTrue, ReasonProvisioned, "")
			hc.SetCondition(ConditionReady, metav1.ConditionTrue, ReasonPipelineDone, "")
			hc.Generation = c.gen
			hc.SetCondition(ConditionUpdated, metav1.ConditionFalse, c.reason, "")
			hc.Generation = 2
			if got := DerivePhase(hc); got != c.want {
				t.Errorf("phase %s, want %s", got, c.want)
			}
		})
	}
}
