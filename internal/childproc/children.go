package childproc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Children returns /proc/<pid> of each child of this process running a
// binary from dir (other test binaries may run the same programs), for
// leak checks and memory readings. Empty where there is no /proc.
func Children(dir string) []string {
	var out []string
	exes, _ := filepath.Glob("/proc/[0-9]*/exe")
	for _, exe := range exes {
		target, err := os.Readlink(exe)
		if err == nil && filepath.Dir(target) == dir && parentOf(filepath.Dir(exe)) == os.Getpid() {
			out = append(out, filepath.Dir(exe))
		}
	}
	return out
}

// parentOf reads the parent PID from /proc/<pid>/stat (the field after the
// state, which follows the parenthesised command name).
func parentOf(procDir string) int {
	b, err := os.ReadFile(filepath.Join(procDir, "stat"))
	if err != nil {
		return -1
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(fields) < 2 {
		return -1
	}
	ppid, _ := strconv.Atoi(fields[1])
	return ppid
}
