package terraform

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// sb is the cluster the package's tests run Terraform and Jobs against: a
// real kube-apiserver for the kubernetes state backend, with
// kube-controller-manager, kube-scheduler and kwok so Jobs run on the
// simulated node "n1". This module cannot import the repository's sandbox
// package (plugins would then require the whole product), so the sandbox
// is started around `go test` and named by KUBEOPERA_TEST_SANDBOX_KUBECONFIG
// (`make test` does it with hack/with-sandbox); without it, the tests that
// need a cluster are skipped.
var sb *cluster

const sandboxEnv = "KUBEOPERA_TEST_SANDBOX_KUBECONFIG"

// cluster is a cluster reached with an admin kubeconfig.
type cluster struct {
	Config         *rest.Config
	KubeconfigPath string
	Client         kubernetes.Interface // for the tests' own checks
	Kube           *Kube                // what Jobs and StateOutputs use
}

// helperEnv makes the test binary act as a plugin process that starts a
// Local run and then waits to be killed (see startLocalInHelper).
const helperEnv = "KUBEOPERA_TF_TEST_HELPER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(helperEnv); spec != "" {
		os.Exit(runHelper(spec))
	}
	flag.Parse()
	if path := os.Getenv(sandboxEnv); path != "" {
		var err error
		if sb, err = openCluster(path); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", sandboxEnv, err)
			os.Exit(1)
		}
	}
	os.Exit(m.Run())
}

func openCluster(kubeconfigPath string) (*cluster, error) {
	data, err := os.ReadFile(kubeconfigPath)
	if err != nil {
		return nil, err
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(data)
	if err != nil {
		return nil, err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	kube, err := NewKube(cfg)
	if err != nil {
		return nil, err
	}
	return &cluster{Config: cfg, KubeconfigPath: kubeconfigPath, Client: client, Kube: kube}, nil
}

// needSandbox skips a test that needs the cluster when none was named.
func needSandbox(t *testing.T) {
	t.Helper()
	if sb == nil {
		t.Skipf("needs a cluster: run `go run ./hack/with-sandbox go -C sdk/terraform test ./...` "+
			"from the repository root, or set %s (make test does)", sandboxEnv)
	}
}

// helperSpec is what the helper process is asked to run.
type helperSpec struct {
	Local Local
	Run   Run
}

// runHelper starts the run and blocks, as a plugin does between calls;
// the test kills it with SIGKILL, which kills terraform too (terraform-exec
// starts it with Pdeathsig SIGKILL).
func runHelper(spec string) int {
	var h helperSpec
	if err := json.Unmarshal([]byte(spec), &h); err != nil {
		fmt.Fprintln(os.Stderr, "helper spec:", err)
		return 2
	}
	h.Local.Logger = hclog.NewNullLogger()
	if err := h.Local.Start(context.Background(), h.Run); err != nil {
		fmt.Fprintln(os.Stderr, "helper start:", err)
		return 1
	}
	select {}
}

// createNamespace creates ns in the sandbox unless it exists.
func createNamespace(t *testing.T, ns string) {
	t.Helper()
	_, err := sb.Client.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// waitFor polls cond every 50ms until it holds or the deadline passes.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, err := cond()
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not happen within %s", what, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitEnded polls Status until the run is neither pending nor running.
func waitEnded(t *testing.T, e Executor, id string, a Action, timeout time.Duration) Status {
	t.Helper()
	var st Status
	waitFor(t, fmt.Sprintf("terraform %s of %s to end", a, id), timeout, func() (bool, error) {
		var err error
		st, err = e.Status(context.Background(), id, a)
		return err == nil && st.State != sdk.Running && st.State != sdk.Pending, err
	})
	return st
}

func tailContains(tail []string, s string) bool {
	return strings.Contains(strings.Join(tail, "\n"), s)
}

// bufferLogger logs JSON into a buffer a test can search, e.g. for secrets.
func bufferLogger() (hclog.Logger, *lockedBuffer) {
	buf := &lockedBuffer{}
	return hclog.New(&hclog.LoggerOptions{Output: buf, JSONFormat: true, Level: hclog.Trace}), buf
}

// lockedBuffer is a bytes.Buffer safe for the executors' goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var runs atomic.Int64

// uniqueID makes a cluster ID unique in this test process, so tests keep
// working when repeated (-count) against the one sandbox.
func uniqueID(base string) string { return fmt.Sprintf("%s-%d", base, runs.Add(1)) }

// mustKube is a second Kube for the cluster cfg reaches, as a restarted
// plugin makes one.
func mustKube(t *testing.T, cfg *rest.Config) *Kube {
	t.Helper()
	k, err := NewKube(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
