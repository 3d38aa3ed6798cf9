package node

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
	"sigs.k8s.io/yaml"
)

// containerd ignores keys it does not know, so a misspelt one would pass
// silently: the built containerd's own `config dump` of the configuration
// must show every value set here, not its default.
func TestContainerdTakesEveryKeyOfTheConfig(t *testing.T) {
	bins, err := findBinaries(false)
	if err != nil {
		t.Skipf("%v (make test-node builds them)", err)
	}
	dir := t.TempDir()
	p := newPaths(dir, bins.cni)
	cfg := filepath.Join(dir, "containerd.toml")
	if err := os.WriteFile(cfg, []byte(containerdConfig(p, "/usr/sbin/runc")), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(filepath.Join(bins.containerd, "containerd"), "--config", cfg, "config", "dump").CombinedOutput()
	if err != nil {
		t.Fatalf("containerd config dump: %v\n%s", err, out)
	}
	dump := string(out)
	for _, want := range []string{
		"restrict_oom_score_adj = true",
		"SystemdCgroup = false",
		"BinaryName = '/usr/sbin/runc'",
		"sandbox = '" + PauseImage + "'",
		"bin_dirs = ['" + bins.cni + "']",
		"conf_dir = '" + p.cniConf + "'",
		"snapshotter = 'overlayfs'",
		"address = '" + p.containerdSocket + "'",
	} {
		if !strings.Contains(dump, want) {
			t.Errorf("containerd's dump of the config lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("dump:\n%s", dump)
	}
}

// The kubelet configuration decodes strictly into upstream's type: no key
// it would not know.
func TestKubeletConfigDecodesStrictly(t *testing.T) {
	b, err := kubeletConfig(newNetwork(7), newPaths("/tmp/x", "/cni"))
	if err != nil {
		t.Fatal(err)
	}
	var c kubeletv1beta1.KubeletConfiguration
	if err := yaml.UnmarshalStrict(b, &c); err != nil {
		t.Fatalf("strict decode: %v\n%s", err, b)
	}
	if c.FailCgroupV1 == nil || *c.FailCgroupV1 || c.CgroupDriver != "cgroupfs" || c.PodCIDR != "10.214.7.0/24" ||
		c.Address != "10.213.7.2" {
		t.Errorf("config lost a setting:\n%s", b)
	}
}
