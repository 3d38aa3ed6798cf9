package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ochestra-tech/kubeopera/host/pipeline/fluxinstall"
	"github.com/ochestra-tech/kubeopera/internal/devenv"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/internal/testkit/sdkexample"
)

// An outside developer's plugin provisions through the real server and
// controller to Ready with its own credential kind: the SDK README's
// example, built as its own module by the README's commands, is loaded
// from the plugin directory of `kubeopera dev`; a credential of its kind
// is stored through the REST API and named in a provision request; the
// controller calls the plugin (Validate, Provision, Status, Kubeconfig)
// and the shared pipeline takes the cluster to Ready. The plugin's "cloud"
// is a cluster that already exists, as the README says: one started here
// with the local provider's code, whose kubeconfig file the operator names
// in the plugin's setting. A cluster still there when dev stops is torn
// down through the plugin's Destroy on Ctrl-C.
func TestOutsiderPluginProvisionsThroughTheServerToReady(t *testing.T) {
	if os.Getenv("KUBEOPERA_TEST_DEV") == "" { // see TestDevProvisions...
		t.Skip("run alone: KUBEOPERA_TEST_DEV=1 go test -run TestOutsider ./cmd/kubeopera/ (make test does)")
	}
	if _, err := sandbox.BinDir(); err != nil {
		t.Fatal(err)
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := sdkexample.Build(ctx, repo, filepath.Join(root, "hello"), filepath.Join(root, "plugins")); err != nil {
		t.Fatal(err)
	}
	// Named now, written once the cluster runs: the plugin reads it in Kubeconfig.
	kubeconfig := filepath.Join(root, "hello.kubeconfig")
	t.Setenv("KUBEOPERA_PLUGIN_ENV_HELLO_HELLO_KUBECONFIG", kubeconfig)
	d := startDev(t, root)
	cloud := startLocalCluster(t, root, "hello-cloud")
	if err := os.WriteFile(kubeconfig, cloud, 0o600); err != nil {
		t.Fatal(err)
	}

	code, cred := d.call(t, http.MethodPost, "/api/v1/credentials", map[string]any{"label": "hello", "kind": "hello_token",
		"fields": map[string]string{"token": "hello_0123456789", "project": "demo"}})
	if code != http.StatusCreated {
		t.Fatalf("storing a hello_token credential answered %d: %v", code, cred)
	}
	credID, _ := cred["id"].(string)
	code, cluster := d.call(t, http.MethodPost, "/api/v1/clusters/provision", map[string]any{
		"name": "h1", "provider": "hello", "inputs": map[string]string{"location": "fsn1", "token": credID},
		"domain": "h1.kubeopera.test", "gitOpsRepoURL": d.repo, "gitOpsPath": "clusters/h1",
		"gitCredentialsSecretRef": devenv.GitSecret})
	if code != http.StatusAccepted {
		t.Fatalf("provision with the hello plugin answered %d: %v", code, cluster)
	}
	id, _ := cluster["id"].(string)
	got := d.waitReady(t, id)
	if got["source"] != "provisioned" || got["plugin"] != "hello" || got["region"] != "fsn1" || got["credential_id"] != credID {
		t.Errorf("the Ready cluster is recorded as source %v, plugin %v, region %v, credential %v; "+
			"want provisioned, hello, fsn1, %s", got["source"], got["plugin"], got["region"], got["credential_id"], credID)
	}
	// Ready means the pipeline worked on the cluster the plugin handed over.
	cfg, err := clientcmd.RESTConfigFromKubeConfig(cloud)
	if err != nil {
		t.Fatal(err)
	}
	deps, err := kubernetes.NewForConfigOrDie(cfg).AppsV1().Deployments(fluxinstall.DefaultNamespace).
		List(context.Background(), metav1.ListOptions{})
	if err != nil || len(deps.Items) == 0 {
		t.Errorf("Flux's Deployments on the cluster hello handed over: %v, want them installed", err)
	}

	// hello declares no "scale": the server says so before anything changes.
	code, body := d.call(t, http.MethodPatch, "/api/v1/clusters/"+id, map[string]any{"nodeCount": 2})
	if detail, _ := body["detail"].(string); code != http.StatusConflict || !strings.Contains(detail, `no "scale" capability`) {
		t.Errorf("scaling a hello cluster answered %d %v; want 409 naming the missing scale capability", code, body)
	}
	// The teardown runs hello's Destroy: a plugin whose Destroy failed
	// would leave the cluster listed as Failed.
	code, body = d.call(t, http.MethodPost, "/api/v1/clusters/"+id+"/teardown", map[string]any{"confirmName": "h1"})
	if code != http.StatusAccepted {
		t.Fatalf("teardown of the hello cluster answered %d: %v", code, body)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		code, c := d.call(t, http.MethodGet, "/api/v1/clusters/"+id, nil)
		if code == http.StatusNotFound {
			break
		}
		if c["status"] == "Failed" || time.Now().After(deadline) {
			t.Fatalf("the hello cluster after its teardown: %d %v; want it gone", code, c)
		}
		time.Sleep(500 * time.Millisecond)
	}

	// A cluster still provisioned when dev stops is torn down through
	// hello's Destroy on Ctrl-C: dev deletes its data, so nothing would
	// know the cluster afterwards. The controller removes a HostCluster
	// only after the plugin's Destroy succeeded.
	code, cluster = d.call(t, http.MethodPost, "/api/v1/clusters/provision", map[string]any{
		"name": "h2", "provider": "hello", "inputs": map[string]string{"location": "fsn1", "token": credID},
		"domain": "h2.kubeopera.test", "gitOpsRepoURL": d.repo, "gitOpsPath": "clusters/h2",
		"gitCredentialsSecretRef": devenv.GitSecret})
	if code != http.StatusAccepted {
		t.Fatalf("provision h2 answered %d: %v", code, cluster)
	}
	id2, _ := cluster["id"].(string)
	d.waitReady(t, id2)
	d.interrupt(t)
	if !d.said("tearing down "+id2+" through plugin hello's Destroy...") || !d.said("torn down "+id2) {
		t.Errorf("Ctrl-C did not tear down %s through hello's Destroy (see the log above)", id2)
	}
}
