package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/internal/testkit/testlog"
	"github.com/ochestra-tech/kubeopera/internal/testkit/testpg"
)

// envRunCLI makes the test binary run the CLI with its arguments instead
// of the tests, so a test can start replicas as separate processes, each
// with its own logger and leader-election identity, as pods are.
const envRunCLI = "KUBEOPERA_TEST_RUN_CLI"

func init() {
	if os.Getenv(envRunCLI) != "1" {
		return
	}
	root := newRootCommand()
	root.SetArgs(os.Args[1:])
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(exitCodeOf(err))
	}
	os.Exit(0)
}

// workersStarted is what controller-runtime logs when a controller starts
// reconciling, which it does only on the replica holding the lease.
const workersStarted = "Starting workers"

// awaitingLease is what a replica logs while another one holds the lease.
const awaitingLease = "Attempting to acquire leader lease"

// Two `server --with-controller` replicas on one PostgreSQL: leader
// election is on there by default, so only one of them reconciles, a
// cluster connected through the other is reconciled by it, and when it
// stops the other takes over.
func TestServerWithControllerReplicasOnPostgresReconcileOnce(t *testing.T) {
	dsn := testpg.Database(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sb, err := sandbox.Start(ctx, sandbox.Options{CRDDirs: []string{"../../config/crd/bases"}})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Stop()
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	token := strings.Repeat("t", 40)
	env := append(os.Environ(), envRunCLI+"=1", "KUBEOPERA_ADMIN_TOKEN="+token,
		"KUBEOPERA_ENCRYPTION_KEY="+base64.StdEncoding.EncodeToString(key))
	var reps [2]*cliReplica
	for i := range reps {
		reps[i] = startCLIReplica(t, env, "server", "--with-controller", "--database", dsn, "--kubeconfig", sb.KubeconfigPath,
			"--data-dir", t.TempDir(), "--listen", "127.0.0.1:0", "--plugin-dir", t.TempDir(), "--poll-interval", "250ms",
			"--flux-chart-repo", "http://127.0.0.1:1", "--chart-cache", t.TempDir())
	}
	// Before the sandbox stops (deferred above): a leader that loses its
	// API server exits with an error, as it should.
	defer func() {
		for _, r := range reps {
			r.stop(t)
		}
	}()
	leader := awaitOneLeader(t, reps[:])
	other := reps[1-leader]
	// Without leader election nothing would wait: the other replica would
	// start reconciling as soon as its caches synced.
	waitUntil(t, time.Minute, "the other replica waits for the lease", func() bool {
		return strings.Contains(other.logs.String(), awaitingLease)
	})
	waitUntil(t, 2*time.Minute, "the follower listens", func() bool { return listeningLine.MatchString(other.out.String()) })
	url := listeningLine.FindStringSubmatch(other.out.String())[1]
	connectSandbox(t, url, token, sb.Kubeconfig)
	c, err := client.New(sb.Config, client.Options{Scheme: controllerScheme()})
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 2*time.Minute, "the leader validates access to the cluster connected through the follower", func() bool {
		var list v1.HostClusterList
		return c.List(ctx, &list) == nil && len(list.Items) == 1 &&
			meta.IsStatusConditionTrue(list.Items[0].Status.Conditions, v1.ConditionAccessValidated)
	})
	if strings.Contains(other.logs.String(), workersStarted) {
		t.Fatalf("the follower started reconciling too:\n%s", other.logs.String())
	}
	stopped := time.Now()
	reps[leader].stop(t)
	waitUntil(t, time.Minute, "the follower takes over", func() bool { return strings.Contains(other.logs.String(), workersStarted) })
	t.Logf("the follower took over %v after the leader stopped", time.Since(stopped).Round(100*time.Millisecond))
}

// cliReplica is the CLI run as its own process.
type cliReplica struct {
	cmd       *exec.Cmd
	out, logs testlog.Buffer
	done      chan error
}

func startCLIReplica(t *testing.T, env []string, args ...string) *cliReplica {
	t.Helper()
	r := &cliReplica{cmd: exec.Command(os.Args[0], args...), done: make(chan error, 1)}
	r.cmd.Env, r.cmd.Stdout, r.cmd.Stderr = env, &r.out, &r.logs
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.done <- r.cmd.Wait() }()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// stop ends the replica as Kubernetes ends a pod (SIGTERM), once.
func (r *cliReplica) stop(t *testing.T) {
	if r.done == nil {
		return
	}
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-r.done:
		if err != nil {
			t.Errorf("replica exited: %v\n%s", err, r.logs.String())
		}
	case <-time.After(30 * time.Second):
		_ = r.cmd.Process.Kill()
		t.Errorf("replica did not stop on SIGTERM")
	}
	r.done = nil
}

// awaitOneLeader waits until one replica reconciles and returns its index;
// it fails if both do.
func awaitOneLeader(t *testing.T, reps []*cliReplica) int {
	t.Helper()
	leader := -1
	waitUntil(t, 2*time.Minute, "one replica starts reconciling", func() bool {
		for i, r := range reps {
			if strings.Contains(r.logs.String(), workersStarted) {
				leader = i
				return true
			}
		}
		return false
	})
	return leader
}

// connectSandbox connects the sandbox itself through the server at url.
func connectSandbox(t *testing.T, url, token string, kubeconfig []byte) {
	t.Helper()
	body := `{"name":"self","provider":"aws","region":"eu-north-1","kubeconfig":` + jsonString(string(kubeconfig)) +
		`,"domain":"self.kubeopera.test","gitOpsRepoURL":"https://git.example.com/fleet.git"}`
	req, _ := http.NewRequest(http.MethodPost, url+"/api/v1/clusters/connect", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("connect through the follower: %d", resp.StatusCode)
	}
}
