package plugin_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/ochestra-tech/kubeopera/host/plugin"
	"github.com/ochestra-tech/kubeopera/internal/testkit/testlog"
	"github.com/ochestra-tech/kubeopera/sdk"
)

func openHost(t *testing.T, opts plugin.Options) (*plugin.Host, *testlog.Buffer) {
	t.Helper()
	logs := &testlog.Buffer{}
	if opts.Logger == nil {
		opts.Logger = hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Info})
	}
	if opts.MinBackoff == 0 {
		opts.MinBackoff = 50 * time.Millisecond
	}
	if opts.PassEnv == nil {
		opts.PassEnv = []string{"FIXTURE_*"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h, err := plugin.Open(ctx, opts)
	if err != nil {
		t.Fatalf("open host: %v", err)
	}
	t.Cleanup(h.Close)
	return h, logs
}

func ctxTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func TestHostListsFourProvidersTwoAvailableTwoSoon(t *testing.T) {
	dir := pluginDir(t, productPlugins...)
	h, _ := openHost(t, plugin.Options{Dir: dir})
	got := map[string]sdk.Availability{}
	for _, p := range h.Plugins() {
		got[p.Name] = p.Info.Availability
		sum, err := os.ReadFile(p.Path)
		if err != nil {
			t.Fatal(err)
		}
		if want := sha256.Sum256(sum); p.Checksum != hex.EncodeToString(want[:]) {
			t.Errorf("%s: checksum %s, file hashes to %x", p.Name, p.Checksum, want)
		}
		if p.PID == 0 || p.Info.ProtocolVersion != sdk.ProtocolVersion || p.Info.PluginVersion != "test" {
			t.Errorf("%s: pid %d, protocol %d, version %q", p.Name, p.PID, p.Info.ProtocolVersion, p.Info.PluginVersion)
		}
	}
	want := map[string]sdk.Availability{"aws-eks": sdk.Available, "aws-vanilla": sdk.Available,
		"azure-stub": sdk.Soon, "gcp-stub": sdk.Soon}
	if len(got) != len(want) {
		t.Fatalf("plugins = %v, want %v", got, want)
	}
	for n, a := range want {
		if got[n] != a {
			t.Errorf("%s availability = %q, want %q", n, got[n], a)
		}
	}
	if s := h.Skipped(); len(s) != 0 {
		t.Errorf("skipped = %v, want none", s)
	}
}

func TestLifecycleThroughHost(t *testing.T) {
	h, _ := openHost(t, plugin.Options{Dir: pluginDir(t, productPlugins...)})
	gcp, err := h.Provider("gcp-stub")
	if err != nil {
		t.Fatal(err)
	}
	_, err = gcp.Provision(ctxTimeout(t, 10*time.Second), sdk.ProvisionRequest{ClusterID: "c1"})
	if !errors.Is(err, sdk.ErrFailedPrecondition) || !strings.Contains(err.Error(), "GCP provisioning: Soon") {
		t.Errorf("gcp Provision = %v, want FailedPrecondition saying GCP provisioning: Soon", err)
	}
	vanilla, _ := h.Provider("aws-vanilla")
	err = vanilla.Validate(ctxTimeout(t, 10*time.Second), sdk.ValidateRequest{Inputs: map[string]string{
		"region": "eu-north-1", "credentialRef": "c", "controlPlaneCount": "2", "apiAllowedCIDRs": "203.0.113.0/24"}})
	fields := sdk.FieldErrors(err)
	if len(fields) != 1 || fields[0].Field != "inputs.controlPlaneCount" || !strings.Contains(fields[0].Message, "quorum") {
		t.Errorf("Validate(controlPlaneCount=2) = %v, want one field error about etcd quorum", err)
	}
	// Provision checks its inputs before anything runs (aws_test.go runs it).
	_, err = vanilla.Provision(ctxTimeout(t, 10*time.Second), sdk.ProvisionRequest{ClusterID: "c1"})
	if fields := sdk.FieldErrors(err); len(fields) != 3 || fields[0].Field != "inputs.region" {
		t.Errorf("aws-vanilla Provision without inputs = %v, want field errors on region, credentialRef and apiAllowedCIDRs", err)
	}
	if _, err := h.Provider("nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("Provider(nope) = %v, want an error naming it", err)
	}
}

// setMarkers gives plugins started after it a directory in which the
// fixture records that it entered a blocking call.
func setMarkers(t *testing.T) string {
	dir := t.TempDir()
	t.Setenv("FIXTURE_MARKER_DIR", dir)
	return dir
}

// blockInPlugin starts Status("block") and returns once the plugin is inside
// the call, with the plugin's PID and the call's eventual error.
func blockInPlugin(ctx context.Context, t *testing.T, p *plugin.Supervised, markers string) (int, <-chan error) {
	t.Helper()
	errc := make(chan error, 1)
	go func() {
		_, err := p.Status(ctx, sdk.StatusRequest{OperationID: "block"})
		errc <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		entries, _ := os.ReadDir(markers)
		if len(entries) > 0 {
			pid, _ := strconv.Atoi(entries[len(entries)-1].Name())
			os.Remove(filepath.Join(markers, entries[len(entries)-1].Name()))
			return pid, errc
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("plugin never entered the blocking call")
	return 0, nil
}
