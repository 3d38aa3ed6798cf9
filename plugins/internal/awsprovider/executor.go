package awsprovider

import (
	"context"
	"fmt"
	"os"
	"sync"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/terraform"
)

// The plugin's environment (inherited from the plugin host) chooses where
// terraform runs:
//
//	KUBEOPERA_TERRAFORM_EXECUTOR  local (default) or job
//	KUBEOPERA_TERRAFORM_DIR       local workspaces (default data/terraform)
//	KUBEOPERA_STATE_KUBECONFIG    management cluster holding the state (else KUBECONFIG, else in-cluster)
//	KUBEOPERA_TERRAFORM_IMAGE     image of the Jobs (terraform.DefaultImage)
//	KUBEOPERA_TERRAFORM_MODULE_DIR  a module tree to run instead of the embedded one
//	                              (a fork, or an offline test double); its inputs arrive
//	                              as terraform.tfvars.json
//
// Terraform state always lives in the kubernetes backend on the management
// cluster, namespace kubeopera-provisioning, so a restarted plugin or a
// retried Job resumes it.
const (
	envExecutor   = "KUBEOPERA_TERRAFORM_EXECUTOR"
	envDir        = "KUBEOPERA_TERRAFORM_DIR"
	envState      = "KUBEOPERA_STATE_KUBECONFIG"
	envImage      = "KUBEOPERA_TERRAFORM_IMAGE"
	envModuleDir  = "KUBEOPERA_TERRAFORM_MODULE_DIR"
	defaultTFDir  = "data/terraform"
	stateNotFound = "terraform keeps its state on the management cluster: set " + envState +
		" (or KUBECONFIG) in the plugin host's environment, or run in the cluster with " + envExecutor + "=job"
)

// executors makes the executor on first use, so GetInfo and Validate work
// on a machine without a management cluster. A failure is not kept: the
// next call tries again (the management cluster may be back).
type executors struct {
	mu   sync.Mutex
	exec terraform.Executor
}

func (e *executors) get(ctx context.Context) (terraform.Executor, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.exec == nil {
		exec, err := executorFromEnv(ctx)
		if err != nil {
			return nil, err
		}
		e.exec = exec
	}
	return e.exec, nil
}

func executorFromEnv(ctx context.Context) (terraform.Executor, error) {
	cfg, path, err := stateCluster()
	if err != nil {
		return nil, sdk.FailedPrecondition("%s (%v)", stateNotFound, err)
	}
	switch mode := os.Getenv(envExecutor); mode {
	case "", "local":
		if path == "" {
			return nil, sdk.FailedPrecondition("local terraform runs need a kubeconfig file for the state backend: %s", stateNotFound)
		}
		dir := os.Getenv(envDir)
		if dir == "" {
			dir = defaultTFDir
		}
		return terraform.Local{Dir: dir, Backend: map[string]string{"config_path": path,
			"namespace": terraform.DefaultNamespace}, LockTimeout: 0}, nil
	case "job":
		kube, err := terraform.NewKube(cfg)
		if err != nil {
			return nil, fmt.Errorf("management cluster client: %w", err)
		}
		j := terraform.Jobs{Client: kube, Image: os.Getenv(envImage)}
		if err := j.Ensure(ctx); err != nil {
			return nil, sdk.Unavailable("prepare namespace %s for terraform Jobs: %v", terraform.DefaultNamespace, err)
		}
		return j, nil
	default:
		return nil, sdk.FailedPrecondition("%s=%q: use local or job", envExecutor, mode)
	}
}

// stateCluster finds the management cluster: a kubeconfig file (returned
// with its path) or the in-cluster service account.
func stateCluster() (*rest.Config, string, error) {
	for _, path := range []string{os.Getenv(envState), os.Getenv("KUBECONFIG")} {
		if path != "" {
			cfg, err := clientcmd.BuildConfigFromFlags("", path)
			return cfg, path, err
		}
	}
	cfg, err := rest.InClusterConfig()
	return cfg, "", err
}
