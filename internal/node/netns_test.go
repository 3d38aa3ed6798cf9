package node

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The node's namespace reaches the API server on this machine's loopback
// through the relay, at its own 127.0.0.1 and at the node's address, and
// has no route anywhere but the veth's /30 and the pods.
func TestNodeNamespaceReachesLoopbackThroughTheRelayAndNothingElse(t *testing.T) {
	if os.Getenv("KUBEOPERA_TEST_NODE") != "1" {
		t.Skip("network namespaces need root: run make test-node (KUBEOPERA_TEST_NODE=1)")
	}
	ctx := context.Background()
	// An echo server on this machine's loopback stands in for the API server.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				line, _ := bufio.NewReader(c).ReadString('\n')
				_, _ = fmt.Fprintf(c, "echo %s", line)
			}()
		}
	}()
	port := l.Addr().(*net.TCPAddr).Port
	n := newNetwork(1 + (os.Getpid()+2)%250)
	if err := n.create(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := n.remove(); err != nil {
			t.Error(err)
		}
	}()
	r, err := startRelay(n.path(), port)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	for _, host := range []string{"127.0.0.1", n.nodeIP} {
		got, err := dialIn(n.path(), fmt.Sprintf("%s:%d", host, port), "ping\n")
		if err != nil || got != "echo ping\n" {
			t.Errorf("from inside the namespace to %s:%d: %q, %v; want the loopback server's echo", host, port, got, err)
		}
	}
	out, err := exec.Command("ip", "-n", n.name, "route", "show").CombinedOutput()
	if err != nil {
		t.Fatalf("ip route: %v: %s", err, out)
	}
	if strings.Contains(string(out), "default") || strings.TrimSpace(string(out)) != "10.213."+strings.Split(n.nodeIP, ".")[2]+".0/30 dev eth0 proto kernel scope link src "+n.nodeIP {
		t.Errorf("routes in the node's namespace:\n%s\nwant only the veth's /30", out)
	}
}

// dialIn connects from inside the namespace at path, sends msg and reads
// one line back.
func dialIn(path, addr, msg string) (string, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	self, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		return "", err
	}
	defer self.Close()
	target, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		return "", err
	}
	c, derr := net.DialTimeout("tcp", addr, 5*time.Second)
	if err := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); err != nil {
		panic(err) // this thread must not serve others from the wrong namespace
	}
	if derr != nil {
		return "", derr
	}
	defer c.Close()
	if _, err := fmt.Fprint(c, msg); err != nil {
		return "", err
	}
	return bufio.NewReader(c).ReadString('\n')
}
