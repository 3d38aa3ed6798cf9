// Command node builds the images the sandbox's real node (make test-node)
// needs and no registry here can serve, as OCI image layouts that `ctr
// images import` takes once tarred: pause, the pod sandbox image, from the
// static Go program in hack/image/pause; and terraform, what
// sdk/terraform's Job runs, from the terraform binary on this machine and
// Debian's busybox-static for the shell and the tools its script calls.
//
//	go run ./node -pause ../../bin/node/images/pause-bin -out ../../bin/node/images
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/ochestra-tech/kubeopera/hack/image/oci"
)

// Names of the images in the node's containerd.
const (
	PauseRepository     = "localhost/kubeopera/pause"
	PauseTag            = "1"
	TerraformRepository = "localhost/kubeopera/terraform"
)

// applets are the busybox programs the Job's script runs.
var applets = []string{"sh", "cat", "cp", "grep", "head", "kill", "mkdir", "sed", "sleep", "ls", "echo"}

type options struct{ pause, terraform, busybox, out string }

func main() {
	var o options
	flag.StringVar(&o.pause, "pause", "", "static pause binary (CGO_ENABLED=0 go build ./pause)")
	flag.StringVar(&o.terraform, "terraform", "/usr/local/bin/terraform", "static terraform binary")
	flag.StringVar(&o.busybox, "busybox", "/bin/busybox", "static busybox (Debian's busybox-static)")
	flag.StringVar(&o.out, "out", "bin/node/images", "output directory: pause-oci and terraform-oci")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "node images:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if o.pause == "" {
		return fmt.Errorf("-pause is required")
	}
	pause, err := pauseImage(o.pause)
	if err != nil {
		return err
	}
	if err := write(filepath.Join(o.out, "pause-oci"), PauseRepository+":"+PauseTag, pause); err != nil {
		return err
	}
	version, err := terraformVersion(o.terraform)
	if err != nil {
		return err
	}
	tf, err := terraformImage(o.terraform, o.busybox)
	if err != nil {
		return err
	}
	return write(filepath.Join(o.out, "terraform-oci"), TerraformRepository+":"+version, tf)
}

func write(dir, ref string, img v1.Image) error {
	tag, err := name.NewTag(ref)
	if err != nil {
		return err
	}
	if err := oci.WriteLayout(dir, tag, img); err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("built %s (%s) in %s\n", tag, digest, dir)
	return nil
}

func pauseImage(binary string) (v1.Image, error) {
	l, err := oci.Layer([]oci.Entry{{Path: "pause", Mode: 0o755, FromFile: binary}})
	if err != nil {
		return nil, err
	}
	return oci.Image([]v1.Layer{l}, func(c *v1.Config) {
		c.Entrypoint = []string{"/pause"}
		c.User = "65535:65535"
	})
}

func terraformImage(terraform, busybox string) (v1.Image, error) {
	entries := []oci.Entry{
		{Path: "bin", Mode: 0o755},
		{Path: "bin/terraform", Mode: 0o755, FromFile: terraform},
		{Path: "bin/busybox", Mode: 0o755, FromFile: busybox},
	}
	for _, a := range applets {
		entries = append(entries, oci.Entry{Path: "bin/" + a, Mode: 0o777, Link: "busybox"})
	}
	l, err := oci.Layer(entries)
	if err != nil {
		return nil, err
	}
	return oci.Image([]v1.Layer{l}, func(c *v1.Config) {
		c.Env = []string{"PATH=/bin"}
		c.Entrypoint = []string{"/bin/terraform"}
		c.User = "65532:65532"
	})
}

var versionLine = regexp.MustCompile(`^Terraform v(\d+\.\d+\.\d+)`)

// terraformVersion is the binary's own version: the image's tag.
func terraformVersion(terraform string) (string, error) {
	out, err := exec.Command(terraform, "version").Output()
	if err != nil {
		return "", fmt.Errorf("%s version: %w", terraform, err)
	}
	m := versionLine.FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("%s version printed no 'Terraform vX.Y.Z' line: %q", terraform, out)
	}
	return string(m[1]), nil
}
