package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"text/template"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/pipeline/gitops"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/sdk/localcloud"
)

// kwokTemplateNode is a node as kwok's own node template (kwokctl's
// kustomize/kwokctl/resource/node.yaml) renders it, at the kwok version
// go.mod pins, read from the module cache: the markers isKwokNode looks
// for are kwok's, not a copy. Its made-up addresses are dropped.
func kwokTemplateNode(t *testing.T, name string) *corev1.Node {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "sigs.k8s.io/kwok").Output()
	if err != nil {
		t.Fatalf("go list -m sigs.k8s.io/kwok: %v", err)
	}
	version := strings.TrimSpace(string(out))
	out, err = exec.Command("go", "mod", "download", "-json", "sigs.k8s.io/kwok@"+version).Output()
	if err != nil {
		t.Fatalf("go mod download sigs.k8s.io/kwok@%s: %v", version, err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("go mod download -json: %v: %s", err, out)
	}
	raw, err := os.ReadFile(filepath.Join(mod.Dir, "kustomize", "kwokctl", "resource", "node.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Parameters map[string]any
		Template   string
	}
	if err := yaml.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	tpl, err := template.New("node").Funcs(template.FuncMap{
		"Name": func() string { return name }, "Index": func() int { return 0 }, "Quote": strconv.Quote,
		"AddCIDR": func(cidr string, _ int) string { return cidr }, "AddIP": func(ip string, _ int) string { return ip },
	}).Parse(res.Template)
	if err != nil {
		t.Fatalf("kwok %s node template: %v", version, err)
	}
	var buf bytes.Buffer
	if err := tpl.Execute(&buf, res.Parameters); err != nil {
		t.Fatalf("kwok %s node template: %v", version, err)
	}
	node := &corev1.Node{}
	if err := yaml.Unmarshal(buf.Bytes(), node); err != nil {
		t.Fatalf("kwok %s node template: %v\n%s", version, err, buf.String())
	}
	node.Status.Addresses = nil
	return node
}

// kwok's template node is simulated by either marker; a node without them
// is not.
func TestKwokTemplateNodeIsSimulated(t *testing.T) {
	n := kwokTemplateNode(t, "kwok-0")
	if n.Name != "kwok-0" || !isKwokNode(n) {
		t.Fatalf("kwok's template node %s (annotations %v, labels %v) is not taken for a kwok node", n.Name, n.Annotations, n.Labels)
	}
	byLabel, byAnnotation := n.DeepCopy(), n.DeepCopy()
	delete(byLabel.Annotations, kwokNodeAnnotation)
	delete(byAnnotation.Labels, kwokTypeLabel)
	plain := byLabel.DeepCopy()
	delete(plain.Labels, kwokTypeLabel)
	for _, c := range []struct {
		name string
		node *corev1.Node
		want bool
	}{{"label type=kwok alone", byLabel, true}, {"annotation alone", byAnnotation, true}, {"neither", plain, false}} {
		if got := isKwokNode(c.node); got != c.want {
			t.Errorf("%s: simulated %v, want %v", c.name, got, c.want)
		}
	}
}

// recorder records every request a client sends and blocks any to a
// service proxy, so that even a broken pipeline never has the API server
// dial a simulated pod's address.
type recorder struct {
	next  http.RoundTripper
	mu    sync.Mutex
	sent  []string
	proxy []string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	line := req.Method + " " + req.URL.Path
	r.mu.Lock()
	r.sent = append(r.sent, line)
	blocked := strings.Contains(req.URL.Path, "/proxy")
	if blocked {
		r.proxy = append(r.proxy, line)
	}
	r.mu.Unlock()
	if blocked {
		return nil, fmt.Errorf("the test blocked %s: nothing may dial a kwok pod's address", line)
	}
	return r.next.RoundTrip(req)
}

func (r *recorder) requests() (sent, proxy []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.sent...), append([]string(nil), r.proxy...)
}

