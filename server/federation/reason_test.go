package federation

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

const remoteText = "REMOTE-TEXT-token=abc123"

// An API server (any URL an admin configured) answering with its own text:
// a viewer is told the status code and a short cause, never that text.
func TestReasonNeverRepeatsTheRemoteText(t *testing.T) {
	for _, tc := range []struct {
		name, want  string
		status      int
		contentType string
		body        string
	}{
		{"a Kubernetes Status", "403 Forbidden", 403, "application/json",
			`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"` + remoteText + `","reason":"Forbidden","code":403}`},
		{"an HTML error page", "502 Bad Gateway", 502, "text/html", "<html>" + remoteText + "</html>"},
		{"a 500 in plain text", "500 Internal Server Error", 500, "text/plain", remoteText},
		{"not Kubernetes at all", "", 200, "text/html", "<html>" + remoteText + "</html>"},
		{"broken JSON", "not a Kubernetes API response", 200, "application/json", `{"items": [` + remoteText},
		{"JSON of the wrong shape", "not a Kubernetes API response", 200, "application/json", `{"items": "` + remoteText + `"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.contentType)
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			cs := kubernetes.NewForConfigOrDie(&rest.Config{Host: srv.URL})
			_, err := cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
			if err == nil {
				t.Fatal("the list succeeded")
			}
			got := Reason(err)
			t.Logf("%v -> %q", err, got)
			if got == "" || strings.Contains(got, "REMOTE-TEXT") || strings.Contains(got, "abc123") {
				t.Errorf("Reason = %q (from %v)", got, err)
			}
			if tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("Reason = %q, want it to name %q", got, tc.want)
			}
		})
	}
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := kubernetes.NewForConfigOrDie(&rest.Config{Host: srv.URL}).CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if got := Reason(err); !strings.Contains(got, "connection refused") {
		t.Errorf("closed port: Reason = %q (from %v)", got, err)
	}
}

// The overview row of a cluster whose API server fails shows the status,
// not the server's text.
func TestOverviewRowHidesTheRemoteText(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(500)
		_, _ = w.Write([]byte(remoteText))
	}))
	defer srv.Close()
	ov := Build(context.Background(), []Target{{ID: "x", Name: "x", Config: &rest.Config{Host: srv.URL}}},
		Options{Timeout: 30 * time.Second})
	r := ov.Clusters[0]
	if r.Reachable || strings.Contains(r.Error, "REMOTE-TEXT") || !strings.Contains(r.Error, "500") {
		t.Errorf("row error %q, want the status without the server's text", r.Error)
	}
}
