package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"sigs.k8s.io/yaml"
)

// cliConfig is the per-user file `kubeopera login` writes: one context per
// server signed in to, and which one commands use. It holds tokens, so it
// is written with mode 0600 in a directory of mode 0700.
type cliConfig struct {
	CurrentContext string       `json:"currentContext,omitempty"`
	Contexts       []cliContext `json:"contexts,omitempty"`
}

// cliContext is one server and the token to call it with.
type cliContext struct {
	Name     string `json:"name"`
	Server   string `json:"server"`
	Token    string `json:"token"`
	TokenID  string `json:"tokenID,omitempty"`
	Username string `json:"username,omitempty"`
	// ExpiresAt is when the token stops working (nil: never).
	ExpiresAt *time.Time `json:"expiresAt,omitempty"`
}

// configPath is $KUBEOPERA_CONFIG, or kubeopera/config.yaml in the user's
// configuration directory (~/.config on Linux).
func configPath() (string, error) {
	if p := os.Getenv("KUBEOPERA_CONFIG"); p != "" {
		return p, nil
	}
	dir, err := defaultConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "config.yaml"), nil
}

// defaultConfigDir is the directory KubeOpera keeps to itself: kubeopera in
// the user's configuration directory.
func defaultConfigDir() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find your configuration directory: %w; set KUBEOPERA_CONFIG to a file path", err)
	}
	return filepath.Join(dir, "kubeopera"), nil
}

// privateDir makes the configuration file's directory, mode 0700. The
// default directory is KubeOpera's own, so one made earlier with a wider
// mode (0755 by hand, or by another tool) is narrowed to 0700 too; a
// directory $KUBEOPERA_CONFIG points into may be shared (/tmp, a home
// directory) and keeps its mode: the file itself is 0600.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if own, err := defaultConfigDir(); err != nil || filepath.Clean(dir) != own {
		return nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("check %s: %w", dir, err)
	}
	if fi.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil { //nolint:gosec // G302: a directory needs x to be entered; 0700 is owner-only
			return fmt.Errorf("%s is mode %v, readable by others; make it 0700: %w", dir, fi.Mode().Perm(), err)
		}
	}
	return nil
}

// loadConfig reads the file; a missing file is an empty configuration.
func loadConfig() (*cliConfig, string, error) {
	path, err := configPath()
	if err != nil {
		return nil, "", err
	}
	var c cliConfig
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &c, path, nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("read %s: %w", path, err)
	}
	if err := yaml.Unmarshal(b, &c); err != nil {
		return nil, "", fmt.Errorf("%s: %w; fix or remove it and log in again", path, err)
	}
	return &c, path, nil
}

// save writes the file atomically with mode 0600, in a directory of mode
// 0700 (privateDir).
func (c *cliConfig) save(path string) error {
	b, err := yaml.Marshal(c)
	if err != nil {
		return fmt.Errorf("encode the configuration: %w", err)
	}
	if err := privateDir(filepath.Dir(path)); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".config-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// context returns the context named name, or the current one for "".
func (c *cliConfig) context(name string) (*cliContext, error) {
	if name == "" {
		name = c.CurrentContext
	}
	if name == "" {
		return nil, &exitError{code: exitAuth, err: errors.New("not logged in: run 'kubeopera login SERVER' (or pass --server and --token)")}
	}
	i := slices.IndexFunc(c.Contexts, func(x cliContext) bool { return x.Name == name })
	if i < 0 {
		return nil, &exitError{code: exitUsage, err: fmt.Errorf("no context named %q: 'kubeopera context list' shows them", name)}
	}
	return &c.Contexts[i], nil
}

// tokenFor is the token of the stored context that has ctx's name and
// server, or "".
func (c *cliConfig) tokenFor(ctx cliContext) string {
	i := slices.IndexFunc(c.Contexts, func(x cliContext) bool { return x.Name == ctx.Name && x.Server == ctx.Server })
	if i < 0 {
		return ""
	}
	return c.Contexts[i].Token
}

// put adds or replaces the context of the same name and makes it current.
func (c *cliConfig) put(ctx cliContext) {
	c.Contexts = slices.DeleteFunc(c.Contexts, func(x cliContext) bool { return x.Name == ctx.Name })
	c.Contexts = append(c.Contexts, ctx)
	slices.SortFunc(c.Contexts, func(a, b cliContext) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	c.CurrentContext = ctx.Name
}
