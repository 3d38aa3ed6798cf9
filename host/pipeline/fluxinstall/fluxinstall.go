// Package fluxinstall installs Flux on a target cluster with the Helm SDK
// from the fluxcd-community flux2 chart, and tells whether the installed
// controllers are available.
//
// Install is install-or-upgrade, so running it again is harmless; it does
// not wait for the controllers to become available: the caller polls Health.
// Everything is per call (no Helm home, no environment, no global state), so
// installs to different clusters may run concurrently.
package fluxinstall

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/kube"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"
	"k8s.io/client-go/rest"
)

// The chart Install uses unless Options.Chart says otherwise.
const (
	DefaultRepoURL   = "https://fluxcd-community.github.io/helm-charts"
	DefaultChartName = "flux2"
	// DefaultChartVersion is the community chart release that ships Flux
	// v2.9.5: source-controller v1.9.5, kustomize-controller v1.9.5,
	// helm-controller v1.6.4, notification-controller v1.9.4 (the v1.9 API
	// line this repository's Flux API modules belong to).
	DefaultChartVersion = "2.19.1"

	DefaultNamespace   = "flux-system"
	DefaultReleaseName = "flux"
	DefaultTimeout     = 5 * time.Minute
)

// Chart says where the flux2 chart comes from.
type Chart struct {
	// RepoURL is the Helm chart repository (DefaultRepoURL).
	RepoURL string
	// Name is the chart's name in the repository (DefaultChartName).
	Name string
	// Version is an exact chart version or a semver range
	// (DefaultChartVersion).
	Version string
}

// Options say what to install where.
type Options struct {
	Chart Chart
	// Namespace receives Flux and the Helm release records (flux-system);
	// it is created when missing.
	Namespace string
	// ReleaseName is the Helm release's name (flux).
	ReleaseName string
	// ImagePullSecret names a Secret in Namespace that every Flux pod pulls
	// its image with: the chart's imagePullSecrets value becomes exactly
	// this one Secret, replacing any platform default. Empty: none.
	ImagePullSecret string
	// Values are further chart values (e.g. per-controller nodeSelector or
	// tolerations). ImagePullSecret, when set, overrides their
	// imagePullSecrets. Values of earlier runs are not reused: each run
	// installs exactly the chart defaults plus these.
	Values map[string]any
	// CacheDir keeps downloaded charts between runs; empty means a temporary
	// directory removed when Install returns.
	CacheDir string
	// Timeout bounds the chart download and, separately, Helm's wait for
	// the chart's hooks (DefaultTimeout).
	Timeout time.Duration
	// Logger receives progress; nil discards it. No value or credential is
	// ever logged.
	Logger *slog.Logger
}

// Release is what Install left on the cluster.
type Release struct {
	Name      string
	Namespace string
	// Revision counts installs and upgrades of the release, from 1.
	Revision int
	// Status is Helm's release status, "deployed" on success.
	Status       string
	ChartVersion string
	AppVersion   string
	// Upgraded is true when a release existed and was upgraded.
	Upgraded bool
}

func (o Options) withDefaults() Options {
	if o.Chart.RepoURL == "" {
		o.Chart.RepoURL = DefaultRepoURL
	}
	if o.Chart.Name == "" {
		o.Chart.Name = DefaultChartName
	}
	if o.Chart.Version == "" {
		o.Chart.Version = DefaultChartVersion
	}
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if o.ReleaseName == "" {
		o.ReleaseName = DefaultReleaseName
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// values are the chart values of one run; o.Values is left untouched.
func (o Options) values() map[string]any {
	vals := make(map[string]any, len(o.Values)+1)
	for k, v := range o.Values {
		vals[k] = v
	}
	if o.ImagePullSecret != "" {
		vals["imagePullSecrets"] = []any{map[string]any{"name": o.ImagePullSecret}}
	}
	return vals
}

// Install installs the flux2 chart on the cluster restConfig reaches, or
// upgrades the release when it exists. It returns once Helm has applied the
// manifests and run the chart's hooks, without waiting for the controllers.
func Install(ctx context.Context, restConfig *rest.Config, o Options) (Release, error) {
	if restConfig == nil {
		return Release{}, errors.New("install flux: no cluster connection given")
	}
	o = o.withDefaults()
	log := o.Logger.With("release", o.ReleaseName, "namespace", o.Namespace)
	cacheDir, cleanup, err := cacheDir(o.CacheDir)
	if err != nil {
		return Release{}, err
	}
	defer cleanup()
	ch, err := fetchChart(ctx, o.Chart, cacheDir, o.Timeout, log)
	if err != nil {
		return Release{}, err
	}
	cfg, err := actionConfig(restConfig, o.Namespace, log)
	if err != nil {
		return Release{}, err
	}
	upgrade, err := releaseExists(cfg, o)
	if err != nil {
		return Release{}, err
	}
	var rel *release.Release
	if upgrade {
		log.Info("upgrading flux", "chartVersion", ch.Metadata.Version)
		rel, err = runUpgrade(ctx, cfg, ch, o)
	} else {
		log.Info("installing flux", "chartVersion", ch.Metadata.Version)
		rel, err = runInstall(ctx, cfg, ch, o)
	}
	if err != nil {
		return Release{}, helmError(err, upgrade, o)
	}
	out := Release{Name: rel.Name, Namespace: rel.Namespace, Revision: rel.Version,
		Status: rel.Info.Status.String(), Upgraded: upgrade}
	if rel.Chart != nil && rel.Chart.Metadata != nil {
		out.ChartVersion, out.AppVersion = rel.Chart.Metadata.Version, rel.Chart.Metadata.AppVersion
	}
	log.Info("flux release applied", "revision", out.Revision, "status", out.Status)
	return out, nil
}

// helmError wraps Helm's error on one line, adding what to check when the
// chart's pre-install `flux check --pre` Job did not complete.
func helmError(err error, upgrade bool, o Options) error {
	verb := map[bool]string{false: "install", true: "upgrade"}[upgrade]
	msg := strings.NewReplacer("\n\t* ", " ", "\n", " ").Replace(strings.TrimSpace(err.Error()))
	if strings.Contains(msg, "failed pre-install") {
		msg += fmt.Sprintf(": the chart's pre-install `flux check --pre` Job did not complete within %s; "+
			"check that the cluster can schedule it and pull ghcr.io/fluxcd/flux-cli (ImagePullSecret), then re-run", o.Timeout)
	}
	return &wrapped{msg: fmt.Sprintf("%s flux release %s in namespace %s: %s", verb, o.ReleaseName, o.Namespace, msg), err: err}
}

// wrapped is an error with its own message that still unwraps to the cause.
type wrapped struct {
	msg string
	err error
}

func (e *wrapped) Error() string { return e.msg }
func (e *wrapped) Unwrap() error { return e.err }

func cacheDir(dir string) (string, func(), error) {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return "", nil, fmt.Errorf("create helm cache directory %s: %w", dir, err)
		}
		return dir, func() {}, nil
	}
	tmp, err := os.MkdirTemp("", "kubeopera-fluxinstall-")
	if err != nil {
		return "", nil, fmt.Errorf("create temporary helm cache directory: %w", err)
	}
	return tmp, func() { _ = os.RemoveAll(tmp) }, nil
}

