package main

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The configuration holds tokens: its file is 0600 and KubeOpera's own
// directory is 0700, even one that existed with a wider mode; a directory
// $KUBEOPERA_CONFIG points into is the user's and keeps its mode.
func TestTheConfigurationIsPrivate(t *testing.T) {
	tests := []struct {
		name     string
		explicit bool        // the file is named by $KUBEOPERA_CONFIG
		existing os.FileMode // the directory's mode before, 0: none
		wantDir  os.FileMode
	}{
		{"a new default directory is 0700", false, 0, 0o700},
		{"an existing 0755 default directory becomes 0700", false, 0o755, 0o700},
		{"an existing 0750 default directory becomes 0700", false, 0o750, 0o700},
		{"a new directory of $KUBEOPERA_CONFIG is 0700", true, 0, 0o700},
		{"an existing directory of $KUBEOPERA_CONFIG keeps its mode", true, 0o755, 0o755},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", home)
			t.Setenv("KUBEOPERA_CONFIG", "")
			dir := filepath.Join(home, "kubeopera")
			if tc.explicit {
				dir = filepath.Join(home, "shared")
				t.Setenv("KUBEOPERA_CONFIG", filepath.Join(dir, "kubeopera.yaml"))
			}
			if tc.existing != 0 {
				if err := os.Mkdir(dir, tc.existing); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(dir, tc.existing); err != nil { // past the umask
					t.Fatal(err)
				}
			}
			cfg, path, err := loadConfig()
			if err != nil {
				t.Fatal(err)
			}
			if filepath.Dir(path) != dir {
				t.Fatalf("the configuration is at %s, want it in %s", path, dir)
			}
			cfg.put(cliContext{Name: "lab", Server: "https://kubeopera.example.com", Token: "kop_secret"})
			if err := cfg.save(path); err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != tc.wantDir {
				t.Errorf("the directory: %v, mode %v, want %v", err, fi.Mode().Perm(), tc.wantDir)
			}
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("the file: %v, mode %v, want 0600", err, fi.Mode().Perm())
			}
		})
	}
}

// login warns, on standard error, that a password and token sent to a
// plain-http server other than loopback travel in clear.
func TestLoginWarnsOfPlainHTTP(t *testing.T) {
	tests := []struct {
		server string
		warns  bool
	}{
		{"http://kubeopera.example.com", true},
		{"http://10.0.0.7:8080", true},
		{"http://[2001:db8::1]:8080", true},
		{"http://localhost.example.com", true},
		{"https://kubeopera.example.com", false},
		{"http://localhost:8080", false},
		{"http://127.0.0.1:8080", false},
		{"http://127.8.9.10", false},
		{"http://[::1]:8080", false},
	}
	for _, tc := range tests {
		u, err := url.Parse(tc.server)
		if err != nil {
			t.Fatal(err)
		}
		var w bytes.Buffer
		warnIfClear(&w, u)
		if got := strings.Contains(w.String(), "will travel in clear"); got != tc.warns {
			t.Errorf("%s: warned %v, want %v: %q", tc.server, got, tc.warns, w.String())
		}
	}
}

// The warning reaches standard error of a real login, before it is tried.
func TestLoginToAPlainHTTPServerWarnsOnStandardError(t *testing.T) {
	t.Setenv("KUBEOPERA_CONFIG", t.TempDir()+"/config.yaml")
	cmd := newRootCommand()
	var stdout, stderr bytes.Buffer
	cmd.SetIn(strings.NewReader(""))
	cmd.SetOut(&stdout)
	cmd.SetErr(&stderr)
	// 0.0.0.0 is no loopback name; port 1 refuses the connection at once.
	cmd.SetArgs([]string{"login", "http://0.0.0.0:1", "--token", "kop_not-a-token"})
	err := cmd.Execute()
	if err == nil {
		t.Fatal("login to a closed port succeeded")
	}
	want := "warning: http://0.0.0.0:1 is not encrypted: your password and the API token will travel in clear"
	if !strings.HasPrefix(stderr.String(), want) || strings.Contains(stdout.String(), "warning") {
		t.Errorf("stderr %q, stdout %q; want the warning on stderr only", stderr.String(), stdout.String())
	}
}
