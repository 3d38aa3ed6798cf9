package api

import (
	"context"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/server/hostclusters"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// A retry is for a Failed cluster only (409 otherwise, and for a failed
// teardown, which points at teardown); it marks the HostCluster for the
// controller, and the cluster reads as the step it retries, not Failed,
// from the moment it is asked.
func TestRetryOfAFailedClusterMarksItsHostCluster(t *testing.T) {
	e := newEnv(t, envOpts{management: true})
	ctx := context.Background()
	code, body := e.do(http.MethodPost, "/api/v1/clusters/provision", e.admin, provisionBody("loc-retry", "local", map[string]string{"nodeCount": "1"}))
	mustStatus(t, "provision", code, body, 202)
	row := decode[store.Cluster](t, body)
	hcs := dynamic.NewForConfigOrDie(e.sb.Config).Resource(hostclusters.GVR).Namespace(hostclusters.Namespace)
	retry := func(token string) (int, []byte) {
		return e.do(http.MethodPost, "/api/v1/clusters/"+row.ID+"/retry", token, nil)
	}

	setPhase(t, e, row.ID, "Provisioning", "local: starting")
	waitUntil(t, "the phase reaches the cache", func() bool { return mustGet(t, e, row.ID).Status == "Provisioning" })
	if code, body := retry(e.admin); code != 409 || !strings.Contains(string(body), "not Failed") {
		t.Errorf("retry while provisioning: %d %s, want 409 saying it is not Failed", code, body)
	}

	setPhase(t, e, row.ID, "Failed", "local: the start stopped before the cluster was ready")
	waitUntil(t, "Failed reaches the cache", func() bool { return mustGet(t, e, row.ID).Status == "Failed" })
	if code, _ := retry(e.viewer); code != 403 {
		t.Errorf("retry by a viewer: %d, want 403", code)
	}
	code, body = retry(e.admin)
	mustStatus(t, "retry", code, body, 202)
	// DerivePhase of the live object: the pending retry hides Stalled, so
	// the cluster reads as the step it retries.
	if r := decode[lifecycleResponse](t, body); r.Status != "Provisioning" || !strings.Contains(r.Message, "retry requested") {
		t.Errorf("retry answer %+v", r)
	}
	obj, err := hcs.Get(ctx, row.ID, metav1.GetOptions{})
	req := obj.GetAnnotations()[v1alpha1.RetryAnnotation]
	if err != nil || req == "" {
		t.Fatalf("HostCluster not marked for a retry: %v %v", obj.GetAnnotations(), err)
	}
	// Before the controller takes the request up, the read derives the
	// phase from the request: not Failed, and a second retry is refused.
	if got := mustGet(t, e, row.ID); got.Status != "Provisioning" {
		t.Errorf("before the controller took the retry up, the cluster reads %s, want Provisioning", got.Status)
	}
	if code, body := retry(e.admin); code != 409 {
		t.Errorf("a second retry while the first is pending: %d %s, want 409", code, body)
	}
	_ = unstructured.SetNestedField(obj.Object, req, "status", "retried")
	if _, err := hcs.UpdateStatus(ctx, obj, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	setPhase(t, e, row.ID, "Failed", "local: failed again")
	waitUntil(t, "a retry taken up and failed again reads Failed", func() bool { return mustGet(t, e, row.ID).Status == "Failed" })

	// A failed teardown is asked for again through teardown, not retried.
	code, body = e.do(http.MethodPost, "/api/v1/clusters/"+row.ID+"/teardown", e.admin, `{"confirmName":"loc-retry"}`)
	mustStatus(t, "teardown", code, body, 202)
	obj, err = hcs.Get(ctx, row.ID, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := obj.GetAnnotations() // the controller records that this request's Destroy failed
	a[v1alpha1.TeardownFailedAnnotation] = a[v1alpha1.TeardownAnnotation]
	obj.SetAnnotations(a)
	if _, err := hcs.Update(ctx, obj, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	setPhase(t, e, row.ID, "Failed", "local: destroy failed")
	waitUntil(t, "the failed teardown reaches the row", func() bool { return mustGet(t, e, row.ID).Status == "Failed" })
	if code, body := retry(e.admin); code != 409 || !strings.Contains(string(body), "/teardown") {
		t.Errorf("retry of a failed teardown: %d %s, want 409 pointing at teardown", code, body)
	}
	if code, _ := e.do(http.MethodPost, "/api/v1/clusters/nope/retry", e.admin, nil); code != 404 {
		t.Errorf("retry of an unknown cluster: %d, want 404", code)
	}
}
