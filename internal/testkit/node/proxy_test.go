package node

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/client-go/transport/spdy"
	"k8s.io/utils/ptr"

	"github.com/ochestra-tech/kubeopera/host/pipeline/gitops"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/server/access"
	"github.com/ochestra-tech/kubeopera/server/api"
	"github.com/ochestra-tech/kubeopera/server/k8sproxy"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// oneCluster is the proxy's one target: the node's sandbox.
type oneCluster struct{ target k8sproxy.Target }

func (c oneCluster) Cluster(_ context.Context, id string) (k8sproxy.Target, error) {
	if id != "c1" {
		return k8sproxy.Target{}, fmt.Errorf("cluster %s: %w", id, k8sproxy.ErrNoCluster)
	}
	return c.target, nil
}

// A team operator's kubectl reaches a real container on the real node
// through KubeOpera's proxy: exec (SPDY and WebSocket) echoes the bytes
// sent to it, port-forward reaches the pod's own port, and each is one
// audit event as the operator. The proxy impersonates kubeopera:operator,
// bound to edit by the GitOps tree's bindings, so the target's RBAC decides.
func TestExecAndPortForwardThroughTheProxyReachARealPod(t *testing.T) {
	s, n := requireNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for _, b := range gitops.AccessBindings() {
		if _, err := s.Client.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	st := clusterStore(t)
	token := memberToken(t, st, "ola", access.Operator)
	viewer := memberToken(t, st, "vic", access.Viewer)
	px := k8sproxy.New(k8sproxy.Options{Auth: api.ProxyAuth{Store: st}, Clusters: oneCluster{k8sproxy.Target{Name: "node", Config: s.Config}},
		Audit: st, Recheck: time.Second, ReadFlush: time.Hour})
	runCtx, stopRun := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { px.Run(runCtx) })
	srv := httptest.NewServer(px)
	defer func() { srv.Close(); stopRun(); wg.Wait() }()
	through := &rest.Config{Host: srv.URL + k8sproxy.PathPrefix + "c1", BearerToken: token}

	word := "served-" + rand.String(8)
	pod := servingPod(t, s, n, word)
	cs, err := kubernetes.NewForConfig(through)
	if err != nil {
		t.Fatal(err)
	}
	// The aggregated edit role fills in once kube-controller-manager has
	// seen the bindings' roles: until then exec is Forbidden.
	execURL := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace("default").Name(pod).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: "web", Command: []string{"cat"}, Stdin: true, Stdout: true, Stderr: true},
			scheme.ParameterCodec).URL()
	for _, way := range []string{"SPDY", "WebSocket"} {
		sent := []byte("through KubeOpera over " + way + " " + rand.String(12) + "\n")
		var out []byte
		err := wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			var err error
			out, err = execCat(ctx, through, way, execURL, sent)
			if err != nil {
				t.Logf("exec over %s: %v (retrying while the edit role aggregates)", way, err)
			}
			return err == nil, nil
		})
		if err != nil || !bytes.Equal(out, sent) {
			t.Fatalf("exec cat over %s through the proxy: %v; sent %q, got %q%s", way, err, sent, out, logsHint())
		}
		t.Logf("exec over %s through the proxy: sent %d bytes %q, the container echoed %q", way, len(sent), sent, out)
	}

	// A viewer's exec reaches the target as kubeopera:viewer, bound to
	// view, which has no create on pods/exec: the target refuses it.
	asViewer := rest.CopyConfig(through)
	asViewer.BearerToken = viewer
	if out, err := execCat(ctx, asViewer, "SPDY", execURL, []byte("no\n")); err == nil || !strings.Contains(err.Error(), "forbidden") {
		t.Errorf("a viewer's exec through the proxy: %q, %v; want forbidden by the target's RBAC", out, err)
	} else {
		t.Logf("a viewer's exec through the proxy: %v", err)
	}

	got := portForwardGet(ctx, t, through, pod)
	if strings.TrimSpace(got) != word {
		t.Fatalf("port-forward to the pod's port 8080 through the proxy answered %q, want %q", got, word)
	}
	t.Logf("port-forward through the proxy: GET / on the pod's port 8080 answered %d bytes %q", len(got), got)

	// Each stream is audited once it ends, as a create of its subresource
	// (the WebSocket exec too, though its upgrade is a GET).
	seen := map[string]int{}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 5*time.Second, true, func(ctx context.Context) (bool, error) {
		events, err := st.ListAuditEvents(ctx, store.AuditFilter{Actor: "ola", Limit: 100})
		clear(seen)
		for _, e := range events {
			for _, sub := range []string{"pods/exec", "pods/portforward"} {
				if e.Method == "create" && strings.Contains(e.Route, sub) {
					seen[sub]++
				}
			}
		}
		return err == nil && seen["pods/exec"] >= 2 && seen["pods/portforward"] >= 1, err
	})
	if err != nil {
		t.Errorf("audit events of ola's streams: %v (%v), want at least 2 creates of pods/exec and 1 of pods/portforward", seen, err)
	}
	t.Logf("audited as ola: %v", seen)
}

