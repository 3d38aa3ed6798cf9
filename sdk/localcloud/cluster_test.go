package localcloud

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// bootEnv makes the test binary the starter: it boots the cluster in the
// directory given as its last argument.
const bootEnv = "LOCALCLOUD_TEST_BOOT"

func init() {
	if os.Getenv(bootEnv) == "" {
		return
	}
	if err := Boot(context.Background(), os.Args[len(os.Args)-1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// startReady creates cluster id (twice: the second does nothing) with this
// test binary as its starter and waits until it is Ready.
func startReady(t *testing.T, id string, nodes int) (root string) {
	t.Helper()
	bin, err := BinDir()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(bootEnv, "1")
	root = t.TempDir()
	t.Cleanup(func() { _ = RemoveAll(root) })
	spec := Spec{ID: id, Nodes: nodes, BinDir: bin}
	for range 2 {
		if err := Create(root, spec, os.Args[0], "-test.run=^$"); err != nil {
			t.Fatal(err)
		}
	}
	if st := waitPhase(t, root, id, 3*time.Minute); st.Phase != Ready {
		t.Fatalf("cluster %s: %s", st.Phase, st.Message)
	}
	return root
}

func TestClusterOutlivesItsStarterAndRemoveLeavesNothing(t *testing.T) {
	root := startReady(t, "c1", 2)
	c, _ := open(root, "c1")
	// The starter records Ready, then exits: give it the moment between.
	for deadline := time.Now().Add(10 * time.Second); c.alive(c.pid("starter")); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Error("the starter still runs 10s after Ready")
			break
		}
	}
	if got := len(c.running()); got != len(processes)-1 {
		t.Errorf("%d processes run, want %d: %v", got, len(processes)-1, c.running())
	}
	kc, err := Kubeconfig(root, "c1")
	if err != nil {
		t.Fatal(err)
	}
	deploymentBecomesAvailable(t, kc, 2)
	if err := Remove(root, "c1"); err != nil {
		t.Fatal(err)
	}
	if left := ProcessesUnder(root); len(left) > 0 {
		t.Errorf("processes left after Remove: %v", left)
	}
	if _, err := os.Stat(filepath.Join(root, "c1")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cluster directory left after Remove: %v", err)
	}
	if _, err := Inspect(root, "c1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Inspect after Remove = %v, want ErrNotFound", err)
	}
	if err := Remove(root, "c1"); err != nil {
		t.Errorf("second Remove: %v", err)
	}
}

// Stop ends the processes and keeps the directory; Remove then deletes it.
func TestStopKeepsTheDirectoryAndRemoveDeletesIt(t *testing.T) {
	root := startReady(t, "c4", 1)
	if err := Stop(root, "c4"); err != nil {
		t.Fatal(err)
	}
	if left := ProcessesUnder(root); len(left) > 0 {
		t.Errorf("processes left after Stop: %v", left)
	}
	st, err := Inspect(root, "c4")
	if err != nil || st.Phase != Failed || !strings.Contains(st.Message, "stopped") {
		t.Errorf("Inspect after Stop = %+v, %v; want Failed, stopped", st, err)
	}
	if _, err := os.Stat(filepath.Join(root, "c4", "etcd.log")); err != nil {
		t.Errorf("the logs are gone after Stop: %v", err)
	}
	if err := Remove(root, "c4"); err != nil {
		t.Fatal(err)
	}
	if err := Stop(root, "c4"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Stop of a removed cluster = %v, want ErrNotFound", err)
	}
}

func TestAProcessThatDiesFailsTheCluster(t *testing.T) {
	root := startReady(t, "c2", 1)
	c, _ := open(root, "c2")
	pid := c.pid("kube-scheduler")
	if err := killAndWait(c, pid); err != nil {
		t.Fatal(err)
	}
	st, err := Inspect(root, "c2")
	if err != nil || st.Phase != Failed || !strings.Contains(st.Message, "kube-scheduler is not running") {
		t.Errorf("Inspect after the scheduler died = %+v, %v; want Failed naming kube-scheduler", st, err)
	}

	// Creating it again (the controller's retry) starts it from scratch.
	bin, _ := BinDir()
	if err := Create(root, Spec{ID: "c2", Nodes: 1, BinDir: bin}, os.Args[0], "-test.run=^$"); err != nil {
		t.Fatal(err)
	}
	if st := waitPhase(t, root, "c2", 3*time.Minute); st.Phase != Ready {
		t.Fatalf("after the retry: %s: %s", st.Phase, st.Message)
	}
	if again := c.pid("kube-scheduler"); again == pid || !c.alive(again) {
		t.Errorf("after the retry the scheduler is pid %d (alive %v), the dead one was %d", again, c.alive(again), pid)
	}
}

