package fluxrun

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ochestra-tech/kubeopera/internal/childproc"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

var sb *sandbox.Sandbox

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ctx := context.Background()
	crds, err := CRDDirs(ctx)
	if err == nil {
		sb, err = sandbox.Start(ctx, sandbox.Options{CRDDirs: crds})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fluxrun tests: start sandbox with the Flux CRDs:", err)
		return 1
	}
	defer sb.Stop()
	return m.Run()
}

func TestVersionIsTheOnePinnedInBothModules(t *testing.T) {
	root, err := childproc.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	for file, mods := range map[string][]string{
		"hack/flux/go.mod": {"github.com/fluxcd/source-controller", "github.com/fluxcd/kustomize-controller"},
		"go.mod":           {"github.com/fluxcd/source-controller/api", "github.com/fluxcd/kustomize-controller/api"},
	} {
		b, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mods {
			if !strings.Contains(string(b), "\t"+m+" "+Version+"\n") {
				t.Errorf("%s does not require %s %s", file, m, Version)
			}
		}
	}
}

func TestMissingBinariesSayHowToBuildThem(t *testing.T) {
	t.Setenv(binDirEnv, t.TempDir())
	_, err := Start(context.Background(), t, sb.KubeconfigPath)
	if err == nil || !strings.Contains(err.Error(), "run 'make testbin'") || !strings.Contains(err.Error(), "source-controller, kustomize-controller") {
		t.Fatalf("Start with no binaries: %v, want the missing names and 'run make testbin'", err)
	}
}

func TestStartServesArtifactsAndStopLeavesNoProcess(t *testing.T) {
	ctx := context.Background()
	bin, err := BinDir()
	if err != nil {
		t.Fatal(err)
	}
	// On a fresh sandbox (this test runs before the others that Start)
	// the namespace is missing and Start must create it.
	if _, err := sb.Client.CoreV1().Namespaces().Get(ctx, Namespace, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Logf("namespace %s exists before Start (%v); its creation is not exercised", Namespace, err)
	}
	c, err := Start(ctx, t, sb.KubeconfigPath)
	if err != nil {
		t.Fatal(err)
	}
	if got := ownChildrenFrom(bin); len(got) != 2 {
		t.Errorf("controller processes running: %v, want source-controller and kustomize-controller", got)
	}
	if _, err := sb.Client.CoreV1().Namespaces().Get(ctx, Namespace, metav1.GetOptions{}); err != nil {
		t.Errorf("namespace %s after Start: %v", Namespace, err)
	}
	resp, err := http.Get(c.SourceURL + "/gitrepository/flux-system/none/latest.tar.gz")
	if err != nil {
		t.Fatalf("artifact server at %s: %v", c.SourceURL, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown artifact: HTTP %d, want 404", resp.StatusCode)
	}
	for _, name := range []string{"source-controller", "kustomize-controller"} {
		b, _ := os.ReadFile(filepath.Join(c.LogDir, name+".log"))
		if !strings.Contains(string(b), "starting manager") {
			t.Errorf("%s log does not show the manager starting:\n%s", name, b)
		}
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if left := ownChildrenFrom(bin); len(left) != 0 {
		t.Errorf("processes left after Stop: %v", left)
	}
	for _, pid := range c.Pids() {
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
			t.Errorf("controller pid %d still exists after Stop", pid)
		}
	}
}

func TestTwoInstancesRunSideBySide(t *testing.T) {
	ctx := context.Background()
	a, err := Start(ctx, t, sb.KubeconfigPath)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Start(ctx, t, sb.KubeconfigPath)
	if err != nil {
		t.Fatal(err)
	}
	if a.SourceURL == b.SourceURL || a.LogDir == b.LogDir {
		t.Errorf("instances share artifact server %s or log dir %s", a.SourceURL, a.LogDir)
	}
}

// ownChildrenFrom lists this test process's children running a binary
// from dir, as "name@pid".
func ownChildrenFrom(dir string) []string {
	var out []string
	for _, proc := range childproc.Children(dir) {
		target, _ := os.Readlink(filepath.Join(proc, "exe"))
		out = append(out, filepath.Base(target)+"@"+filepath.Base(proc))
	}
	return out
}
