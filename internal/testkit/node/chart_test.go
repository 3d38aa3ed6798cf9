package node

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/utils/ptr"

	"github.com/ochestra-tech/kubeopera/internal/childproc"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/internal/testkit/testpg"
)

const chartNamespace = "kubeopera-system"

// KubeOpera's Helm chart, installed with Helm's own install action, runs
// on the real node from the image `make image` built: both server
// replicas and both controller replicas start (probes answered), the
// server answers through its Service's ClusterIP (kube-proxy's rules, from
// the node) with its PostgreSQL reached from the pods, one controller
// holds the leader lease, and a cluster connected through the Service with
// only a name, a provider and a kubeconfig (the chart's platform defaults
// do the rest) reaches Ready.
func TestChartRunsOnTheNode(t *testing.T) {
	s, n := requireNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	root, err := childproc.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	layout := filepath.Join(root, "bin", "image", "kubeopera-oci")
	if _, err := os.Stat(layout); err != nil {
		t.Fatalf("KubeOpera's image layout: %v; run make image (make test-node does)", err)
	}
	start := time.Now()
	if err := n.importImage(ctx, layout); err != nil {
		t.Fatal(err)
	}
	t.Logf("image imported into containerd in %s", time.Since(start).Round(100*time.Millisecond))
	image := imageName(t, layout)
	i := strings.LastIndex(image, ":")
	repo, tag := image[:i], image[i+1:]

	dbURL := databaseOnTheNode(t, n)
	plat := startPlatform(t, n)
	key := make([]byte, 32)
	for i := range key {
		key[i] = byte(i + 1)
	}
	if _, err := s.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: chartNamespace}},
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const setupSecret = "node-test-setup-secret"
	secretsIn(ctx, t, s, chartNamespace, map[string]map[string]string{
		"kubeopera-database":   {"url": dbURL},
		"kubeopera-encryption": {"key": base64.StdEncoding.EncodeToString(key)},
		"kubeopera-setup":      {"setup-secret": setupSecret},
	})
	secretsIn(ctx, t, s, chartNamespace, plat.secrets())

	onNode := map[string]any{"kubeopera.io/real-node": "true"}
	values := map[string]any{
		"image":         map[string]any{"repository": repo, "tag": tag, "pullPolicy": "Never"},
		"database":      map[string]any{"existingSecret": "kubeopera-database"},
		"encryptionKey": map[string]any{"existingSecret": "kubeopera-encryption"},
	}
	server, controller := plat.values()
	server["nodeSelector"], controller["nodeSelector"] = onNode, onNode
	values["server"], values["controller"] = server, controller
	start = time.Now()
	helmInstall(ctx, t, s, filepath.Join(root, "charts", "kubeopera"), values)
	t.Logf("helm install and every replica ready in %s", time.Since(start).Round(100*time.Millisecond))

	pods, err := s.Client.CoreV1().Pods(chartNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName != n.Name {
			t.Errorf("pod %s is on %q, want the real node %s", p.Name, p.Spec.NodeName, n.Name)
		}
	}

	svc, err := s.Client.CoreV1().Services(chartNamespace).Get(ctx, "kubeopera-server", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: n.Dial}}
	base := "http://" + net.JoinHostPort(svc.Spec.ClusterIP, strconv.Itoa(int(svc.Spec.Ports[0].Port)))
	for path, want := range map[string]string{"/readyz": "", "/api/v1/setup": `"adminExists":false`} {
		code, body := get(ctx, t, client, base+path)
		if code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("GET %s through the Service's ClusterIP %s: %d %s; want 200 with %q", path, svc.Spec.ClusterIP, code, body, want)
		}
	}

	lease, err := s.Client.CoordinationV1().Leases(chartNamespace).Get(ctx, "host-cluster-controller.kubeopera.io", metav1.GetOptions{})
	if err != nil || lease.Spec.HolderIdentity == nil {
		t.Fatalf("the controllers' leader lease: %v, %+v", err, lease)
	}
	holder := *lease.Spec.HolderIdentity
	var held bool
	for _, p := range pods.Items {
		held = held || (strings.HasPrefix(p.Name, "kubeopera-controller-") && strings.HasPrefix(holder, p.Name))
	}
	if !held {
		t.Errorf("lease holder %q is not one of the controller pods", holder)
	}

	api := signInThroughService(ctx, t, base, client, setupSecret)
	connectToReady(ctx, t, s, n, api)
}

// databaseOnTheNode makes a fresh database on the test's PostgreSQL and
// serves its port in the node's namespace: its URL names the node's
// InternalIP, where the pods reach it.
func databaseOnTheNode(t *testing.T, n *Node) string {
	t.Helper()
	u, err := url.Parse(testpg.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatalf("PostgreSQL port of %s: %v", u.Redacted(), err)
	}
	if err := n.Forward(port); err != nil {
		t.Fatal(err)
	}
	u.Host = net.JoinHostPort(n.InternalIP, u.Port())
	return u.String()
}

// helmInstall installs the chart at dir with Helm's install action against
// the sandbox, and waits for every Deployment it made to be ready.
func helmInstall(ctx context.Context, t *testing.T, s *sandbox.Sandbox, dir string, values map[string]any) {
	t.Helper()
	ch, err := loader.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig, flags.Namespace = &s.KubeconfigPath, ptr.To(chartNamespace)
	cfg := new(action.Configuration)
	if err := cfg.Init(flags, chartNamespace, "secret", t.Logf); err != nil {
		t.Fatal(err)
	}
	install := action.NewInstall(cfg)
	install.ReleaseName, install.Namespace = "kubeopera", chartNamespace
	install.Wait, install.Timeout = true, 4*time.Minute
	if _, err := install.RunWithContext(ctx, ch, values); err != nil {
		t.Fatalf("helm install: %v%s\n%s", err, logsHint(), podStates(ctx, s))
	}
}

// podStates lists the chart's pods and why any is not ready.
func podStates(ctx context.Context, s *sandbox.Sandbox) string {
	pods, err := s.Client.CoreV1().Pods(chartNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err.Error()
	}
	var b strings.Builder
	for _, p := range pods.Items {
		fmt.Fprintf(&b, "%s on %q: %s", p.Name, p.Spec.NodeName, p.Status.Phase)
		for _, c := range p.Status.ContainerStatuses {
			if w := c.State.Waiting; w != nil {
				fmt.Fprintf(&b, " (%s: %s)", w.Reason, w.Message)
			}
			if c.LastTerminationState.Terminated != nil {
				fmt.Fprintf(&b, " last exit %d", c.LastTerminationState.Terminated.ExitCode)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

func get(ctx context.Context, t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	var code int
	var body []byte
	err := wait.PollUntilContextTimeout(ctx, time.Second, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return false, err
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Logf("GET %s: %v", u, err)
			return false, nil
		}
		defer resp.Body.Close()
		code = resp.StatusCode
		body, err = io.ReadAll(resp.Body)
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("GET %s: no answer: %v", u, err)
	}
	return code, string(body)
}
