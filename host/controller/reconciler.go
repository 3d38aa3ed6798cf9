// Package controller is the host-cluster-controller: it drives each
// HostCluster from Pending through access validation or provisioning to the
// shared pipeline's phases, and cleans up on disconnect.
package controller

import (
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
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
// returns the phase reached and a message; Ready when all is done.
type Pipeline interface {
	Run(ctx context.Context, hc *v1.HostCluster, kubeconfig []byte) (v1.Phase, string, error)
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
	// CleanupTimeout bounds the cleanup on the target at disconnect, from
	// the deletion on (30s).
	CleanupTimeout time.Duration
	// RefreshBefore is how long before its expiry a provider's kubeconfig
	// is refreshed through the plugin (4 minutes).
	RefreshBefore time.Duration
	// InventoryInterval is how often a Ready cluster's Kubernetes version
	// and node counts are read again (3 minutes); they are also read at
	// every phase change.
	InventoryInterval time.Duration
}

// +kubebuilder:rbac:groups=kubeopera.io,resources=hostclusters,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=kubeopera.io,resources=hostclusters/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=kubeopera.io,resources=hostclusters/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;watch;create;update;patch;delete

// Reconcile fetches the HostCluster, defers one status patch, handles
// deletion, then runs the steps of its mode. The phase comes from what the
// steps observed.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, err error) {
	log := ctrl.LoggerFrom(ctx)
	hc := &v1.HostCluster{}
	if err := r.Get(ctx, req.NamespacedName, hc); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !hc.DeletionTimestamp.IsZero() {
		return r.finalize(ctx, hc)
	}
	if !controllerutil.ContainsFinalizer(hc, Finalizer) {
		controllerutil.AddFinalizer(hc, Finalizer)
		if err := r.Update(ctx, hc); err != nil {
			return ctrl.Result{}, err
		}
	}
	before := hc.DeepCopy()
	defer func() {
		if hc.Status.Phase != before.Status.Phase {
			kind := "Normal"
			if hc.Status.Phase == v1.PhaseFailed {
				kind = "Warning"
			}
			r.Recorder.Eventf(hc, kind, string(hc.Status.Phase), "%s", hc.Status.Message)
			log.Info("phase changed", "from", before.Status.Phase, "to", hc.Status.Phase)
		}
		hc.Status.ObservedGeneration = hc.Generation
		if perr := r.Status().Patch(ctx, hc, client.MergeFrom(before)); perr != nil && !apierrors.IsNotFound(perr) {
			err = perr
		}
	}()
	if req := hc.Annotations[v1.TeardownAnnotation]; req != "" {
		return r.teardown(ctx, hc, req)
	}
	if hc.Status.Phase == v1.PhaseFailed {
		if hc.Status.ObservedGeneration == hc.Generation {
			return ctrl.Result{}, nil // terminal until the spec changes
		}
		hc.Status.Phase, hc.Status.Conditions = v1.PhasePending, nil // a new spec starts over
	}
	if hc.Status.Phase == "" {
		hc.Status.Phase = v1.PhasePending
	}
	kubeconfig, res, err := r.reachCluster(ctx, hc)
	if kubeconfig == nil || err != nil {
		return res, err
	}
	if err := r.announcePipeline(ctx, hc, before); err != nil {
		return ctrl.Result{}, err
	}
	pres, err := r.runPipeline(ctx, hc, kubeconfig)
	if err != nil {
		return earliest(res, pres), err
	}
	return earliest(earliest(res, pres), r.inventory(ctx, hc, before.Status.Phase, kubeconfig)), nil
}

// reachCluster validates access (connect) or provisions (provision_*) and
// returns the cluster's kubeconfig once it has one.
func (r *Reconciler) reachCluster(ctx context.Context, hc *v1.HostCluster) ([]byte, ctrl.Result, error) {
	if hc.Spec.Mode == v1.ModeConnectExisting {
		return r.validateAccess(ctx, hc)
	}
	return r.provision(ctx, hc)
}