// On a cluster whose KubeOpera server pod kwok runs (as under `make dev`),
// the first-admin step reads the Service's endpoints and their node, sends
// no request to the service proxy, and ends done with reason Simulated;
// before the pod is ready it retries for lack of endpoints, again without
// a proxy call.
func TestFirstAdminOnAKwokNodeMakesNoProxyCall(t *testing.T) {
	ctx := context.Background()
	sb, err := sandbox.Start(ctx, sandbox.Options{Workloads: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Stop() })
	node := kwokTemplateNode(t, "kwok-server-node")
	if _, err := sb.Client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := localcloud.WaitNodeReady(ctx, sb.Client.CoreV1(), node.Name, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	mgmt, err := client.New(sb.Config, client.Options{Scheme: mgmtScheme})
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{v1.Namespace, gitops.NamespaceSystem} {
		_ = mgmt.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	labels := map[string]string{"app.kubernetes.io/name": gitops.ServerName}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: gitops.ServerName, Namespace: gitops.NamespaceSystem},
		Spec: corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
	if err := mgmt.Create(ctx, svc); err != nil {
		t.Fatal(err)
	}

	rec := &recorder{}
	cfg := rest.CopyConfig(sb.Config)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { rec.next = rt; return rec })
	tc, err := client.New(cfg, client.Options{Scheme: mgmtScheme})
	if err != nil {
		t.Fatal(err)
	}
	p := New(Options{Management: mgmt, AdminTimeout: time.Minute})
	hc := adminCluster("c1")
	tgt := &target{config: cfg, client: tc}

	err = p.createAdmin(ctx, hc, tgt)
	if stepKind(err) != "retrying" || !strings.Contains(err.Error(), "no ready endpoints for Service kubeopera-system/kubeopera-server") {
		t.Errorf("without a server pod: %s: %v", stepKind(err), err)
	}

	// A Deployment, as the tree has it (its ReplicaSet controller also
	// retries a pod refused while the namespace's ServiceAccount is new).
	replicas := int32(1)
	deploy := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: gitops.ServerName, Namespace: gitops.NamespaceSystem},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{NodeName: node.Name,
				Containers: []corev1.Container{{Name: "server", Image: "ghcr.io/ochestra-tech/kubeopera:test",
					Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}}}}}}}}
	if err := mgmt.Create(ctx, deploy); err != nil {
		t.Fatal(err)
	}
	waitReadyEndpoint(ctx, t, mgmt, node.Name)

	err = p.createAdmin(ctx, hc, tgt)
	c := meta.FindStatusCondition(hc.Status.Conditions, v1.ConditionAdminCreated)
	if err != nil || c == nil || c.Status != metav1.ConditionFalse || c.Reason != v1.ReasonSimulated ||
		!strings.Contains(c.Message, "runs on node kwok-server-node, a kwok node") || !strings.Contains(c.Message, "on a cluster with real nodes") {
		t.Errorf("with the server on a kwok node: %s: %v; AdminCreated %+v", stepKind(err), err, c)
	}
	if !strings.Contains(readyMessage(hc), "first admin not created: the KubeOpera server runs on node kwok-server-node") {
		t.Errorf("the Ready message does not say why no admin was made: %q", readyMessage(hc))
	}
	sent, proxy := rec.requests()
	if len(proxy) > 0 {
		t.Errorf("requests to the service proxy: %v", proxy)
	}
	if !slices.Contains(sent, "GET /apis/discovery.k8s.io/v1/namespaces/kubeopera-system/endpointslices") || !slices.Contains(sent, "GET /api/v1/nodes/kwok-server-node") {
		t.Errorf("the endpoints' node was not read; requests: %v", sent)
	}
}

// waitReadyEndpoint waits until the EndpointSlice controller lists a ready
// endpoint of the server's Service on node.
func waitReadyEndpoint(ctx context.Context, t *testing.T, c client.Client, node string) {
	t.Helper()
	var last discoveryv1.EndpointSliceList
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		if err := c.List(ctx, &last, client.InNamespace(gitops.NamespaceSystem),
			client.MatchingLabels{discoveryv1.LabelServiceName: gitops.ServerName}); err != nil {
			return false, nil
		}
		for _, s := range last.Items {
			for _, ep := range s.Endpoints {
				if ep.NodeName != nil && *ep.NodeName == node && ep.Conditions.Ready != nil && *ep.Conditions.Ready {
					return true, nil
				}
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no ready endpoint on %s: %v; last %+v", node, err, last.Items)
	}
}
