package node

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ochestra-tech/kubeopera/internal/apiclient"
	"github.com/ochestra-tech/kubeopera/internal/fluxchart"
	"github.com/ochestra-tech/kubeopera/internal/fluxrun"
	"github.com/ochestra-tech/kubeopera/internal/gitserver"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/server/hostclusters"
)

// platform is what the chart's pods reach on this machine through the
// node: the GitOps repository (HTTPS, its certificate naming the node's
// address) and the Flux chart's Helm repository.
type platform struct {
	git      *gitserver.Server
	password string
	repoURL  string // as the pods and Flux reach it
	chartURL string
}

const gitSecretName = "fleet-git"

// startPlatform starts the git server and the chart repository and serves
// both in the node's namespace.
func startPlatform(t *testing.T, n *Node) *platform {
	t.Helper()
	p := &platform{password: "node-test-" + strconv.Itoa(int(time.Now().UnixNano()%1e6))}
	p.git = gitserver.Start(t, gitserver.Options{Username: "kubeopera", Password: p.password, TLS: true,
		TLSAddresses: []net.IP{net.ParseIP(n.InternalIP)}})
	p.repoURL = atNodeURL(t, n, p.git.CreateRepo(t, "fleet"))
	charts := fluxchart.Serve(t)
	if err := charts.ServeAt(atNodeURL(t, n, charts.URL)); err != nil {
		t.Fatal(err)
	}
	p.chartURL = charts.URL
	return p
}

// atNodeURL forwards u's loopback port into the node's namespace and
// returns u at the node's address, where the node's pods reach it.
func atNodeURL(t *testing.T, n *Node, u string) string {
	t.Helper()
	parsed, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(parsed.Port())
	if err != nil {
		t.Fatalf("port of %s: %v", u, err)
	}
	if err := n.Forward(port); err != nil {
		t.Fatal(err)
	}
	parsed.Host = net.JoinHostPort(n.InternalIP, parsed.Port())
	return parsed.String()
}

// secrets are the git credentials Secret the defaults name.
func (p *platform) secrets() map[string]map[string]string {
	return map[string]map[string]string{gitSecretName: {"username": "kubeopera", "password": p.password, "ca.crt": string(p.git.CACert())}}
}

// values are the chart values that make the platform the defaults.
func (p *platform) values() (server, controller map[string]any) {
	return map[string]any{"defaults": map[string]any{"gitOpsRepoURL": p.repoURL, "gitOpsPath": "clusters/{name}",
			"domain": "{name}.kubeopera.test", "gitCredentialsSecret": gitSecretName}},
		map[string]any{"fluxChart": map[string]any{"repository": p.chartURL}}
}

