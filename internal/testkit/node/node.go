// Package node runs a real Kubernetes node for a sandbox: containerd 2
// with runc, the kubelet and kube-proxy, built by hack/build-node.sh, in a
// network namespace of its own joined to this machine by one veth pair.
// Pods get real containers and a real pod network there, and the sandbox's
// API server reaches the kubelet by the node's InternalIP. Nothing in the
// namespace reaches beyond this machine: it has no default route and this
// machine does not forward.
//
// It needs root, cgroup v1 or v2, and a sandbox started with
// APIServerNames holding 10.0.0.1 (pods verify the API server's certificate
// against the kubernetes Service's address).
package node

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ochestra-tech/kubeopera/internal/childproc"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/sdk/localcloud"
)

// Options say which node to run.
type Options struct {
	// Name is the Node's name.
	Name string
	// Index, 1 to 250, picks the node's addresses: 10.213.<Index>.2 on the
	// veth and the pod CIDR 10.214.<Index>.0/24.
	Index int
	// Images are OCI image layouts (directories) imported into containerd
	// before the kubelet starts; the pause image must be among them.
	Images []string
	// Labels are added to the Node.
	Labels map[string]string
}

// Node is a running node.
type Node struct {
	Name string
	// InternalIP is the node's address on the veth.
	InternalIP string
	// PodCIDR is where its pods' addresses come from.
	PodCIDR string

	bins   binaries
	net    network
	paths  paths
	relays []*relay
	procs  []*childproc.Process
}

// Start starts the node's runtime (StartRuntime), then the kubelet and
// kube-proxy against the sandbox s; it returns when the Node is Ready. On
// failure everything started so far is stopped.
func Start(ctx context.Context, s *sandbox.Sandbox, opts Options) (_ *Node, err error) {
	port, err := apiServerPort(s)
	if err != nil {
		return nil, err
	}
	if _, err := findBinaries(true); err != nil {
		return nil, err
	}
	n, err := StartRuntime(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, n.Stop(context.WithoutCancel(ctx), s))
		}
	}()
	if err := n.Forward(port); err != nil {
		return n, err
	}
	if err := n.serveAdvertisedAddress(ctx, s); err != nil {
		return n, err
	}
	if err := n.startKubelet(s.KubeconfigPath, opts.Labels); err != nil {
		return n, err
	}
	if err := n.startKubeProxy(s); err != nil {
		return n, err
	}
	return n, localcloud.WaitNodeReady(ctx, s.Client.CoreV1(), n.Name, n.exited)
}

// StartRuntime makes the node's network namespace, starts containerd in it
// and imports the images: what the kubelet's CRI calls need. Stop(ctx, nil)
// stops it.
func StartRuntime(ctx context.Context, opts Options) (_ *Node, err error) {
	if opts.Index < 1 || opts.Index > 250 {
		return nil, fmt.Errorf("node index %d: want 1 to 250", opts.Index)
	}
	bins, err := findBinaries(false)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "kubeopera-node-")
	if err != nil {
		return nil, fmt.Errorf("node temp dir: %w", err)
	}
	n := &Node{Name: opts.Name, bins: bins, net: newNetwork(opts.Index), paths: newPaths(dir, bins.cni)}
	n.InternalIP, n.PodCIDR = n.net.nodeIP, n.net.podCIDR
	defer func() {
		if err != nil {
			err = errors.Join(err, n.Stop(context.WithoutCancel(ctx), nil))
		}
	}()
	if err := n.net.create(ctx); err != nil {
		return n, err
	}
	if err := n.startContainerd(ctx); err != nil {
		return n, err
	}
	for _, img := range opts.Images {
		if err := n.importImage(ctx, img); err != nil {
			return n, err
		}
	}
	return n, nil
}

// serveAdvertisedAddress makes the API server's advertised address (the
// kubernetes Service's endpoint, which kube-proxy sends the pods' requests
// to) an address of the node's namespace, where the relay answers on it:
// the API server advertises this machine's own address, which the
// namespace has no route to ("connect: network is unreachable" from a
// pod otherwise).
func (n *Node) serveAdvertisedAddress(ctx context.Context, s *sandbox.Sandbox) error {
	var addrs []string
	err := n.waitFor(ctx, "the kubernetes Service's endpoints", func() bool {
		es, err := s.Client.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
		if err != nil {
			return false
		}
		for _, e := range es.Endpoints {
			addrs = append(addrs, e.Addresses...)
		}
		return len(addrs) > 0
	})
	if err != nil {
		return err
	}
	for _, a := range addrs {
		if ip := net.ParseIP(a); ip == nil || ip.IsLoopback() {
			continue // route_localnet covers loopback
		}
		if err := n.net.addLocal(ctx, a); err != nil {
			return err
		}
	}
	return nil
}

func apiServerPort(s *sandbox.Sandbox) (int, error) {
	u, err := url.Parse(s.Config.Host)
	if err != nil {
		return 0, fmt.Errorf("sandbox api server address %q: %w", s.Config.Host, err)
	}
	return strconv.Atoi(u.Port())
}

