package terraform

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ochestra-tech/kubeopera/sdk"
)

const jobsNS = "tf-jobs"

// setSchedulable cordons (false) or uncordons node n1, so a test can hold
// a Job's pod in Pending.
func setSchedulable(t *testing.T, ok bool) {
	t.Helper()
	ctx := context.Background()
	waitFor(t, "node n1 update", 10*time.Second, func() (bool, error) {
		n, err := sb.Client.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		n.Spec.Unschedulable = !ok
		_, err = sb.Client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		return err == nil, nil // a conflict with kwok: try again
	})
}

// runObjects are the objects Start created for a run, read back from the
// API server (defaults applied).
type runObjects struct {
	job    *batchv1.Job
	cm     *corev1.ConfigMap
	secret *corev1.Secret
}

func getRunObjects(t *testing.T, id string, a Action) runObjects {
	t.Helper()
	ctx := context.Background()
	job, err := sb.Client.BatchV1().Jobs(jobsNS).Get(ctx, JobName(id, a), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm, err := sb.Client.CoreV1().ConfigMaps(jobsNS).Get(ctx, JobName(id, a), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sec, err := sb.Client.CoreV1().Secrets(jobsNS).Get(ctx, JobName(id, a)+"-env", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return runObjects{job: job, cm: cm, secret: sec}
}

func TestJobRunLifecycle(t *testing.T) {
	needSandbox(t)
	ctx := context.Background()
	logger, logs := bufferLogger()
	j := Jobs{Client: sb.Kube, Namespace: jobsNS, Logger: logger}
	for i := 0; i < 2; i++ { // Ensure is idempotent
		if err := j.Ensure(ctx); err != nil {
			t.Fatal(err)
		}
	}
	setSchedulable(t, false)
	t.Cleanup(func() { setSchedulable(t, true) })
	run := Run{ID: uniqueID("jobs-life"), Action: Apply, Module: netModule(t, "kubernetes"),
		Env: map[string]string{"AWS_ACCESS_KEY_ID": "AKIAEXAMPLE", "AWS_SECRET_ACCESS_KEY": "example-secret"}}

	// Two Starts at once (a retried RPC) create one Job.
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = j.Start(ctx, run) }()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	jobs, err := sb.Client.BatchV1().Jobs(jobsNS).List(ctx, metav1.ListOptions{LabelSelector: LabelClusterID + "=" + run.ID})
	if err != nil || len(jobs.Items) != 1 {
		t.Fatalf("jobs of the cluster: %d (%v), want exactly 1", len(jobs.Items), err)
	}
	objs := getRunObjects(t, run.ID, Apply)
	assertRunObjects(t, objs, run)

	// The pod cannot be scheduled: Pending, from this value and from a new
	// one with a new client (a restarted plugin).
	restarted := Jobs{Client: mustKube(t, sb.Config), Namespace: jobsNS, Logger: logger}
	for _, e := range []Jobs{j, restarted} {
		var st Status
		waitFor(t, "a pending pod", 20*time.Second, func() (bool, error) {
			st, err = e.Status(ctx, run.ID, Apply)
			return err == nil && strings.Contains(st.Message, "is pending"), err
		})
		if st.State != sdk.Pending || !strings.Contains(st.Message, "Unschedulable") {
			t.Errorf("status of an unschedulable pod %+v, want PENDING saying why", st)
		}
	}

	pods, err := sb.Client.CoreV1().Pods(jobsNS).Watch(ctx, metav1.ListOptions{
		LabelSelector: batchv1.ControllerUidLabel + "=" + string(objs.job.UID)})
	if err != nil {
		t.Fatal(err)
	}
	defer pods.Stop()
	setSchedulable(t, true)
	st := waitEnded(t, restarted, run.ID, Apply, 30*time.Second)
	if st.State != sdk.Succeeded || st.Progress != 100 || !strings.Contains(st.Message, "complete") {
		t.Errorf("status of the completed job %+v, want SUCCEEDED", st)
	}
	if !tailContains(st.LogTail, "no terraform output available") {
		t.Errorf("log tail of a pod without logs %q, want a note that there is no output", st.LogTail)
	}
	assertPodsRanThrough(t, pods, objs.job)

	if _, err := sb.Client.CoreV1().Secrets(jobsNS).Get(ctx, objs.secret.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("credentials secret after the run ended: %v, want it deleted", err)
	}
	if err := restarted.Start(ctx, run); err != nil {
		t.Fatal(err)
	}
	if again, err := sb.Client.BatchV1().Jobs(jobsNS).Get(ctx, objs.job.Name, metav1.GetOptions{}); err != nil || again.UID != objs.job.UID {
		t.Errorf("Start of a completed run replaced its job (%v)", err)
	}
	// kwok ran no terraform, so there is no state to read outputs from.
	if _, err := restarted.Outputs(ctx, run.ID); sdk.KindOf(err) != sdk.KindNotFound {
		t.Errorf("outputs without a state: %v, want not found", err)
	}
	if l := logs.String(); strings.Contains(l, "example-secret") || !strings.Contains(l, "AWS_SECRET_ACCESS_KEY") ||
		!strings.Contains(l, "credentials secret deleted") {
		t.Errorf("logs hold a value of Run.Env, or miss its names or the cleanup:\n%s", l)
	}
}

func TestJobFailedRunIsReplacedByStart(t *testing.T) {
	needSandbox(t)
	ctx := context.Background()
	setSchedulable(t, false)
	t.Cleanup(func() { setSchedulable(t, true) })
	// A deadline of one second fails the Job while its pod cannot start.
	short := Jobs{Client: sb.Kube, Namespace: jobsNS, Deadline: time.Second, Logger: hclog.NewNullLogger()}
	if err := short.Ensure(ctx); err != nil {
		t.Fatal(err)
	}
	run := Run{ID: uniqueID("jobs-fail"), Action: Apply, Module: netModule(t, "kubernetes"), Env: map[string]string{"K": "v"}}
	if err := short.Start(ctx, run); err != nil {
		t.Fatal(err)
	}
	first := getRunObjects(t, run.ID, Apply)
	st := waitEnded(t, short, run.ID, Apply, 30*time.Second)
	if st.State != sdk.Failed || st.ErrorClass != sdk.Retryable || !strings.Contains(st.Message, "DeadlineExceeded") {
		t.Errorf("status of the job past its deadline %+v, want FAILED/RETRYABLE with the reason", st)
	}
	if _, err := sb.Client.CoreV1().Secrets(jobsNS).Get(ctx, first.secret.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("credentials secret of the failed run: %v, want it deleted", err)
	}
	j := Jobs{Client: sb.Kube, Namespace: jobsNS, Logger: hclog.NewNullLogger()}
	if err := j.Start(ctx, run); err != nil {
		t.Fatal(err)
	}
	second := getRunObjects(t, run.ID, Apply)
	if second.job.UID == first.job.UID || second.secret.OwnerReferences[0].UID != second.job.UID ||
		second.cm.OwnerReferences[0].UID != second.job.UID {
		t.Errorf("Start of a failed run did not replace its job, configmap and secret")
	}
	setSchedulable(t, true)
	if st := waitEnded(t, j, run.ID, Apply, 30*time.Second); st.State != sdk.Succeeded {
		t.Errorf("the new attempt ended %+v, want SUCCEEDED", st)
	}
}

// assertPodsRanThrough reads the pod watch until the pod Succeeded and
// checks that it was seen Running, and that Status maps that real Running
// pod of the unfinished job to RUNNING.
func assertPodsRanThrough(t *testing.T, w watch.Interface, unfinished *batchv1.Job) {
	t.Helper()
	var running *corev1.Pod
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev := <-w.ResultChan():
			pod, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			if pod.Status.Phase == corev1.PodRunning && running == nil {
				running = pod.DeepCopy()
			}
			if pod.Status.Phase != corev1.PodSucceeded {
				continue
			}
			if running == nil {
				t.Fatal("the pod succeeded without being seen Running")
			}
			st := jobStatus(Apply, unfinished, running, logSummary{}, errors.New("no logs"))
			if st.State != sdk.Running || !strings.Contains(st.Message, "has not produced logs yet") {
				t.Errorf("status of the job with its pod running %+v, want RUNNING without logs yet", st)
			}
			return
		case <-timeout:
			t.Fatal("the pod was not seen Succeeded")
		}
	}
}

