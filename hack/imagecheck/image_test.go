// Package imagecheck opens the kubeopera image that hack/image builds (the
// builder `make image` runs) as a registry or a container runtime would,
// from the OCI layout and from the tarball, without go-containerregistry:
// the formats are read here independently of the code that wrote them.
package imagecheck

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"debug/elf"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const (
	version  = "v9.8.7-test"
	revision = "0123456789abcdef0123456789abcdef01234567"
	caCerts  = "/etc/ssl/certs/ca-certificates.crt"
)

type descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Annotations map[string]string `json:"annotations"`
}

type imageConfig struct {
	OS           string `json:"os"`
	Architecture string `json:"architecture"`
	Config       struct {
		User       string            `json:"User"`
		Entrypoint []string          `json:"Entrypoint"`
		Env        []string          `json:"Env"`
		WorkingDir string            `json:"WorkingDir"`
		Labels     map[string]string `json:"Labels"`
	} `json:"config"`
}

// file is one regular file or directory found in the layers.
type file struct {
	mode     int64
	uid      int
	dir      bool
	contents []byte
}

// buildImage builds a plugin statically, as `make image` builds the CLI
// and the plugins, and runs the image builder on it as the program and as
// a plugin. (A static build of the whole CLI recompiles every package that
// imports net without cgo, minutes on two cores; `make image` pays that.)
func buildImage(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(caCerts); err != nil {
		t.Fatalf("no CA bundle on this machine (%v): install ca-certificates", err)
	}
	dir := t.TempDir()
	stage := filepath.Join(dir, "stage")
	goBuild(t, filepath.Join(stage, "plugins", "kubeopera-provider-gcp-stub"), "../../plugins/gcp-stub")
	if err := os.Link(filepath.Join(stage, "plugins", "kubeopera-provider-gcp-stub"), filepath.Join(stage, "kubeopera")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "image")
	cmd := exec.Command("go", "run", ".", "-binary", filepath.Join(stage, "kubeopera"), "-plugins", filepath.Join(stage, "plugins"),
		"-version", version, "-revision", revision, "-out", out)
	cmd.Dir = "../image"
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("image builder: %v\n%s", err, b)
	} else {
		t.Logf("%s", b)
	}
	return out
}

func goBuild(t *testing.T, out, pkg string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
}

func TestImageLayoutAndTarball(t *testing.T) {
	out := buildImage(t)
	layoutDir := filepath.Join(out, "kubeopera-oci")
	blob := func(digest string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(layoutDir, "blobs", strings.Replace(digest, ":", "/", 1)))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var index struct{ Manifests []descriptor }
	mustJSON(t, readFile(t, filepath.Join(layoutDir, "index.json")), &index)
	if len(index.Manifests) != 1 || index.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != version {
		t.Fatalf("index.json manifests = %+v, want one tagged %s", index.Manifests, version)
	}
	var manifest struct {
		Config descriptor
		Layers []descriptor
	}
	mustJSON(t, blob(index.Manifests[0].Digest), &manifest)
	var cfg imageConfig
	mustJSON(t, blob(manifest.Config.Digest), &cfg)
	checkConfig(t, cfg)
	files := map[string]file{}
	for _, l := range manifest.Layers {
		readLayer(t, blob(l.Digest), files)
	}
	checkFiles(t, files)

	// The tarball (docker load) names the image and carries the same config.
	tarFiles := map[string]file{}
	readTar(t, tar.NewReader(bytes.NewReader(readFile(t, filepath.Join(out, "kubeopera.tar")))), tarFiles)
	var tm []struct {
		Config   string
		RepoTags []string
	}
	mustJSON(t, tarFiles["manifest.json"].contents, &tm)
	if want := "ghcr.io/ochestra-tech/kubeopera:" + version; len(tm) != 1 || len(tm[0].RepoTags) != 1 || tm[0].RepoTags[0] != want {
		t.Fatalf("tarball manifest.json = %+v, want the tag %s", tm, want)
	}
	if !bytes.Equal(tarFiles[tm[0].Config].contents, blob(manifest.Config.Digest)) {
		t.Error("the tarball's config differs from the layout's")
	}
}

func checkConfig(t *testing.T, cfg imageConfig) {
	t.Helper()
	c := cfg.Config
	if cfg.OS != "linux" || c.User != "65532:65532" || strings.Join(c.Entrypoint, " ") != "/kubeopera" {
		t.Errorf("os %q, user %q, entrypoint %v; want linux, 65532:65532, [/kubeopera]", cfg.OS, c.User, c.Entrypoint)
	}
	want := map[string]string{"org.opencontainers.image.source": "https://github.com/ochestra-tech/kubeopera",
		"org.opencontainers.image.version": version, "org.opencontainers.image.revision": revision}
	for k, v := range want {
		if c.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, c.Labels[k], v)
		}
	}
	env := strings.Join(c.Env, " ")
	for _, kv := range []string{"KUBEOPERA_PLUGIN_DIR=/plugins", "SSL_CERT_FILE=" + caCerts} {
		if !strings.Contains(env, kv) {
			t.Errorf("env %v lacks %s", c.Env, kv)
		}
	}
}

func checkFiles(t *testing.T, files map[string]file) {
	t.Helper()
	for _, p := range []string{"kubeopera", "plugins/kubeopera-provider-gcp-stub"} {
		f, ok := files[p]
		if !ok || f.mode&0o111 == 0 {
			t.Errorf("/%s missing or not executable (%+v)", p, ok)
			continue
		}
		exe, err := elf.NewFile(bytes.NewReader(f.contents))
		if err != nil {
			t.Errorf("/%s is not an ELF program: %v", p, err)
			continue
		}
		for _, prog := range exe.Progs {
			if prog.Type == elf.PT_INTERP {
				t.Errorf("/%s is dynamically linked: the image has no libc (build with CGO_ENABLED=0)", p)
			}
		}
	}
	want, _ := os.ReadFile(caCerts)
	if got := files["etc/ssl/certs/ca-certificates.crt"].contents; len(want) == 0 || !bytes.Equal(got, want) {
		t.Errorf("CA bundle in the image (%d bytes) is not this machine's (%d bytes)", len(got), len(want))
	}
	if !strings.Contains(string(files["etc/passwd"].contents), ":65532:65532:") {
		t.Errorf("/etc/passwd does not name user 65532: %q", files["etc/passwd"].contents)
	}
	if d := files["var/lib/kubeopera"]; !d.dir || d.uid != 65532 {
		t.Errorf("/var/lib/kubeopera = %+v, want a directory owned by 65532 (the data directory)", d)
	}
	if d := files["tmp"]; !d.dir || d.mode&0o1777 != 0o1777 {
		t.Errorf("/tmp = %+v, want mode 1777", d)
	}
}

func readLayer(t *testing.T, gz []byte, into map[string]file) {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatalf("layer is not gzip: %v", err)
	}
	readTar(t, tar.NewReader(zr), into)
}

func readTar(t *testing.T, tr *tar.Reader, into map[string]file) {
	t.Helper()
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(strings.TrimPrefix(h.Name, "/"), "/")
		f := file{mode: h.Mode, uid: h.Uid, dir: h.Typeflag == tar.TypeDir}
		if h.Typeflag == tar.TypeReg {
			if f.contents, err = io.ReadAll(tr); err != nil {
				t.Fatal(err)
			}
		}
		into[name] = f
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustJSON(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%v in %.200s", err, b)
	}
}
