package federation

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// node returns a node with the given labels and Ready condition.
func node(name string, ready bool, labels map[string]string) corev1.Node {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeReady, Status: status},
		}},
	}
}

// typed returns the labels of a node of instance type t.
func typed(t string) map[string]string {
	return map[string]string{instanceTypeLabel: t}
}

// fakeAPIServer answers GET /api/v1/nodes with a NodeList of nodes after
// delay, and 404 to anything else.
func fakeAPIServer(tb testing.TB, nodes []corev1.Node, delay time.Duration) *httptest.Server {
	tb.Helper()
	body, err := json.Marshal(corev1.NodeList{
		TypeMeta: metav1.TypeMeta{Kind: "NodeList", APIVersion: "v1"},
		Items:    nodes,
	})
	if err != nil {
		tb.Fatalf("encode NodeList: %v", err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/api/v1/nodes" {
			http.NotFound(w, r)
			return
		}
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// hangingAPIServer accepts requests and never answers them; it lets them go
// when the test ends so the server can close.
func hangingAPIServer(tb testing.TB) *httptest.Server {
	tb.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	tb.Cleanup(srv.Close)
	tb.Cleanup(func() { close(release) }) // runs before srv.Close
	return srv
}

// near reports whether a and b agree to within rounding error.
func near(a, b float64) bool {
	return math.Abs(a-b) < 1e-9
}
