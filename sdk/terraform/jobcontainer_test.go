package terraform

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	authv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// runContainer runs the Job's container the way the kubelet would, but
// on this machine (see containerCommand), and returns its combined output
// and exit error.
func runContainer(t *testing.T, o runObjects, kubeconfig string) (string, error) {
	t.Helper()
	cmd, out := containerCommand(t, o, kubeconfig)
	err := cmd.Run()
	return out.String(), err
}

// containerCommand prepares the Job's container as a local process: each
// volume of the pod template is materialized under a temporary root
// (ConfigMap items at their paths, emptyDirs empty), the absolute mount
// paths in the command, working directory and env are rewritten into that
// root, the env comes from the container's env and its envFrom Secret,
// and in_cluster_config is replaced by KUBE_CONFIG_PATH=kubeconfig (the
// ServiceAccount's token). Stdout and stderr go to the returned buffer.
func containerCommand(t *testing.T, o runObjects, kubeconfig string) (*exec.Cmd, *lockedBuffer) {
	t.Helper()
	root := t.TempDir()
	pod := o.job.Spec.Template.Spec
	c := pod.Containers[0]
	rewrite := func(s string) string {
		for _, m := range c.VolumeMounts {
			s = strings.ReplaceAll(s, m.MountPath, filepath.Join(root, m.MountPath))
		}
		return s
	}
	for _, m := range c.VolumeMounts {
		materialize(t, pod, m, o.cm, filepath.Join(root, m.MountPath))
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "KUBE_CONFIG_PATH=" + kubeconfig}
	for _, e := range c.Env {
		if e.ValueFrom != nil {
			t.Fatalf("env %s uses valueFrom, which this helper does not emulate", e.Name)
		}
		env = append(env, e.Name+"="+rewrite(e.Value))
	}
	for _, ef := range c.EnvFrom {
		if ef.SecretRef == nil || ef.SecretRef.Name != o.secret.Name {
			t.Fatalf("envFrom %+v does not name the run's secret %s", ef, o.secret.Name)
		}
		for k, v := range o.secret.Data {
			env = append(env, k+"="+string(v))
		}
	}
	const inCluster = " -backend-config=in_cluster_config=true"
	if len(c.Command) != 3 || !strings.Contains(c.Command[2], inCluster) {
		t.Fatalf("command %q is not /bin/sh -c <script with%s>", c.Command, inCluster)
	}
	script := rewrite(strings.ReplaceAll(c.Command[2], inCluster, ""))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, c.Command[0], c.Command[1], script)
	cmd.Dir = rewrite(c.WorkingDir)
	cmd.Env = env
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	return cmd, out
}

// materialize creates the volume mounted by m at dir.
func materialize(t *testing.T, pod corev1.PodSpec, m corev1.VolumeMount, cm *corev1.ConfigMap, dir string) {
	t.Helper()
	for _, v := range pod.Volumes {
		if v.Name != m.Name {
			continue
		}
		switch {
		case v.EmptyDir != nil:
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
		case v.ConfigMap != nil && v.ConfigMap.Name == cm.Name:
			for _, it := range v.ConfigMap.Items {
				p := filepath.Join(dir, filepath.FromSlash(it.Path))
				data, ok := cm.Data[it.Key]
				if !ok {
					data = string(cm.BinaryData[it.Key])
				}
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(data), 0o400); err != nil {
					t.Fatal(err)
				}
			}
		default:
			t.Fatalf("volume %s: only emptyDir and the run's configmap are emulated", v.Name)
		}
		return
	}
	t.Fatalf("no volume %s", m.Name)
}