// clusterStore is a store with cluster c1 on the default team.
func clusterStore(t *testing.T) *store.Store {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "kubeopera.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateCluster(ctx, &store.Cluster{ID: "c1", Name: "node", Team: store.DefaultTeam, Provider: "local",
		Source: store.SourceConnectedExisting, Status: "Ready"}); err != nil {
		t.Fatal(err)
	}
	return st
}

// memberToken makes name a member with role on the default team and
// returns a login token of theirs.
func memberToken(t *testing.T, st *store.Store, name string, role access.Role) string {
	t.Helper()
	ctx := context.Background()
	u := &store.User{Username: name, Email: name + "@example.com", PasswordHash: "x", Role: access.Member}
	if err := st.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	if err := st.SetMember(ctx, store.TeamMember{Team: store.DefaultTeam, UserID: u.ID, Role: role,
		Source: store.MemberSourceLocal}); err != nil {
		t.Fatal(err)
	}
	token, hash := api.NewToken()
	expires := time.Now().Add(time.Hour)
	if err := st.CreateToken(ctx, &store.Token{Name: "kubeconfig:node:" + name, Role: string(access.Member), Hash: hash,
		UserID: u.ID, ExpiresAt: &expires}); err != nil {
		t.Fatal(err)
	}
	return token
}

// servingPod runs a pod on the node whose container serves word on port
// 8080 (busybox httpd from an emptyDir), and returns its name once Ready.
func servingPod(t *testing.T, s *sandbox.Sandbox, n *Node, word string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-" + rand.String(5), Namespace: "default"},
		Spec: corev1.PodSpec{
			NodeSelector:                 map[string]string{"kubernetes.io/hostname": n.Name},
			AutomountServiceAccountToken: ptr.To(false),
			Volumes:                      []corev1.Volume{{Name: "www", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
			Containers: []corev1.Container{{
				Name: "web", Image: terraformImage(t), ImagePullPolicy: corev1.PullNever,
				Command:      []string{"/bin/sh", "-c", "echo " + word + " > /www/index.html && exec busybox httpd -f -p 8080 -h /www"},
				VolumeMounts: []corev1.VolumeMount{{Name: "www", MountPath: "/www"}},
				Ports:        []corev1.ContainerPort{{ContainerPort: 8080}},
			}},
		},
	}
	if _, err := s.Client.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = s.Client.CoreV1().Pods("default").Delete(context.Background(), pod.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
	})
	var got *corev1.Pod
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		var err error
		got, err = s.Client.CoreV1().Pods("default").Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil || got.Status.Phase == corev1.PodFailed {
			return false, err
		}
		return got.Status.Phase == corev1.PodRunning && len(got.Status.ContainerStatuses) == 1 && got.Status.ContainerStatuses[0].Ready, nil
	})
	if err != nil {
		t.Fatalf("the serving pod is not running (%v): %+v%s", err, got.Status, logsHint())
	}
	return pod.Name
}

// execCat runs the exec at u over way ("SPDY" or "WebSocket"), sending in
// on stdin, and returns what came back on stdout.
func execCat(ctx context.Context, cfg *rest.Config, way string, u *url.URL, in []byte) ([]byte, error) {
	var ex remotecommand.Executor
	var err error
	if way == "SPDY" {
		ex, err = remotecommand.NewSPDYExecutor(cfg, http.MethodPost, u)
	} else {
		ex, err = remotecommand.NewWebSocketExecutor(cfg, http.MethodGet, u.String())
	}
	if err != nil {
		return nil, err
	}
	var out, errOut bytes.Buffer
	err = ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdin: bytes.NewReader(in), Stdout: &out, Stderr: &errOut})
	if err != nil {
		return nil, fmt.Errorf("%w (stderr %q)", err, errOut.String())
	}
	return out.Bytes(), nil
}

// portForwardGet forwards a local port to the pod's port 8080 through cfg
// and returns the body of GET / there.
func portForwardGet(ctx context.Context, t *testing.T, cfg *rest.Config, pod string) string {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	u := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace("default").Name(pod).SubResource("portforward").URL()
	rt, upgrader, err := spdy.RoundTripperFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: rt}, http.MethodPost, u)
	stop, ready := make(chan struct{}), make(chan struct{})
	defer close(stop)
	var errOut bytes.Buffer
	fw, err := portforward.NewOnAddresses(dialer, []string{"127.0.0.1"}, []string{"0:8080"}, stop, ready, io.Discard, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- fw.ForwardPorts() }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("port-forward through the proxy: %v %s", err, errOut.String())
	case <-ctx.Done():
		t.Fatal("port-forward through the proxy never became ready")
	}
	ports, err := fw.GetPorts()
	if err != nil || len(ports) != 1 {
		t.Fatalf("forwarded ports %v, %v", ports, err)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/", ports[0].Local), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET through the forwarded port: %v %s", err, errOut.String())
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
