// Command image builds the kubeopera container image without a container
// runtime, the way ko does: from an empty base, one layer with the system
// files a static Go program needs (CA certificates, a non-root user, /tmp)
// and one with the programs (/kubeopera and the provider plugins in
// /plugins), written as an OCI image layout and as a tarball that
// `docker load` and `crane push` take.
//
//	go run . -binary ../../bin/image/stage/kubeopera -plugins ../../bin/image/stage/plugins \
//	    -version v1.2.3 -revision $(git rev-parse HEAD) -out ../../bin/image
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/ochestra-tech/kubeopera/hack/image/oci"
)

// Repository is where the image is published; the tag is the version.
const Repository = "ghcr.io/ochestra-tech/kubeopera"

// Source is the OCI source label.
const Source = "https://github.com/ochestra-tech/kubeopera"

// nonroot is the user the image runs as (distroless' nonroot).
const nonroot = 65532

type options struct {
	binary, plugins, caCerts, version, revision, out, arch string
}

func main() {
	var o options
	flag.StringVar(&o.binary, "binary", "", "static kubeopera binary (CGO_ENABLED=0)")
	flag.StringVar(&o.plugins, "plugins", "", "directory of static kubeopera-provider-* binaries")
	flag.StringVar(&o.caCerts, "ca-certs", "/etc/ssl/certs/ca-certificates.crt", "CA certificate bundle to ship")
	flag.StringVar(&o.version, "version", "dev", "version: the image tag and the version label")
	flag.StringVar(&o.revision, "revision", "", "git commit: the revision label")
	flag.StringVar(&o.arch, "arch", "amd64", "architecture the binaries were built for")
	flag.StringVar(&o.out, "out", "bin/image", "output directory: kubeopera-oci (layout) and kubeopera.tar")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if o.binary == "" || o.plugins == "" {
		return fmt.Errorf("-binary and -plugins are required")
	}
	img, err := build(o)
	if err != nil {
		return err
	}
	tag, err := name.NewTag(Repository + ":" + strings.TrimPrefix(o.version, "+"))
	if err != nil {
		return fmt.Errorf("version %q is not a valid tag: %w", o.version, err)
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	dir := filepath.Join(o.out, "kubeopera-oci")
	if err := oci.WriteLayout(dir, tag, img); err != nil {
		return err
	}
	if err := tarball.WriteToFile(filepath.Join(o.out, "kubeopera.tar"), tag, img); err != nil {
		return fmt.Errorf("image tarball: %w", err)
	}
	size, err := oci.Size(img)
	if err != nil {
		return err
	}
	digest, _ := img.Digest()
	fmt.Printf("built %s (%s, %.1f MiB compressed) in %s and %s\n", tag, digest, float64(size)/(1<<20), dir,
		filepath.Join(o.out, "kubeopera.tar"))
	return nil
}

// build assembles the image: empty base, system layer, programs layer,
// and the config (user, entrypoint, environment, labels).
func build(o options) (v1.Image, error) {
	system, err := systemLayer(o.caCerts)
	if err != nil {
		return nil, err
	}
	programs, err := programsLayer(o.binary, o.plugins)
	if err != nil {
		return nil, err
	}
	return oci.Image([]v1.Layer{system, programs}, func(c *v1.Config) {
		c.Entrypoint = []string{"/kubeopera"}
		c.User = fmt.Sprintf("%d:%d", nonroot, nonroot)
		c.WorkingDir = "/var/lib/kubeopera"
		c.Env = []string{"PATH=/", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
			"KUBEOPERA_PLUGIN_DIR=/plugins", "KUBEOPERA_DATA_DIR=/var/lib/kubeopera", "HOME=/home/nonroot"}
		c.Labels = map[string]string{
			"org.opencontainers.image.source":      Source,
			"org.opencontainers.image.version":     o.version,
			"org.opencontainers.image.revision":    o.revision,
			"org.opencontainers.image.title":       "kubeopera",
			"org.opencontainers.image.description": "KubeOpera server, controller and CLI with its provider plugins",
			"org.opencontainers.image.licenses":    "Apache-2.0",
		}
	})
}
