package terraform

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// Defaults of Jobs.
const (
	// DefaultNamespace holds the Jobs and the states.
	DefaultNamespace = "kubeopera-provisioning"
	// DefaultImage runs terraform; keep it at the version the plugin's
	// modules are tested with.
	DefaultImage = "hashicorp/terraform:1.11.4"
	// DefaultServiceAccount is the pods' ServiceAccount, and the name of
	// JobRole and its RoleBinding.
	DefaultServiceAccount = "kubeopera-terraform"
	// DefaultBackoffLimit is how often a failed pod is retried.
	DefaultBackoffLimit = 2
	// DefaultJobLockTimeout is terraform's -lock-timeout in a Job; it must
	// exceed the pods' termination grace period (300 s), so a deleted apply
	// pod releases the lock before a destroy pod deems it stale.
	DefaultJobLockTimeout = 6 * time.Minute
	// DefaultJobDeadline bounds a Job (activeDeadlineSeconds).
	DefaultJobDeadline = 3 * time.Hour
)

// Jobs runs terraform as one Kubernetes Job per run on the management
// cluster: JobName(id, action) (provision-<id> or destroy-<id>, and
// update-<id>-<n> for a later apply, GenerationJobName) in
// Namespace, labelled LabelClusterID and LabelAction, with the module in a
// ConfigMap of the same name and Run.Env in the Secret <job>-env (both
// owned by the Job). The state lives in the kubernetes backend in the
// same namespace (Secret StateSecretName(StateSuffix(id)), usually
// tfstate-default-<id>, and the lock Lease "lock-" plus that name), so a
// retried pod resumes from it. Status
// deletes the env Secret once the Job has ended.
//
// The client needs, in Namespace: jobs get/create/patch/delete,
// configmaps and secrets get/create/update/delete, pods list, pods/log
// get; Ensure also needs namespaces get (create when it is missing), serviceaccounts, roles and
// rolebindings get/create/update, plus the rights of JobRole (RBAC lets
// nobody grant what it does not hold).
type Jobs struct {
	// Client reaches the management cluster (NewKube).
	Client *Kube
	// Namespace holds the Jobs and the states; DefaultNamespace when empty.
	Namespace string
	// Image runs terraform; DefaultImage when empty. It needs /bin/sh,
	// cp, grep, sed and terraform on PATH (the hashicorp/terraform image
	// has them).
	Image string
	// ServiceAccount of the pods; DefaultServiceAccount when empty. It
	// needs JobRole in Namespace (Ensure creates both).
	ServiceAccount string
	// BackoffLimit is how often a failed pod is retried; DefaultBackoffLimit
	// when 0, no retry when negative.
	BackoffLimit int32
	// LockTimeout is how long terraform waits for a lock another client
	// holds before the stale-lock rule applies; DefaultJobLockTimeout when 0.
	LockTimeout time.Duration
	// Deadline bounds a Job (activeDeadlineSeconds); DefaultJobDeadline when 0.
	Deadline time.Duration
	// Resources of the terraform container; 250m CPU, 512Mi requested and a
	// 2Gi memory limit when empty.
	Resources corev1.ResourceRequirements
	// Logger gets a line per Job created and per Secret cleaned up;
	// sdk.Logger() when nil.
	Logger hclog.Logger
}

var _ Executor = Jobs{}

func (j Jobs) namespace() string { return orDefault(j.Namespace, DefaultNamespace) }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (j Jobs) spec(r Run) jobSpec {
	s := jobSpec{run: r, namespace: j.namespace(), image: orDefault(j.Image, DefaultImage),
		serviceAccount: orDefault(j.ServiceAccount, DefaultServiceAccount), backoffLimit: j.BackoffLimit,
		deadline: int64(DefaultJobDeadline / time.Second), lockTimeout: DefaultJobLockTimeout.String(),
		resources: j.Resources}
	switch {
	case s.backoffLimit == 0:
		s.backoffLimit = DefaultBackoffLimit
	case s.backoffLimit < 0:
		s.backoffLimit = 0
	}
	if j.Deadline > 0 {
		s.deadline = int64(j.Deadline / time.Second)
	}
	if j.LockTimeout > 0 {
		s.lockTimeout = j.LockTimeout.String()
	}
	if len(s.resources.Requests) == 0 && len(s.resources.Limits) == 0 {
		s.resources = defaultResources()
	}
	return s
}

