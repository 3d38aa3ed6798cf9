package pipeline

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/controller"
	"github.com/ochestra-tech/kubeopera/host/pipeline/fluxinstall"
	"github.com/ochestra-tech/kubeopera/host/pipeline/fluxsync"
	"github.com/ochestra-tech/kubeopera/internal/fluxchart"
	"github.com/ochestra-tech/kubeopera/internal/fluxrun"
	"github.com/ochestra-tech/kubeopera/internal/gitserver"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/server/store"
)

const gitPassword = "s3cret-git-token-never-printed"

var skipNameValidation = true

// fixture is everything real the pipeline talks to: a management cluster, a
// target with simulated nodes and Flux's source- and kustomize-controller
// running against it, a Helm chart repository, a git server and the
// KubeOpera server the first admin is created on.
type fixture struct {
	mgmt      *sandbox.Sandbox
	c         client.Client
	target    *sandbox.Sandbox
	targetC   client.Client
	chart     *fluxchart.Repo
	git       *gitserver.Server
	repoURL   string
	installed *installed
}

func newFixture(t *testing.T) *fixture {
	ctx := context.Background()
	f := &fixture{}
	f.mgmt, f.c = management(t)
	var err error
	f.target, err = sandbox.Start(ctx, sandbox.Options{Nodes: []sandbox.Node{{Name: "w1"}, {Name: "w2"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.target.Stop() })
	if f.targetC, err = client.New(f.target.Config, client.Options{Scheme: New(Options{}).scheme}); err != nil {
		t.Fatal(err)
	}
	f.chart = fluxchart.Serve(t)
	f.git = gitserver.Start(t, gitserver.Options{Username: "kubeopera", Password: gitPassword})
	f.repoURL = f.git.CreateRepo(t, "fleet")
	f.installed = startInstalled(t)
	createSecret(t, f.c, "target-kubeconfig", corev1.SecretTypeOpaque, map[string]string{"kubeconfig": string(f.target.Kubeconfig)})
	createSecret(t, f.c, "git-creds", corev1.SecretTypeOpaque, map[string]string{"username": "kubeopera", "password": gitPassword})
	createSecret(t, f.c, "git-wrong", corev1.SecretTypeOpaque, map[string]string{"username": "kubeopera", "password": "not-the-password"})
	createSecret(t, f.c, "registry", corev1.SecretTypeDockerConfigJson,
		map[string]string{corev1.DockerConfigJsonKey: `{"auths":{"registry.example.com":{"auth":"dTpw"}}}`})
	return f
}

// startFlux runs Flux's real source- and kustomize-controller against the
// target once the chart installed their CRDs (the chart's own Deployments
// run on kwok, which runs no containers).
func (f *fixture) startFlux(t *testing.T) {
	t.Helper()
	if _, err := fluxrun.Start(context.Background(), t, f.target.KubeconfigPath); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) pipeline(chartURL string) *Pipeline {
	return New(Options{Management: f.c, Chart: fluxinstall.Chart{RepoURL: chartURL}, ChartCache: "",
		FluxTimeout: 2 * time.Minute, ApplyTimeout: 3 * time.Minute,
		AdminURL: func(*v1.HostCluster) string { return f.installed.URL }})
}

func (f *fixture) hostCluster(id, path, gitSecret string) *v1.HostCluster {
	return &v1.HostCluster{ObjectMeta: metav1.ObjectMeta{Name: id, Namespace: v1.Namespace, Generation: 1},
		Spec: v1.HostClusterSpec{Mode: v1.ModeConnectExisting, Provider: "aws", Region: "eu-north-1",
			ConnectKubeconfigSecretRef: &v1.SecretKeyRef{Name: "target-kubeconfig", Key: "kubeconfig"},
			GitOpsRepoURL:              f.repoURL, GitOpsPath: path, GitCredentialsSecretRef: gitSecret,
			Domain: id + ".example.com", RegistryPullSecretRef: "registry",
			AdminEmail: "ops@example.com", AdminUsername: "opsadmin"}}
}

// manager runs the real host-cluster-controller with the pipeline until
// the returned stop is called.
func (f *fixture) manager(t *testing.T, p *Pipeline) (stop func()) {
	return f.managerWith(t, &controller.Reconciler{Pipeline: p, PollInterval: 250 * time.Millisecond}, 2)
}

// managerWith runs the controller manager with r, reconciling up to
// concurrency HostClusters at once, until stop is called.
func (f *fixture) managerWith(t *testing.T, r *controller.Reconciler, concurrency int) (stop func()) {
	mgr, err := ctrl.NewManager(f.mgmt.Config, ctrl.Options{Scheme: mgmtScheme,
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: &skipNameValidation}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SetupWithManager(mgr, concurrency); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	return func() { cancel(); <-done }
}

// phaseLog records when each phase was first seen.
type phaseLog struct {
	order []v1.Phase
	at    map[v1.Phase]time.Time
}

// statusLog logs each distinct (phase, message) pair a test observes once,
// as a user watching the cluster would see them; messages that differ only
// in their retry time count as one.
type statusLog map[string]bool

var retryTime = regexp.MustCompile(`\d\d:\d\d:\d\d UTC \(in [^)]*\)|retried until \d\d:\d\d:\d\d`)

func (l statusLog) show(t *testing.T, hc *v1.HostCluster) {
	t.Helper()
	key := string(hc.Status.Phase) + ": " + retryTime.ReplaceAllString(hc.Status.Message, "T")
	if hc.Status.Phase == "" || l[key] {
		return
	}
	l[key] = true
	t.Logf("STATUS %s %s: %s", hc.Name, hc.Status.Phase, hc.Status.Message)
}

// watch polls the HostCluster until it is Ready (or Failed: fatal); onFlux,
// when set, runs once when Flux is first reported healthy.
func (f *fixture) watch(t *testing.T, id string, within time.Duration, onFlux func()) (*v1.HostCluster, phaseLog) {
	t.Helper()
	log := phaseLog{at: map[v1.Phase]time.Time{}}
	statuses := statusLog{}
	deadline := time.Now().Add(within)
	hc := &v1.HostCluster{}
	for {
		err := f.c.Get(context.Background(), client.ObjectKey{Namespace: v1.Namespace, Name: id}, hc)
		if err == nil && onFlux != nil && hc.Status.FluxHealthy {
			onFlux()
			onFlux = nil
		}
		if err == nil {
			if _, seen := log.at[hc.Status.Phase]; !seen && hc.Status.Phase != "" {
				log.at[hc.Status.Phase] = time.Now()
				log.order = append(log.order, hc.Status.Phase)
			}
			statuses.show(t, hc)
			switch hc.Status.Phase {
			case v1.PhaseReady:
				return hc, log
			case v1.PhaseFailed:
				t.Fatalf("%s Failed: %s", id, hc.Status.Message)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not Ready within %s: phase %s: %s", id, within, hc.Status.Phase, hc.Status.Message)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A connected cluster goes from access validated to Ready through the real
// controller: Flux from its chart, the tree pushed, Flux applying it, the
// admin created once, even across a controller restart; a disconnect then
// leaves everything Flux applied running.
func TestConnectedClusterConvergesToReady(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	installClusterIssuerCRD(t, f.target.Config)
	stop := f.manager(t, f.pipeline(f.chart.URL))
	hc := f.hostCluster("c1", "clusters/c1", "git-creds")
	hc.Generation = 0
	if err := f.c.Create(ctx, hc); err != nil {
		t.Fatal(err)
	}
	hc, phases := f.watch(t, "c1", 5*time.Minute, func() { f.startFlux(t) })
	reportTimings(t, hc, phases)

	head := f.git.Head(t, "fleet", "main")
	if hc.Status.GitOpsRevision != head || !hc.Status.FluxHealthy {
		t.Errorf("status: revision %q (repo head %q), fluxHealthy %v", hc.Status.GitOpsRevision, head, hc.Status.FluxHealthy)
	}
	files := f.git.Files(t, "fleet", "main")
	for _, want := range []string{"clusters/c1/infrastructure/kustomization.yaml", "clusters/c1/apps/kustomization.yaml",
		"clusters/c1/tls/cluster-issuer.yaml"} {
		if _, ok := files[want]; !ok {
			t.Errorf("repository lacks %s", want)
		}
	}
	// kustomize-controller really applied the apps: KubeOpera's Deployments
	// carry the cluster's label, and the pull Secret reached Flux's pods.
	var deps appsv1.DeploymentList
	if err := f.targetC.List(ctx, &deps, client.MatchingLabels{v1.ClusterIDLabel: "c1"}); err != nil || len(deps.Items) < 2 {
		t.Errorf("KubeOpera Deployments of c1 on the target: %d (err %v), want server and controller", len(deps.Items), err)
	}
	var flux appsv1.DeploymentList
	if err := f.targetC.List(ctx, &flux, client.InNamespace(fluxsync.Namespace)); err != nil || len(flux.Items) == 0 {
		t.Fatalf("Flux Deployments: %v", err)
	}
	for _, d := range flux.Items {
		if ps := d.Spec.Template.Spec.ImagePullSecrets; len(ps) != 1 || ps[0].Name != "registry" {
			t.Errorf("Flux Deployment %s pulls with %v, want the cluster's registry Secret", d.Name, ps)
		}
	}
	// One Helm release revision: a reconcile reading a cache a moment
	// behind the last status write does not install Flux again.
	var releases corev1.SecretList
	if err := f.targetC.List(ctx, &releases, client.InNamespace(fluxsync.Namespace),
		client.MatchingLabels{"owner": "helm", "name": FluxRelease}); err != nil || len(releases.Items) != 1 {
		t.Errorf("Flux Helm release revisions: %d (err %v), want 1", len(releases.Items), err)
	}
	var gitSecret corev1.Secret
	if err := f.targetC.Get(ctx, client.ObjectKey{Namespace: fluxsync.Namespace, Name: gitSecretName("c1")}, &gitSecret); err != nil ||
		string(gitSecret.Data["password"]) != gitPassword {
		t.Errorf("git credentials Secret on the target: %v", err)
	}

	checkClusterIssuer(t, f)
	checkGateway(t, f, hc)
	// The admin: created once, with the password kept on the host.
	checkAdmin(t, f, hc)
	commits := f.git.CommitCount(t, "fleet", "main")
	stop()
	stop = f.manager(t, f.pipeline(f.chart.URL)) // a restarted controller
	defer stop()
	patch := client.MergeFrom(hc.DeepCopy())
	hc.Annotations = map[string]string{"test/poke": "1"} // a reconcile for the new controller
	if err := f.c.Patch(ctx, hc, patch); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // an absence cannot be awaited: several 250 ms polls in which nothing may happen
	hc, _ = f.watch(t, "c1", 30*time.Second, nil)
	if n := len(f.installed.adminCalls()); n != 1 {
		t.Errorf("after a restart the first-admin endpoint was called %d times in all, want 1", n)
	}
	if n := f.git.CommitCount(t, "fleet", "main"); n != commits {
		t.Errorf("after a restart the repository has %d commits, had %d: a re-run pushed again", n, commits)
	}
	if !strings.Contains(hc.Status.Message, "created") {
		t.Errorf("message after restart: %q", hc.Status.Message)
	}
	disconnectOrphans(t, f, hc)
}

func checkAdmin(t *testing.T, f *fixture, hc *v1.HostCluster) {
	t.Helper()
	name := v1.AdminPasswordSecretName("c1")
	if hc.Status.AdminPasswordSecretRef != name || !strings.Contains(hc.Status.Message, "super-admin opsadmin created") ||
		!strings.Contains(hc.Status.Message, name) {
		t.Errorf("admin status: ref %q, message %q", hc.Status.AdminPasswordSecretRef, hc.Status.Message)
	}
	var s corev1.Secret
	if err := f.c.Get(context.Background(), client.ObjectKey{Namespace: v1.Namespace, Name: name}, &s); err != nil {
		t.Fatal(err)
	}
	calls := f.installed.adminCalls()
	if len(calls) != 1 || calls[0].Status != 201 || calls[0].Password != string(s.Data["password"]) {
		t.Fatalf("first-admin calls %d (want 1, 201, with the stored password)", len(calls))
	}
	checkSetupSecret(t, f, hc, calls[0].Setup)
	st, err := store.Open(context.Background(), f.installed.DataDir+"/kubeopera.db")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	u, err := st.GetUser(context.Background(), calls[0].UserID)
	if err != nil {
		t.Fatal(err)
	}
	if u.Username != "opsadmin" || !u.SuperAdmin || bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), s.Data["password"]) != nil {
		t.Errorf("stored admin %s super %v, or the Secret's password does not open it", u.Username, u.SuperAdmin)
	}
}

// reportTimings logs the time from access validated to Ready and how it
// splits over the pipeline's phases.
func reportTimings(t *testing.T, hc *v1.HostCluster, log phaseLog) {
	access := meta.FindStatusCondition(hc.Status.Conditions, v1.ConditionAccessValidated)
	if access == nil {
		t.Fatal("no AccessValidated condition")
	}
	start := access.LastTransitionTime.Time
	ready := log.at[v1.PhaseReady]
	var parts []string
	for _, p := range log.order {
		if p == v1.PhasePending || p == v1.PhaseValidatingAccess {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s starts +%.1fs", p, log.at[p].Sub(start).Seconds()))
	}
	var conds []string
	for _, c := range hc.Status.Conditions {
		conds = append(conds, fmt.Sprintf("%s=%s@+%.0fs", c.Type, c.Status, c.LastTransitionTime.Sub(start).Seconds()))
	}
	sort.Strings(conds)
	t.Logf("PIPELINE TIMING: access validated -> Ready %.1fs (second-resolution start); %s; conditions %s",
		ready.Sub(start).Seconds(), strings.Join(parts, ", "), strings.Join(conds, " "))
}
