package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The CLI finds the cluster by name, repeats the name as confirmation,
// sends the token, and prints the server's answer or its problem detail.
func TestClustersTeardownCallsTheAPI(t *testing.T) {
	var got struct {
		path, auth, confirm string
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/api/v1/clusters":
			_, _ = w.Write([]byte(`{"items":[{"id":"id-1","name":"prod","status":"Ready"},{"id":"id-2","name":"conn","status":"Ready"}]}`))
		case r.Method == http.MethodPost && r.URL.Path == "/api/v1/clusters/id-1/teardown":
			var body map[string]string
			_ = json.NewDecoder(r.Body).Decode(&body)
			got.path, got.auth, got.confirm = r.URL.Path, r.Header.Get("Authorization"), body["confirmName"]
			w.WriteHeader(http.StatusAccepted)
			_, _ = w.Write([]byte(`{"status":"TearingDown","message":"teardown requested"}`))
		default:
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusConflict)
			_, _ = w.Write([]byte(`{"detail":"cluster \"conn\" was not provisioned by KubeOpera"}`))
		}
	}))
	defer srv.Close()
	run := func(args ...string) (string, error) {
		cmd := newClustersCommand()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SetArgs(append(args, "--server", srv.URL, "--token", "tok-123"))
		err := cmd.Execute()
		return out.String(), err
	}
	out, err := run("teardown", "prod")
	if err != nil || got.path == "" || got.auth != "Bearer tok-123" || got.confirm != "prod" || !strings.Contains(out, "prod: TearingDown: teardown requested") {
		t.Errorf("teardown prod: %q, %v; request %+v", out, err, got)
	}
	if _, err := run("teardown", "conn"); err == nil || !strings.Contains(err.Error(), "HTTP 409") || !strings.Contains(err.Error(), "not provisioned") {
		t.Errorf("teardown of a connected cluster: %v; want the 409's detail", err)
	}
	if _, err := run("teardown", "nope"); err == nil || !strings.Contains(err.Error(), `no cluster named "nope"`) {
		t.Errorf("teardown of an unknown name: %v", err)
	}
	out, err = run("list")
	if err != nil || !strings.Contains(out, "prod") || !strings.Contains(out, "NAME") {
		t.Errorf("list: %q, %v", out, err)
	}
}