func assertRunObjects(t *testing.T, o runObjects, r Run) {
	t.Helper()
	name := "provision-" + r.ID
	wantLabels := map[string]string{LabelClusterID: r.ID, LabelAction: "apply"}
	for _, m := range []metav1.ObjectMeta{o.job.ObjectMeta, o.job.Spec.Template.ObjectMeta, o.cm.ObjectMeta, o.secret.ObjectMeta} {
		for k, v := range wantLabels {
			if m.Labels[k] != v {
				t.Errorf("%s: label %s=%q, want %q", m.Name, k, m.Labels[k], v)
			}
		}
	}
	if o.job.Name != name || o.job.Namespace != jobsNS || o.cm.Name != name || o.secret.Name != name+"-env" {
		t.Errorf("names job %s/%s, configmap %s, secret %s", o.job.Namespace, o.job.Name, o.cm.Name, o.secret.Name)
	}
	spec := o.job.Spec
	if *spec.BackoffLimit != DefaultBackoffLimit || *spec.PodReplacementPolicy != batchv1.Failed || *spec.Suspend {
		t.Errorf("job spec backoffLimit %d, podReplacementPolicy %s, suspend %v", *spec.BackoffLimit, *spec.PodReplacementPolicy, *spec.Suspend)
	}
	pod := spec.Template.Spec
	if pod.ServiceAccountName != DefaultServiceAccount || pod.RestartPolicy != corev1.RestartPolicyNever || len(pod.Containers) != 1 {
		t.Fatalf("pod spec: service account %q, restart policy %s, %d containers", pod.ServiceAccountName, pod.RestartPolicy, len(pod.Containers))
	}
	c := pod.Containers[0]
	if c.Image != DefaultImage || len(c.EnvFrom) != 1 || c.EnvFrom[0].SecretRef == nil || c.EnvFrom[0].SecretRef.Name != o.secret.Name {
		t.Errorf("container image %s, envFrom %+v", c.Image, c.EnvFrom)
	}
	if len(c.Command) != 3 || c.Command[0] != "/bin/sh" || c.Command[1] != "-c" {
		t.Fatalf("command %q, want /bin/sh -c <script>", c.Command)
	}
	script := c.Command[2]
	initAt, applyAt := strings.Index(script, "\ntf init "), strings.Index(script, "\ntf apply -auto-approve")
	if initAt < 0 || applyAt < initAt {
		t.Errorf("the script does not run terraform init, then apply:\n%s", script)
	}
	for _, flag := range []string{"-backend-config=in_cluster_config=true", "-backend-config=namespace=" + jobsNS,
		"-backend-config=secret_suffix=" + StateSuffix(r.ID)} {
		if !strings.Contains(script, flag) {
			t.Errorf("init lacks %s", flag)
		}
	}
	for k, v := range r.Env {
		if string(o.secret.Data[k]) != v {
			t.Errorf("secret key %s does not hold Run.Env[%s]", k, k)
		}
	}
	if len(o.secret.Data) != len(r.Env) {
		t.Errorf("secret holds %d keys, want the %d of Run.Env", len(o.secret.Data), len(r.Env))
	}
	for _, m := range []metav1.ObjectMeta{o.cm.ObjectMeta, o.secret.ObjectMeta} {
		if len(m.OwnerReferences) != 1 || m.OwnerReferences[0].UID != o.job.UID {
			t.Errorf("%s is not owned by the job: %+v", m.Name, m.OwnerReferences)
		}
	}
	assertItemsRestoreTheTree(t, pod, o.cm, r.Module)
}

