package localcloud

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/clientcmd"
	nodestages "sigs.k8s.io/kwok/kustomize/stage/node/fast"
	podstages "sigs.k8s.io/kwok/kustomize/stage/pod/fast"
)

// bootTimeout bounds a whole start on a loaded machine.
const bootTimeout = 5 * time.Minute

// Boot starts the cluster in dir, step by step, recording each step in its
// state file: Ready at the end, Failed with the reason when a step fails
// (the processes started so far keep running until Remove). It is what the
// detached starter process runs.
func Boot(ctx context.Context, dir string) error {
	c := cluster{dir: dir}
	err := c.boot(ctx)
	if err != nil {
		_ = c.setState(state{Phase: Failed, Message: err.Error()})
		return err
	}
	return c.setState(state{Phase: Ready, Message: "cluster is running", Progress: 100})
}

func (c cluster) boot(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, bootTimeout)
	defer cancel()
	spec, err := c.readSpec()
	if err != nil {
		return err
	}
	step := func(progress int, msg string) {
		_ = c.setState(state{Phase: Starting, Message: msg, Progress: progress})
	}
	step(5, "generating certificates")
	p, err := c.writePKI()
	if err != nil {
		return err
	}
	kc, err := c.startControlPlane(ctx, spec, p, freePorts, step)
	if err != nil {
		return err
	}
	step(60, "starting the controller manager, the scheduler and kwok")
	if err := c.startWorkloads(spec.BinDir); err != nil {
		return err
	}
	step(75, fmt.Sprintf("waiting for %d simulated nodes", spec.Nodes))
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kc)
	if err != nil {
		return err
	}
	cs, err := corev1client.NewForConfig(cfg)
	if err != nil {
		return err
	}
	return c.addNodes(ctx, cs, spec.Nodes)
}

// startControlPlane starts etcd, then kube-apiserver, each on ports pick
// gives it, and writes the admin kubeconfig naming the API server. A port
// is free when picked but another process (another cluster started at the
// same moment) may bind it first: a server that finds its port taken is
// stopped and started again on new ports (onFreePorts).
func (c cluster) startControlPlane(ctx context.Context, spec Spec, p pki, pick func(int) ([]int, error),
	step func(int, string)) ([]byte, error) {
	step(15, "starting etcd")
	etcd, err := onFreePorts(ctx, 2, pick, func(ports []int) error {
		return c.startEtcd(ctx, spec.BinDir, ports[0], ports[1])
	})
	if err != nil {
		return nil, err
	}
	step(30, "starting kube-apiserver")
	var kc []byte
	_, err = onFreePorts(ctx, 1, pick, func(ports []int) error {
		var kerr error
		if kc, kerr = p.kubeconfig(spec.ID, "https://127.0.0.1:"+strconv.Itoa(ports[0])); kerr != nil {
			return kerr
		}
		if err := os.WriteFile(c.kubeconfigPath(), kc, 0o600); err != nil {
			return err
		}
		return c.startAPIServer(ctx, spec.BinDir, etcd[0], ports[0], p)
	})
	return kc, err
}

func (c cluster) startEtcd(ctx context.Context, bin string, client, peer int) error {
	clientURL := fmt.Sprintf("http://127.0.0.1:%d", client)
	// A start again on new ports begins with no data: an etcd stopped
	// while it bootstrapped may have left a member a new one cannot use.
	if err := os.RemoveAll(c.path("etcd")); err != nil {
		return fmt.Errorf("clear etcd's data: %w", err)
	}
	if _, err := c.spawn("etcd", filepath.Join(bin, "etcd"),
		"--data-dir="+c.path("etcd"), "--listen-client-urls="+clientURL, "--advertise-client-urls="+clientURL,
		fmt.Sprintf("--listen-peer-urls=http://127.0.0.1:%d", peer), "--unsafe-no-fsync=true"); err != nil {
		return err
	}
	return c.waitServing(ctx, "etcd", http.DefaultClient, clientURL+"/health", client, peer)
}

func (c cluster) startAPIServer(ctx context.Context, bin string, etcd, port int, p pki) error {
	if _, err := c.spawn("kube-apiserver", filepath.Join(bin, "kube-apiserver"),
		fmt.Sprintf("--etcd-servers=http://127.0.0.1:%d", etcd),
		fmt.Sprintf("--secure-port=%d", port), "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		// A loopback address cannot be published by the lease reconciler
		// (kube-apiserver refuses to start); nothing here needs the
		// kubernetes Service endpoints it keeps.
		"--endpoint-reconciler-type=none",
		"--tls-cert-file="+c.path("apiserver.crt"), "--tls-private-key-file="+c.path("apiserver.key"),
		"--client-ca-file="+c.path("ca.crt"), "--authorization-mode=RBAC", "--allow-privileged=true",
		"--service-cluster-ip-range=10.0.0.0/24", "--disable-admission-plugins=ServiceAccount",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file="+c.path("sa.pub"), "--service-account-signing-key-file="+c.path("sa.key"),
	); err != nil {
		return err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(p.caCert)
	cert, err := tls.X509KeyPair(p.adminCert, p.admKey)
	if err != nil {
		return err
	}
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}}}
	return c.waitServing(ctx, "kube-apiserver", hc, fmt.Sprintf("https://127.0.0.1:%d/readyz", port), port)
}

// startWorkloads starts kube-controller-manager, kube-scheduler and kwok as
// KubeOpera's test sandbox does: no service-account token controller (no signing
// key is handed to it) and no node lifecycle controller.
func (c cluster) startWorkloads(bin string) error {
	kc := "--kubeconfig=" + c.kubeconfigPath()
	if _, err := c.spawn("kube-controller-manager", filepath.Join(bin, "kube-controller-manager"), kc,
		"--leader-elect=false", "--secure-port=0",
		"--controllers=*,-serviceaccount-token,-node-lifecycle-controller"); err != nil {
		return err
	}
	if _, err := c.spawn("kube-scheduler", filepath.Join(bin, "kube-scheduler"), kc,
		"--leader-elect=false", "--secure-port=0"); err != nil {
		return err
	}
	stages := c.path("kwok-stages.yaml")
	yaml := strings.Join([]string{nodestages.DefaultNodeInit, podstages.DefaultPodReady,
		podstages.DefaultPodComplete, podstages.DefaultPodDelete}, "\n---\n")
	if err := os.WriteFile(stages, []byte(yaml), 0o600); err != nil {
		return fmt.Errorf("write kwok stages: %w", err)
	}
	_, err := c.spawn("kwok", filepath.Join(bin, "kwok"), kc, "--config="+stages,
		"--manage-all-nodes=false", "--manage-nodes-with-annotation-selector="+kwokAnnotation+"=fake",
		"--cidr=10.244.0.0/16")
	return err
}
