package upstream_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/semver"
	"sigs.k8s.io/yaml"

	"github.com/ochestra-tech/kubeopera/plugins/internal/awsprovider"
	"github.com/ochestra-tech/kubeopera/plugins/internal/upstream"
)

// module downloads path@version from the Go module proxy.
func module(t *testing.T, path, version string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir, err := upstream.ModuleDir(ctx, path, version)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

var imageRE = regexp.MustCompile(`(?m)^\s*image:\s*(\S+)\s*$`)

// The nodes apply upstream's own flannel manifest at the pinned release,
// byte for byte; its images are the pinned ones, all on ghcr.io (Docker
// Hub's anonymous pull limit is shared by every node behind one NAT
// address), and its pod network is the one kubeadm init is given.
func TestFlannelManifestIsUpstreams(t *testing.T) {
	dir := module(t, "github.com/flannel-io/flannel", upstream.Flannel.Version)
	manifest := readFile(t, filepath.Join(dir, "Documentation", "kube-flannel.yml"))
	sum := sha256.Sum256(manifest)
	if got := hex.EncodeToString(sum[:]); got != upstream.FlannelManifestSHA256 {
		t.Errorf("sha256 of upstream's kube-flannel.yml at %s is %s, the table pins %s", upstream.Flannel.Version, got, upstream.FlannelManifestSHA256)
	}
	wantURL := "https://raw.githubusercontent.com/flannel-io/flannel/" + upstream.Flannel.Version + "/Documentation/kube-flannel.yml"
	if upstream.Flannel.Source != wantURL {
		t.Errorf("the nodes download %s, want upstream's file at the pinned tag, %s", upstream.Flannel.Source, wantURL)
	}
	var images []string
	for _, m := range imageRE.FindAllStringSubmatch(string(manifest), -1) {
		if !slices.Contains(images, m[1]) {
			images = append(images, m[1])
		}
	}
	slices.Sort(images)
	want := []string{upstream.FlannelImage.Version, upstream.FlannelCNIPluginImage.Version}
	slices.Sort(want)
	if !slices.Equal(images, want) {
		t.Errorf("upstream's manifest at %s names images %q, the table pins %q", upstream.Flannel.Version, images, want)
	}
	for _, image := range want {
		if !strings.HasPrefix(image, "ghcr.io/flannel-io/") {
			t.Errorf("pinned image %s is not on ghcr.io", image)
		}
	}
	if !strings.Contains(string(manifest), `"Network": "`+upstream.FlannelPodCIDR+`"`) {
		t.Errorf("upstream's net-conf.json does not use the pod network %s that kubeadm init is given", upstream.FlannelPodCIDR)
	}
}

// containerd's RELEASES.md at the pinned version has a table of the
// containerd releases it recommends for each Kubernetes minor; the pin
// must satisfy the row of every minor the vanilla plugin offers.
func TestContainerdIsRecommendedForEveryOfferedKubernetes(t *testing.T) {
	dir := module(t, "github.com/containerd/containerd/v2", "v"+upstream.Containerd.Version)
	rows := map[string][]string{}
	rowRE := regexp.MustCompile(`(?m)^\|\s*(1\.[0-9]+)\s*\|\s*([0-9.+, ]+?)\s*\|`)
	for _, m := range rowRE.FindAllStringSubmatch(string(readFile(t, filepath.Join(dir, "RELEASES.md"))), -1) {
		rows[m[1]] = strings.Split(m[2], ",")
	}
	pinned := "v" + upstream.Containerd.Version
	for _, minor := range awsprovider.VanillaVersions.Minors() {
		entries, ok := rows[minor]
		if !ok {
			t.Errorf("containerd %s's RELEASES.md has no row for Kubernetes %s", upstream.Containerd.Version, minor)
			continue
		}
		ok = false
		for _, e := range entries {
			least := "v" + strings.TrimSuffix(strings.TrimSpace(e), "+")
			if semver.Major(least) == semver.Major(pinned) && semver.Compare(pinned, least) >= 0 {
				ok = true
			}
		}
		if !ok {
			t.Errorf("containerd %s is not among the releases its RELEASES.md recommends for Kubernetes %s: %q", upstream.Containerd.Version, minor, entries)
		}
	}
}

// runc is the release containerd's own CI runs the pinned containerd with,
// and no older than 1.3.3 (1.3.0 has CVE-2025-31133, -52565 and -52881).
func TestRuncIsTheOneContainerdTestsWith(t *testing.T) {
	dir := module(t, "github.com/containerd/containerd/v2", "v"+upstream.Containerd.Version)
	tested := strings.TrimSpace(string(readFile(t, filepath.Join(dir, "script", "setup", "runc-version"))))
	if tested != "v"+upstream.Runc.Version {
		t.Errorf("containerd %s is tested with runc %s, the table pins %s", upstream.Containerd.Version, tested, upstream.Runc.Version)
	}
	if semver.Compare("v"+upstream.Runc.Version, "v1.3.3") < 0 {
		t.Errorf("runc %s predates the fixes of CVE-2025-31133, -52565 and -52881 (1.3.3)", upstream.Runc.Version)
	}
	module(t, "github.com/opencontainers/runc", "v"+upstream.Runc.Version)
}

// The CNI plugins are a release the proxy serves, no older than the one
// containerd's CI installs with the pinned containerd (its go.mod).
func TestCNIPluginsAreServedAndNotOlderThanContainerdTests(t *testing.T) {
	module(t, "github.com/containernetworking/plugins", upstream.CNIPlugins.Version)
	dir := module(t, "github.com/containerd/containerd/v2", "v"+upstream.Containerd.Version)
	m := regexp.MustCompile(`(?m)^\s*github\.com/containernetworking/plugins (v\S+)`).FindStringSubmatch(string(readFile(t, filepath.Join(dir, "go.mod"))))
	if m == nil {
		t.Fatal("containerd's go.mod no longer names the CNI plugins")
	}
	if semver.Compare(upstream.CNIPlugins.Version, m[1]) < 0 {
		t.Errorf("CNI plugins %s are older than the %s containerd %s is tested with", upstream.CNIPlugins.Version, m[1], upstream.Containerd.Version)
	}
}

// Every offered Kubernetes minor has a cloud-provider-aws release of its
// own minor that the proxy serves (its manifests are checked against
// upstream's kustomize base in package bootstrap).
func TestEveryOfferedMinorHasACloudController(t *testing.T) {
	for _, minor := range awsprovider.VanillaVersions.Minors() {
		p, err := upstream.CloudController(minor)
		if err != nil {
			t.Error(err)
			continue
		}
		if !strings.HasPrefix(p.Version, "v"+minor+".") {
			t.Errorf("Kubernetes %s gets cloud-provider-aws %s, a release of another minor", minor, p.Version)
		}
		dir := module(t, "k8s.io/cloud-provider-aws", p.Version)
		var k struct{ Resources []string }
		if err := yaml.Unmarshal(readFile(t, filepath.Join(dir, "examples", "existing-cluster", "base", "kustomization.yaml")), &k); err != nil || len(k.Resources) == 0 {
			t.Errorf("cloud-provider-aws %s has no kustomize base at examples/existing-cluster/base: %v", p.Version, err)
		}
	}
}

// Every row says what it is, where it comes from and what proves it.
func TestEveryRowIsComplete(t *testing.T) {
	for _, p := range upstream.Table() {
		if p.Part == "" || p.Version == "" || p.Source == "" || p.Proof == "" {
			t.Errorf("incomplete row %+v", p)
		}
		if _, err := time.Parse(time.DateOnly, p.Checked); err != nil {
			t.Errorf("%s: checked on %q: %v", p.Part, p.Checked, err)
		}
	}
}

// The kustomize bases the nodes fetch are written in kustomize's documented
// remote form (examples/remoteBuild.md): the repository's clone URL, then
// // where the repository ends and the directory starts, then the ref.
// Without the //, kustomize guesses where a github.com repository ends.
func TestKustomizeBasesAreInTheDocumentedRemoteForm(t *testing.T) {
	form := regexp.MustCompile(`^https://github\.com/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+//[A-Za-z0-9_./-]+[^/](\?ref=v[0-9.]+)?$`)
	sources := []string{upstream.EBSCSIDriver.Source}
	for _, minor := range upstream.CloudControllerMinors() {
		p, err := upstream.CloudController(minor)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, p.Source)
	}
	for _, s := range sources {
		if !form.MatchString(s) {
			t.Errorf("kustomize base %q is not https://github.com/OWNER/REPO//DIR?ref=TAG", s)
		}
	}
}
