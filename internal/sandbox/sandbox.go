// Package sandbox starts throwaway Kubernetes clusters from real binaries for
// tests and local runs: etcd and kube-apiserver through controller-runtime's
// envtest and, when asked, kube-controller-manager, kube-scheduler and kwok
// with simulated nodes, so Deployments become Available and Jobs complete.
//
// The binaries are built from the Go module proxy by `make testbin` into
// bin/k8s/<KubernetesVersion>. Several sandboxes run at once on free ports;
// Stop leaves no process and no temporary directory behind.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/ochestra-tech/kubeopera/internal/childproc"
)

// Options say what a sandbox runs.
type Options struct {
	// CRDDirs are directories of CRD manifests to install, e.g. config/crd.
	CRDDirs []string
	// Workloads starts kube-controller-manager, kube-scheduler and kwok, so
	// Deployments, ReplicaSets and Jobs make progress on simulated nodes.
	// It is implied when Nodes is not empty.
	Workloads bool
	// Nodes are created at start; Start returns once kwok made each node it
	// manages Ready and schedulable.
	Nodes []Node
	// APIServerNames, when set, are extra DNS names and IP addresses for the
	// API server's serving certificate, e.g. 10.0.0.1, where pods on a real
	// node reach the kubernetes Service. The sandbox then makes its own
	// certificate and service account signing key, mounts service account
	// tokens into pods (the default ServiceAccount comes with Workloads),
	// and dials kubelets by InternalIP only. Off by default.
	APIServerNames []string
	// StartTimeout bounds Start (60s).
	StartTimeout time.Duration
}

// Sandbox is a running cluster.
type Sandbox struct {
	// Config reaches the API server as a system:masters user.
	Config *rest.Config
	// Kubeconfig is the same credential as a kubeconfig that programs
	// outside this process can use; KubeconfigPath is where it is written.
	Kubeconfig     []byte
	KubeconfigPath string
	// Client is a typed client for Config.
	Client kubernetes.Interface

	env   *envtest.Environment
	dir   string
	procs []*childproc.Process
}

// Start starts a sandbox. On failure everything started so far is stopped.
func Start(ctx context.Context, opts Options) (_ *Sandbox, err error) {
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "kubeopera-sandbox-")
	if err != nil {
		return nil, fmt.Errorf("sandbox temp dir: %w", err)
	}
	s := &Sandbox{dir: dir, env: &envtest.Environment{
		BinaryAssetsDirectory: bin,
		CRDDirectoryPaths:     opts.CRDDirs,
		ErrorIfCRDPathMissing: true,
	}}
	defer func() {
		if err != nil {
			err = errors.Join(err, s.Stop())
		}
	}()
	if len(opts.APIServerNames) > 0 {
		api := s.env.ControlPlane.GetAPIServer()
		if err := useOwnCertificates(api, filepath.Join(dir, "apiserver"), opts.APIServerNames); err != nil {
			return s, err
		}
	}
	if _, err := s.env.Start(); err != nil {
		return s, fmt.Errorf("start etcd and kube-apiserver from %s: %w", bin, err)
	}
	if err := s.writeAdminKubeconfig(); err != nil {
		return s, err
	}
	if opts.Workloads || len(opts.Nodes) > 0 {
		if err := s.startWorkloadControllers(bin); err != nil {
			return s, err
		}
	}
	for _, n := range opts.Nodes {
		if err := s.AddNode(ctx, n); err != nil {
			return s, err
		}
	}
	return s, nil
}

func (s *Sandbox) writeAdminKubeconfig() error {
	user, err := s.env.AddUser(envtest.User{Name: "sandbox-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return fmt.Errorf("sandbox admin user: %w", err)
	}
	s.Config = user.Config()
	if s.Kubeconfig, err = user.KubeConfig(); err != nil {
		return fmt.Errorf("sandbox kubeconfig: %w", err)
	}
	s.KubeconfigPath = filepath.Join(s.dir, "kubeconfig")
	if err := os.WriteFile(s.KubeconfigPath, s.Kubeconfig, 0o600); err != nil {
		return err
	}
	s.Client, err = kubernetes.NewForConfig(s.Config)
	return err
}

// stopGrace is how long a process the sandbox started gets to exit on
// SIGTERM before it is killed.
const stopGrace = 5 * time.Second

// Stop stops every process of the sandbox and removes its files. It is safe
// to call more than once.
func (s *Sandbox) Stop() error {
	var errs []error
	for i := len(s.procs) - 1; i >= 0; i-- {
		errs = append(errs, s.procs[i].Stop(stopGrace))
	}
	s.procs = nil
	if s.env != nil {
		errs = append(errs, s.env.Stop())
		s.env = nil
	}
	if s.dir != "" {
		errs = append(errs, os.RemoveAll(s.dir))
		s.dir = ""
	}
	return errors.Join(errs...)
}
