package main

import (
	"archive/tar"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// epoch is every file's time, for reproducible layers.
var epoch = time.Unix(0, 0).UTC()

// entry is one file or directory of a layer.
type entry struct {
	path     string // inside the image, no leading slash
	mode     int64
	uid      int
	data     []byte // nil for a directory
	fromFile string // read at build time instead of data
}

// systemLayer holds what a static program expects of a system: CA
// certificates, /etc/passwd and /etc/group naming the non-root user, its
// home, a writable /tmp and the data directory.
func systemLayer(caCerts string) (v1.Layer, error) {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", nonroot, nonroot)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", nonroot)
	return layer([]entry{
		{path: "etc", mode: 0o755}, {path: "etc/ssl", mode: 0o755}, {path: "etc/ssl/certs", mode: 0o755},
		{path: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, fromFile: caCerts},
		{path: "etc/passwd", mode: 0o644, data: []byte(passwd)},
		{path: "etc/group", mode: 0o644, data: []byte(group)},
		{path: "home", mode: 0o755}, {path: "home/nonroot", mode: 0o700, uid: nonroot},
		{path: "tmp", mode: 0o1777},
		{path: "var", mode: 0o755}, {path: "var/lib", mode: 0o755}, {path: "var/lib/kubeopera", mode: 0o700, uid: nonroot},
	})
}

// programsLayer holds /kubeopera and /plugins/kubeopera-provider-*.
func programsLayer(binary, pluginDir string) (v1.Layer, error) {
	entries := []entry{{path: "kubeopera", mode: 0o755, fromFile: binary}, {path: "plugins", mode: 0o755}}
	names, err := filepath.Glob(filepath.Join(pluginDir, "kubeopera-provider-*"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no kubeopera-provider-* binaries in %s: build the plugins first (make image does)", pluginDir)
	}
	sort.Strings(names)
	for _, n := range names {
		entries = append(entries, entry{path: "plugins/" + filepath.Base(n), mode: 0o755, fromFile: n})
	}
	return layer(entries)
}

// layer is entries, in order, as a gzipped tar layer. The tar is written
// afresh from the files each time it is read (the binaries are large), and
// the compressed form is kept once made.
func layer(entries []entry) (v1.Layer, error) {
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

func writeEntry(tw *tar.Writer, e entry) error {
	h := &tar.Header{Name: e.path, Mode: e.mode, Uid: e.uid, Gid: e.uid, ModTime: epoch, Format: tar.FormatPAX}
	if e.data == nil && e.fromFile == "" {
		h.Typeflag, h.Name = tar.TypeDir, strings.TrimSuffix(e.path, "/")+"/"
		return tw.WriteHeader(h)
	}
	var body io.Reader = strings.NewReader(string(e.data))
	h.Size = int64(len(e.data))
	if e.fromFile != "" {
		f, err := os.Open(e.fromFile)
		if err != nil {
			return fmt.Errorf("image file /%s: %w", e.path, err)
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
