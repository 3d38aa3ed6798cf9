package main

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// The fixture's clusters answer on one API server on loopback, started on
// first use: https://127.0.0.1:<port>/c/<cluster>/ serves /version and
// /api/v1/nodes (one control plane and the cluster's workers) to the
// bearer token "t". The kit dials it as it dials any kubeconfig.

var (
	apiOnce sync.Once
	api     *httptest.Server
)

func (b *broken) apiServer() *httptest.Server {
	apiOnce.Do(func() {
		api = httptest.NewTLSServer(http.HandlerFunc(b.serveAPI))
	})
	return api
}

func (b *broken) serveAPI(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer t" {
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	id, path, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/c/"), "/")
	b.mu.Lock()
	c, ok := b.clusters[id]
	b.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	switch path {
	case "version":
		_ = json.NewEncoder(w).Encode(map[string]string{"gitVersion": "v" + c.version + ".0"})
	case "api/v1/nodes":
		workers := c.nodes
		if mode == "wrong-node-count" {
			workers++
		}
		items := []any{map[string]any{"metadata": map[string]any{"name": "cp",
			"labels": map[string]string{"node-role.kubernetes.io/control-plane": ""}}}}
		for i := range workers {
			items = append(items, map[string]any{"metadata": map[string]any{"name": fmt.Sprintf("w%d", i)}})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"kind": "NodeList", "items": items})
	default:
		http.NotFound(w, r)
	}
}

// kubeconfig is a kubeconfig for cluster id on the fixture's API server;
// "nothing-listens" names a loopback port where nothing listens,
// "exec-credential" a user whose credential comes from a program.
func (b *broken) kubeconfig(id string) string {
	srv := b.apiServer()
	server := srv.URL + "/c/" + id
	if mode == "nothing-listens" {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err == nil {
			server = "https://" + l.Addr().String()
			l.Close()
		}
	}
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	user := "{token: t}"
	if mode == "exec-credential" {
		user = "{exec: {apiVersion: client.authentication.k8s.io/v1, command: fixture-credential}}"
	}
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: %s
    certificate-authority-data: %s
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
users:
- name: u
  user: %s
`, server, base64.StdEncoding.EncodeToString(ca), user)
}
