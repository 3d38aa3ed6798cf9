package localcluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
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
	step(15, "starting etcd")
	ports, err := c.startEtcdOnFreePorts(ctx, spec.BinDir)
	if err != nil {
		return err
	}
	step(30, "starting kube-apiserver")
	server := "https://127.0.0.1:" + strconv.Itoa(ports[2])
	kc, err := p.kubeconfig(spec.ID, server)
	if err != nil {
		return err
	}
	if err := os.WriteFile(c.kubeconfigPath(), kc, 0o600); err != nil {
		return err
	}
	if err := c.startAPIServer(ctx, spec.BinDir, ports, p); err != nil {
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
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	return c.addNodes(ctx, cs, spec.Nodes)
}

// etcdTries bounds startEtcdOnFreePorts.
const etcdTries = 3

// startEtcdOnFreePorts starts etcd on free ports and returns them (etcd's
// client and peer ports, then one for kube-apiserver). A port is free when
// picked but may be taken by another process before etcd binds it (tests
// start many servers at once), so an etcd that exits at start is tried
// again on new ports, up to etcdTries times.
func (c cluster) startEtcdOnFreePorts(ctx context.Context, bin string) ([]int, error) {
	var err error
	for try := 1; try <= etcdTries; try++ {
		var ports []int
		if ports, err = freePorts(3); err != nil {
			return nil, err
		}
		if err = c.startEtcd(ctx, bin, ports[0], ports[1]); err == nil {
			return ports, nil
		}
		if c.alive(c.pid("etcd")) || ctx.Err() != nil {
			return nil, err // running but unhealthy, or out of time: no retry
		}
	}
	return nil, fmt.Errorf("after %d tries: %w", etcdTries, err)
}

func (c cluster) startEtcd(ctx context.Context, bin string, client, peer int) error {
	clientURL := fmt.Sprintf("http://127.0.0.1:%d", client)
	if _, err := c.spawn("etcd", filepath.Join(bin, "etcd"),
		"--data-dir="+c.path("etcd"), "--listen-client-urls="+clientURL, "--advertise-client-urls="+clientURL,
		fmt.Sprintf("--listen-peer-urls=http://127.0.0.1:%d", peer), "--unsafe-no-fsync=true"); err != nil {
		return err
	}
	return c.waitHealthy(ctx, "etcd", http.DefaultClient, clientURL+"/health")
}

func (c cluster) startAPIServer(ctx context.Context, bin string, ports []int, p pki) error {
	if _, err := c.spawn("kube-apiserver", filepath.Join(bin, "kube-apiserver"),
		fmt.Sprintf("--etcd-servers=http://127.0.0.1:%d", ports[0]),
		fmt.Sprintf("--secure-port=%d", ports[2]), "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
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
	return c.waitHealthy(ctx, "kube-apiserver", hc, fmt.Sprintf("https://127.0.0.1:%d/readyz", ports[2]))
}

// startWorkloads starts kube-controller-manager, kube-scheduler and kwok as
// internal/sandbox does: no service-account token controller (no signing
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

// waitHealthy polls url until it answers 200; a process that exits ends
// the wait with the end of its log.
func (c cluster) waitHealthy(ctx context.Context, name string, hc *http.Client, url string) error {
	pid := c.pid(name)
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if !c.alive(pid) {
			return false, fmt.Errorf("%s exited: %s", name, c.logTail(name, 5))
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := hc.Do(req)
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		return fmt.Errorf("%s did not become healthy: %w", name, err)
	}
	return nil
}

// freePorts asks the kernel for n free loopback ports at once, so they
// differ.
func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
