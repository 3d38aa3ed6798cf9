package upstream_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/semver"

	"github.com/ochestra-tech/kubeopera/plugins/internal/upstream"
)

// The pins are the newest patch of their line that the Go module proxy
// serves today. Upstream's next release makes this fail, so it runs in
// make test-aws only (KUBEOPERA_TEST_AWS), not in make test.
func TestPinsAreTheNewestPatchTheProxyServes(t *testing.T) {
	if os.Getenv("KUBEOPERA_TEST_AWS") == "" {
		t.Skip("asks the Go module proxy for today's releases, which move: run make test-aws, which sets KUBEOPERA_TEST_AWS")
	}
	rows := map[string]string{
		"github.com/containerd/containerd/v2":    "v" + upstream.Containerd.Version,
		"github.com/containernetworking/plugins": upstream.CNIPlugins.Version,
		"github.com/flannel-io/flannel":          upstream.Flannel.Version,
	}
	for _, m := range upstream.CloudControllerMinors() {
		p, _ := upstream.CloudController(m)
		rows["k8s.io/cloud-provider-aws@"+m] = p.Version
	}
	for key, pinned := range rows {
		path, _, _ := strings.Cut(key, "@")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		versions, err := upstream.Versions(ctx, path)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		newest := pinned
		for _, v := range versions {
			if semver.Prerelease(v) == "" && semver.MajorMinor(v) == semver.MajorMinor(pinned) && semver.Compare(v, newest) > 0 {
				newest = v
			}
		}
		if newest != pinned {
			t.Errorf("%s: the proxy serves %s, newer than the pinned %s of the same line: update package upstream's table", key, newest, pinned)
		}
	}
}
