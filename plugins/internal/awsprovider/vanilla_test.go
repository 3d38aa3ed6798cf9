package awsprovider

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/internal/testkit/fakeaws"
	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
	"github.com/ochestra-tech/kubeopera/sdk"
)

func outputs(t *testing.T, kv map[string]any) map[string]json.RawMessage {
	t.Helper()
	out := map[string]json.RawMessage{}
	for k, v := range kv {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out[k] = data
	}
	return out
}

// settle reads the markers under this provision's relay path (with its
// nonce), never an older cluster's, and gives up past its deadline.
func TestVanillaSettleReadsThisProvisionsRelayAndHasADeadline(t *testing.T) {
	aws := fakeaws.Start(t)
	t.Setenv("AWS_ENDPOINT_URL_SSM", aws.SSMURL)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	user := aws.IAM.AddUser("123456789012", "kubeopera")
	cfg, err := awsapi.Config(context.Background(), sdk.Credentials{"kind": "access_key",
		"accessKeyId": user.AccessKeyID, "secretAccessKey": user.SecretAccessKey}, "eu-north-1")
	if err != nil {
		t.Fatal(err)
	}
	created := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	out := outputs(t, map[string]any{"ssm_prefix": "/kubeopera/c1/n0nce", "bootstrap_started_at": created.Format(time.RFC3339),
		"control_plane_instance_ids": []string{"i-0abc"}})
	op := operation{ClusterID: "c1", ControlPlanes: 1}
	now := created.Add(10 * time.Minute)
	v := vanilla{clock: func() time.Time { return now }}

	// An older cluster of the same ID left its markers behind.
	aws.SSM.Put("/kubeopera/c1/members/0", "String", "ready")
	st, err := v.settle(context.Background(), cfg, op, out)
	if err != nil || st == nil || st.State != sdk.Running || !strings.Contains(st.Message, "control plane 1 of 1 bootstrapping") {
		t.Fatalf("with only a stale marker: %+v, %v; want still bootstrapping", st, err)
	}
	now = created.Add(settleTimeout + time.Minute)
	st, err = v.settle(context.Background(), cfg, op, out)
	if err != nil || st == nil || st.State != sdk.Failed || !strings.Contains(st.Message, "never reported its bootstrap") ||
		!strings.Contains(st.Message, "instance i-0abc") {
		t.Fatalf("past the deadline: %+v, %v; want Failed naming the instance", st, err)
	}
	aws.SSM.Put("/kubeopera/c1/n0nce/members/0", "String", "ready")
	if st, err := v.settle(context.Background(), cfg, op, out); err != nil || st != nil {
		t.Fatalf("member 0 ready under this provision's path: %+v, %v; want done", st, err)
	}
	if got := v.relay("c1", out); got != "/kubeopera/c1/n0nce" {
		t.Errorf("relay = %q, want the nonce path", got)
	}
	if got := v.relay("c1", outputs(t, map[string]any{"ssm_prefix": "/kubeopera/c1"})); got != "" {
		t.Errorf("relay without a nonce = %q: a destroy must not delete a path other provisions may share", got)
	}
	if got := v.relay("c1", outputs(t, map[string]any{"ssm_prefix": "/kubeopera/other/n0nce"})); got != "" {
		t.Errorf("relay of another cluster = %q", got)
	}
}

func TestOperationCarriesTheRelayPath(t *testing.T) {
	op := operation{Action: "destroy", ClusterID: "c1", Region: "eu-north-1", Relay: "/kubeopera/c1/n0nce"}
	got, err := parseOperation(op.String())
	if err != nil || got != op {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	if _, err := parseOperation("destroy:c1?region=eu-north-1&relay=%2Fkubeopera%2Fc2%2Fx"); err == nil {
		t.Error("an operation may name another cluster's relay path")
	}
}
