// Package plugin discovers, verifies, launches and supervises KubeOpera
// provider plugins: separate binaries named kubeopera-provider-<name> that
// speak the sdk protocol over hashicorp/go-plugin gRPC.
package plugin

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// BinaryPrefix starts the file name of every provider plugin.
const BinaryPrefix = "kubeopera-provider-"

// Reason says why a file in the plugin directory is not a usable plugin.
type Reason string

// The reasons a file is skipped.
const (
	NotAPlugin        Reason = "not a plugin"
	NotExecutable     Reason = "not executable"
	ChecksumMismatch  Reason = "checksum mismatch"
	ProtocolMismatch  Reason = "protocol mismatch"
	HandshakeFailed   Reason = "handshake failed"
	HandshakeTimedOut Reason = "handshake timed out"
	ExitedAtStart     Reason = "exited at start"
	PrintedToStdout   Reason = "printed to stdout"
	DuplicateName     Reason = "duplicate name"
)

// Reasons lists every Reason.
var Reasons = []Reason{NotAPlugin, NotExecutable, ChecksumMismatch, ProtocolMismatch, HandshakeFailed, HandshakeTimedOut,
	ExitedAtStart, PrintedToStdout, DuplicateName}

// transient reports whether starting the same file again may succeed (a
// busy machine, a dependency the plugin needs at start); the others need
// a person to install another file.
func (r Reason) transient() bool {
	return r == HandshakeTimedOut || r == ExitedAtStart || r == HandshakeFailed
}

// Skipped is a file that is not loaded, and why.
type Skipped struct {
	Path   string `json:"path"`
	Reason Reason `json:"reason"`
	Detail string `json:"detail"`
}

// Candidate is an executable that looks like a plugin, with the checksum
// recorded when Open first launched it. A restart verifies the file still
// has it.
type Candidate struct {
	Name     string
	Path     string
	Checksum []byte
	stamp    fileStamp // of the content Checksum was taken from
}

// ShortChecksum is the first 12 hex digits of the SHA-256, for display.
func (c Candidate) ShortChecksum() string {
	if len(c.Checksum) < 6 {
		return "(not hashed yet)"
	}
	return hex.EncodeToString(c.Checksum)[:12]
}

// discover lists dir. Files named kubeopera-provider-<name> that are
// regular and executable become candidates, sorted by name, with the stamp
// of what is there now (Open hashes them while they start:
// hashAndLaunch); everything else that is a file is reported as skipped,
// but hidden files (a name starting with a dot), which are left alone.
// It fails only when dir cannot be read.
func discover(dir string) ([]Candidate, []Skipped, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("read plugin directory: %w (set --plugin-dir or KUBEOPERA_PLUGIN_DIR, or run 'make build' to fill bin/plugins)", err)
	}
	var cands []Candidate
	var skipped []Skipped
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue // hidden: e.g. a plugin being installed by rename, under its temporary name
		}
		path := filepath.Join(dir, e.Name())
		info, err := os.Stat(path) // follows symlinks, as exec does
		if err != nil || info.IsDir() {
			continue
		}
		if !strings.HasPrefix(e.Name(), BinaryPrefix) || e.Name() == BinaryPrefix {
			skipped = append(skipped, Skipped{Path: path, Reason: NotAPlugin,
				Detail: "name does not match " + BinaryPrefix + "<name>"})
			continue
		}
		if !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
			skipped = append(skipped, Skipped{Path: path, Reason: NotExecutable,
				Detail: fmt.Sprintf("mode %s; run chmod +x %s if it is a plugin", info.Mode().Perm(), path)})
			continue
		}
		cands = append(cands, Candidate{Name: strings.TrimPrefix(e.Name(), BinaryPrefix), Path: path, stamp: stampOf(info)})
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].Name < cands[j].Name })
	return cands, skipped, nil
}
