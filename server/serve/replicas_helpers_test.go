package serve

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/internal/testkit/testlog"
	"github.com/ochestra-tech/kubeopera/internal/testkit/together"
)

// replica is one server started by startReplicas: its own data directory
// (as a pod has), the shared database.
type replica struct {
	name    string
	addr    string
	dataDir string
	out     testlog.Buffer
	stop    context.CancelFunc
	done    chan error
}

// startReplicas starts n servers at the same moment on the database dsn,
// each with its own data directory, all with the same encryption key, and
// returns once every one listens. selfKubeconfig, if set, lets them see a
// cluster to register and assess. They stop when the test ends.
func startReplicas(t *testing.T, n int, dsn, selfKubeconfig string) []*replica {
	t.Helper()
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	getenv := func(k string) (string, bool) {
		if k == "KUBEOPERA_ENCRYPTION_KEY" {
			return base64.StdEncoding.EncodeToString(key), true
		}
		return "", false
	}
	plugins := t.TempDir()
	rs := make([]*replica, n)
	ready := make([]chan string, n)
	for i := range rs {
		rs[i] = &replica{name: string(rune('A' + i)), dataDir: t.TempDir(), done: make(chan error, 1)}
		ready[i] = make(chan string, 1)
	}
	together.Run(n, func(i int) {
		r := rs[i]
		ctx, cancel := context.WithCancel(context.Background())
		r.stop = cancel
		cfg := Config{DataDir: r.dataDir, Database: dsn, Listen: "127.0.0.1:0", PluginDir: plugins,
			SelfKubeconfig: selfKubeconfig, Getenv: getenv}
		go func() { r.done <- Run(ctx, cfg, &r.out, io.Discard, ready[i]) }()
	})
	t.Cleanup(func() {
		for _, r := range rs {
			r.halt(t)
		}
	})
	for i, r := range rs {
		select {
		case r.addr = <-ready[i]:
		case err := <-r.done:
			r.done <- err
			t.Fatalf("replica %s exited: %v\n%s", r.name, err, r.out.String())
		case <-time.After(90 * time.Second):
			t.Fatalf("replica %s did not start:\n%s", r.name, r.out.String())
		}
	}
	return rs
}

// halt stops the replica and waits for it, once.
func (r *replica) halt(t *testing.T) {
	if r.stop == nil {
		return
	}
	r.stop()
	r.stop = nil
	select {
	case err := <-r.done:
		if err != nil {
			t.Errorf("replica %s: %v", r.name, err)
		}
	case <-time.After(30 * time.Second):
		t.Errorf("replica %s did not shut down", r.name)
	}
}

// file returns the trimmed content of a file in the replica's data
// directory, "" when there is none.
func (r *replica) file(name string) string {
	b, err := os.ReadFile(filepath.Join(r.dataDir, name))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// request is one HTTP call to a replica.
type request struct {
	method, path string
	body         any
	bearer       string
	cookie       *http.Cookie
	headers      map[string]string
}

// answer is a replica's response, its body read.
type answer struct {
	code    int
	body    []byte
	cookies []*http.Cookie
}

func (r *replica) do(t *testing.T, q request) answer {
	t.Helper()
	var rd io.Reader
	if q.body != nil {
		b, _ := json.Marshal(q.body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(q.method, "http://"+r.addr+q.path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if q.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+q.bearer)
	}
	if q.cookie != nil {
		req.AddCookie(q.cookie)
	}
	for k, v := range q.headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s on %s: %v", q.method, q.path, r.name, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return answer{code: resp.StatusCode, body: body, cookies: resp.Cookies()}
}

// decode reads the answer's JSON into v.
func (a answer) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(a.body, v); err != nil {
		t.Fatalf("answer %d %q: %v", a.code, a.body, err)
	}
}

// countIn counts the replicas whose operator output contains s.
func countIn(rs []*replica, s string) int {
	n := 0
	for _, r := range rs {
		if strings.Contains(r.out.String(), s) {
			n++
		}
	}
	return n
}