// connectToReady connects a cluster (a second sandbox with kwok nodes,
// its API server served at the node's address) through the server's
// Service with nothing but a name, a provider and a kubeconfig, and
// follows it to Ready through the API; Flux's controllers run on this
// machine against it once the pipeline installed Flux, as under kubeopera
// dev (the chart's Deployments run on kwok, which runs no containers).
func connectToReady(ctx context.Context, t *testing.T, s *sandbox.Sandbox, n *Node, api *apiclient.ClientWithResponses) {
	target, err := sandbox.Start(ctx, sandbox.Options{Nodes: []sandbox.Node{{Name: "w1"}, {Name: "w2"}},
		APIServerNames: []string{n.InternalIP}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = target.Stop() })
	kubeconfig := atNode(t, n, target)

	start := time.Now()
	resp, err := api.ConnectClusterWithResponse(ctx, apiclient.ConnectRequest{Name: "from-node", Provider: "aws", Kubeconfig: kubeconfig})
	if err != nil {
		t.Fatalf("connect through the Service: %v", err)
	}
	if resp.JSON202 == nil {
		t.Fatalf("connect through the Service: %d %s", resp.StatusCode(), resp.Body)
	}
	id := resp.JSON202.Id

	mgmt, err := dynamic.NewForConfig(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	var flux *fluxrun.Controllers
	last := ""
	err = wait.PollUntilContextTimeout(ctx, time.Second, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		if flux == nil && fluxHealthy(ctx, mgmt, id) {
			if flux, err = fluxrun.Start(context.WithoutCancel(ctx), t, target.KubeconfigPath, n.InternalIP); err != nil {
				return false, err
			}
		}
		got, err := api.GetClusterWithResponse(ctx, id)
		if err != nil || got.JSON200 == nil {
			t.Logf("GET the cluster: %v", err)
			return false, nil
		}
		if now := fmt.Sprintf("%s: %s", got.JSON200.Status, got.JSON200.Message); now != last {
			last = now
			t.Logf("%5.1fs  %s", time.Since(start).Seconds(), now)
		}
		switch got.JSON200.Status {
		case apiclient.ClusterDetailStatusReady:
			return true, nil
		case apiclient.ClusterDetailStatusFailed:
			return false, fmt.Errorf("the cluster failed: %s", got.JSON200.Message)
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("the connected cluster did not reach Ready (last %q): %v%s", last, err, logsHint())
	}
	t.Logf("connected cluster Ready through the chart's server and controller in %s", time.Since(start).Round(100*time.Millisecond))
}

// atNode serves target's API server in the node's namespace and returns its
// kubeconfig naming the node's address (which its certificate holds).
func atNode(t *testing.T, n *Node, target *sandbox.Sandbox) string {
	t.Helper()
	cfg, err := clientcmd.Load(target.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cfg.Clusters {
		c.Server = atNodeURL(t, n, c.Server)
	}
	out, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// fluxHealthy reports whether the pipeline installed Flux on cluster id
// (its HostCluster's status.fluxHealthy).
func fluxHealthy(ctx context.Context, mgmt dynamic.Interface, id string) bool {
	hc, err := mgmt.Resource(hostclusters.GVR).Namespace(hostclusters.Namespace).Get(ctx, id, metav1.GetOptions{})
	if err != nil {
		return false
	}
	healthy, _, _ := unstructured.NestedBool(hc.Object, "status", "fluxHealthy")
	return healthy
}

// signInThroughService makes the first admin with the setup secret and
// returns an API client holding that admin's token, both through the
// server's Service from the node.
func signInThroughService(ctx context.Context, t *testing.T, base string, hc *http.Client, setupSecret string) *apiclient.ClientWithResponses {
	t.Helper()
	anon, err := apiclient.NewClientWithResponses(base, apiclient.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	const user, password = "admin", "node-admin-password-1"
	made, err := anon.CreateFirstAdminWithResponse(ctx, apiclient.SetupAdminRequest{Email: "admin@example.com", Username: user, Password: password},
		func(_ context.Context, r *http.Request) error {
			r.Header.Set("X-KubeOpera-Setup-Secret", setupSecret)
			return nil
		})
	if err != nil {
		t.Fatalf("first admin through the Service: %v", err)
	}
	if made.JSON201 == nil {
		t.Fatalf("first admin through the Service: %d %s", made.StatusCode(), made.Body)
	}
	tok, err := anon.ExchangePasswordForTokenWithResponse(ctx, apiclient.TokenExchangeRequest{Username: user, Password: password})
	if err != nil {
		t.Fatalf("token through the Service: %v", err)
	}
	if tok.JSON201 == nil {
		t.Fatalf("token through the Service: %d %s", tok.StatusCode(), tok.Body)
	}
	api, err := apiclient.NewClientWithResponses(base, apiclient.WithHTTPClient(hc),
		apiclient.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+tok.JSON201.Token)
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	return api
}

// secretsIn creates the Secrets named in data in namespace.
func secretsIn(ctx context.Context, t *testing.T, s *sandbox.Sandbox, namespace string, data map[string]map[string]string) {
	t.Helper()
	for name, d := range data {
		sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, StringData: d}
		if _, err := s.Client.CoreV1().Secrets(namespace).Create(ctx, sec, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}