// Forward serves this machine's loopback port in the node's namespace, on
// every address there (the node's InternalIP, where pods reach it): the
// API server's, and what else the node's pods need from this machine,
// such as a PostgreSQL. Stop ends it.
func (n *Node) Forward(port int) error {
	r, err := startRelay(n.net.path(), port)
	if err != nil {
		return err
	}
	n.relays = append(n.relays, r)
	return nil
}

// Dial connects from inside the node's namespace, as a process on the node
// would: a Service's ClusterIP goes through kube-proxy's rules there.
func (n *Node) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	return dialIn(ctx, n.net.path(), network, addr)
}

// exited reports the first node process that has ended.
func (n *Node) exited() error {
	for _, p := range n.procs {
		if err := p.Exited(); err != nil {
			return err
		}
	}
	return nil
}

// Dir is the node's directory: its configuration and every program's log
// (<program>.log).
func (n *Node) Dir() string { return n.paths.dir }

// start runs a program inside the node's network namespace (nsenter
// joins that namespace only: kubelet, containerd and runc must share this
// machine's mount namespace, so the volumes the kubelet mounts are the ones
// containerd gives the containers).
func (n *Node) start(name, path string, args ...string) error {
	env := append(os.Environ(), "PATH="+n.bins.containerd+":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
	p, err := childproc.Start("/usr/bin/nsenter", filepath.Join(n.paths.dir, name+".log"), env,
		append([]string{"--net=" + n.net.path(), "--", path}, args...))
	if err != nil {
		return fmt.Errorf("start %s: %w", name, err)
	}
	n.procs = append(n.procs, p)
	return nil
}

// startKubelet starts the kubelet against the API server of kubeconfig,
// or standalone (static pods only) when kubeconfig is empty.
func (n *Node) startKubelet(kubeconfig string, labels map[string]string) error {
	cfg, err := kubeletConfig(n.net, n.paths)
	if err != nil {
		return err
	}
	if err := os.WriteFile(n.paths.kubeletConfig, cfg, 0o600); err != nil {
		return err
	}
	if err := os.MkdirAll(n.paths.staticPods, 0o750); err != nil {
		return err
	}
	args := []string{"--config=" + n.paths.kubeletConfig,
		"--root-dir=" + n.paths.kubeletRoot, "--cert-dir=" + n.paths.kubeletPKI,
		"--hostname-override=" + n.Name, "--node-ip=" + n.net.nodeIP, "--v=2"}
	if kubeconfig != "" {
		args = append(args, "--kubeconfig="+kubeconfig)
	}
	if len(labels) > 0 {
		args = append(args, "--node-labels="+joinLabels(labels))
	}
	return n.start("kubelet", n.bins.kubelet, args...)
}

// startKubeProxy runs kube-proxy in iptables mode. The conntrack limits
// are left as they are: a network namespace other than the first may not
// change them.
func (n *Node) startKubeProxy(s *sandbox.Sandbox) error {
	return n.start("kube-proxy", n.bins.kubeProxy, "--kubeconfig="+s.KubeconfigPath,
		"--hostname-override="+n.Name, "--proxy-mode=iptables", "--cluster-cidr="+n.net.podCIDR,
		"--conntrack-max-per-core=0", "--conntrack-tcp-timeout-established=0", "--conntrack-tcp-timeout-close-wait=0",
		"--metrics-bind-address=127.0.0.1:10249", "--healthz-bind-address=127.0.0.1:10256")
}

// waitFor polls cond every 100 ms until it holds, a node process ends, or
// ctx ends.
func (n *Node) waitFor(ctx context.Context, what string, cond func() bool) error {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for !cond() {
		if err := n.exited(); err != nil {
			return fmt.Errorf("waiting for %s: %w", what, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		case <-t.C:
		}
	}
	return nil
}

func (n *Node) startContainerd(ctx context.Context) error {
	if err := os.WriteFile(n.paths.containerdConfig, []byte(containerdConfig(n.paths, n.bins.runc)), 0o600); err != nil {
		return err
	}
	cni, err := cniConfig(n.net, n.paths)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(n.paths.cniConf, 0o750); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(n.paths.cniConf, "10-kubeopera.conflist"), cni, 0o600); err != nil {
		return err
	}
	if err := n.start("containerd", filepath.Join(n.bins.containerd, "containerd"), "--config="+n.paths.containerdConfig); err != nil {
		return err
	}
	return n.waitFor(ctx, "containerd's socket", func() bool {
		return exec.CommandContext(ctx, n.ctr(), "--address", n.paths.containerdSocket, "version").Run() == nil
	})
}

// StartStandaloneKubelet starts the kubelet without an API server: it runs
// the static pods of StaticPodDir only.
func (n *Node) StartStandaloneKubelet() error {
	if _, err := findBinaries(true); err != nil {
		return err
	}
	return n.startKubelet("", nil)
}

// StaticPodDir is where the kubelet reads static pod manifests.
func (n *Node) StaticPodDir() string { return n.paths.staticPods }

// PodLogsDir is where the kubelet keeps the containers' logs.
func (n *Node) PodLogsDir() string { return n.paths.podLogs }

// CRISocket is containerd's socket, where the kubelet's CRI calls go.
func (n *Node) CRISocket() string { return n.paths.containerdSocket }

func (n *Node) ctr() string { return filepath.Join(n.bins.containerd, "ctr") }
