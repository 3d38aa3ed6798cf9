// Package sdktest is the conformance kit for KubeOpera provider plugins.
// A plugin author runs it with `go test` against their own built binary:
//
//	func TestConformance(t *testing.T) {
//		sdktest.Run(t, sdktest.Config{
//			Binary:      "../bin/kubeopera-provider-example",
//			ValidInputs: map[string]string{"region": "eu-north-1"},
//		})
//	}
//
// It starts and calls the binary as the KubeOpera host and server do, with
// their own code (package hostenv): go-plugin gRPC over mutual TLS with
// identities made for the launch and handed to the plugin through an
// inherited pipe; the host's environment allow-list (the test's environment
// passes through it, then Config.Env is added); the host's start and call
// timeouts; and the inputs and credential as the server builds them (the
// schema's defaults applied, the credential passed through the schema's
// credential input with its "kind" key, secret inputs apart). It checks the
// handshake, Info, the input schema, field-level Validate errors, Provision
// idempotency, Status of an unknown operation, and that calls a provider
// does not declare answer Unimplemented (or FailedPrecondition for a
// provider that is not available yet).
//
// Provision and Destroy are really called when the provider declares them:
// point the plugin at a test endpoint of its cloud through Config.Env. The
// kubeconfig Provision gives is dialed (see Config.SkipDial).
package sdktest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"

	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/hostenv"
)

// Config says what to test.
type Config struct {
	// Binary is the path of the plugin binary under test.
	Binary string
	// ValidInputs is a set of inputs the provider accepts. Fields with
	// defaults may be left out.
	ValidInputs map[string]string
	// Credentials is a credential as a user stores it in KubeOpera: its
	// field values, and "kind" naming one of Info.CredentialKinds (it may be
	// left out when the schema's credential input accepts one kind). The
	// kit passes it as the server does: the credential input names it, and
	// the plugin gets its fields plus "kind" (hostenv.Credential).
	Credentials sdk.Credentials
	// Env is added to the plugin's environment, e.g. to point it at a test
	// endpoint of its cloud. The rest of the test's environment reaches the
	// plugin only through the host's allow-list (hostenv.PluginEnv).
	Env []string
	// Timeout bounds each call: the host's (hostenv.CallTimeout, 60s)
	// unless set. The start is bounded by the host's hostenv.StartTimeout
	// (10s), or by Timeout when that is shorter.
	Timeout time.Duration
	// InvalidInputs are inputs your own rules (beyond the schema) refuse,
	// by a name for the case; each must come back as InvalidInput naming
	// its fields as inputs.<name> or credentials.<name>.
	InvalidInputs map[string]map[string]string
	// SkipLifecycle skips the costly check that provisions a real cluster,
	// follows it, reads its kubeconfig and destroys it (twice).
	SkipLifecycle bool
	// SkipDial, when set, says why the kit cannot reach the API server of
	// the kubeconfig Provision returns (e.g. it names a cloud endpoint and
	// the test runs offline): the kubeconfig is then only parsed, and the
	// reason logged. Otherwise the kit dials it with the standard library
	// (GET /version, and the node list against the worker count the plugin
	// reports after Provision and each Update); a kubeconfig whose
	// credential comes from a program (exec) or an auth provider is
	// reported as not dialed.
	SkipDial string
	// LifecycleTimeout bounds following one operation to its end (5m).
	LifecycleTimeout time.Duration
	// PollInterval is the wait between Status calls (1s).
	PollInterval time.Duration
	// EstimateInputs are the inputs the "estimate" check prices, when
	// ValidInputs name something your price table lacks (a region, say);
	// ValidInputs when nil.
	EstimateInputs map[string]string
}

// kit is one run of the conformance checks.
type kit struct {
	cfg  Config
	prov sdk.Provider
	info sdk.Info
	call hostenv.Call // the inputs and credential as the server builds them
	// observed is the lifecycle cluster as last reported (node count and
	// version), which Update requests carry as the host's observation.
	observed sdk.OperationStatus
	output   *syncBuffer // everything the plugin wrote to stdout and stderr
}

