// Package localcloud is a fake cloud on loopback for provider plugin
// authors (and KubeOpera's own local provider): each cluster is a real
// etcd, kube-apiserver, kube-controller-manager and kube-scheduler, with
// kwok's simulated nodes (so Deployments become Available), run from the
// sandbox binaries `make testbin` builds (BinDir). Create starts one, Scale
// adds and removes nodes, Inspect, CountNodes and Kubeconfig read it, Stop
// ends its processes (keeping its logs) and Remove stops it and deletes it.
//
// Every process is detached from its caller and survives it; everything a
// cluster is lives in one directory, <root>/<id>, with a pid file per
// process, the certificates, etcd's data, the logs and an admin
// kubeconfig. So a caller keeps no state: a plugin finds a cluster again
// from its directory on any call, in any process. Clusters run no
// containers and die with the machine: for development and tests only.
package localcloud

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

// Phase is where a cluster's start is.
type Phase string

// The phases a cluster's state file records.
const (
	Starting Phase = "Starting"
	Ready    Phase = "Ready"
	Failed   Phase = "Failed"
)

// Spec is what a cluster is made of; it is written to spec.json at Create.
type Spec struct {
	ID string `json:"id"`
	// Nodes is the number of simulated worker nodes.
	Nodes int `json:"nodes"`
	// BinDir holds the sandbox binaries.
	BinDir string `json:"binDir"`
}

// state is the starter's progress, written to state.json as it goes.
type state struct {
	Phase    Phase  `json:"phase"`
	Message  string `json:"message"`
	Progress int    `json:"progress"`
}

// ErrNotFound is returned for a cluster that has no directory.
var ErrNotFound = errors.New("no such local cluster")

var idPattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// CheckID refuses IDs that are not DNS labels: an ID names a directory.
func CheckID(id string) error {
	if !idPattern.MatchString(id) {
		return fmt.Errorf("cluster ID %q: use lower-case letters, digits and '-', at most 63 characters", id)
	}
	return nil
}

// cluster is the directory of one cluster.
type cluster struct{ dir string }

func open(root, id string) (cluster, error) {
	if err := CheckID(id); err != nil {
		return cluster{}, err
	}
	abs, err := filepath.Abs(filepath.Join(root, id))
	if err != nil {
		return cluster{}, err
	}
	return cluster{dir: abs}, nil
}

func (c cluster) path(name string) string { return filepath.Join(c.dir, name) }

// KubeconfigPath is where the admin kubeconfig is once the API server runs.
func (c cluster) kubeconfigPath() string { return c.path("kubeconfig") }

func (c cluster) exists() bool {
	_, err := os.Stat(c.path("spec.json"))
	return err == nil
}

func (c cluster) readSpec() (Spec, error) {
	var s Spec
	return s, readJSON(c.path("spec.json"), &s)
}

func (c cluster) readState() (state, error) {
	var s state
	return s, readJSON(c.path("state.json"), &s)
}

// setState replaces state.json atomically, so a reader never sees half.
func (c cluster) setState(s state) error {
	return writeJSON(c.path("state.json"), s)
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s is damaged: %w", path, err)
	}
	return nil
}

func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