func assertItemsRestoreTheTree(t *testing.T, pod corev1.PodSpec, cm *corev1.ConfigMap, m Module) {
	t.Helper()
	var vol *corev1.ConfigMapVolumeSource
	for _, v := range pod.Volumes {
		if v.ConfigMap != nil && v.ConfigMap.Name == cm.Name {
			vol = v.ConfigMap
		}
	}
	if vol == nil {
		t.Fatal("no volume mounts the module configmap")
	}
	restored := map[string]string{}
	for _, it := range vol.Items {
		restored[it.Path] = cm.Data[it.Key]
	}
	if len(restored) != len(m.Files) {
		t.Errorf("volume items restore %v, want %v", sortedKeys(restored), sortedKeys(m.Files))
	}
	for p, data := range m.Files {
		if restored[p] != string(data) {
			t.Errorf("volume item at %s does not hold the module file", p)
		}
	}
	if _, ok := restored["modules/net/main.tf"]; !ok {
		t.Error("the child module is not restored at modules/net/main.tf")
	}
}

func TestJobDestroyStopsARunningApply(t *testing.T) {
	needSandbox(t)
	ctx := context.Background()
	j := Jobs{Client: sb.Kube, Namespace: jobsNS, Logger: hclog.NewNullLogger()}
	if err := j.Ensure(ctx); err != nil {
		t.Fatal(err)
	}
	setSchedulable(t, false)
	t.Cleanup(func() { setSchedulable(t, true) })
	run := Run{ID: uniqueID("jobs-stop"), Action: Apply, Module: netModule(t, "kubernetes")}
	if err := j.Start(ctx, run); err != nil {
		t.Fatal(err)
	}
	destroy := run
	destroy.Action = Destroy
	if err := j.Start(ctx, destroy); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Status(ctx, run.ID, Apply); sdk.KindOf(err) != sdk.KindNotFound {
		t.Errorf("apply run after a destroy started: %v, want its job deleted (not found)", err)
	}
	if err := j.Start(ctx, run); sdk.KindOf(err) != sdk.KindFailedPrecondition {
		t.Errorf("apply while the destroy runs: %v, want a failed precondition", err)
	}
	setSchedulable(t, true)
	if st := waitEnded(t, j, run.ID, Destroy, 30*time.Second); st.State != sdk.Succeeded {
		t.Errorf("destroy ended %+v, want SUCCEEDED", st)
	}
}

func TestJobStatusOfUnknownRunIsNotFound(t *testing.T) {
	needSandbox(t)
	j := Jobs{Client: sb.Kube, Namespace: jobsNS}
	if _, err := j.Status(context.Background(), "never-started", Apply); sdk.KindOf(err) != sdk.KindNotFound {
		t.Errorf("status of an unknown run: %v, want not found", err)
	}
}
