//go:build linux

package plugin

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func candidateFor(t *testing.T, content string) Candidate {
	t.Helper()
	path := filepath.Join(t.TempDir(), BinaryPrefix+"x")
	if err := os.WriteFile(path, []byte(content), 0o700); err != nil {
		t.Fatal(err)
	}
	sum, stamp, err := hashFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return Candidate{Name: "x", Path: path, Checksum: sum, stamp: stamp}
}

// An unchanged file is trusted on its stamp alone: launches and restarts
// read none of it. (The checksum is made wrong to show nothing was hashed.)
func TestVerifyTrustsAnUnchangedStampWithoutHashing(t *testing.T) {
	c := candidateFor(t, "plugin v1")
	c.Checksum = make([]byte, 32)
	if err := verify(c); err != nil {
		t.Fatalf("verify of an unchanged file = %v, want nil without hashing", err)
	}
}

// A rewrite that keeps size and modification time still changes the change
// time, so the file is hashed again and the new content is refused.
func TestVerifyCatchesARewriteThatHidesItsMtime(t *testing.T) {
	c := candidateFor(t, "plugin v1")
	info, err := os.Stat(c.Path)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // a later change time than the first write
	if err := os.WriteFile(c.Path, []byte("plugin v2"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(c.Path, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := verify(c); !errors.Is(err, errChecksumMismatch) {
		t.Fatalf("verify after a same-size rewrite with the old mtime = %v, want a checksum mismatch", err)
	}
}

// A file that was touched but holds the same bytes is hashed again and
// accepted: the stamp only decides whether to read, never to refuse.
func TestVerifyRehashesATouchedFileAndAcceptsTheSameBytes(t *testing.T) {
	c := candidateFor(t, "plugin v1")
	time.Sleep(10 * time.Millisecond)
	if err := os.WriteFile(c.Path, []byte("plugin v1"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := verify(c); err != nil {
		t.Fatalf("verify of the same bytes rewritten = %v, want nil", err)
	}
}

// Open hashes a plugin while it starts; a file rewritten after it was
// listed is not loaded, whatever the start made of it, and the error
// says why (and does not trip over the checksum it has not recorded).
func TestHashAndLaunchRefusesAFileRewrittenSinceItWasListed(t *testing.T) {
	c := candidateFor(t, "plugin v1")
	c.Checksum = nil // as discover lists it: a stamp, no checksum yet
	time.Sleep(10 * time.Millisecond)
	if err := os.WriteFile(c.Path, []byte("plugin v2"), 0o700); err != nil {
		t.Fatal(err)
	}
	p, err := hashAndLaunch(context.Background(), &c, Options{})
	var se *StartError
	if p != nil || !errors.As(err, &se) || !strings.Contains(se.Detail, "changed while it was started") {
		t.Fatalf("hashAndLaunch of a rewritten file = %v, %v; want no process and an error saying it changed", p, err)
	}
	if c.Checksum != nil {
		t.Errorf("the rewritten file's checksum was recorded")
	}
}
