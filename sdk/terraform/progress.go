package terraform

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// attemptMarker starts each attempt in a local log, so a resumed run is
// reported from its own plan, not from the interrupted one before it.
const attemptMarker = "--- kubeopera: "

var (
	planLine = regexp.MustCompile(`^Plan: (\d+) to add, (\d+) to change, (\d+) to destroy\.`)
	// Each "... complete" line is one resource change done; a replacement
	// counts once in "to add" and once in "to destroy", as it logs two.
	doneLine = regexp.MustCompile(`: (Creation|Modifications|Destruction) complete after `)
)

// logSummary is what Status needs from terraform's output.
type logSummary struct {
	planned   bool
	noChanges bool
	add, change, destroy,
	created, modified, destroyed int
	// tail holds the last LogTailLines lines.
	tail []string
	// errors are terraform's "Error:" blocks, in order.
	errors []string
	// lines is the number of lines read.
	lines int
}

// summarizeLog reads terraform's output (-no-color) once. A line starting
// with attemptMarker restarts the counts, so only the last attempt counts.
func summarizeLog(r io.Reader) logSummary {
	var s logSummary
	var block []string // the Error: block being read
	inError := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.HasPrefix(line, attemptMarker) {
			s = logSummary{}
			block, inError = nil, false
		}
		s.lines++
		s.tail = append(s.tail, line)
		if len(s.tail) > LogTailLines {
			s.tail = s.tail[1:]
		}
		if rest, ok := strings.CutPrefix(line, "Error: "); ok {
			if inError {
				s.errors = append(s.errors, errorText(block))
			}
			block, inError = []string{rest}, true
			continue
		}
		if inError {
			block = append(block, line)
			continue
		}
		s.count(line)
	}
	if inError {
		s.errors = append(s.errors, errorText(block))
	}
	return s
}

func (s *logSummary) count(line string) {
	if m := planLine.FindStringSubmatch(line); m != nil {
		s.planned = true
		s.add, _ = strconv.Atoi(m[1])
		s.change, _ = strconv.Atoi(m[2])
		s.destroy, _ = strconv.Atoi(m[3])
		return
	}
	if strings.HasPrefix(line, "No changes.") {
		s.planned, s.noChanges = true, true
		return
	}
	if m := doneLine.FindStringSubmatch(line); m != nil {
		switch m[1] {
		case "Creation":
			s.created++
		case "Modifications":
			s.modified++
		default:
			s.destroyed++
		}
	}
}

// errorText turns one -no-color "Error:" block into a sentence: the
// summary, then the detail paragraphs, leaving out the source snippet
// ("on main.tf line 8 ...", "with ...") terraform shows between them.
func errorText(block []string) string {
	summary := strings.TrimSpace(block[0])
	var details []string
	for _, para := range paragraphs(block[1:]) {
		first := para[0]
		if strings.HasPrefix(first, " ") || strings.HasPrefix(first, "\t") {
			continue // "  on main.tf line 8", "  with terraform_data.x," and the code
		}
		details = append(details, strings.Join(para, " "))
	}
	if len(details) == 0 {
		return summary
	}
	return summary + ": " + strings.Join(details, " ")
}

func paragraphs(lines []string) [][]string {
	var out [][]string
	var cur []string
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			if cur != nil {
				out = append(out, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, strings.TrimRight(l, " "))
	}
	if cur != nil {
		out = append(out, cur)
	}
	return out
}

// total is the number of "... complete" lines the plan announces.
func (s logSummary) total() int { return s.add + s.change + s.destroy }

func (s logSummary) done() int { return s.created + s.modified + s.destroyed }

// progress estimates 0..99 for an unfinished run; only a finished run is 100.
func (s logSummary) progress() int {
	if !s.planned || s.total() == 0 {
		return 0
	}
	p := s.done() * 100 / s.total()
	return min(p, 99)
}

// runningMessage says where a running attempt of action a is.
func (s logSummary) runningMessage(a Action) string {
	switch {
	case s.lines == 0:
		return fmt.Sprintf("terraform %s: starting", a)
	case !s.planned:
		return fmt.Sprintf("terraform %s: initializing and planning", a)
	case s.noChanges:
		return fmt.Sprintf("terraform %s: no changes to make", a)
	case s.change == 0 && s.destroy == 0:
		return fmt.Sprintf("terraform %s: %d of %d resources created", a, s.created, s.add)
	case s.add == 0 && s.change == 0:
		return fmt.Sprintf("terraform %s: %d of %d resources destroyed", a, s.destroyed, s.destroy)
	default:
		return fmt.Sprintf("terraform %s: %d of %d resource changes done (%d to add, %d to change, %d to destroy)",
			a, s.done(), s.total(), s.add, s.change, s.destroy)
	}
}

// failureMessage is terraform's own error, with a count of the others.
func (s logSummary) failureMessage(a Action) string {
	switch len(s.errors) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("terraform %s failed: %s", a, s.errors[0])
	default:
		return fmt.Sprintf("terraform %s failed: %s (and %d more errors; see the log)", a, s.errors[0], len(s.errors)-1)
	}
}

// tailBuffer keeps the last max bytes written to it; terraform-exec writes
// stdout and stderr from two goroutines.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

func (t *tailBuffer) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = t.b[:0]
}
