package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	nodestages "sigs.k8s.io/kwok/kustomize/stage/node/fast"
	podstages "sigs.k8s.io/kwok/kustomize/stage/pod/fast"

	"github.com/ochestra-tech/kubeopera/internal/childproc"
)

// kwokAnnotation marks the nodes kwok manages: it makes them Ready, renews
// their leases and runs their pods. Nodes whose conditions a test sets
// itself go without it, so kwok never overwrites those conditions.
const kwokAnnotation = "kwok.x-k8s.io/node"

// startWorkloadControllers starts kube-controller-manager, kube-scheduler
// and kwok against the sandbox.
func (s *Sandbox) startWorkloadControllers(bin string) error {
	kc := "--kubeconfig=" + s.KubeconfigPath
	// No service-account token controller (envtest gives no signing key to
	// the controller manager) and no node lifecycle controller (it would
	// taint and evict nodes whose conditions a test chose).
	if _, err := s.startProcess(bin, "kube-controller-manager", kc, "--leader-elect=false", "--secure-port=0",
		"--controllers=*,-serviceaccount-token,-node-lifecycle-controller"); err != nil {
		return err
	}
	if _, err := s.startProcess(bin, "kube-scheduler", kc, "--leader-elect=false", "--secure-port=0"); err != nil {
		return err
	}
	stages := filepath.Join(s.dir, "kwok-stages.yaml")
	yaml := strings.Join([]string{nodestages.DefaultNodeInit, podstages.DefaultPodReady,
		podstages.DefaultPodComplete, podstages.DefaultPodDelete}, "\n---\n")
	if err := os.WriteFile(stages, []byte(yaml), 0o600); err != nil {
		return fmt.Errorf("write kwok stages: %w", err)
	}
	_, err := s.startProcess(bin, "kwok", kc, "--config="+stages,
		"--manage-all-nodes=false", "--manage-nodes-with-annotation-selector="+kwokAnnotation+"=fake",
		"--cidr=10.244.0.0/16")
	return err
}

// startProcess starts binary name from bin with its output in the sandbox
// directory, and tracks it for Stop and for waitReady's exit check.
func (s *Sandbox) startProcess(bin, name string, args ...string) (*childproc.Process, error) {
	p, err := childproc.Start(filepath.Join(bin, name), filepath.Join(s.dir, name+".log"), nil, args)
	if err != nil {
		return nil, err
	}
	s.procs = append(s.procs, p)
	return p, nil
}
