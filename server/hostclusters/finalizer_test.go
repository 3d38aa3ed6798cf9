package hostclusters

import (
	"slices"
	"testing"

	"github.com/ochestra-tech/kubeopera/host/controller"
)

func TestCreateWithFinalizeCarriesTheControllersFinalizer(t *testing.T) {
	if Finalizer != controller.Finalizer {
		t.Fatalf("Finalizer = %q, the controller's is %q", Finalizer, controller.Finalizer)
	}
	if got := toObject(Spec{ID: "c1", Mode: ConnectExisting}, true).GetFinalizers(); !slices.Equal(got, []string{controller.Finalizer}) {
		t.Errorf("finalizers with Finalize = %v, want the controller's", got)
	}
	if got := toObject(Spec{ID: "c1", Mode: ConnectExisting}, false).GetFinalizers(); len(got) != 0 {
		t.Errorf("finalizers without Finalize = %v, want none", got)
	}
}