func TestIDsThatAreNotDNSLabelsAreRefused(t *testing.T) {
	for _, id := range []string{"", "../etc", "A", "a/b", strings.Repeat("a", 64), "-a"} {
		if _, err := Inspect(t.TempDir(), id); err == nil || errors.Is(err, ErrNotFound) {
			t.Errorf("Inspect(%q) = %v, want a refusal", id, err)
		}
	}
}

func killAndWait(c cluster, pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	if err := p.Kill(); err != nil {
		return err
	}
	if !c.waitGone(pid, time.Minute) {
		return fmt.Errorf("pid %d still runs after SIGKILL", pid)
	}
	return nil
}

func waitPhase(t *testing.T, root, id string, within time.Duration) Status {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		st, err := Inspect(root, id)
		if err != nil {
			t.Fatal(err)
		}
		if st.Phase != Starting {
			return st
		}
		if time.Now().After(deadline) {
			c, _ := open(root, id)
			t.Fatalf("cluster still %s (%s) after %s; starter log: %s", st.Phase, st.Message, within, c.logTail("starter", 10))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// deploymentBecomesAvailable proves the cluster runs workloads: a
// Deployment's pods are scheduled to the simulated nodes and it becomes
// Available.
func deploymentBecomesAvailable(t *testing.T, kubeconfig []byte, nodes int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(cfg)
	list, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != nodes {
		t.Fatalf("nodes: %v (%d listed, want %d)", err, len(list.Items), nodes)
	}
	replicas := int32(2)
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "registry.invalid/web:1"}}}}}}
	if _, err := cs.AppsV1().Deployments("default").Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for {
		got, err := cs.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
		if err == nil && got.Status.AvailableReplicas == replicas {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("Deployment never became Available: %v %+v", err, got.Status)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// A plugin killed at any point of Create leaves nothing a retry cannot
// use: a directory without its spec (what an older plugin left between
// making the directory and writing spec.json) and a cluster staged but
// never started are both started again by the next Create.
func TestCreateAfterACrashInItsWindow(t *testing.T) {
	bin := t.TempDir() // the starter is /bin/true: only Create's own steps are asked
	cases := map[string]func(root string){
		"directory without its spec": func(root string) {
			if err := os.MkdirAll(filepath.Join(root, "c3"), 0o700); err != nil {
				t.Fatal(err)
			}
		},
		"staged, never started": func(root string) {
			c, _ := open(root, "c3")
			if err := c.stage(Spec{ID: "c3", Nodes: 1, BinDir: bin}); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, crash := range cases {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			crash(root)
			if err := Create(root, Spec{ID: "c3", Nodes: 1, BinDir: bin}, "/bin/true"); err != nil {
				t.Fatalf("Create after the crash: %v", err)
			}
			c, _ := open(root, "c3")
			if s, err := c.readSpec(); err != nil || s.ID != "c3" {
				t.Errorf("spec after the retry = %+v, %v", s, err)
			}
			if c.pid("starter") == 0 {
				t.Error("the retry did not start the cluster")
			}
			left, _ := filepath.Glob(filepath.Join(root, ".*"))
			if len(left) != 0 {
				t.Errorf("staging directories left: %v", left)
			}
			// A plugin killed inside stage leaves its staging directory:
			// the teardown removes it with the cluster.
			if err := os.Mkdir(filepath.Join(root, ".c3.staging-123"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := Remove(root, "c3"); err != nil {
				t.Fatal(err)
			}
			if left, _ := filepath.Glob(filepath.Join(root, "*c3*")); len(left) != 0 {
				t.Errorf("after the teardown: %v left", left)
			}
		})
	}
}
