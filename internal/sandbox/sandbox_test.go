package sandbox

import (
	"context"
	"fmt"
	"github.com/ochestra-tech/kubeopera/internal/childproc"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// When set, the test binary acts as an outside client: it reads the
// kubeconfig at this path and prints the kube-system namespace UID.
const outsideClientEnv = "SANDBOX_TEST_OUTSIDE_KUBECONFIG"

func init() {
	path := os.Getenv(outsideClientEnv)
	if path == "" {
		return
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err == nil {
		var c *kubernetes.Clientset
		if c, err = kubernetes.NewForConfig(cfg); err == nil {
			var ns *corev1.Namespace
			ns, err = c.CoreV1().Namespaces().Get(context.Background(), "kube-system", metav1.GetOptions{})
			if err == nil {
				fmt.Print(ns.UID)
				os.Exit(0)
			}
		}
	}
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

func start(t *testing.T, opts Options) *Sandbox {
	t.Helper()
	s, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatalf("start sandbox: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("stop sandbox: %v", err)
		}
	})
	return s
}

func kubeSystemUID(t *testing.T, s *Sandbox) string {
	t.Helper()
	ns, err := s.Client.CoreV1().Namespaces().Get(context.Background(), "kube-system", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return string(ns.UID)
}

func TestVersionIsThePinnedOne(t *testing.T) {
	mod, err := os.ReadFile("../../hack/k8s/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(mod), "require k8s.io/kubernetes "+KubernetesVersion+"\n") {
		t.Fatalf("hack/k8s/go.mod does not pin k8s.io/kubernetes %s; keep KubernetesVersion in step", KubernetesVersion)
	}
	s := start(t, Options{})
	v, err := s.Client.Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	if v.GitVersion != KubernetesVersion {
		t.Errorf("kube-apiserver reports %q, want %q", v.GitVersion, KubernetesVersion)
	}
}

func TestKubeconfigWorksFromAnotherProcess(t *testing.T) {
	s := start(t, Options{})
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), outsideClientEnv+"="+s.KubeconfigPath)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("outside client: %v", err)
	}
	if got, want := string(out), kubeSystemUID(t, s); got != want {
		t.Errorf("outside client saw kube-system UID %q, want %q", got, want)
	}
}

func TestCRDsAreInstalledOnRequest(t *testing.T) {
	s := start(t, Options{CRDDirs: []string{"testdata/crd"}})
	res, err := s.Client.Discovery().ServerResourcesForGroupVersion("sandbox.kubeopera.io/v1")
	if err != nil {
		t.Fatalf("CRD group not served: %v", err)
	}
	if len(res.APIResources) == 0 || res.APIResources[0].Name != "widgets" {
		t.Errorf("resources = %+v, want widgets", res.APIResources)
	}
}