// serviceAccountKubeconfig writes a kubeconfig holding a token of the
// Jobs' ServiceAccount, so terraform reaches the state with exactly the
// rights of JobRole.
func serviceAccountKubeconfig(t *testing.T, ns string) string {
	t.Helper()
	tr, err := sb.Client.CoreV1().ServiceAccounts(ns).CreateToken(context.Background(), DefaultServiceAccount,
		&authv1.TokenRequest{Spec: authv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("token of service account %s/%s: %v", ns, DefaultServiceAccount, err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["sandbox"] = &clientcmdapi.Cluster{Server: sb.Config.Host, CertificateAuthorityData: sb.Config.CAData}
	cfg.AuthInfos["terraform"] = &clientcmdapi.AuthInfo{Token: tr.Status.Token}
	cfg.Contexts["terraform"] = &clientcmdapi.Context{Cluster: "sandbox", AuthInfo: "terraform"}
	cfg.CurrentContext = "terraform"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	// The sandbox enforces RBAC, so a run with this token proves JobRole is
	// enough: the token may not even list configmaps.
	restCfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = kubernetes.NewForConfigOrDie(restCfg).CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("the service account lists configmaps: %v; RBAC is not enforced and the run would prove nothing", err)
	}
	return path
}

// holdLock makes the state lock of id look held by who, exactly as a
// terraform process that died holding it leaves the Lease.
func holdLock(t *testing.T, id, who string) {
	t.Helper()
	ctx := context.Background()
	leases := sb.Client.CoordinationV1().Leases(jobsNS)
	name := "lock-" + StateSecretName(StateSuffix(id))
	lockID := "0b7d6a35-6a3e-1c7d-9a35-" + fmt.Sprintf("%012d", time.Now().UnixNano()%1e12)
	info, _ := json.Marshal(map[string]string{"ID": lockID, "Operation": "OperationTypeApply", "Info": "",
		"Who": who, "Version": "1.11.4", "Created": time.Now().UTC().Format(time.RFC3339Nano), "Path": ""})
	l, err := leases.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		l = &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: jobsNS, Labels: map[string]string{
			"app.kubernetes.io/managed-by": "terraform", "tfstateSecretSuffix": StateSuffix(id), "tfstateWorkspace": "default"}}}
		l, err = leases.Create(ctx, l, metav1.CreateOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
	l.Spec.HolderIdentity = &lockID
	l.Annotations = map[string]string{"app.terraform.io/lock-info": string(info)}
	if _, err := leases.Update(ctx, l, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestJobContainerRunsTerraformAgainstTheSandboxState(t *testing.T) {
	needSandbox(t)
	ctx := context.Background()
	assertImageIsLocalTerraform(t)
	j := Jobs{Client: sb.Kube, Namespace: jobsNS, LockTimeout: time.Second, Logger: hclog.NewNullLogger()}
	if err := j.Ensure(ctx); err != nil {
		t.Fatal(err)
	}
	kubeconfig := serviceAccountKubeconfig(t, jobsNS)
	run := Run{ID: uniqueID("jobs-real"), Action: Apply, Module: netModule(t, "kubernetes"), Env: map[string]string{"TEAM": "platform"}}

	t.Run("apply", func(t *testing.T) {
		if err := j.Start(ctx, run); err != nil {
			t.Fatal(err)
		}
		out, err := runContainer(t, getRunObjects(t, run.ID, Apply), kubeconfig)
		if err != nil || !strings.Contains(out, "Apply complete! Resources: 6 added") {
			t.Fatalf("container: %v\n%s", err, out)
		}
		if s := summarizeLog(strings.NewReader(out)); s.add != 6 || s.created != 6 || s.progress() != 99 {
			t.Errorf("container log: %d planned, %d created, progress %d; want 6, 6, 99", s.add, s.created, s.progress())
		}
		waitEnded(t, j, run.ID, Apply, 30*time.Second) // kwok completes the Job
		got, err := j.Outputs(ctx, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		assertOutputs(t, got, netOutputs)
	})

	// Both lock cases use the destroy run of the applied cluster: the state
	// exists, as it does whenever a pod dies holding the lock.
	destroy := run
	destroy.Action = Destroy
	if err := j.Start(ctx, destroy); err != nil {
		t.Fatal(err)
	}
	destroyObjs := getRunObjects(t, run.ID, Destroy)

	t.Run("a lock someone else holds fails the run, retryably", func(t *testing.T) {
		holdLock(t, run.ID, "alice@laptop")
		out, err := runContainer(t, destroyObjs, kubeconfig)
		if err == nil || strings.Contains(out, "removing the state lock") {
			t.Fatalf("container removed or ignored a lock alice holds: %v\n%s", err, out)
		}
		st := finishedStatus(Destroy, false, summarizeLog(strings.NewReader(out)), "")
		if st.ErrorClass != sdk.Retryable || !strings.Contains(st.Message, lockError) || !strings.Contains(st.Message, "alice@laptop") {
			t.Errorf("status from the container log %+v, want RETRYABLE naming the lock holder", st)
		}
	})

	t.Run("SIGTERM stops terraform gracefully: state saved, lock released", func(t *testing.T) {
		testSIGTERMStopsTerraformGracefully(t, j, kubeconfig)
	})

	t.Run("a lock a killed pod of the cluster left is removed", func(t *testing.T) {
		holdLock(t, run.ID, "root@provision-"+run.ID+"-x7k2p")
		out, err := runContainer(t, destroyObjs, kubeconfig)
		if err != nil || !strings.Contains(out, "removing the state lock") || !strings.Contains(out, "Destroy complete! Resources: 6 destroyed") {
			t.Fatalf("container: %v\n%s", err, out)
		}
		if st, err := readState(ctx, sb.Kube, jobsNS, StateSuffix(run.ID)); err != nil || len(st.Resources) != 0 {
			t.Errorf("state after destroy: %d resources (%v), want none", len(st.Resources), err)
		}
	})
}

// testSIGTERMStopsTerraformGracefully sends the container's shell what the
// kubelet sends PID 1 when the pod is deleted, mid-apply.
func testSIGTERMStopsTerraformGracefully(t *testing.T, j Jobs, kubeconfig string) {
	ctx := context.Background()
	tmp := t.TempDir()
	release, pidFile := filepath.Join(tmp, "release"), filepath.Join(tmp, "provisioner.pid")
	t.Cleanup(func() { _ = os.WriteFile(release, nil, 0o600) })
	slow := Run{ID: uniqueID("jobs-term"), Action: Apply, Module: testModule(t, "slow", "kubernetes", nil, map[string]bool{"slow": false}),
		Env: map[string]string{"RELEASE_FILE": release, "PID_FILE": pidFile}}
	if err := j.Start(ctx, slow); err != nil {
		t.Fatal(err)
	}
	cmd, out := containerCommand(t, getRunObjects(t, slow.ID, Apply), kubeconfig)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the provisioner to run", 30*time.Second, func() (bool, error) {
		_, err := os.Stat(pidFile)
		return err == nil, nil
	})
	lease := "lock-" + StateSecretName(StateSuffix(slow.ID))
	if leaseHolder(t, jobsNS, lease) == "" {
		t.Fatal("terraform holds no lock mid-apply")
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil { // what the kubelet sends PID 1
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Errorf("the interrupted container exited 0:\n%s", out)
	}
	if !strings.Contains(out.String(), "Interrupt received") {
		t.Errorf("terraform did not get the signal:\n%s", out)
	}
	if holder := leaseHolder(t, jobsNS, lease); holder != "" {
		t.Errorf("lock still held by %s after the graceful stop", holder)
	}
	if st, err := readState(ctx, sb.Kube, jobsNS, StateSuffix(slow.ID)); err != nil || len(st.Resources) == 0 {
		t.Errorf("state after the graceful stop: %d resources (%v), want the ones created before it", len(st.Resources), err)
	}
}

// assertImageIsLocalTerraform checks that the local terraform is the
// version of DefaultImage, so a local run of the container proves that
// terraform.
func assertImageIsLocalTerraform(t *testing.T) {
	t.Helper()
	version, err := exec.Command(terraformBinary(t), "version", "-json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Version string `json:"terraform_version"`
	}
	_ = json.Unmarshal(version, &v)
	if DefaultImage != "hashicorp/terraform:"+v.Version {
		t.Fatalf("local terraform %s is not the version of %s: the run would prove another terraform", v.Version, DefaultImage)
	}
}
