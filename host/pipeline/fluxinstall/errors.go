package fluxinstall

import (
	"fmt"
	"strings"
)

// RepositoryError says the chart repository could not be reached or did not
// answer like a Helm chart repository.
type RepositoryError struct {
	URL string
	// Status is the HTTP status line when the repository answered, empty
	// when it could not be reached.
	Status string
	Err    error
}

func (e *RepositoryError) Error() string {
	if e.Status != "" {
		return fmt.Sprintf("flux chart repository %s answered %s: check the chart repository URL", e.URL, e.Status)
	}
	return fmt.Sprintf("flux chart repository %s unreachable: %v: check the chart repository URL or the network", e.URL, e.Err)
}

func (e *RepositoryError) Unwrap() error { return e.Err }

// ChartNotFoundError says the repository has no such chart, or not in the
// version asked for; Available lists what it has, newest first.
type ChartNotFoundError struct {
	URL     string
	Name    string
	Version string
	// Available are chart versions (or, when the chart itself is missing,
	// chart names) the repository offers.
	Available []string
}

// maxListed bounds how many available versions an error lists.
const maxListed = 5

func (e *ChartNotFoundError) Error() string {
	listed, more := e.Available, ""
	if len(listed) > maxListed {
		listed, more = listed[:maxListed], fmt.Sprintf(" and %d more", len(e.Available)-maxListed)
	}
	if e.Version == "" {
		return fmt.Sprintf("chart %q not found in flux chart repository %s (charts there: %s%s): check the chart name",
			e.Name, e.URL, strings.Join(listed, ", "), more)
	}
	return fmt.Sprintf("chart %s version %q not found in flux chart repository %s; available versions: %s%s: pick one of them",
		e.Name, e.Version, e.URL, strings.Join(listed, ", "), more)
}
