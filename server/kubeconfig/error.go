package kubeconfig

import "strconv"

// Error is a problem with a kubeconfig, worded for the person who pasted it.
type Error struct {
	// Message says what is wrong and, where it helps, what to do. It never
	// contains credentials from the input.
	Message string
	// Line is the 1-based line of the input the problem is on, or 0 when it
	// is not about one line.
	Line int
}

// Error reads like "kubeconfig: line 4: mapping values are not allowed in
// this context".
func (e *Error) Error() string {
	if e.Line > 0 {
		return "kubeconfig: line " + strconv.Itoa(e.Line) + ": " + e.Message
	}
	return "kubeconfig: " + e.Message
}
