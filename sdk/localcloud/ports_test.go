package localcloud

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
)

// samePortsFirst hands every caller the same ports on its first ask (two
// clusters picking at the same moment and both getting one the kernel
// just gave out), and free ones after.
type samePortsFirst struct {
	mu    sync.Mutex
	first []int
	asked map[string]int
}

func (s *samePortsFirst) pick(who string) func(int) ([]int, error) {
	return func(n int) ([]int, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.asked[who]++
		key := fmt.Sprintf("%s/%d", who, n) // etcd asks for 2 ports, the API server for 1
		if s.asked[key]++; s.asked[key] > 1 {
			return freePorts(n)
		}
		if n == 2 {
			return s.first[:2], nil
		}
		return s.first[2:3], nil
	}
}

// Two clusters started at the same moment on the same ports both come up,
// each with its own etcd and API server: the one that finds its port taken
// starts again on new ports, and an answer from the other cluster's server
// on a shared port is not taken for its own.
func TestTwoControlPlanesGivenTheSamePortsEachGetTheirOwn(t *testing.T) {
	bin, err := BinDir()
	if err != nil {
		t.Fatal(err)
	}
	first, err := freePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	picker := &samePortsFirst{first: first, asked: map[string]int{}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	root := t.TempDir()
	kcs := make([][]byte, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, id := range []string{"p1", "p2"} {
		c, _ := open(root, id)
		t.Cleanup(func() { _ = c.stop() })
		if err := c.stage(Spec{ID: id, Nodes: 1, BinDir: bin}); err != nil {
			t.Fatal(err)
		}
		p, err := c.writePKI()
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			kcs[i], errs[i] = c.startControlPlane(ctx, Spec{ID: id, BinDir: bin}, p, picker.pick(id), func(int, string) {})
		})
	}
	wg.Wait()
	etcds := map[int]string{}
	for i, id := range []string{"p1", "p2"} {
		if errs[i] != nil {
			t.Fatalf("cluster %s: %v", id, errs[i])
		}
		c, _ := open(root, id)
		etcd, api := c.pid("etcd"), c.pid("kube-apiserver")
		if !c.alive(etcd) || !c.alive(api) {
			t.Fatalf("cluster %s: its etcd (pid %d, alive %v) or API server (pid %d, alive %v) is gone: %s",
				id, etcd, c.alive(etcd), api, c.alive(api), c.logTail("etcd", 2))
		}
		etcdPort := flagPort(t, etcd, "--listen-client-urls=")
		if holds, taken := listening(etcd, []int{etcdPort}); !holds || taken {
			t.Errorf("cluster %s: its etcd (pid %d) does not hold port %d alone", id, etcd, etcdPort)
		}
		if got := flagPort(t, api, "--etcd-servers="); got != etcdPort {
			t.Errorf("cluster %s: its API server uses the etcd on port %d, its own is on %d", id, got, etcdPort)
		}
		etcds[etcdPort] = id
		cfg, err := clientcmd.RESTConfigFromKubeConfig(kcs[i])
		if err != nil {
			t.Fatal(err)
		}
		apiPort, _ := strconv.Atoi(cfg.Host[strings.LastIndex(cfg.Host, ":")+1:])
		if holds, taken := listening(api, []int{apiPort}); !holds || taken {
			t.Errorf("cluster %s: its kubeconfig names port %d, which its API server (pid %d) does not hold alone", id, apiPort, api)
		}
	}
	if len(etcds) != 2 {
		t.Errorf("the two clusters share etcd: %v", etcds)
	}
	if n := picker.asked["p1"] + picker.asked["p2"]; n < 6 {
		t.Errorf("ports asked for %d times (%v): each collision should have started a server again on new ports", n, picker.asked)
	}
}

// flagPort is the port in the URL of flag (e.g. "--etcd-servers=") on the
// command line of pid.
func flagPort(t *testing.T, pid int, flag string) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, arg := range strings.Split(string(b), "\x00") {
		if v, ok := strings.CutPrefix(arg, flag); ok {
			port, err := strconv.Atoi(v[strings.LastIndex(v, ":")+1:])
			if err != nil {
				t.Fatalf("%s%s: %v", flag, v, err)
			}
			return port
		}
	}
	t.Fatalf("pid %d has no %s", pid, flag)
	return 0
}

// Two clusters created at the same moment each become Ready on their own
// servers: each API server lists only its own cluster's nodes.
func TestTwoClustersCreatedAtOnceAreSeparate(t *testing.T) {
	bin, err := BinDir()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(bootEnv, "1")
	root := t.TempDir()
	t.Cleanup(func() { _ = RemoveAll(root) })
	want := map[string]int{"a1": 1, "a2": 2}
	var wg sync.WaitGroup
	for id, n := range want {
		wg.Go(func() {
			if err := Create(root, Spec{ID: id, Nodes: n, BinDir: bin}, os.Args[0], "-test.run=^$"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	servers := map[string]string{}
	for id, n := range want {
		if st := waitPhase(t, root, id, 3*time.Minute); st.Phase != Ready {
			t.Fatalf("cluster %s: %s: %s", id, st.Phase, st.Message)
		}
		nodes, err := CountNodes(context.Background(), root, id)
		if err != nil || nodes.Total != n || nodes.Ready != n {
			t.Errorf("cluster %s lists %+v (%v), want its own %d nodes", id, nodes, err, n)
		}
		kc, _ := Kubeconfig(root, id)
		cfg, err := clientcmd.RESTConfigFromKubeConfig(kc)
		if err != nil {
			t.Fatal(err)
		}
		servers[cfg.Host] = id
	}
	if len(servers) != 2 {
		t.Errorf("the clusters share an API server: %v", servers)
	}
}
