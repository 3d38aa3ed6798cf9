package node

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

// The versions here are the ones hack/build-node.sh builds.
func TestVersionsMatchTheBuildModules(t *testing.T) {
	for mod, want := range map[string]string{
		"containerd": "github.com/containerd/containerd/v2 " + ContainerdVersion,
		"cni":        "github.com/containernetworking/plugins " + CNIVersion,
		"k8s":        "k8s.io/kubernetes " + sandbox.KubernetesVersion,
	} {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "hack", mod, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`(?m)^(require )?\s*` + regexp.QuoteMeta(want) + `\s*$`).Match(b) {
			t.Errorf("hack/%s/go.mod does not require %s", mod, want)
		}
	}
}

// A pod runs in real containers on the node, with an address of the node's
// pod CIDR, and the API server reads its log from the kubelet.
func TestPodRunsOnTheNodeAndKubectlReadsItsLog(t *testing.T) {
	s, n := requireNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	word := "hello-" + rand.String(8)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "echo-" + rand.String(5), Namespace: "default"},
		Spec: corev1.PodSpec{
			NodeSelector:  map[string]string{"kubernetes.io/hostname": n.Name},
			RestartPolicy: corev1.RestartPolicyNever,
			// No API token: the pod needs none, and the default
			// ServiceAccount may not exist yet.
			AutomountServiceAccountToken: ptr.To(false),
			Containers: []corev1.Container{{
				Name: "echo", Image: terraformImage(t), ImagePullPolicy: corev1.PullNever,
				Command: []string{"/bin/sh", "-c", "echo " + word + " from $(cat /proc/self/cgroup | grep -c kubepods) kubepods cgroups"},
			}},
		},
	}
	if _, err := s.Client.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var got *corev1.Pod
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		var err error
		got, err = s.Client.CoreV1().Pods("default").Get(ctx, pod.Name, metav1.GetOptions{})
		return err == nil && (got.Status.Phase == corev1.PodSucceeded || got.Status.Phase == corev1.PodFailed), nil
	})
	if err != nil || got.Status.Phase != corev1.PodSucceeded {
		t.Fatalf("pod did not succeed (%v): %+v%s", err, got.Status, logsHint())
	}
	_, cidr, _ := net.ParseCIDR(n.PodCIDR)
	if ip := net.ParseIP(got.Status.PodIP); ip == nil || !cidr.Contains(ip) {
		t.Errorf("pod IP %q is not in the node's pod CIDR %s", got.Status.PodIP, n.PodCIDR)
	}
	if got.Status.HostIP != n.InternalIP {
		t.Errorf("host IP %q, want the node's InternalIP %s", got.Status.HostIP, n.InternalIP)
	}
	log := kubectl(t, s, "logs", "-n", "default", "pod/"+pod.Name)
	// The container ran in the kubelet's pod cgroups (every v1 hierarchy
	// names kubepods), so it is a real container, not a simulated pod.
	if !strings.HasPrefix(log, word+" from ") || strings.HasPrefix(log, word+" from 0 ") {
		t.Errorf("kubectl logs = %q, want %q from a process in kubepods cgroups", log, word)
	}
}
