package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// network is the node's network namespace and the one veth pair that joins
// it to this machine's: the host end is hostIP, the node's end nodeIP (the
// node's InternalIP, which the API server dials for logs). Pods get
// addresses of podCIDR on a bridge inside the namespace. The namespace has
// no default route, and this machine does not forward (ip_forward stays
// 0), so nothing in it can reach beyond the host end of the veth.
type network struct {
	name           string // of the namespace, under /run/netns
	hostLink       string
	hostIP, nodeIP string
	podCIDR        string
}

// ServiceCIDR is the sandbox API server's Service range (its default),
// where the kubernetes Service is 10.0.0.1.
const ServiceCIDR = "10.0.0.0/24"

func newNetwork(index int) network {
	return network{
		name:     fmt.Sprintf("kubeopera-node-%d", index),
		hostLink: fmt.Sprintf("konode%d", index),
		hostIP:   fmt.Sprintf("10.213.%d.1", index),
		nodeIP:   fmt.Sprintf("10.213.%d.2", index),
		podCIDR:  fmt.Sprintf("10.214.%d.0/24", index),
	}
}

// path is the namespace's file, which nsenter --net takes.
func (n network) path() string { return "/run/netns/" + n.name }

// create makes the namespace, the veth pair and the route to the pods.
// Inside, forwarding is on (the veth to the pods' bridge), and
// route_localnet lets kube-proxy send a Service to the namespace's
// 127.0.0.1.
func (n network) create(ctx context.Context) error {
	if _, err := os.Stat(n.path()); err == nil {
		return fmt.Errorf("network namespace %s already exists (a test run that did not end?): remove it with 'ip netns del %s'", n.name, n.name)
	}
	steps := [][]string{
		{"ip", "netns", "add", n.name},
		{"ip", "link", "add", n.hostLink, "type", "veth", "peer", "name", "eth0", "netns", n.name},
		{"ip", "addr", "add", n.hostIP + "/30", "dev", n.hostLink},
		{"ip", "link", "set", n.hostLink, "up"},
		{"ip", "-n", n.name, "addr", "add", n.nodeIP + "/30", "dev", "eth0"},
		{"ip", "-n", n.name, "link", "set", "eth0", "up"},
		{"ip", "-n", n.name, "link", "set", "lo", "up"},
		{"ip", "route", "add", n.podCIDR, "via", n.nodeIP, "dev", n.hostLink},
		// A route for the Services, as a node's default route would give:
		// the node's own connections to a ClusterIP need one before
		// kube-proxy's rules change where they go.
		{"ip", "-n", n.name, "route", "add", ServiceCIDR, "dev", "eth0"},
		{"ip", "netns", "exec", n.name, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1",
			"net.ipv4.conf.all.route_localnet=1"},
	}
	for _, s := range steps {
		if out, err := exec.CommandContext(ctx, s[0], s[1:]...).CombinedOutput(); err != nil {
			return fmt.Errorf("node network: %s: %w: %s", strings.Join(s, " "), err, out)
		}
	}
	return nil
}

// addLocal gives the namespace's loopback the address addr, so what is
// sent to addr inside the namespace stays there: kube-proxy sends the
// kubernetes Service to the API server's advertised address, which the
// relay serves in the namespace.
func (n network) addLocal(ctx context.Context, addr string) error {
	s := []string{"ip", "-n", n.name, "addr", "replace", addr + "/32", "dev", "lo"}
	if out, err := exec.CommandContext(ctx, s[0], s[1:]...).CombinedOutput(); err != nil {
		return fmt.Errorf("node network: %s: %w: %s", strings.Join(s, " "), err, out)
	}
	return nil
}

// remove deletes the namespace; the veth pair and the route go with it.
func (n network) remove() error {
	if _, err := os.Stat(n.path()); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if out, err := exec.Command("ip", "netns", "del", n.name).CombinedOutput(); err != nil {
		return fmt.Errorf("remove network namespace %s: %w: %s", n.name, err, out)
	}
	return nil
}

// inNamespace runs fn on a thread inside the network namespace at path:
// a socket belongs to the namespace of the thread that made it. fn runs
// on a goroutine of its own whose thread enters the namespace and comes
// back; if it cannot come back, the thread stays locked and ends with the
// goroutine rather than serve others from the wrong namespace.
func inNamespace(path string, fn func()) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		self, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			runtime.UnlockOSThread()
			done <- err
			return
		}
		defer self.Close()
		target, err := os.Open(path)
		if err != nil {
			runtime.UnlockOSThread()
			done <- err
			return
		}
		defer target.Close()
		if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			done <- fmt.Errorf("enter %s: %w", path, err)
			return
		}
		fn()
		if err := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); err != nil {
			done <- fmt.Errorf("leave %s: %w", path, err)
			return
		}
		runtime.UnlockOSThread()
		done <- nil
	}()
	return <-done
}

// listenIn opens a TCP listener inside the namespace at path.
func listenIn(path, addr string) (l net.Listener, err error) {
	if nsErr := inNamespace(path, func() { l, err = net.Listen("tcp", addr) }); nsErr != nil {
		if l != nil {
			_ = l.Close()
		}
		return nil, errors.Join(err, nsErr)
	}
	return l, err
}

// dialIn connects to addr from inside the namespace at path.
func dialIn(ctx context.Context, path, network, addr string) (c net.Conn, err error) {
	var d net.Dialer
	if nsErr := inNamespace(path, func() { c, err = d.DialContext(ctx, network, addr) }); nsErr != nil {
		if c != nil {
			_ = c.Close()
		}
		return nil, errors.Join(err, nsErr)
	}
	return c, err
}

// relay copies every connection accepted in the node's namespace to the
// API server on this machine's loopback: the kubelet, kube-proxy and (by
// kube-proxy's rules for the kubernetes Service) the pods reach the API
// server at 127.0.0.1:<its port> as if they ran beside it.
type relay struct {
	l  net.Listener
	wg sync.WaitGroup
}

func startRelay(netnsPath string, port int) (*relay, error) {
	l, err := listenIn(netnsPath, fmt.Sprintf("0.0.0.0:%d", port))
	if err != nil {
		return nil, fmt.Errorf("api server relay in the node's namespace: %w", err)
	}
	r := &relay{l: l}
	target := fmt.Sprintf("127.0.0.1:%d", port)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go pipe(c, target)
		}
	}()
	return r, nil
}

func pipe(c net.Conn, target string) {
	defer c.Close()
	up, err := net.Dial("tcp", target)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); done <- struct{}{} }()
	<-done
}

func (r *relay) close() {
	_ = r.l.Close()
	r.wg.Wait()
}