func (j Jobs) logger() hclog.Logger {
	if j.Logger != nil {
		return j.Logger
	}
	return sdk.Logger()
}

// Start creates the Job of r unless it exists and has not failed. A
// failed Job is replaced (the new one resumes from the state). Starting a
// destroy deletes the cluster's running apply Jobs first (update runs
// included); their pods get the grace period to stop terraform and
// release the lock. Starting an apply while a destroy Job runs, or an
// update (Generation > 0) while the first apply or the update before it
// runs, is an sdk.FailedPrecondition error.
func (j Jobs) Start(ctx context.Context, r Run) error {
	if err := validateRun(r); err != nil {
		return err
	}
	if j.Client == nil {
		return fmt.Errorf("job terraform executor: Client is nil: set a client of the management cluster")
	}
	if err := j.stopOther(ctx, r); err != nil {
		return err
	}
	s := j.spec(r)
	name := runJobName(r)
	jobs := j.Client.BatchV1().Jobs(s.namespace)
	job, err := jobs.Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		job = nil
	case err != nil:
		return fmt.Errorf("read job %s/%s: %w", s.namespace, name, err)
	case jobFinished(job) == batchv1.JobFailed:
		if err := j.deleteRun(ctx, r.ID, name); err != nil {
			return err
		}
		job = nil
	case !ptr.Deref(job.Spec.Suspend, false):
		return nil // running or complete: idempotent
	}
	if job == nil {
		_, items := s.moduleConfigMap()
		created, err := jobs.Create(ctx, s.job(items), metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) { // a concurrent Start: finish its work, idempotently
			created, err = jobs.Get(ctx, name, metav1.GetOptions{})
		}
		if err != nil {
			return fmt.Errorf("create job %s/%s: %w", s.namespace, name, err)
		}
		job = created
	}
	return j.provide(ctx, s, job)
}

// provide creates (or updates) the ConfigMap and Secret a suspended job
// mounts, owned by it, then lets the job run.
func (j Jobs) provide(ctx context.Context, s jobSpec, job *batchv1.Job) error {
	// No blockOwnerDeletion: it would need update rights on jobs/finalizers
	// where the OwnerReferencesPermissionEnforcement admission plugin runs.
	owner := metav1.OwnerReference{APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID}
	cm, _ := s.moduleConfigMap()
	cm.OwnerReferences = []metav1.OwnerReference{owner}
	if err := createOrReplace(ctx, j.Client.CoreV1().ConfigMaps(s.namespace), cm); err != nil {
		return fmt.Errorf("module configmap %s/%s: %w (a module must fit in 1 MiB)", s.namespace, cm.Name, err)
	}
	sec := s.envSecret()
	sec.OwnerReferences = []metav1.OwnerReference{owner}
	if err := createOrReplace(ctx, j.Client.CoreV1().Secrets(s.namespace), sec); err != nil {
		return fmt.Errorf("credentials secret %s/%s: %w", s.namespace, sec.Name, err)
	}
	patch := []byte(`{"spec":{"suspend":false}}`)
	if _, err := j.Client.BatchV1().Jobs(s.namespace).Patch(ctx, job.Name, types.MergePatchType, patch,
		metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("start job %s/%s: %w", s.namespace, job.Name, err)
	}
	j.logger().Info("terraform job started", "cluster", s.run.ID, "action", s.run.Action,
		"job", s.namespace+"/"+job.Name, "env", envNames(s.run.Env))
	return nil
}

// objectClient is the part of a typed client createOrReplace needs.
type objectClient[T any] interface {
	Create(context.Context, T, metav1.CreateOptions) (T, error)
	Update(context.Context, T, metav1.UpdateOptions) (T, error)
}

// createOrReplace creates obj or, when it exists, replaces it (a Start that stopped
// half-way left it).
func createOrReplace[T any](ctx context.Context, c objectClient[T], obj T) error {
	_, err := c.Create(ctx, obj, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		_, err = c.Update(ctx, obj, metav1.UpdateOptions{})
	}
	return err
}

