package sealing

import (
	"strings"
	"testing"
)

func TestLast4(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"long secret shows its last four", "AKIAABCDEFGHWXYZ", "…WXYZ"},
		{"eight characters shows four", "abcdWXYZ", "…WXYZ"},
		{"seven characters shows three", "abcdXYZ", "…XYZ"},
		{"five characters shows two", "abcYZ", "…YZ"},
		{"four characters is masked", "WXYZ", "****"},
		{"one character is masked", "x", "****"},
		{"empty is masked", "", "****"},
		{"multi-byte characters are not split", "passwörd€€€€", "…€€€€"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Last4(tt.in)
			if got != tt.want {
				t.Errorf("Last4(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if tt.in != "" && strings.Contains(got, tt.in) {
				t.Errorf("Last4(%q) = %q reveals the whole secret", tt.in, got)
			}
		})
	}
}
