package bootstrap

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ochestra-tech/kubeopera/plugins/internal/upstream"
)

// envTestAWS is set by `make test-aws`, which builds kubeadm for every
// offered Kubernetes minor first (hack/build-kubeadm.sh).
const envTestAWS = "KUBEOPERA_TEST_AWS"

// kubeadmFor returns the kubeadm built from k8s.io/kubernetes for minor
// and its version.
func kubeadmFor(t *testing.T, minor string) (bin, version string) {
	t.Helper()
	found, err := filepath.Glob(filepath.Join("..", "..", "..", "bin", "kubeadm", "v"+minor+".*", "kubeadm"))
	if err != nil || len(found) != 1 {
		t.Fatalf("want one kubeadm of Kubernetes %s under bin/kubeadm (hack/build-kubeadm.sh builds them), found %q (%v)", minor, found, err)
	}
	return found[0], filepath.Base(filepath.Dir(found[0]))
}

// Upstream's own kubeadm, at each offered Kubernetes minor, accepts every
// configuration the nodes render: member 0's init and the control planes'
// and workers' joins, with one control plane and with three behind an NLB.
func TestKubeadmAcceptsEveryConfigurationWeRender(t *testing.T) {
	if os.Getenv(envTestAWS) == "" {
		t.Skipf("needs kubeadm built for every offered Kubernetes minor (minutes cold): run make test-aws, which sets %s", envTestAWS)
	}
	for _, minor := range upstream.CloudControllerMinors() {
		t.Run(minor, func(t *testing.T) {
			bin, version := kubeadmFor(t, minor)
			env := []string{"STUB_KUBEADM_VERSION=" + version}
			configs := map[string]string{}
			r := newRelay(t)
			res := r.run(
				node{name: "cp0", variant: "cp0", ip: "10.0.1.10", env: env},
				node{name: "cp1", variant: "cp1", ip: "10.0.2.10", env: env},
				node{name: "w0", variant: "worker", ip: "10.0.1.20", env: env},
			)
			for name, file := range map[string]string{"cp0": "kubeadm-init.yaml", "cp1": "kubeadm-join.yaml", "w0": "kubeadm-join.yaml"} {
				requireExit(t, res, name, 0)
				configs["three control planes, "+name] = filepath.Join(res[name].root, file)
			}
			r = newRelay(t)
			res = r.run(
				node{name: "cp0", variant: "single_cp0", ip: "10.0.1.10", env: env},
				node{name: "w0", variant: "single_worker", ip: "10.0.1.20", env: env},
			)
			for name, file := range map[string]string{"cp0": "kubeadm-init.yaml", "w0": "kubeadm-join.yaml"} {
				requireExit(t, res, name, 0)
				configs["one control plane, "+name] = filepath.Join(res[name].root, file)
			}
			for what, file := range configs {
				out, err := exec.Command(bin, "config", "validate", "--config", file).CombinedOutput()
				if err != nil {
					data, _ := os.ReadFile(file)
					t.Errorf("kubeadm %s refuses the configuration of %s: %v\n%s\nconfiguration:\n%s", version, what, err, out, data)
				}
			}
		})
	}
}