// stopOther deletes the running apply Jobs when a destroy starts, and
// refuses an apply while a destroy Job runs, an update while the first
// apply or the update before it runs.
func (j Jobs) stopOther(ctx context.Context, r Run) error {
	if r.Action == Destroy {
		return j.stopApplies(ctx, r.ID)
	}
	others := []string{JobName(r.ID, Destroy)}
	if r.Generation > 0 {
		others = append(others, GenerationJobName(r.ID, r.Generation-1))
		if r.Generation > 1 {
			others = append(others, GenerationJobName(r.ID, 0))
		}
	}
	for _, name := range others {
		job, err := j.Client.BatchV1().Jobs(j.namespace()).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read job %s/%s: %w", j.namespace(), name, err)
		}
		if jobFinished(job) == "" {
			return sdk.FailedPrecondition("terraform %s of cluster %q is running (job %s/%s); wait until it ends",
				job.Labels[LabelAction], r.ID, job.Namespace, job.Name)
		}
	}
	return nil
}

// stopApplies deletes the provision Job and every update Job of cluster
// id that has a pod still running. Pods are listed rather than Jobs:
// the executor's rights cover listing pods, and an update Job is known by
// its pods' job-name label.
func (j Jobs) stopApplies(ctx context.Context, id string) error {
	names := map[string]bool{JobName(id, Apply): true}
	pods, err := j.Client.CoreV1().Pods(j.namespace()).List(ctx, metav1.ListOptions{
		LabelSelector: LabelClusterID + "=" + id + "," + LabelAction + "=" + string(Apply)})
	if err != nil {
		return fmt.Errorf("list the terraform pods of cluster %q: %w", id, err)
	}
	for _, p := range pods.Items {
		if n := p.Labels[batchv1.JobNameLabel]; n != "" && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			names[n] = true
		}
	}
	for _, name := range sortedKeys(names) {
		job, err := j.Client.BatchV1().Jobs(j.namespace()).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read job %s/%s: %w", j.namespace(), name, err)
		}
		if jobFinished(job) == "" {
			if err := j.deleteRun(ctx, id, name); err != nil {
				return err
			}
		}
	}
	return nil
}

// deleteRun deletes the Job of a run and the ConfigMap and Secret it owns
// (explicitly, so a new run's objects of the same names never meet the
// garbage collector's deletion of the old ones).
func (j Jobs) deleteRun(ctx context.Context, id, name string) error {
	ns := j.namespace()
	bg := metav1.DeletePropagationBackground
	errs := []error{
		j.Client.BatchV1().Jobs(ns).Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &bg}),
		j.Client.CoreV1().ConfigMaps(ns).Delete(ctx, name, metav1.DeleteOptions{}),
		j.Client.CoreV1().Secrets(ns).Delete(ctx, envSecretName(name), metav1.DeleteOptions{}),
	}
	for _, err := range errs {
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete terraform run %s of cluster %q in %s: %w", name, id, ns, err)
		}
	}
	return nil
}

// jobFinished is JobComplete or JobFailed once the Job controller has
// decided, else "".
func jobFinished(job *batchv1.Job) batchv1.JobConditionType {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return c.Type
		}
	}
	return ""
}

// Outputs reads the root outputs from the state Secret. While an apply
// Job exists that has not completed it is an sdk.FailedPrecondition error.
func (j Jobs) Outputs(ctx context.Context, id string) (map[string]json.RawMessage, error) {
	if err := validateID(id); err != nil {
		return nil, err
	}
	job, err := j.Client.BatchV1().Jobs(j.namespace()).Get(ctx, JobName(id, Apply), metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return nil, fmt.Errorf("read job %s/%s: %w", j.namespace(), JobName(id, Apply), err)
	case jobFinished(job) != batchv1.JobComplete:
		return nil, sdk.FailedPrecondition("terraform apply of cluster %q has not completed (job %s/%s)",
			id, job.Namespace, job.Name)
	}
	return StateOutputs(ctx, j.Client, j.namespace(), StateSuffix(id))
}
