// Package devenv is the machinery of `kubeopera dev`: everything the
// platform needs around the server and the controller, on one machine and
// in one temporary directory. A management sandbox (real kube-apiserver,
// the HostCluster CRD), a git server over HTTPS with a repository for the
// GitOps trees, a Helm repository with the Flux chart, a mirror of the
// trees' outside git sources (the Gateway API CRDs), a directory for the
// local provider's clusters, and Flux's controllers run as processes
// against each onboarded cluster once its Flux is installed (the chart's
// Deployments run on simulated nodes, which run no containers). Stop
// removes all of it.
package devenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/internal/childproc"
	"github.com/ochestra-tech/kubeopera/internal/fluxchart"
	"github.com/ochestra-tech/kubeopera/internal/gitserver"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/sdk/localcloud"
)

// GitSecret is the Secret in the KubeOpera namespace of the management
// sandbox with the git server's credentials and CA, for
// gitCredentialsSecretRef.
const GitSecret = "dev-git"

// gitUser is the git server's user name; its password is random per run.
const gitUser = "kubeopera"

// Env is a running development environment.
type Env struct {
	// Dir holds everything; Stop removes it.
	Dir string
	// DataDir is the server's data directory.
	DataDir string
	// LocalClusters is where the local provider keeps its clusters.
	LocalClusters string
	// Management is the management sandbox.
	Management *sandbox.Sandbox
	// GitRepoURL is the repository for GitOps trees (https, on loopback).
	GitRepoURL string
	// ChartRepoURL is the Helm repository with the Flux chart.
	ChartRepoURL string
	// GatewayAPIRepoURL is the mirror of the Gateway API release the
	// GitOps trees fetch its CRDs from (plain HTTP, on loopback).
	GatewayAPIRepoURL string

	git    *gitserver.Server
	mirror *gitserver.Server
	chart  *fluxchart.Repo
	mu     sync.Mutex
	flux   map[string]*fluxRun // HostCluster name -> its Flux controllers
}

// Start starts the environment in a new temporary directory. On failure
// everything started is stopped and the directory removed.
func Start(ctx context.Context) (_ *Env, err error) {
	dir, err := os.MkdirTemp("", "kubeopera-dev-")
	if err != nil {
		return nil, err
	}
	e := &Env{Dir: dir, DataDir: filepath.Join(dir, "data"), LocalClusters: filepath.Join(dir, "local-clusters"),
		flux: map[string]*fluxRun{}}
	defer func() {
		if err != nil {
			err = errors.Join(err, e.Stop())
		}
	}()
	if err := os.Mkdir(e.DataDir, 0o700); err != nil {
		return e, err
	}
	root, err := childproc.RepoRoot()
	if err != nil {
		return e, fmt.Errorf("kubeopera dev runs from the KubeOpera repository (it needs config/crd and bin/k8s): %w", err)
	}
	e.Management, err = sandbox.Start(ctx, sandbox.Options{CRDDirs: []string{filepath.Join(root, "config", "crd", "bases")}})
	if err != nil {
		return e, fmt.Errorf("management sandbox: %w", err)
	}
	if e.chart, err = fluxchart.NewRepo(); err != nil {
		return e, fmt.Errorf("flux chart repository: %w", err)
	}
	e.ChartRepoURL = e.chart.URL
	if e.mirror, e.GatewayAPIRepoURL, err = startMirror(filepath.Join(dir, "mirror")); err != nil {
		return e, fmt.Errorf("mirror of the GitOps tree's outside sources: %w", err)
	}
	return e, e.startGit(ctx)
}

// startGit starts the git server with a random password, makes the
// repository and writes the credentials Secret.
func (e *Env) startGit(ctx context.Context) error {
	pw := make([]byte, 16)
	_, _ = rand.Read(pw)
	password := hex.EncodeToString(pw)
	gitRoot := filepath.Join(e.Dir, "git")
	if err := os.Mkdir(gitRoot, 0o700); err != nil {
		return err
	}
	var err error
	if e.git, err = gitserver.New(gitRoot, gitserver.Options{Username: gitUser, Password: password, TLS: true}); err != nil {
		return err
	}
	if e.GitRepoURL, err = e.git.InitRepo("fleet"); err != nil {
		return err
	}
	cs := e.Management.Client.CoreV1()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: v1.Namespace}}
	if _, err := cs.Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("namespace %s: %w", v1.Namespace, err)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: GitSecret, Namespace: v1.Namespace},
		Data: map[string][]byte{"username": []byte(gitUser), "password": []byte(password), "ca.crt": e.git.CACert()}}
	if _, err := cs.Secrets(v1.Namespace).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("git credentials Secret: %w", err)
	}
	return nil
}

// Stop stops everything and removes the directory: the Flux controllers,
// the local provider's clusters, the repositories and the sandbox. It is
// safe to call more than once.
func (e *Env) Stop() error {
	var errs []error
	e.mu.Lock()
	for name, f := range e.flux {
		errs = append(errs, f.stop())
		delete(e.flux, name)
	}
	e.mu.Unlock()
	errs = append(errs, localcloud.RemoveAll(e.LocalClusters))
	if e.chart != nil {
		e.chart.Close()
		e.chart = nil
	}
	if e.git != nil {
		e.git.Close()
		e.git = nil
	}
	if e.mirror != nil {
		e.mirror.Close()
		e.mirror = nil
	}
	if e.Management != nil {
		errs = append(errs, e.Management.Stop())
		e.Management = nil
	}
	if e.Dir != "" {
		errs = append(errs, os.RemoveAll(e.Dir))
		e.Dir = ""
	}
	return errors.Join(errs...)
}
