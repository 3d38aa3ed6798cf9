// Package fluxrun runs Flux's source-controller and kustomize-controller as
// processes for tests, out of cluster, against the cluster of a kubeconfig
// (usually an internal/sandbox). They watch the flux-system namespace only;
// source-controller serves artifacts on a loopback port and advertises that
// address, so kustomize-controller downloads them over loopback.
//
// The binaries are built from the Go module proxy by `make testbin` into
// bin/flux/<Version>. Several instances run at once on free ports; the
// processes stop when the test ends.
package fluxrun

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ochestra-tech/kubeopera/internal/childproc"
)

// Namespace is the namespace the controllers watch (RUNTIME_NAMESPACE).
const Namespace = "flux-system"

// RequeueDependency is how soon kustomize-controller re-checks a
// Kustomization whose dependsOn is not Ready yet. Flux's default is 30s and
// nothing watches the dependency, so every dependent waits that long; tests
// want it short.
const RequeueDependency = 2 * time.Second

// startTimeout bounds Start when ctx has no earlier deadline.
const startTimeout = 60 * time.Second

// stopGrace is how long a controller gets to exit on SIGTERM before it is
// killed; the controllers drain their queues on SIGTERM.
const stopGrace = 10 * time.Second

// Controllers are a running source-controller and kustomize-controller.
type Controllers struct {
	// SourceURL is source-controller's artifact server,
	// http://127.0.0.1:<port>; GitRepository artifacts' URLs point there.
	SourceURL string
	// LogDir holds source-controller.log and kustomize-controller.log.
	LogDir string

	direct []string
	procs  []*childproc.Process
}

// Start starts source-controller and kustomize-controller against the
// cluster of kubeconfigPath, watching namespace flux-system (created if
// missing), and returns once both report ready and the artifact server
// answers. They stop on t.Cleanup; their logs go to files in t.TempDir()
// and are printed when the test failed. direct are more hosts (or CIDRs)
// they reach without the offline proxy, beside loopback: a node's address
// where a relay serves this machine's git server.
func Start(ctx context.Context, t testing.TB, kubeconfigPath string, direct ...string) (*Controllers, error) {
	t.Helper()
	c, err := Run(ctx, kubeconfigPath, t.TempDir(), direct...)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("stop flux controllers: %v", err)
		}
		if t.Failed() {
			c.printLogs(t)
		}
	})
	return c, nil
}

// Run is Start for callers that are not tests (`kubeopera dev`): the logs
// and the artifact storage go to logDir, and the caller calls Stop. On
// failure nothing is left running.
func Run(ctx context.Context, kubeconfigPath, logDir string, direct ...string) (_ *Controllers, err error) {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	if err := ensureNamespace(ctx, kubeconfigPath); err != nil {
		return nil, err
	}
	c := &Controllers{LogDir: logDir, direct: direct}
	defer func() {
		if err != nil {
			err = errors.Join(err, c.Stop())
		}
	}()
	ports, err := freePorts(5)
	if err != nil {
		return nil, err
	}
	storage := fmt.Sprintf("127.0.0.1:%d", ports[4])
	c.SourceURL = "http://" + storage
	storagePath := filepath.Join(c.LogDir, "storage")
	if err := os.Mkdir(storagePath, 0o700); err != nil { // source-controller wants it to exist
		return nil, fmt.Errorf("artifact storage dir: %w", err)
	}
	sc := sourceArgs(ports[0], ports[1], storage, storagePath)
	kc := kustomizeArgs(ports[2], ports[3])
	for _, run := range []struct {
		name string
		args []string
	}{{"source-controller", sc}, {"kustomize-controller", kc}} {
		env, err := c.env(kubeconfigPath, run.name)
		if err != nil {
			return nil, err
		}
		p, err := childproc.Start(filepath.Join(bin, run.name), filepath.Join(c.LogDir, run.name+".log"), env, run.args)
		if err != nil {
			return nil, err
		}
		c.procs = append(c.procs, p)
	}
	health := []string{
		fmt.Sprintf("http://127.0.0.1:%d/readyz", ports[1]),
		fmt.Sprintf("http://127.0.0.1:%d/readyz", ports[3]),
		c.SourceURL + "/",
	}
	if err := c.waitServing(ctx, health); err != nil {
		return nil, err
	}
	return c, nil
}

// sourceArgs are source-controller's out-of-cluster flags (see its main.go
// and fluxcd/pkg/artifact/config, runtime/leaderelection, runtime/controller).
func sourceArgs(metrics, health int, storage, storagePath string) []string {
	return append(commonArgs(metrics, health),
		"--storage-path="+storagePath,
		"--storage-addr="+storage,
		"--storage-adv-addr="+storage,
		"--requeue-dependency="+RequeueDependency.String(),
	)
}

// kustomizeArgs are kustomize-controller's out-of-cluster flags.
func kustomizeArgs(metrics, health int) []string {
	return append(commonArgs(metrics, health),
		"--requeue-dependency="+RequeueDependency.String(),
		"--no-remote-bases=true",
	)
}

func commonArgs(metrics, health int) []string {
	return []string{
		"--watch-all-namespaces=false", // then RUNTIME_NAMESPACE is watched
		"--enable-leader-election=false",
		fmt.Sprintf("--metrics-addr=127.0.0.1:%d", metrics),
		fmt.Sprintf("--health-addr=127.0.0.1:%d", health),
		"--events-addr=", // no notification-controller: events go to the API only
		"--log-encoding=console",
		"--log-level=debug",
	}
}

