// Package oci writes reproducible image layers and OCI image layouts with
// go-containerregistry, for the image builders under hack/image.
package oci

import (
	"archive/tar"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Epoch is every file's time and every image's creation time, so the same
// inputs give the same digest.
var Epoch = time.Unix(0, 0).UTC()

// Entry is one file, directory or symbolic link of a layer.
type Entry struct {
	Path     string // inside the image, no leading slash
	Mode     int64
	UID      int
	Data     []byte // nil for a directory
	FromFile string // read at build time instead of Data
	Link     string // target of a symbolic link
}

// Layer is entries, in order, as a gzipped tar layer. The tar is written
// afresh from the files each time it is read (the binaries are large), and
// the compressed form is kept once made.
func Layer(entries []Entry) (v1.Layer, error) {
	open := func() (io.ReadCloser, error) {
		pr, pw := io.Pipe()
		go func() {
			tw := tar.NewWriter(pw)
			for _, e := range entries {
				if err := writeEntry(tw, e); err != nil {
					pw.CloseWithError(err)
					return
				}
			}
			pw.CloseWithError(tw.Close())
		}()
		return pr, nil
	}
	return tarball.LayerFromOpener(open, tarball.WithCompressedCaching)
}

func writeEntry(tw *tar.Writer, e Entry) error {
	h := &tar.Header{Name: e.Path, Mode: e.Mode, Uid: e.UID, Gid: e.UID, ModTime: Epoch, Format: tar.FormatPAX}
	switch {
	case e.Link != "":
		h.Typeflag, h.Linkname = tar.TypeSymlink, e.Link
		return tw.WriteHeader(h)
	case e.Data == nil && e.FromFile == "":
		h.Typeflag, h.Name = tar.TypeDir, strings.TrimSuffix(e.Path, "/")+"/"
		return tw.WriteHeader(h)
	}
	var body io.Reader = strings.NewReader(string(e.Data))
	h.Size = int64(len(e.Data))
	if e.FromFile != "" {
		f, err := os.Open(e.FromFile)
		if err != nil {
			return fmt.Errorf("image file /%s: %w", e.Path, err)
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return err
		}
		body, h.Size = f, st.Size()
	}
	h.Typeflag = tar.TypeReg
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	_, err := io.Copy(tw, body)
	return err
}

// Image is layers on an empty base with the config edit applies, created
// at Epoch.
func Image(layers []v1.Layer, edit func(*v1.Config)) (v1.Image, error) {
	img, err := mutate.AppendLayers(empty.Image, layers...)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", "amd64"
	edit(&cf.Config)
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		return nil, err
	}
	return mutate.CreatedAt(img, v1.Time{Time: Epoch})
}

// WriteLayout replaces dir with an OCI image layout holding img, named tag
// in the annotations containerd's `ctr images import` and registries read.
func WriteLayout(dir string, tag name.Tag, img v1.Image) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	lp, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("OCI layout: %w", err)
	}
	if err := lp.AppendImage(img, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": tag.TagStr(), "io.containerd.image.name": tag.String()})); err != nil {
		return fmt.Errorf("OCI layout: %w", err)
	}
	return nil
}

// Size is the compressed size of img's layers.
func Size(img v1.Image) (int64, error) {
	layers, err := img.Layers()
	if err != nil {
		return 0, err
	}
	var total int64
	for _, l := range layers {
		n, err := l.Size()
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}
