package terraform

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Labels on every object of a Job run (Job, pods, ConfigMap, Secret).
const (
	// LabelClusterID holds Run.ID.
	LabelClusterID = "kubeopera.io/cluster-id"
	// LabelAction holds Run.Action ("apply" or "destroy").
	LabelAction = "kubeopera.io/action"
	// LabelGeneration holds Run.Generation of an update run (absent on
	// generation 0).
	LabelGeneration = "kubeopera.io/generation"
	labelManagedBy  = "app.kubernetes.io/managed-by"
	managedBy       = "kubeopera"
)

// Paths inside the Job's container.
const (
	// ModuleMount is where the ConfigMap volume puts the module files
	// (read-only, as symlinks into ..data, so the command copies them).
	ModuleMount = "/module"
	// WorkMount is the emptyDir: the module is copied to WorkMount/root,
	// terraform's working directory, where it writes .terraform.
	WorkMount = "/work"
	// ContainerName is the container that runs terraform.
	ContainerName = "terraform"
)

// JobName is the Job (and ConfigMap) of a run: provision-<id> for Apply,
// destroy-<id> for Destroy; its credentials Secret is JobName + "-env".
func JobName(id string, a Action) string {
	if a == Destroy {
		return "destroy-" + id
	}
	return "provision-" + id
}

// GenerationJobName is the Job of apply generation g (Run.Generation):
// provision-<id> for 0, update-<id>-<g> after it.
func GenerationJobName(id string, g int) string {
	if g == 0 {
		return JobName(id, Apply)
	}
	return fmt.Sprintf("update-%s-%d", id, g)
}

// runJobName is the Job of r.
func runJobName(r Run) string {
	if r.Action == Apply {
		return GenerationJobName(r.ID, r.Generation)
	}
	return JobName(r.ID, r.Action)
}

func envSecretName(job string) string { return job + "-env" }

func runLabels(r Run) map[string]string {
	l := map[string]string{LabelClusterID: r.ID, LabelAction: string(r.Action), labelManagedBy: managedBy}
	if r.Generation > 0 {
		l[LabelGeneration] = strconv.Itoa(r.Generation)
	}
	return l
}

// jobSpec is everything the Job objects of one run are built from.
type jobSpec struct {
	run            Run
	namespace      string
	image          string
	serviceAccount string
	backoffLimit   int32
	deadline       int64 // seconds
	lockTimeout    string
	resources      corev1.ResourceRequirements
}

var keyUnsafe = regexp.MustCompile(`[^-._a-zA-Z0-9]`)

// configMapKey flattens a module path into a ConfigMap key: keys cannot
// hold "/"; the index keeps flattened keys unique, the volume's items
// restore the tree.
func configMapKey(i int, path string) string {
	k := fmt.Sprintf("f%03d.%s", i, keyUnsafe.ReplaceAllString(strings.ReplaceAll(path, "/", "--"), "_"))
	if len(k) > 253 {
		k = k[:253]
	}
	return k
}

// moduleConfigMap holds the module files under flattened keys, and the
// volume items that put each key back at its path.
func (s jobSpec) moduleConfigMap() (*corev1.ConfigMap, []corev1.KeyToPath) {
	cm := &corev1.ConfigMap{ObjectMeta: s.meta(runJobName(s.run))}
	var items []corev1.KeyToPath
	for i, p := range sortedKeys(s.run.Module.Files) {
		k, data := configMapKey(i, p), s.run.Module.Files[p]
		if utf8.Valid(data) {
			if cm.Data == nil {
				cm.Data = map[string]string{}
			}
			cm.Data[k] = string(data)
		} else {
			if cm.BinaryData == nil {
				cm.BinaryData = map[string][]byte{}
			}
			cm.BinaryData[k] = data
		}
		items = append(items, corev1.KeyToPath{Key: k, Path: p})
	}
	return cm, items
}

// envSecret holds Run.Env; the pod reads it with envFrom.
func (s jobSpec) envSecret() *corev1.Secret {
	sec := &corev1.Secret{ObjectMeta: s.meta(envSecretName(runJobName(s.run))),
		Type: corev1.SecretTypeOpaque, Data: map[string][]byte{}}
	for k, v := range s.run.Env {
		sec.Data[k] = []byte(v)
	}
	return sec
}

func (s jobSpec) meta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: s.namespace, Labels: runLabels(s.run)}
}

// job is the Job of the run, created suspended: Start unsuspends it once
// the ConfigMap and Secret it mounts exist.
func (s jobSpec) job(items []corev1.KeyToPath) *batchv1.Job {
	name := runJobName(s.run)
	return &batchv1.Job{
		ObjectMeta: s.meta(name),
		Spec: batchv1.JobSpec{
			Suspend:      ptr.To(true),
			BackoffLimit: ptr.To(s.backoffLimit),
			// A retry starts only when the last pod has stopped, so two
			// terraform processes never race for the state.
			PodReplacementPolicy:  ptr.To(batchv1.Failed),
			ActiveDeadlineSeconds: ptr.To(s.deadline),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: runLabels(s.run)},
				Spec:       s.podSpec(name, items),
			},
		},
	}
}

