package terraform

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// logsTimeout bounds reading a pod's log, so a node that does not serve
// logs cannot stall Status.
const logsTimeout = 10 * time.Second

// Status maps the Job of the run and its newest pod to a Status, with
// progress and log tail from that pod's log. Once the Job has ended it
// deletes the run's credentials Secret.
func (j Jobs) Status(ctx context.Context, id string, a Action) (Status, error) {
	return j.status(ctx, id, a, JobName(id, a))
}

// GenerationStatus is Status of the Job of apply generation g
// (GenerationJobName).
func (j Jobs) GenerationStatus(ctx context.Context, id string, g int) (Status, error) {
	if g < 0 {
		return Status{}, sdk.NotFound("no terraform apply generation %d for cluster %q", g, id)
	}
	return j.status(ctx, id, Apply, GenerationJobName(id, g))
}

func (j Jobs) status(ctx context.Context, id string, a Action, name string) (Status, error) {
	if err := validateID(id); err != nil {
		return Status{}, err
	}
	ns := j.namespace()
	job, err := j.Client.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return Status{}, sdk.NotFound("no terraform %s run for cluster %q: job %s/%s does not exist", a, id, ns, name)
	}
	if err != nil {
		return Status{}, fmt.Errorf("read job %s/%s: %w", ns, name, err)
	}
	pod, err := j.newestPod(ctx, job)
	if err != nil {
		return Status{}, err
	}
	logs, logErr := j.podLog(ctx, pod)
	st := jobStatus(a, job, pod, logs, logErr)
	st.Follow = fmt.Sprintf("kubectl logs -f -n %s job/%s", ns, name)
	if jobFinished(job) != "" {
		j.forgetCredentials(ctx, id, a, name)
	}
	return st, nil
}

// forgetCredentials deletes the env Secret of an ended run; the owner
// reference would remove it with the Job, which may be kept for long.
func (j Jobs) forgetCredentials(ctx context.Context, id string, a Action, job string) {
	ns, name := j.namespace(), envSecretName(job)
	err := j.Client.CoreV1().Secrets(ns).Delete(ctx, name, metav1.DeleteOptions{})
	switch {
	case err == nil:
		j.logger().Info("terraform run ended: credentials secret deleted", "cluster", id, "action", a, "secret", ns+"/"+name)
	case !apierrors.IsNotFound(err):
		j.logger().Warn("terraform run ended but its credentials secret could not be deleted; the next Status tries again",
			"cluster", id, "action", a, "secret", ns+"/"+name, "error", err)
	}
}

// newestPod is the last pod the Job created, nil before the first.
func (j Jobs) newestPod(ctx context.Context, job *batchv1.Job) (*corev1.Pod, error) {
	pods, err := j.Client.CoreV1().Pods(job.Namespace).List(ctx, metav1.ListOptions{
		LabelSelector: batchv1.ControllerUidLabel + "=" + string(job.UID)})
	if err != nil {
		return nil, fmt.Errorf("list pods of job %s/%s: %w", job.Namespace, job.Name, err)
	}
	var newest *corev1.Pod
	for i := range pods.Items {
		p := &pods.Items[i]
		if newest == nil || newest.CreationTimestamp.Before(&p.CreationTimestamp) ||
			newest.CreationTimestamp.Equal(&p.CreationTimestamp) && newest.Name < p.Name {
			newest = p
		}
	}
	return newest, nil
}

// podLog summarizes the terraform container's log; an error means the
// pod has no log to read (not started, or a node that serves none).
func (j Jobs) podLog(ctx context.Context, pod *corev1.Pod) (logSummary, error) {
	if pod == nil {
		return logSummary{}, fmt.Errorf("the job has not created a pod yet")
	}
	if pod.Status.Phase == corev1.PodPending || pod.Status.Phase == "" {
		return logSummary{}, fmt.Errorf("pod %s has not started", pod.Name)
	}
	ctx, cancel := context.WithTimeout(ctx, logsTimeout)
	defer cancel()
	rc, err := j.Client.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, &corev1.PodLogOptions{Container: ContainerName}).Stream(ctx)
	if err != nil {
		return logSummary{}, fmt.Errorf("read log of pod %s: %w", pod.Name, err)
	}
	defer rc.Close()
	s := summarizeLog(rc)
	if s.lines == 0 {
		return s, fmt.Errorf("pod %s has not produced log lines yet", pod.Name)
	}
	return s, nil
}

// jobStatus maps the observed Job, its newest pod and that pod's log
// (logErr when unreadable) to a Status. It does no I/O.
func jobStatus(a Action, job *batchv1.Job, pod *corev1.Pod, s logSummary, logErr error) Status {
	tail := s.tail
	if logErr != nil {
		tail = []string{fmt.Sprintf("(no terraform output available: %v)", logErr)}
	}
	switch jobFinished(job) {
	case batchv1.JobComplete:
		st := finishedStatus(a, true, s, "")
		if logErr != nil {
			st.Message = fmt.Sprintf("terraform %s: complete (job %s succeeded; its log is not available)", a, job.Name)
		}
		st.LogTail = tail
		return st
	case batchv1.JobFailed:
		st := finishedStatus(a, false, s, fmt.Sprintf("terraform %s failed: job %s: %s",
			a, job.Name, failedCondition(job)))
		if logErr != nil {
			st.ErrorClass = sdk.Retryable
		}
		st.LogTail = tail
		return st
	}
	st := Status{State: sdk.Pending, Progress: s.progress(), LogTail: tail}
	switch {
	case ptr.Deref(job.Spec.Suspend, false):
		st.Message = fmt.Sprintf("terraform %s: job %s is being prepared", a, job.Name)
	case pod == nil:
		st.Message = fmt.Sprintf("terraform %s: waiting for job %s to create a pod", a, job.Name)
	case pod.Status.Phase == corev1.PodPending || pod.Status.Phase == "":
		st.Message = fmt.Sprintf("terraform %s: pod %s is pending: %s", a, pod.Name, pendingReason(pod))
	case pod.Status.Phase == corev1.PodRunning:
		st.State = sdk.Running
		st.Message = s.runningMessage(a)
		if logErr != nil {
			st.Message = fmt.Sprintf("terraform %s: pod %s is running; it has not produced logs yet", a, pod.Name)
		}
	default: // the pod ended, the Job has not decided yet: it retries or completes
		st.State = sdk.Running
		st.Message = fmt.Sprintf("terraform %s: pod %s ended (%s); %d of %d attempts failed so far",
			a, pod.Name, pod.Status.Phase, job.Status.Failed, ptr.Deref(job.Spec.BackoffLimit, 6)+1)
	}
	return st
}

func failedCondition(job *batchv1.Job) string {
	for _, c := range job.Status.Conditions {
		if c.Type == batchv1.JobFailed {
			return c.Reason + ": " + c.Message
		}
	}
	return "failed"
}

// pendingReason says why a pod has not started, e.g. "ImagePullBackOff:
// Back-off pulling image ..." or the scheduler's message.
func pendingReason(pod *corev1.Pod) string {
	for _, cs := range pod.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil && w.Reason != "" {
			return w.Reason + ": " + w.Message
		}
	}
	for _, c := range pod.Status.Conditions {
		if c.Status == corev1.ConditionFalse && c.Message != "" {
			return c.Reason + ": " + c.Message
		}
	}
	return "waiting to be scheduled and started"
}
