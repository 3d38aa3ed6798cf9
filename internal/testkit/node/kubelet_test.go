package node

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"
)

// The kubelet runs on this machine's cgroup v1 with cgroupfs and
// containerd 2: standalone (no API server), it starts a static pod whose
// container runs in the kubelet's pod cgroups and logs to the pod log
// directory; removing the manifest stops every container.
func TestStandaloneKubeletRunsAStaticPod(t *testing.T) {
	n := requireRuntime(t)
	if err := n.StartStandaloneKubelet(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	word := "static-" + rand.String(8)
	manifest := filepath.Join(n.StaticPodDir(), "echo.yaml")
	pod := `apiVersion: v1
kind: Pod
metadata:
  name: echo
  namespace: default
spec:
  restartPolicy: Never
  containers:
  - name: echo
    image: ` + terraformImage(t) + `
    imagePullPolicy: Never
    command: ["/bin/sh", "-c", "echo ` + word + ` in $(grep -c kubepods /proc/self/cgroup) kubepods cgroups"]
`
	if err := os.WriteFile(manifest, []byte(pod), 0o600); err != nil {
		t.Fatal(err)
	}
	var log string
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(context.Context) (bool, error) {
		if err := n.exited(); err != nil {
			return false, err
		}
		files, _ := filepath.Glob(filepath.Join(n.PodLogsDir(), "default_echo-"+n.Name+"_*", "echo", "0.log"))
		if len(files) == 0 {
			return false, nil
		}
		b, _ := os.ReadFile(files[0])
		log = string(b)
		return strings.Contains(log, word), nil
	})
	if err != nil {
		var tails []string
		for _, prog := range []string{"kubelet", "containerd"} {
			b, _ := os.ReadFile(filepath.Join(n.Dir(), prog+".log"))
			var lines []string
			for _, l := range strings.Split(string(b), "\n") {
				if strings.Contains(l, "echo") || strings.HasPrefix(l, "E") || strings.Contains(l, "level=error") {
					lines = append(lines, l)
				}
			}
			tails = append(tails, prog+":\n"+strings.Join(lines[max(0, len(lines)-25):], "\n"))
		}
		t.Fatalf("no log of the static pod (%v); the errors and the pod's lines in the logs of\n%s", err, strings.Join(tails, "\n"))
	}
	t.Logf("static pod log: %s", log)
	if strings.Contains(log, " in 0 kubepods") {
		t.Errorf("the container did not run in the kubelet's kubepods cgroups: %s", log)
	}
	if err := os.Remove(manifest); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		out, err := exec.CommandContext(ctx, n.ctr(), "--address", n.CRISocket(), "--namespace", "k8s.io",
			"tasks", "ls", "-q").Output()
		return err == nil && strings.TrimSpace(string(out)) == "", nil
	})
	if err != nil {
		t.Errorf("containers still run after the manifest was removed: %v", err)
	}
}