func TestSimulatedNodesDeploymentAndJob(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := start(t, Options{Nodes: []Node{
		{Name: "worker-a", ProviderID: "aws:///eu-north-1a/i-0abc000000000001",
			Labels: map[string]string{"topology.kubernetes.io/region": "eu-north-1"}},
		{Name: "worker-b", ProviderID: "aws:///eu-north-1b/i-0abc000000000002",
			Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"),
				corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110")}},
		{Name: "sick", Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: "KubeletDown"},
			{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionTrue, Reason: "LowMemory"}}},
	}})

	nodes, err := s.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]corev1.Node{}
	for _, n := range nodes.Items {
		byName[n.Name] = n
	}
	if a := byName["worker-a"]; a.Spec.ProviderID != "aws:///eu-north-1a/i-0abc000000000001" ||
		a.Labels["topology.kubernetes.io/region"] != "eu-north-1" || !ready(a) {
		t.Errorf("worker-a = providerID %q, labels %v, ready %v", a.Spec.ProviderID, a.Labels, ready(a))
	}
	if b := byName["worker-b"]; b.Status.Capacity.Cpu().String() != "2" || !ready(b) {
		t.Errorf("worker-b capacity %v, ready %v", b.Status.Capacity, ready(b))
	}

	dep := deployment("web", 2)
	if _, err := s.Client.AppsV1().Deployments("default").Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "Deployment web Available", func() (bool, error) {
		d, err := s.Client.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range d.Status.Conditions {
			if c.Type == appsv1.DeploymentAvailable && c.Status == corev1.ConditionTrue {
				return d.Status.AvailableReplicas == 2, nil
			}
		}
		return false, nil
	})
	if _, err := s.Client.BatchV1().Jobs("default").Create(ctx, job("once"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "Job once Complete", func() (bool, error) {
		j, err := s.Client.BatchV1().Jobs("default").Get(ctx, "once", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range j.Status.Conditions {
			if c.Type == batchv1.JobComplete && c.Status == corev1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})

	// The conditions the test chose survive everything that ran meanwhile.
	sick, err := s.Client.CoreV1().Nodes().Get(ctx, "sick", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sick.Status.Capacity.Memory().String() != "16Gi" || sick.Spec.Taints[0].Key != staticTaint {
		t.Errorf("sick node capacity %v, taints %v", sick.Status.Capacity, sick.Spec.Taints)
	}
	if ready(*sick) || !hasCondition(*sick, corev1.NodeMemoryPressure) {
		t.Errorf("sick node conditions changed: %+v", sick.Status.Conditions)
	}
}

func TestTwoSandboxesAtOnceAndStopLeavesNothing(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // envtest and Start put their files here
	bin, err := BinDir()
	if err != nil {
		t.Fatal(err)
	}
	before := processesFrom(bin)

	var wg sync.WaitGroup
	boxes := make([]*Sandbox, 2)
	errs := make([]error, 2)
	for i := range boxes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			boxes[i], errs[i] = Start(context.Background(), Options{Workloads: true})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("sandbox %d: %v", i, err)
		}
	}
	a, b := kubeSystemUID(t, boxes[0]), kubeSystemUID(t, boxes[1])
	if a == b || boxes[0].Config.Host == boxes[1].Config.Host {
		t.Errorf("sandboxes share kube-system UID %s or host %s", a, boxes[0].Config.Host)
	}
	if got := len(processesFrom(bin)) - len(before); got != 10 {
		t.Errorf("%d sandbox processes running, want 10 (5 per sandbox)", got)
	}
	for _, s := range boxes {
		if err := s.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
		if err := s.Stop(); err != nil {
			t.Errorf("second stop: %v", err)
		}
	}
	if left := processesFrom(bin); len(left) != len(before) {
		t.Errorf("processes left after Stop: %v (before: %v)", left, before)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("temp files left after Stop: %v", names)
	}
}

// processesFrom lists this test process's children whose executable is in
// dir, as "name@pid". (Other test binaries run sandboxes from the same dir
// at the same time; their processes are not ours to count.)
func processesFrom(dir string) []string {
	var out []string
	for _, procDir := range childproc.Children(dir) {
		target, _ := os.Readlink(filepath.Join(procDir, "exe"))
		out = append(out, filepath.Base(target)+"@"+filepath.Base(procDir))
	}
	return out
}

func ready(n corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func hasCondition(n corev1.Node, typ corev1.NodeConditionType) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == typ && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func waitFor(ctx context.Context, t *testing.T, what string, cond func() (bool, error)) {
	t.Helper()
	var last error
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(context.Context) (bool, error) {
		ok, err := cond()
		last = err
		return ok, nil
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v (last error: %v)", what, err, last)
	}
}

func podTemplate(name string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "main", Image: "registry.invalid/never-pulled:1"}},
			// kwok runs pods only on the nodes it manages.
			Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "type", Operator: corev1.NodeSelectorOpIn, Values: []string{"kwok"}}},
				}}}}},
		},
	}
}

func deployment(name string, replicas int32) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: podTemplate(name),
		},
	}
}

func job(name string) *batchv1.Job {
	tpl := podTemplate(name)
	tpl.Spec.RestartPolicy = corev1.RestartPolicyNever
	return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: batchv1.JobSpec{Template: tpl}}
}
