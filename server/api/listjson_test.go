package api

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	gojson "github.com/goccy/go-json"

	"github.com/ochestra-tech/kubeopera/server/inspect"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// TestClusterListJSONMatchesEncodingJSON guards sendClusterList: goccy's
// output must stay byte-identical to encoding/json's for every field of a
// cluster list, including the escapes encoding/json applies (HTML
// characters, U+2028, control characters, invalid UTF-8), nil and set
// pointers, omitempty fields, time zones and an empty page.
func TestClusterListJSONMatchesEncodingJSON(t *testing.T) {
	uid, cred := "kube-system-uid <&>", "cred-1"
	local := time.FixedZone("X", 5*3600+1800)
	rows := []store.Cluster{
		{ID: "1", Name: "plain", Provider: "aws", Source: store.SourceConnectedExisting, Status: "Pending",
			CreatedAt: time.Date(2026, 11, 30, 18, 55, 43, 154870000, time.UTC), UpdatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
		{ID: "2", Name: "everything", Provider: "gcp", Region: "europe-west1", Source: store.SourceProvisioned, Plugin: "gke",
			IsHost: true, Status: "Failed", Message: "a <b> & \"c\" \u2028\u2029 é \x01\t\n\\ \xff", KubernetesVersion: "v1.31.2",
			NodeCount: 1 << 40, ReadyNodeCount: -1, ClusterUID: &uid, CredentialID: &cred,
			CreatedAt: time.Date(2025, 6, 1, 0, 0, 0, 1, local), UpdatedAt: time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)},
	}
	full := clusterList{Continue: "eyJjIjoiMjAyNi0xMS0zMFQxODo1NTo0My4xNTQ4N1oiLCJuIjoiYy0wMzA5OSJ9", HostRegistered: true}
	for _, r := range rows {
		full.Items = append(full.Items, view(r))
	}
	withNodes := view(rows[1])
	withNodes.Nodes = []inspect.NodeInfo{{Name: "n1", Ready: true, Roles: []string{"control-plane"},
		Conditions: []inspect.NodeCondition{{Type: "Ready", Status: "True", Message: "<ok>"}}}, {Name: "n2"}}
	withNodes.NodesError = "could not read the nodes: <timeout>"
	full.Items = append(full.Items, withNodes)
	for name, out := range map[string]clusterList{"full": full, "empty": {Items: []clusterView{}}} {
		want, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		got, err := gojson.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: goccy/go-json differs from encoding/json\n got: %s\nwant: %s", name, got, want)
		}
	}
}
