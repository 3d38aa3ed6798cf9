// Command testoidc serves the test kit's OpenID Provider
// (internal/testkit/testoidc) as a program, for the browser suite: clients and
// users (with groups) come from a JSON file, sign-in is by username on its
// login form (no passwords), and it serves on loopback only.
//
//	testoidc -listen 127.0.0.1:5556 -config idp.json
//
// with idp.json like
//
//	{"clients": [{"id": "kubeopera", "secret": "s3cret", "redirectURIs": ["http://127.0.0.1:8080/api/v1/auth/oidc/callback"]}],
//	 "users": [{"subject": "u-1", "username": "ada", "email": "ada@example.com", "groups": ["platform"]}]}
//
// It prints "issuer http://127.0.0.1:PORT" once it serves, and stops on
// SIGINT or SIGTERM.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/ochestra-tech/kubeopera/internal/testkit/testoidc"
)

// config is the file -config names.
type config struct {
	Clients []testoidc.Client `json:"clients"`
	Users   []testoidc.User   `json:"users"`
}

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "loopback address to serve on")
	file := flag.String("config", "", "JSON file of clients and users")
	flag.Parse()
	if err := run(*listen, *file); err != nil {
		fmt.Fprintln(os.Stderr, "testoidc:", err)
		os.Exit(1)
	}
}

func run(listen, file string) error {
	cfg, err := readConfig(file)
	if err != nil {
		return err
	}
	p, err := testoidc.Start(listen)
	if err != nil {
		return err
	}
	defer p.Close()
	for _, c := range cfg.Clients {
		p.AddClient(c)
	}
	for _, u := range cfg.Users {
		p.SetUser(u)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	fmt.Println("issuer", p.URL)
	<-stop
	return nil
}

func readConfig(file string) (config, error) {
	var cfg config
	if file == "" {
		return cfg, fmt.Errorf("-config: name the JSON file of clients and users")
	}
	b, err := os.ReadFile(file) //nolint:gosec // G304: the file the operator named
	if err != nil {
		return cfg, fmt.Errorf("-config: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return cfg, fmt.Errorf("-config %s: %w", file, err)
	}
	for i, u := range cfg.Users {
		if u.Subject == "" || u.Username == "" {
			return cfg, fmt.Errorf("-config %s: users[%d] needs a subject and a username", file, i)
		}
	}
	if len(cfg.Clients) == 0 {
		return cfg, fmt.Errorf("-config %s: no clients: register the application that signs in through it", file)
	}
	return cfg, nil
}
