package plugin

import (
	"strings"
	"sync"
)

// tail keeps the last lines written to it; it holds a plugin's raw stderr so
// a crash can be reported with its stack.
type tail struct {
	mu      sync.Mutex
	max     int
	partial strings.Builder
	buf     []string
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, b := range p {
		if b != '\n' {
			t.partial.WriteByte(b)
			continue
		}
		t.buf = append(t.buf, t.partial.String())
		t.partial.Reset()
		if len(t.buf) > t.max {
			t.buf = t.buf[len(t.buf)-t.max:]
		}
	}
	return len(p), nil
}

// lines returns a copy of the complete lines held.
func (t *tail) lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.buf...)
}

// crash returns the panic or fatal error and its stack when the lines hold
// one, else the last lines.
func (t *tail) crash() string {
	lines := t.lines()
	for i, l := range lines {
		if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
			return strings.Join(lines[i:], "\n")
		}
	}
	if len(lines) == 0 {
		return "process exited without output"
	}
	return lastLines(lines, 5)
}
