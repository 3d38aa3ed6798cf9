package fakeaws

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// Names returns every stored parameter name under path (recursively),
// sorted.
func (s *SSM) Names(path string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for name := range s.params {
		if strings.HasPrefix(name, strings.TrimSuffix(path, "/")+"/") {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

type getParametersByPathInput struct {
	Path           string
	Recursive      bool
	WithDecryption bool
	MaxResults     int
	NextToken      string
}

// getParametersByPath pages through the parameters under a path, as SSM
// does (at most 10 a page).
func (s *SSM) getParametersByPath(w http.ResponseWriter, body []byte, region, account string) {
	var in getParametersByPathInput
	if err := json.Unmarshal(body, &in); err != nil || !strings.HasPrefix(in.Path, "/") {
		jsonError(w, http.StatusBadRequest, "ValidationException", "The parameter path must begin with a forward slash (/).")
		return
	}
	if in.MaxResults <= 0 || in.MaxResults > 10 {
		in.MaxResults = 10
	}
	names := s.Names(in.Path)
	if !in.Recursive {
		depth := strings.Count(strings.TrimSuffix(in.Path, "/"), "/") + 1
		kept := names[:0]
		for _, n := range names {
			if strings.Count(n, "/") == depth {
				kept = append(kept, n)
			}
		}
		names = kept
	}
	start, _ := strconv.Atoi(in.NextToken)
	end := min(start+in.MaxResults, len(names))
	out := []parameterOut{}
	for _, name := range names[min(start, len(names)):end] {
		p, ok := s.Get(name)
		if !ok {
			continue
		}
		value := p.Value
		if p.Type == SecureString && !in.WithDecryption {
			value = p.ciphertext
		}
		out = append(out, parameterOut{
			ARN:      fmt.Sprintf("arn:aws:ssm:%s:%s:parameter/%s", region, account, strings.TrimPrefix(p.Name, "/")),
			DataType: "text", Name: p.Name, Type: p.Type, Value: value, Version: p.Version,
			LastModifiedDate: float64(p.LastModified.UnixMilli()) / 1000,
		})
	}
	resp := map[string]any{"Parameters": out}
	if end < len(names) {
		resp["NextToken"] = strconv.Itoa(end)
	}
	writeJSON(w, resp)
}

// deleteParameters deletes up to 10 names; unknown ones are listed as
// InvalidParameters, as SSM does.
func (s *SSM) deleteParameters(w http.ResponseWriter, body []byte) {
	var in struct{ Names []string }
	if err := json.Unmarshal(body, &in); err != nil || len(in.Names) == 0 || len(in.Names) > 10 {
		jsonError(w, http.StatusBadRequest, "ValidationException", "1 validation error detected: Value at 'names' failed to satisfy constraint: Member must have length between 1 and 10")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	deleted, invalid := []string{}, []string{}
	for _, n := range in.Names {
		if _, ok := s.params[n]; ok {
			delete(s.params, n)
			deleted = append(deleted, n)
		} else {
			invalid = append(invalid, n)
		}
	}
	writeJSON(w, map[string]any{"DeletedParameters": deleted, "InvalidParameters": invalid})
}
