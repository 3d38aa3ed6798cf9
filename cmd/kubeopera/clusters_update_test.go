package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/internal/apiclient"
)

// scale --watch follows the worker count, not every node: a kubeadm
// cluster scaled to 2 workers has 3 nodes with its control plane, and is
// done once the server counts 2 workers.
func TestScaleWatchEndsAtTheWorkerCount(t *testing.T) {
	var polls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/api/v1/clusters/c1" {
			http.NotFound(w, r)
			return
		}
		status, workers := "Updating", 1
		if polls.Add(1) > 1 {
			status, workers = "Ready", 2
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"c1","name":"prod","status":"` + status + `","message":"","node_count":` +
			map[int]string{1: "2", 2: "3"}[workers] + `,"workerNodeCount":` + map[int]string{1: "1", 2: "2"}[workers] + `}`))
	}))
	defer srv.Close()
	cl, err := apiclient.NewClientWithResponses(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer func(p time.Duration) { watchPoll = p }(watchPoll)
	watchPoll = 10 * time.Millisecond
	var out bytes.Buffer
	done := func(r *apiclient.ClusterDetail) bool {
		return r.Status == apiclient.ClusterDetailStatusReady && scaledTo(2)(r)
	}
	if err := followUntil(context.Background(), cl, &out, "c1", 5*time.Second, done); err != nil {
		t.Fatalf("scale to 2 workers on a cluster Ready with 3 nodes (2 workers): %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "prod  Ready") {
		t.Errorf("the watch did not print the Ready phase:\n%s", out.String())
	}
	// A server from before workers were counted: every node is a worker.
	if got := workers(&apiclient.ClusterDetail{NodeCount: 4}); got != 4 {
		t.Errorf("workers without workerNodeCount = %d, want node_count 4", got)
	}
}