// actionConfig is a Helm configuration for one cluster and namespace that
// keeps release records in Secrets, as the helm CLI does.
func actionConfig(restConfig *rest.Config, namespace string, log *slog.Logger) (*action.Configuration, error) {
	getter := newRESTClientGetter(restConfig, namespace)
	helmLog := func(format string, v ...any) { log.Debug("helm: " + fmt.Sprintf(format, v...)) }
	cfg := new(action.Configuration)
	if err := cfg.Init(getter, namespace, "secret", helmLog); err != nil {
		return nil, fmt.Errorf("set up helm for namespace %s: %w", namespace, err)
	}
	if kc, ok := cfg.KubeClient.(*kube.Client); ok {
		kc.Namespace = namespace
	}
	return cfg, nil
}

// releaseExists tells whether the release has any revision. A revision left
// pending by an interrupted run, older than the timeout, is marked failed so
// that this run can upgrade past it; a younger one means another run is at
// work, and is reported.
func releaseExists(cfg *action.Configuration, o Options) (bool, error) {
	history, err := cfg.Releases.History(o.ReleaseName)
	if errors.Is(err, driver.ErrReleaseNotFound) || (err == nil && len(history) == 0) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read helm history of release %s in namespace %s: %w: check that the cluster is reachable and the credential may read Secrets there",
			o.ReleaseName, o.Namespace, err)
	}
	last := history[0]
	for _, r := range history[1:] {
		if r.Version > last.Version {
			last = r
		}
	}
	if !last.Info.Status.IsPending() {
		return true, nil
	}
	since := time.Since(last.Info.LastDeployed.Time)
	if since < o.Timeout {
		return false, fmt.Errorf("flux release %s in namespace %s is %s since %s (revision %d): another install is running; retry after it ends or after %s",
			o.ReleaseName, o.Namespace, last.Info.Status, since.Round(time.Second), last.Version, o.Timeout)
	}
	o.Logger.Warn("marking an interrupted flux release revision failed", "release", o.ReleaseName,
		"namespace", o.Namespace, "revision", last.Version, "status", last.Info.Status.String())
	last.SetStatus(release.StatusFailed, fmt.Sprintf("interrupted while %s; marked failed by kubeopera after %s", last.Info.Status, since.Round(time.Second)))
	if err := cfg.Releases.Update(last); err != nil {
		return false, fmt.Errorf("mark interrupted revision %d of flux release %s failed: %w", last.Version, o.ReleaseName, err)
	}
	return true, nil
}

func runInstall(ctx context.Context, cfg *action.Configuration, ch *chart.Chart, o Options) (*release.Release, error) {
	in := action.NewInstall(cfg)
	in.ReleaseName = o.ReleaseName
	in.Namespace = o.Namespace
	in.CreateNamespace = true
	in.Timeout = o.Timeout
	return in.RunWithContext(ctx, ch, o.values())
}

func runUpgrade(ctx context.Context, cfg *action.Configuration, ch *chart.Chart, o Options) (*release.Release, error) {
	up := action.NewUpgrade(cfg)
	up.Namespace = o.Namespace
	up.Timeout = o.Timeout
	// Without ResetValues Helm reuses the last run's values whenever this
	// run passes none, so a removed ImagePullSecret would stay.
	up.ResetValues = true
	up.MaxHistory = maxHistory
	return up.RunWithContext(ctx, o.ReleaseName, ch, o.values())
}

// maxHistory bounds the release Secrets Helm keeps per release.
const maxHistory = 10