// Run starts the plugin and runs every conformance check as a subtest.
func Run(t *testing.T, cfg Config) {
	t.Helper()
	if cfg.Timeout == 0 {
		cfg.Timeout = hostenv.CallTimeout
	}
	if cfg.LifecycleTimeout == 0 {
		cfg.LifecycleTimeout = 5 * time.Minute
	}
	if cfg.PollInterval == 0 {
		cfg.PollInterval = time.Second
	}
	k := &kit{cfg: cfg, output: &syncBuffer{}}
	k.handshake(t)
	t.Run("InfoComplete", k.infoComplete)
	t.Run("SchemaSane", k.schemaSane)
	t.Run("ValidateFieldErrors", k.validateFieldErrors)
	t.Run("ProvisionIdempotent", k.provisionIdempotent)
	t.Run("StatusUnknownOperation", k.statusUnknown)
	t.Run("UndeclaredCallsUnimplemented", k.undeclaredUnimplemented)
	t.Run("CustomRulesNameTheirFields", k.customRules)
	t.Run("Lifecycle", k.lifecycle)
	t.Run("NoCredentialsInOutput", k.noSecretsInOutput)
	t.Run("EstimateSane", k.estimateSane)
}

func (k *kit) ctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), k.cfg.Timeout)
	t.Cleanup(cancel)
	return ctx
}

// handshake starts the plugin as the host does, reads its Info and builds
// the call the server would make.
func (k *kit) handshake(t *testing.T) {
	t.Helper()
	name := strings.TrimPrefix(filepath.Base(k.cfg.Binary), "kubeopera-provider-")
	cc := hostenv.ClientConfig(k.cfg.Binary, name, os.Environ(), hostenv.PassEnvFromHost())
	cc.Cmd.Env = append(cc.Cmd.Env, k.cfg.Env...)
	cc.StartTimeout = min(k.cfg.Timeout, hostenv.StartTimeout)
	cc.Logger = hclog.New(&hclog.LoggerOptions{Name: filepath.Base(k.cfg.Binary), Output: testWriter{t}, Level: hclog.Warn})
	cc.SyncStdout, cc.SyncStderr = k.output, k.output
	cc.Stderr = k.output
	client := goplugin.NewClient(cc)
	t.Cleanup(client.Kill)
	prov, err := sdk.Connect(client)
	for _, f := range cc.Cmd.ExtraFiles { // the plugin has its own copy of its TLS identity
		_ = f.Close()
	}
	if err != nil {
		t.Fatalf("handshake with %s: %v (the remaining checks need it)", k.cfg.Binary, err)
	}
	if got := client.NegotiatedVersion(); got != sdk.ProtocolVersion {
		t.Fatalf("negotiated protocol v%d, want v%d", got, sdk.ProtocolVersion)
	}
	info, err := prov.GetInfo(k.ctx(t))
	if err != nil {
		t.Fatalf("GetInfo: %v", err)
	}
	k.prov, k.info = prov, info
	k.buildCall(t)
}

func (k *kit) infoComplete(t *testing.T) {
	i := k.info
	need := map[string]string{"Name": i.Name, "DisplayName": i.DisplayName, "Cloud": i.Cloud,
		"PluginVersion": i.PluginVersion, "SDKVersion": i.SDKVersion}
	for field, v := range need {
		if strings.TrimSpace(v) == "" {
			t.Errorf("Info.%s is empty", field)
		}
	}
	if len(i.Topologies) == 0 {
		t.Errorf("Info.Topologies is empty: list at least one cluster shape")
	}
	if i.Availability != sdk.Available && i.Availability != sdk.Soon {
		t.Errorf("Info.Availability = %q, want %q or %q", i.Availability, sdk.Available, sdk.Soon)
	}
	if i.ProtocolVersion != sdk.ProtocolVersion {
		t.Errorf("Info.ProtocolVersion = %d, want %d", i.ProtocolVersion, sdk.ProtocolVersion)
	}
	base := filepath.Base(k.cfg.Binary)
	if want := "kubeopera-provider-" + i.Name; base != want {
		t.Errorf("binary is named %q; the host only loads it as %q", base, want)
	}
	if i.Availability == sdk.Available && len(i.Capabilities) == 0 {
		t.Errorf("an AVAILABLE provider declares no capabilities")
	}
	if i.Availability == sdk.Soon && len(i.Capabilities) > 0 {
		t.Errorf("a SOON provider declares capabilities %v", i.Capabilities)
	}
}

// syncBuffer collects output written from several goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
