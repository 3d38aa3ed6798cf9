// Package controller is the host-cluster-controller: it drives each
// HostCluster from Pending through access validation or provisioning to the
// shared pipeline's phases, and cleans up on disconnect.
package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/step"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// Finalizer guards the cleanup of what KubeOpera created for a cluster.
const Finalizer = "kubeopera.io/cleanup"

// OperationAnnotation keeps the provider's operation ID on the HostCluster,
// so a restarted controller resumes polling it and never starts another.
const OperationAnnotation = "kubeopera.io/operation-id"

// Providers finds provider plugins by name (the plugin host).
type Providers interface {
	Provider(name string) (sdk.Provider, error)
}

// Credentials resolves a stored cloud credential just before a plugin call;
// a credential that does not exist is an sdk.NotFound error.
type Credentials interface {
	Resolve(ctx context.Context, credentialRef string) (sdk.Credentials, error)
}

// Pipeline runs the shared steps every onboarded cluster converges on. It
// returns the message of a Ready cluster, or the first unfinished step's
// error in the step package's vocabulary; each step records its condition,
// from which the phase is derived.
type Pipeline interface {
	Run(ctx context.Context, hc *v1.HostCluster, kubeconfig []byte) (string, error)
}

// Reconciler reconciles HostClusters.
type Reconciler struct {
	client.Client
	Recorder    record.EventRecorder
	Providers   Providers
	Credentials Credentials
	// Pipeline is nil until the shared pipeline is installed; clusters
	// then wait in BootstrappingFlux.
	Pipeline Pipeline
	// AccessRetryWindow is how long a cluster that cannot be reached is
	// retried before it is Failed (5 minutes).
	AccessRetryWindow time.Duration
	// PollInterval is how often a provisioning operation is polled (10s).
	PollInterval time.Duration
	// AutoRetries caps the automatic retries of a provisioning its plugin
	// failed as RETRYABLE (nil: maxAutoRetries; 0: never).
	AutoRetries *int
	// CleanupTimeout bounds the cleanup on the target at disconnect, from
	// the deletion on (30s).
	CleanupTimeout time.Duration
	// ReleaseTimeout bounds how long a teardown waits for the cloud to
	// delete the load balancers of the target's LoadBalancer Services
	// before it destroys the network anyway (10 minutes).
	ReleaseTimeout time.Duration
	// RefreshBefore is how long before its expiry a provider's kubeconfig
	// is refreshed through the plugin (4 minutes).
	RefreshBefore time.Duration
	// APIReader reads past the manager's cache (SetupWithManager sets it;
	// nil reads through Client).
	APIReader client.Reader
	// InventoryInterval is how often a Ready cluster's Kubernetes version
	// and node counts are read again (3 minutes); they are also read at
	// every phase change.
	InventoryInterval time.Duration
}

// The controller works in kubeopera-system only (Cache): its HostClusters,
// the Secrets they name, their events and its leader lease. Roles there,
// never a ClusterRole, so it cannot read a Secret of any other namespace.

// +kubebuilder:rbac:groups=kubeopera.io,namespace=kubeopera-system,resources=hostclusters,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=kubeopera.io,namespace=kubeopera-system,resources=hostclusters/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=kubeopera.io,namespace=kubeopera-system,resources=hostclusters/finalizers,verbs=update
// +kubebuilder:rbac:groups="",namespace=kubeopera-system,resources=secrets,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups="",namespace=kubeopera-system,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=coordination.k8s.io,namespace=kubeopera-system,resources=leases,verbs=get;list;watch;create;update;patch;delete

// Reconcile fetches the HostCluster, defers the one status write (before
// the deletion branch, so a disconnect's progress is written there too),
// handles deletion, then runs the steps (runSteps). The phase is derived
// from the conditions the steps recorded, in the deferred block only; the
// steps' timed wake-ups are collected in the pass.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, err error) {
	hc := &v1.HostCluster{}
	if err := r.Get(ctx, req.NamespacedName, hc); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	p := &pass{hc: hc, before: hc.DeepCopy()}
	defer func() { res, err = r.summarize(ctx, p, err) }()
	if !hc.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.finalize(ctx, p)
	}
	if !controllerutil.ContainsFinalizer(hc, Finalizer) {
		controllerutil.AddFinalizer(hc, Finalizer)
		if err := r.Update(ctx, hc); err != nil {
			return ctrl.Result{}, err
		}
		*p.before = *hc.DeepCopy()
	}
	return ctrl.Result{}, r.runSteps(ctx, p)
}