// env gives a controller the kubeconfig (both parse flags with pflag, which
// does not see controller-runtime's Go-flag --kubeconfig, so KUBECONFIG is
// the way in), the watched namespace, and a TMPDIR of its own:
// kustomize-controller deletes "stale" work dirs in TMPDIR at start, which
// would include those of another instance sharing /tmp.
func (c *Controllers) env(kubeconfigPath, name string) ([]string, error) {
	tmp := filepath.Join(c.LogDir, "tmp-"+name)
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return nil, fmt.Errorf("temp dir for %s: %w", name, err)
	}
	noProxy := strings.Join(append([]string{"127.0.0.1", "localhost", "::1"}, c.direct...), ",")
	set := map[string]string{
		"KUBECONFIG":        kubeconfigPath,
		"RUNTIME_NAMESPACE": Namespace,
		"TMPDIR":            tmp,
		// Nothing here may dial past loopback: every source the tree names
		// outside it (chart repositories, the Gateway API CRDs' git
		// repository) goes to a proxy on a closed loopback port instead,
		// so the fetch fails at once without a name lookup or a dial out,
		// and shows as the source's Ready=False. Loopback (the test's git
		// server, the artifact server) is never proxied.
		"HTTPS_PROXY": OfflineProxy, "HTTP_PROXY": OfflineProxy, "https_proxy": OfflineProxy, "http_proxy": OfflineProxy,
		"NO_PROXY": noProxy, "no_proxy": noProxy,
		// Read as flag defaults; set ones must not leak in from the test's env.
		"EVENTS_ADDR": "", "METRICS_ADDR": "", "STORAGE_PATH": "", "STORAGE_ADDRESS": "", "STORAGE_ADV_ADDR": "",
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ours := set[k]; !ours {
			env = append(env, kv)
		}
	}
	for k, v := range set {
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env, nil
}

// waitServing polls urls until each answers (any HTTP status for the
// artifact server, 200 for the readyz endpoints) or a controller exits.
func (c *Controllers) waitServing(ctx context.Context, urls []string) error {
	client := &http.Client{Timeout: time.Second}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for _, u := range urls {
		for {
			if err := errors.Join(c.procs[0].Exited(), c.procs[1].Exited()); err != nil {
				return err
			}
			if resp, err := client.Get(u); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK || !strings.HasSuffix(u, "/readyz") {
					break
				}
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("flux controllers not serving %s: %w (logs in %s)", u, ctx.Err(), c.LogDir)
			case <-tick.C:
			}
		}
	}
	return nil
}

// Stop stops both controllers and waits for them to exit. It is safe to call
// more than once; t.Cleanup calls it too.
func (c *Controllers) Stop() error {
	var errs []error
	for i := len(c.procs) - 1; i >= 0; i-- {
		errs = append(errs, c.procs[i].Stop(stopGrace))
	}
	return errors.Join(errs...)
}

// Pids returns the process IDs of the controllers, for leak checks.
func (c *Controllers) Pids() []int {
	var pids []int
	for _, p := range c.procs {
		pids = append(pids, p.PID())
	}
	return pids
}

func (c *Controllers) printLogs(t testing.TB) {
	for _, p := range c.procs {
		b, err := os.ReadFile(p.LogFile())
		if err != nil {
			t.Logf("%s log: %v", p.Name(), err)
			continue
		}
		t.Logf("---- %s log ----\n%s", p.Name(), b)
	}
}

func ensureNamespace(ctx context.Context, kubeconfigPath string) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfigPath)
	if err != nil {
		return fmt.Errorf("read kubeconfig %s: %w", kubeconfigPath, err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("client for kubeconfig %s: %w", kubeconfigPath, err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create namespace %s: %w", Namespace, err)
	}
	return waitServed(ctx, cs)
}

// OfflineProxy is the proxy the controllers send every request beyond
// loopback to: port 1 of loopback, where nothing listens.
const OfflineProxy = "http://127.0.0.1:1"

// servedKinds are the kinds the two controllers watch, by group version.
var servedKinds = map[string][]string{
	"source.toolkit.fluxcd.io/v1":    {"GitRepository", "HelmRepository", "HelmChart", "Bucket", "OCIRepository"},
	"kustomize.toolkit.fluxcd.io/v1": {"Kustomization"},
}

// waitServed waits until the API server's (aggregated) discovery lists
// every kind the controllers watch: they exit at start on a kind that is
// not served yet, as happens a moment after a Helm install created the
// CRDs, even when the group version itself already answers.
func waitServed(ctx context.Context, cs kubernetes.Interface) error {
	var missing []string
	for {
		_, lists, err := cs.Discovery().ServerGroupsAndResources()
		missing = missing[:0]
		if err == nil {
			missing = missingKinds(lists)
			if len(missing) == 0 {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the API server does not serve %v (install the Flux CRDs first): %v", missing, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func missingKinds(lists []*metav1.APIResourceList) []string {
	have := map[string]bool{}
	for _, l := range lists {
		for _, r := range l.APIResources {
			have[l.GroupVersion+"/"+r.Kind] = true
		}
	}
	var missing []string
	for gv, kinds := range servedKinds {
		for _, k := range kinds {
			if !have[gv+"/"+k] {
				missing = append(missing, gv+"/"+k)
			}
		}
	}
	return missing
}

// freePorts returns n distinct loopback ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free loopback port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
