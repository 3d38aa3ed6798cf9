package main

import (
	"fmt"
	"path/filepath"
	"sort"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/ochestra-tech/kubeopera/hack/image/oci"
)

// systemLayer holds what a static program expects of a system: CA
// certificates, /etc/passwd and /etc/group naming the non-root user, its
// home, a writable /tmp and the data directory.
func systemLayer(caCerts string) (v1.Layer, error) {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", nonroot, nonroot)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", nonroot)
	return oci.Layer([]oci.Entry{
		{Path: "etc", Mode: 0o755}, {Path: "etc/ssl", Mode: 0o755}, {Path: "etc/ssl/certs", Mode: 0o755},
		{Path: "etc/ssl/certs/ca-certificates.crt", Mode: 0o644, FromFile: caCerts},
		{Path: "etc/passwd", Mode: 0o644, Data: []byte(passwd)},
		{Path: "etc/group", Mode: 0o644, Data: []byte(group)},
		{Path: "home", Mode: 0o755}, {Path: "home/nonroot", Mode: 0o700, UID: nonroot},
		{Path: "tmp", Mode: 0o1777},
		{Path: "var", Mode: 0o755}, {Path: "var/lib", Mode: 0o755}, {Path: "var/lib/kubeopera", Mode: 0o700, UID: nonroot},
	})
}

// programsLayer holds /kubeopera and /plugins/kubeopera-provider-*.
func programsLayer(binary, pluginDir string) (v1.Layer, error) {
	entries := []oci.Entry{{Path: "kubeopera", Mode: 0o755, FromFile: binary}, {Path: "plugins", Mode: 0o755}}
	names, err := filepath.Glob(filepath.Join(pluginDir, "kubeopera-provider-*"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no kubeopera-provider-* binaries in %s: build the plugins first (make image does)", pluginDir)
	}
	sort.Strings(names)
	for _, n := range names {
		entries = append(entries, oci.Entry{Path: "plugins/" + filepath.Base(n), Mode: 0o755, FromFile: n})
	}
	return oci.Layer(entries)
}