func (r *Reconciler) runPipeline(ctx context.Context, hc *v1.HostCluster, kubeconfig []byte) (ctrl.Result, error) {
	if r.Pipeline == nil {
		hc.Status.Phase = v1.PhaseBootstrappingFlux
		hc.Status.Message = "waiting: the shared pipeline (Flux bootstrap, GitOps tree, KubeOpera install) is not available in this build"
		setCondition(hc, v1.ConditionReady, metav1.ConditionFalse, v1.ReasonPipelineUnavailable, hc.Status.Message)
		return ctrl.Result{}, nil
	}
	phase, msg, err := r.Pipeline.Run(ctx, hc, kubeconfig)
	if err != nil {
		// A transient error: say so in the status (the old message would
		// claim progress that is not happening) and retry.
		if phase != "" && phase != v1.PhaseFailed {
			hc.Status.Phase = phase
		}
		retry := max(r.PollInterval, time.Second)
		hc.Status.Message = fmt.Sprintf("%s hit an error, retrying at %s: %v", hc.Status.Phase,
			time.Now().Add(retry).UTC().Format(time.TimeOnly), err)
		setCondition(hc, v1.ConditionReady, metav1.ConditionFalse, v1.ReasonRetrying, hc.Status.Message)
		ctrl.LoggerFrom(ctx).Info("pipeline error; retrying", "error", err.Error(), "after", retry)
		return ctrl.Result{RequeueAfter: retry}, nil
	}
	hc.Status.Phase, hc.Status.Message = phase, msg
	switch phase {
	case v1.PhaseFailed: // terminal until the spec changes; the pipeline set its conditions
		return ctrl.Result{}, nil
	case v1.PhaseReady:
	default:
		return ctrl.Result{RequeueAfter: r.PollInterval}, nil
	}
	setCondition(hc, v1.ConditionReady, metav1.ConditionTrue, v1.ReasonPipelineDone, msg)
	return ctrl.Result{}, nil
}

// announcePipeline writes, before the pipeline starts on a cluster just
// reached, that it is bootstrapping Flux: the first step can hold this
// reconcile for minutes (Helm waits for Flux's hooks), and until then the
// status would still say Pending or ValidatingAccess although access was
// validated. before becomes what was written, so the deferred patch and its
// event start from there.
func (r *Reconciler) announcePipeline(ctx context.Context, hc, before *v1.HostCluster) error {
	switch hc.Status.Phase {
	case v1.PhasePending, v1.PhaseValidatingAccess, v1.PhaseProvisioning:
	default:
		return nil
	}
	if r.Pipeline == nil {
		return nil // runPipeline answers at once
	}
	hc.Status.Phase = v1.PhaseBootstrappingFlux
	hc.Status.Message = strings.TrimPrefix(hc.Status.Message+"; installing Flux", "; ")
	r.Recorder.Eventf(hc, "Normal", string(hc.Status.Phase), "%s", hc.Status.Message)
	ctrl.LoggerFrom(ctx).Info("phase changed", "from", before.Status.Phase, "to", hc.Status.Phase)
	hc.Status.ObservedGeneration = hc.Generation
	if err := r.Status().Patch(ctx, hc, client.MergeFrom(before)); err != nil {
		return fmt.Errorf("record that %s is bootstrapping Flux: %w", hc.Name, err)
	}
	*before = *hc.DeepCopy()
	return nil
}

func setCondition(hc *v1.HostCluster, typ string, status metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(&hc.Status.Conditions, metav1.Condition{Type: typ, Status: status, Reason: reason,
		Message: msg, ObservedGeneration: hc.Generation})
}

func fail(hc *v1.HostCluster, condition, reason, msg string) {
	hc.Status.Phase = v1.PhaseFailed
	hc.Status.Message = msg
	setCondition(hc, condition, metav1.ConditionFalse, reason, msg)
	setCondition(hc, v1.ConditionReady, metav1.ConditionFalse, reason, msg)
}
