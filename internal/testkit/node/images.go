package node

import (
	"archive/tar"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
)

// importImage loads the OCI image layout dir into containerd's k8s.io
// namespace, where the kubelet's CRI finds images, under the name its
// index carries (io.containerd.image.name). `ctr images import` takes the
// layout as a tar archive: it is tarred on the fly into ctr's stdin.
func (n *Node) importImage(ctx context.Context, dir string) error {
	cmd := exec.CommandContext(ctx, n.ctr(), "--address", n.paths.containerdSocket, "--namespace", "k8s.io",
		"images", "import", "--local", "-")
	pr, pw := io.Pipe()
	cmd.Stdin = pr
	go func() { pw.CloseWithError(tarDir(pw, dir)) }()
	out, err := cmd.CombinedOutput()
	_ = pr.Close()
	if err != nil {
		return fmt.Errorf("import image layout %s into containerd: %w: %s", dir, err, out)
	}
	return nil
}

// tarDir writes the files under dir, relative to it, as a tar archive.
func tarDir(w io.Writer, dir string) error {
	tw := tar.NewWriter(w)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		h, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		h.Name = filepath.ToSlash(rel)
		if err := tw.WriteHeader(h); err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(tw, f)
		return err
	})
	if err != nil {
		return err
	}
	return tw.Close()
}
