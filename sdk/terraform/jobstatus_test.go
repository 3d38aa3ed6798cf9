package terraform

import (
	"errors"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ochestra-tech/kubeopera/sdk"
)

func TestJobStatusMapping(t *testing.T) {
	running := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "provision-c1"}, Status: batchv1.JobStatus{Active: 1}}
	runningPod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "provision-c1-abcde"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	half := summarizeLog(strings.NewReader(upTo(readLog(t, "apply.log"), "Creation complete", 3)))
	if st := jobStatus(Apply, running, runningPod, half, nil); st.State != sdk.Running || st.Progress != 50 ||
		st.Message != "terraform apply: 3 of 6 resources created" || !tailContains(st.LogTail, "Creation complete") {
		t.Errorf("running pod with half the resources created: %+v", st)
	}
	pulling := runningPod.DeepCopy()
	pulling.Status = corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{State: corev1.ContainerState{
		Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: `Back-off pulling image "hashicorp/terraform:9"`}}}}}
	if st := jobStatus(Apply, running, pulling, logSummary{}, errors.New("not started")); st.State != sdk.Pending ||
		!strings.Contains(st.Message, `ImagePullBackOff: Back-off pulling image "hashicorp/terraform:9"`) {
		t.Errorf("pod that cannot pull its image: %+v", st)
	}
}

func TestJobStatusOfEndedJobs(t *testing.T) {
	failed := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "provision-c1"}, Status: batchv1.JobStatus{Failed: 3,
		Conditions: []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue,
			Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit"}}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "provision-c1-abcde"}, Status: corev1.PodStatus{Phase: corev1.PodFailed}}
	precondition := summarizeLog(strings.NewReader(readLog(t, "precondition.stderr")))

	st := jobStatus(Apply, failed, pod, precondition, nil)
	if st.State != sdk.Failed || st.ErrorClass != sdk.UserFixable || !strings.Contains(st.Message, "The name must be longer") {
		t.Errorf("failed job with terraform's error in the log: %+v", st)
	}
	st = jobStatus(Apply, failed, pod, logSummary{}, errors.New("no logs"))
	if st.State != sdk.Failed || st.ErrorClass != sdk.Retryable ||
		st.Message != "terraform apply failed: job provision-c1: BackoffLimitExceeded: Job has reached the specified backoff limit" {
		t.Errorf("failed job without logs: %+v", st)
	}
	retrying := failed.DeepCopy()
	retrying.Status.Conditions = nil
	retrying.Spec.BackoffLimit = ptr.To[int32](2)
	if st := jobStatus(Apply, retrying, pod, precondition, nil); st.State != sdk.Running || !strings.Contains(st.Message, "3 of 3 attempts failed") {
		t.Errorf("job whose last pod failed before the job decided: %+v, want RUNNING", st)
	}
}
