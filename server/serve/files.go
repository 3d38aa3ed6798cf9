package serve

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// writePrivate creates path readable by the owner only. An existing file
// is replaced, keeping mode 0600 whatever its mode was.
func writePrivate(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if err := f.Chmod(0o600); err != nil {
		_ = f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// ensurePrivate tightens an existing file that others could read to 0600,
// saying so; a missing file is fine. It refuses one it cannot tighten.
func ensurePrivate(path string, say func(string, ...any)) error {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	if st.Mode().Perm()&0o077 == 0 {
		return nil
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return fmt.Errorf("%s is readable by others (mode %v) and could not be made 0600: %w; fix its mode or remove it",
			path, st.Mode().Perm(), err)
	}
	say("%s was readable by others (mode %v); changed it to 0600", path, st.Mode().Perm())
	return nil
}

// stderrSay tells the operator something where no other output is at hand.
func stderrSay(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
