package node

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

// stopGrace is how long each node program gets to exit on SIGTERM.
const stopGrace = 10 * time.Second

// Stop deletes the node's pods, so the kubelet tears their containers and
// network down itself, then stops kube-proxy, the kubelet and containerd,
// ends the shims containerd left, unmounts what is still mounted under the
// node's directory, and removes the namespace and the directory. It is safe
// to call more than once.
func (n *Node) Stop(ctx context.Context, s *sandbox.Sandbox) error {
	var errs []error
	if len(n.procs) > 0 && s != nil {
		errs = append(errs, n.drain(ctx, s))
	}
	if len(n.procs) > 0 {
		errs = append(errs, n.removeSandboxes(ctx), n.killTasks(ctx))
	}
	for i := len(n.procs) - 1; i >= 0; i-- {
		errs = append(errs, n.procs[i].Stop(stopGrace))
	}
	n.procs = nil
	errs = append(errs, n.killShims())
	for _, r := range n.relays {
		r.close()
	}
	n.relays = nil
	if n.paths.dir != "" {
		errs = append(errs, unmountUnder(n.paths.dir))
	}
	errs = append(errs, n.net.remove())
	if n.paths.dir != "" {
		errs = append(errs, os.RemoveAll(n.paths.dir))
		n.paths.dir = ""
	}
	return errors.Join(errs...)
}

// drain deletes every pod bound to the node and waits, up to a minute,
// until containerd runs no task: the kubelet then has removed the pods'
// sandboxes and released their addresses.
func (n *Node) drain(ctx context.Context, s *sandbox.Sandbox) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	// Cordoned first, as kubectl drain does: a controller's new pods stay
	// Pending instead of starting here again.
	cordon := []byte(`{"spec":{"unschedulable":true}}`)
	if _, err := s.Client.CoreV1().Nodes().Patch(ctx, n.Name, types.StrategicMergePatchType, cordon, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("cordon node %s: %w", n.Name, err)
	}
	sel := fields.OneTermEqualSelector("spec.nodeName", n.Name).String()
	pods, err := s.Client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		return fmt.Errorf("list the pods of node %s: %w", n.Name, err)
	}
	for _, p := range pods.Items {
		err := s.Client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{})
		if err != nil && !strings.Contains(err.Error(), "not found") {
			return fmt.Errorf("delete pod %s/%s: %w", p.Namespace, p.Name, err)
		}
	}
	return n.waitFor(ctx, "the node's pods to stop", func() bool {
		left, err := s.Client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{FieldSelector: sel})
		return err == nil && running(left.Items) == 0
	})
}

// running counts the pods not yet gone; a controller may have made new
// ones, which are not waited for when the kubelet has not started them.
func running(pods []corev1.Pod) int {
	c := 0
	for _, p := range pods {
		if p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodRunning {
			c++
		}
	}
	return c
}

// removeSandboxes stops and removes every pod sandbox through the CRI, as
// the kubelet's garbage collection would later: only removal tears down
// the pod's network namespace under /var/run/netns.
func (n *Node) removeSandboxes(ctx context.Context) error {
	conn, err := grpc.NewClient("unix://"+n.paths.containerdSocket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	rt := cri.NewRuntimeServiceClient(conn)
	list, err := rt.ListPodSandbox(ctx, &cri.ListPodSandboxRequest{})
	if err != nil {
		return fmt.Errorf("list pod sandboxes: %w", err)
	}
	var errs []error
	for _, sb := range list.Items {
		if _, err := rt.StopPodSandbox(ctx, &cri.StopPodSandboxRequest{PodSandboxId: sb.Id}); err != nil {
			errs = append(errs, fmt.Errorf("stop pod sandbox %s: %w", sb.Id, err))
		}
		if _, err := rt.RemovePodSandbox(ctx, &cri.RemovePodSandboxRequest{PodSandboxId: sb.Id}); err != nil {
			errs = append(errs, fmt.Errorf("remove pod sandbox %s: %w", sb.Id, err))
		}
	}
	return errors.Join(errs...)
}

// killTasks kills and deletes every container containerd still runs
// (pause included): a shim ended by killShims would leave its containers
// running.
func (n *Node) killTasks(ctx context.Context) error {
	ctr := func(args ...string) *exec.Cmd {
		return exec.CommandContext(ctx, n.ctr(), append([]string{"--address", n.paths.containerdSocket,
			"--namespace", "k8s.io", "tasks"}, args...)...)
	}
	// Only stdout: ctr warns on stderr that cgroup v1 is deprecated.
	out, err := ctr("ls", "-q").Output()
	if err != nil {
		return fmt.Errorf("list containerd tasks: %w", err)
	}
	var errs []error
	for _, id := range strings.Fields(string(out)) {
		if out, err := ctr("delete", "--force", id).CombinedOutput(); err != nil {
			errs = append(errs, fmt.Errorf("delete containerd task %s: %w: %s", id, err, out))
		}
	}
	return errors.Join(errs...)
}

// killShims ends the containerd-shim-runc-v2 processes this node's
// containerd started (they outlive it by design); they are found by the
// containerd socket on their command line.
func (n *Node) killShims() error {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		args := strings.Split(string(cmdline), "\x00")
		if strings.HasSuffix(args[0], "containerd-shim-runc-v2") && n.paths.containerdSocket != "" &&
			strings.Contains(string(cmdline), n.paths.containerdSocket) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	return nil
}

// unmountUnder detaches every mount below dir, deepest first: the
// kubelet's volumes and containerd's root file systems.
func unmountUnder(dir string) error {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	defer f.Close()
	var points []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 4 && strings.HasPrefix(fields[4], dir+"/") {
			points = append(points, fields[4])
		}
	}
	var errs []error
	for i := len(points) - 1; i >= 0; i-- {
		if err := syscall.Unmount(points[i], syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) {
			errs = append(errs, fmt.Errorf("unmount %s: %w", points[i], err))
		}
	}
	return errors.Join(errs...)
}