func (s jobSpec) podSpec(name string, items []corev1.KeyToPath) corev1.PodSpec {
	return corev1.PodSpec{
		RestartPolicy:                 corev1.RestartPolicyNever,
		ServiceAccountName:            s.serviceAccount,
		AutomountServiceAccountToken:  ptr.To(true), // in_cluster_config of the state backend
		TerminationGracePeriodSeconds: ptr.To[int64](300),
		SecurityContext: &corev1.PodSecurityContext{
			RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65532), RunAsGroup: ptr.To[int64](65532),
			FSGroup:        ptr.To[int64](65532),
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		Volumes: []corev1.Volume{
			{Name: "module", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: name}, Items: items}}},
			{Name: "work", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		},
		Containers: []corev1.Container{{
			Name:            ContainerName,
			Image:           s.image,
			ImagePullPolicy: corev1.PullIfNotPresent,
			Command:         []string{"/bin/sh", "-c", s.script()},
			WorkingDir:      WorkMount,
			Env: []corev1.EnvVar{
				{Name: "HOME", Value: WorkMount + "/home"},
				{Name: "TMPDIR", Value: WorkMount + "/tmp"},
				{Name: "TF_IN_AUTOMATION", Value: "1"},
				{Name: "TF_INPUT", Value: "0"},
				{Name: "CHECKPOINT_DISABLE", Value: "1"},
			},
			EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: envSecretName(name)}}}},
			VolumeMounts: []corev1.VolumeMount{
				{Name: "module", MountPath: ModuleMount, ReadOnly: true},
				{Name: "work", MountPath: WorkMount},
			},
			Resources: s.resources,
			SecurityContext: &corev1.SecurityContext{
				AllowPrivilegeEscalation: ptr.To(false),
				ReadOnlyRootFilesystem:   ptr.To(true),
				Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			},
		}},
	}
}

// staleHolders is the shell case pattern of the pod names whose lock this
// run takes for stale (see script).
func (s jobSpec) staleHolders() string {
	id := s.run.ID
	update := "update-" + id + "-*"
	switch {
	case s.run.Generation > 0:
		return update
	case s.run.Action == Destroy:
		return JobName(id, Apply) + "-*|" + JobName(id, Destroy) + "-*|" + update
	default:
		return JobName(id, Apply) + "-*|" + JobName(id, Destroy) + "-*"
	}
}

func defaultResources() corev1.ResourceRequirements {
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"),
			corev1.ResourceMemory: resource.MustParse("512Mi")},
		Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("2Gi")},
	}
}

// script is the container command. terraform runs in the background only
// so the shell (PID 1, which gets the pod's SIGTERM) can pass the signal
// on: terraform then stops gracefully, saves the state and releases the
// lock. Its stdout is the container's, so `kubectl logs -f job/<name>`
// shows the real run; stderr is kept in a file to look for a lock error
// and printed after each command.
//
// A lock held by a pod of this cluster's Jobs (Who is user@<pod name>)
// after lockTimeout is stale: such a pod was killed before it could
// release it (a retried pod starts only after the last one stopped; a
// deleted apply pod had the grace period to stop). It is force-unlocked
// and the command run once more. Any other holder fails the run; an
// update run takes only an earlier update pod's lock for stale (Start
// refuses an update while the first apply runs, so a provision pod's lock
// is one a person must look at), and a destroy takes any of the three.
func (s jobSpec) script() string {
	id, a := s.run.ID, s.run.Action
	verb := "apply"
	if a == Destroy {
		verb = "destroy"
	}
	change := fmt.Sprintf("%s -auto-approve -input=false -no-color -lock-timeout=%s", verb, s.lockTimeout)
	return strings.Join([]string{
		`set -u`,
		`note() { echo "` + attemptMarker + `$* ---"; }`,
		`mkdir -p ` + WorkMount + `/root ` + WorkMount + `/home ` + WorkMount + `/tmp || exit 1`,
		`for f in ` + ModuleMount + `/* ` + ModuleMount + `/.[!.]*; do if [ -e "$f" ]; then cp -RL "$f" ` + WorkMount + `/root/ || exit 1; fi; done`,
		`cd ` + WorkMount + `/root || exit 1`,
		`child=0`,
		`trap 'if [ "$child" -ne 0 ]; then kill -TERM "$child" 2>/dev/null; fi' TERM INT`,
		`tf() {`,
		`  terraform "$@" 2>` + WorkMount + `/stderr &`,
		`  child=$!`,
		`  wait "$child"; rc=$?`,
		`  while [ "$rc" -gt 128 ] && kill -0 "$child" 2>/dev/null; do wait "$child"; rc=$?; done`,
		`  child=0`,
		`  cat ` + WorkMount + `/stderr >&2`,
		`  return "$rc"`,
		`}`,
		fmt.Sprintf(`note "terraform %s of cluster %s in pod ${HOSTNAME:-unknown}"`, a, id),
		fmt.Sprintf(`tf init -input=false -no-color -backend-config=in_cluster_config=true -backend-config=namespace=%s -backend-config=secret_suffix=%s || exit $?`,
			s.namespace, StateSuffix(id)),
		`tf ` + change + ` && exit 0`,
		`rc=$?`,
		`grep -q '` + lockError + `' ` + WorkMount + `/stderr || exit "$rc"`,
		`who=$(sed -n 's/^ *Who: *//p' ` + WorkMount + `/stderr | head -n 1)`,
		`lock=$(sed -n 's/^ *ID: *//p' ` + WorkMount + `/stderr | head -n 1)`,
		fmt.Sprintf(`case "${who#*@}" in %s) ;; *) exit "$rc" ;; esac`, s.staleHolders()),
		`note "removing the state lock $lock that the stopped pod ${who#*@} left; running terraform again"`,
		`tf force-unlock -no-color -force "$lock" || exit $?`,
		`tf ` + change,
	}, "\n") + "\n"
}
