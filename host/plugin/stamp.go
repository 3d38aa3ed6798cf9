package plugin

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
)

// errChecksumMismatch: the file at a candidate's path no longer has the
// SHA-256 recorded when the host first launched it.
var errChecksumMismatch = errors.New("checksum does not match the one recorded at its first launch")

// fileStamp identifies one version of a file's content without reading it:
// device, inode, size, modification and change time. The change time moves
// on every write and every rename over the path and cannot be set back by
// an unprivileged user, so an equal stamp means the bytes hashed at
// discovery are still the bytes there (git's index trusts the same fields).
// The zero stamp never matches, so a platform without one always hashes.
type fileStamp struct {
	dev, ino, size uint64
	mtime, ctime   int64
}

func (s fileStamp) valid() bool { return s != fileStamp{} }

// hashFile returns the SHA-256 of path and the stamp of the content it
// hashed. A file that changed while it was read is an error: its sum would
// describe neither version.
func hashFile(path string) ([]byte, fileStamp, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileStamp{}, fmt.Errorf("checksum: %w", err)
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return nil, fileStamp{}, fmt.Errorf("checksum %s: %w", path, err)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, fileStamp{}, fmt.Errorf("checksum %s: %w", path, err)
	}
	after, err := f.Stat()
	if err != nil {
		return nil, fileStamp{}, fmt.Errorf("checksum %s: %w", path, err)
	}
	stamp := stampOf(after)
	if stampOf(before) != stamp {
		return nil, fileStamp{}, fmt.Errorf("checksum %s: the file changed while it was read; wait for its install to finish", path)
	}
	return h.Sum(nil), stamp, nil
}

// verify checks that c's file still has the checksum recorded at its first launch.
// An unchanged stamp proves it without reading the file, so a launch (and
// every restart) costs no hashing; otherwise the file is hashed again.
func verify(c Candidate) error {
	if c.stamp.valid() {
		if info, err := os.Stat(c.Path); err == nil && stampOf(info) == c.stamp {
			return nil
		}
	}
	sum, _, err := hashFile(c.Path)
	if err != nil {
		return err
	}
	if !bytes.Equal(sum, c.Checksum) {
		return errChecksumMismatch
	}
	return nil
}
