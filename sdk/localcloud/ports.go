package localcloud

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// portTries bounds onFreePorts.
const portTries = 5

// errPortTaken says another process listens on a port a server was given:
// the server cannot bind it (it exited saying so, or was stopped).
var errPortTaken = errors.New("its port is taken by another process")

// onFreePorts runs start on n ports from pick until it does not fail with
// errPortTaken, up to portTries times, and returns the ports it took.
func onFreePorts(ctx context.Context, n int, pick func(int) ([]int, error), start func([]int) error) ([]int, error) {
	var err error
	for try := 1; try <= portTries; try++ {
		ports, perr := pick(n)
		if perr != nil {
			return nil, perr
		}
		if err = start(ports); err == nil {
			return ports, nil
		}
		if !errors.Is(err, errPortTaken) || ctx.Err() != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("after %d tries on new ports: %w", portTries, err)
}

// freePorts asks the kernel for n free loopback ports at once, so they
// differ. They are free when picked only: the servers given them confirm
// they hold them (waitServing).
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

// waitServing polls url until it answers 200 while process name holds the
// listening socket of every one of ports: an answer from another process
// on a port it took first does not count. It fails with errPortTaken when
// the process exits because a port is in use, or another process listens
// on one (the process is then stopped); with the end of its log when it
// exits otherwise.
func (c cluster) waitServing(ctx context.Context, name string, hc *http.Client, url string, ports ...int) error {
	pid := c.pid(name)
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if !c.alive(pid) {
			if c.logHas(name, "address already in use") {
				return false, fmt.Errorf("%s exited: %w: %s", name, errPortTaken, c.logTail(name, 2))
			}
			return false, fmt.Errorf("%s exited: %s", name, c.logTail(name, 5))
		}
		holds, taken := listening(pid, ports)
		if taken {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			c.waitGone(pid, stopGrace)
			return false, fmt.Errorf("%s on ports %v: %w", name, ports, errPortTaken)
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := hc.Do(req)
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK && holds, nil
	})
	if errors.Is(err, errPortTaken) {
		return fmt.Errorf("%s did not become healthy: %w", name, err)
	}
	if err != nil {
		return fmt.Errorf("%s did not become healthy: %w (its log ends: %s)", name, err, c.logTail(name, 3))
	}
	return nil
}

// logHas reports whether <name>.log contains s.
func (c cluster) logHas(name, s string) bool {
	b, _ := os.ReadFile(c.path(name + ".log"))
	return strings.Contains(string(b), s)
}

// listening reports whether pid holds a listening socket on every one of
// ports, and whether another process listens on any of them (on any
// address: a wildcard listener also keeps 127.0.0.1 from binding).
func listening(pid int, ports []int) (holds, taken bool) {
	own := sockets(pid)
	holds = true
	for _, port := range ports {
		mine := false
		for _, inode := range listeners(port) {
			if own[inode] {
				mine = true
			} else {
				taken = true
			}
		}
		holds = holds && mine
	}
	return holds, taken
}

// listeners lists the inodes of the TCP sockets (IPv4 and IPv6) listening
// on port, from /proc/net/tcp and tcp6: a local address ":<hex port>" and
// state 0A.
func listeners(port int) []string {
	suffix := fmt.Sprintf(":%04X", port)
	var out []string
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) > 9 && fields[3] == "0A" && strings.HasSuffix(fields[1], suffix) {
				out = append(out, fields[9])
			}
		}
		f.Close()
	}
	return out
}

// sockets is the set of socket inodes process pid has open.
func sockets(pid int) map[string]bool {
	out := map[string]bool{}
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	fds, _ := os.ReadDir(dir)
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(dir, fd.Name()))
		if inode, ok := strings.CutPrefix(link, "socket:["); err == nil && ok {
			out[strings.TrimSuffix(inode, "]")] = true
		}
	}
	return out
}
