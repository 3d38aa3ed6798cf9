package node

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"
	cri "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// requireRuntime starts containerd alone in a node network namespace,
// with the images imported, unless KUBEOPERA_TEST_NODE is unset.
func requireRuntime(t *testing.T) *Node {
	t.Helper()
	if os.Getenv("KUBEOPERA_TEST_NODE") != "1" {
		t.Skip("containerd and runc in a network namespace need root and hack/build-node.sh: run make test-node (KUBEOPERA_TEST_NODE=1)")
	}
	dir, err := ImagesDir()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	n, err := StartRuntime(ctx, Options{Name: "runtime", Index: 1 + (os.Getpid()+1)%250,
		Images: []string{filepath.Join(dir, "pause-oci"), filepath.Join(dir, "terraform-oci")}})
	if err != nil {
		t.Fatalf("start containerd: %v", err)
	}
	t.Cleanup(func() {
		if err := n.Stop(context.Background(), nil); err != nil {
			t.Errorf("stop containerd: %v", err)
		}
	})
	return n
}

// The calls the kubelet makes for a pod, made here directly: containerd
// runs the pause image as the pod sandbox with an address from the CNI
// bridge, runs a container of the Terraform image in it with runc under
// cgroupfs, and writes its output to the CRI log. This is the node's
// runtime proven without the kubelet.
func TestContainerdRunsAPodThroughTheCRI(t *testing.T) {
	n := requireRuntime(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := grpc.NewClient("unix://"+n.CRISocket(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() }) // after the pod's clean-up below
	rt := cri.NewRuntimeServiceClient(conn)
	logs := t.TempDir()
	uid := rand.String(8)
	podCfg := &cri.PodSandboxConfig{
		Metadata:     &cri.PodSandboxMetadata{Name: "echo", Namespace: "default", Uid: uid},
		Hostname:     "echo",
		LogDirectory: logs,
		Linux:        &cri.LinuxPodSandboxConfig{CgroupParent: "/kubeopera-cri-test-" + uid},
	}
	// Last: runc makes the cgroup parent even when the sandbox fails.
	t.Cleanup(func() { removeCgroup(t, podCfg.Linux.CgroupParent) })
	pod, err := rt.RunPodSandbox(ctx, &cri.RunPodSandboxRequest{Config: podCfg})
	if err != nil {
		t.Fatalf("run pod sandbox (pause image, CNI): %v", err)
	}
	t.Cleanup(func() {
		// As the kubelet does: stop (CNI DEL, the netns goes), then remove.
		ctx := context.Background()
		if _, err := rt.StopPodSandbox(ctx, &cri.StopPodSandboxRequest{PodSandboxId: pod.PodSandboxId}); err != nil {
			t.Errorf("stop pod sandbox: %v", err)
		}
		if _, err := rt.RemovePodSandbox(ctx, &cri.RemovePodSandboxRequest{PodSandboxId: pod.PodSandboxId}); err != nil {
			t.Errorf("remove pod sandbox: %v", err)
		}
	})
	word := "hello-" + rand.String(8)
	c, err := rt.CreateContainer(ctx, &cri.CreateContainerRequest{PodSandboxId: pod.PodSandboxId, SandboxConfig: podCfg,
		Config: &cri.ContainerConfig{
			Metadata: &cri.ContainerMetadata{Name: "echo"},
			Image:    &cri.ImageSpec{Image: terraformImage(t)},
			Command:  []string{"/bin/sh", "-c", "echo " + word + "; terraform version"},
			LogPath:  "echo.log",
		}})
	if err != nil {
		t.Fatalf("create container: %v", err)
	}
	if _, err := rt.StartContainer(ctx, &cri.StartContainerRequest{ContainerId: c.ContainerId}); err != nil {
		t.Fatalf("start container (runc): %v", err)
	}
	var st *cri.ContainerStatusResponse
	err = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		st, err = rt.ContainerStatus(ctx, &cri.ContainerStatusRequest{ContainerId: c.ContainerId})
		return err == nil && st.Status.State == cri.ContainerState_CONTAINER_EXITED, nil
	})
	if err != nil || st.Status.ExitCode != 0 {
		t.Fatalf("container did not exit 0 (%v): %+v", err, st)
	}
	log, err := os.ReadFile(filepath.Join(logs, "echo.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("container log:\n%s", log)
	// CRI log lines: <time> stdout F <line>.
	if !strings.Contains(string(log), " stdout F "+word+"\n") || !strings.Contains(string(log), " stdout F Terraform v") {
		t.Errorf("container log holds no %q and terraform version:\n%s", word, log)
	}
	ps, err := rt.PodSandboxStatus(ctx, &cri.PodSandboxStatusRequest{PodSandboxId: pod.PodSandboxId})
	if err != nil {
		t.Fatal(err)
	}
	_, cidr, _ := net.ParseCIDR(n.PodCIDR)
	if ip := net.ParseIP(ps.Status.GetNetwork().GetIp()); ip == nil || !cidr.Contains(ip) {
		t.Errorf("pod IP %q is not in the node's pod CIDR %s", ps.Status.GetNetwork().GetIp(), n.PodCIDR)
	}
}

// removeCgroup removes the pod's cgroup parent, empty once the pod is
// removed, from every cgroup hierarchy: runc made it, and nothing else
// removes a parent.
func removeCgroup(t *testing.T, parent string) {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join("/sys/fs/cgroup", "*", parent))
	for _, d := range dirs {
		if err := os.Remove(d); err != nil {
			t.Errorf("remove cgroup %s: %v", d, err)
		}
	}
}
