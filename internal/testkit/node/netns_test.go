package node

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The node's namespace reaches the API server on this machine's loopback
// through the relay, at its own 127.0.0.1 and at the node's address, and
// has no route anywhere but the veth's /30 and the Services' range (to the
// veth's host end: this machine does not forward).
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
		got, err := echo(n.path(), fmt.Sprintf("%s:%d", host, port), "ping\n")
		if err != nil || got != "echo ping\n" {
			t.Errorf("from inside the namespace to %s:%d: %q, %v; want the loopback server's echo", host, port, got, err)
		}
	}
	out, err := exec.Command("ip", "-n", n.name, "route", "show").CombinedOutput()
	if err != nil {
		t.Fatalf("ip route: %v: %s", err, out)
	}
	want := ServiceCIDR + " dev eth0 scope link \n" +
		"10.213." + strings.Split(n.nodeIP, ".")[2] + ".0/30 dev eth0 proto kernel scope link src " + n.nodeIP
	if got := strings.TrimSpace(string(out)); strings.Contains(got, "default") || got != want {
		t.Errorf("routes in the node's namespace:\n%s\nwant only the Services' and the veth's /30:\n%s", got, want)
	}
}

// echo connects from inside the namespace at path, sends msg and reads
// one line back.
func echo(path, addr, msg string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := dialIn(ctx, path, "tcp", addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	if _, err := fmt.Fprint(c, msg); err != nil {
		return "", err
	}
	return bufio.NewReader(c).ReadString('\n')
}