// summarize is the deferred end of every reconcile and the only writer of
// phase, status and phase-change events: it derives the phase (observe),
// writes the status (patchStatus), and, once a teardown recorded its cloud
// side gone, deletes the HostCluster. A HostCluster whose finalizer was
// just removed is gone: nothing is written.
func (r *Reconciler) summarize(ctx context.Context, p *pass, err error) (ctrl.Result, error) {
	hc, before := p.hc, p.before
	if !hc.DeletionTimestamp.IsZero() && !controllerutil.ContainsFinalizer(hc, Finalizer) {
		return ctrl.Result{}, err
	}
	hc.Status.ObservedGeneration = hc.Generation // before the phase: this status is for this generation
	r.observe(ctx, hc, before.Status.Phase)
	after := p.wake.After()
	res, err := r.patchStatus(ctx, before, hc, ctrl.Result{RequeueAfter: after}, err)
	if err != nil || res.RequeueAfter != after || !hc.DeletionTimestamp.IsZero() ||
		!meta.IsStatusConditionTrue(hc.Status.Conditions, v1.ConditionTornDown) {
		return res, err
	}
	if err := r.Delete(ctx, hc); client.IgnoreNotFound(err) != nil {
		return res, fmt.Errorf("delete the torn-down HostCluster: %w", err)
	}
	return ctrl.Result{}, nil
}

// patchStatus writes hc's status as a patch from before, only onto the
// version this reconcile read (or wrote itself since, e.g. an annotation):
// the phase is derived from the conditions it read, and a reconcile that
// read a stale copy from the cache (say, the annotation of a failed
// teardown without the Stalled condition written next) would otherwise put
// a phase over newer conditions that contradict it. On a conflict the
// newer version is reconciled instead.
func (r *Reconciler) patchStatus(ctx context.Context, before, hc *v1.HostCluster, res ctrl.Result, err error) (ctrl.Result, error) {
	base := before.DeepCopy()
	base.ResourceVersion = hc.ResourceVersion
	perr := r.Status().Patch(ctx, hc, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}))
	switch {
	case perr == nil, apierrors.IsNotFound(perr):
		return res, err
	case apierrors.IsConflict(perr):
		ctrl.LoggerFrom(ctx).V(1).Info("status not written: the HostCluster changed since it was read; reconciling the newer version")
		return ctrl.Result{RequeueAfter: 100 * time.Millisecond}, err
	}
	return res, perr
}

// observe sets the phase from the conditions, the one place it is set
// for a reconcile, and announces a change: a Warning event when the
// cluster is Failed, so a stalled cluster shows in kubectl get events.
func (r *Reconciler) observe(ctx context.Context, hc *v1.HostCluster, from v1.Phase) {
	hc.Status.Phase = v1.DerivePhase(hc)
	if hc.Status.Phase == from {
		return
	}
	kind := corev1.EventTypeNormal
	if hc.Status.Phase == v1.PhaseFailed {
		kind = corev1.EventTypeWarning
	}
	r.Recorder.Eventf(hc, kind, string(hc.Status.Phase), "%s", hc.Status.Message)
	ctrl.LoggerFrom(ctx).Info("phase changed", "from", from, "to", hc.Status.Phase)
}

// report records a step's error (step.Report) and returns when to run
// again; a transient error is logged here, not returned, since its retry
// is in the status.
func (r *Reconciler) report(ctx context.Context, hc *v1.HostCluster, err error) time.Duration {
	after := step.Report(hc, err, max(r.PollInterval, 100*time.Millisecond), time.Now())
	var stalled *step.Stalled
	var waiting *step.Waiting
	if err != nil && !errors.As(err, &stalled) && !errors.As(err, &waiting) {
		ctrl.LoggerFrom(ctx).Info("step error; retrying", "error", err.Error(), "after", after)
	}
	return after
}

// runPipeline runs the shared steps; Ready is recorded here, every other
// outcome by report.
func (r *Reconciler) runPipeline(ctx context.Context, hc *v1.HostCluster, kubeconfig []byte) error {
	if r.Pipeline == nil { // nothing to retry: the message stays the same, so a resync writes nothing
		hc.Status.Message = "waiting: the shared pipeline (Flux bootstrap, GitOps tree, KubeOpera install) is not available in this build"
		hc.SetCondition(v1.ConditionReady, metav1.ConditionFalse, v1.ReasonPipelineUnavailable, hc.Status.Message)
		return nil
	}
	msg, err := r.Pipeline.Run(ctx, hc, kubeconfig)
	if err != nil {
		return err
	}
	hc.Status.Message = msg
	meta.RemoveStatusCondition(&hc.Status.Conditions, v1.ConditionStalled)
	hc.SetCondition(v1.ConditionReady, metav1.ConditionTrue, v1.ReasonPipelineDone, msg)
	return nil
}

// stall records that step condition cond cannot go on until the user acts
// and returns the step.Stalled error that says so.
func stall(hc *v1.HostCluster, cond, reason, msg string) error {
	hc.SetCondition(cond, metav1.ConditionFalse, reason, msg)
	return step.Stall(reason, "%s", msg)
}
