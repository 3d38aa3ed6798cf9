package federation

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pricing.json")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadPricing(t *testing.T) {
	tests := []struct {
		name    string
		content string
		// wantErr lists fragments the error must contain; none means success.
		wantErr   []string
		wantHours float64
		wantCur   string
		wantPrice map[string]float64
	}{
		{
			name:      "a valid file is read as written",
			content:   `{"currency":"EUR","hoursPerMonth":720,"prices":{"t3.medium":0.05,"m5.large":0.11}}`,
			wantHours: 720, wantCur: "EUR",
			wantPrice: map[string]float64{"t3.medium": 0.05, "m5.large": 0.11},
		},
		{
			name:      "currency and hours per month default to USD and 730",
			content:   `{"prices":{"t3.medium":0.0416}}`,
			wantHours: 730, wantCur: "USD",
			wantPrice: map[string]float64{"t3.medium": 0.0416},
		},
		{
			name:    "bad JSON names the file, line and column",
			content: "{\n  \"prices\": {\n    \"t3.medium\": 0.04,\n  }\n}",
			wantErr: []string{"pricing.json", "line 4, column 3", "invalid character '}'"},
		},
		{
			name:    "a price given as a string says which field and what was expected",
			content: `{"prices":{"t3.medium":"0.04"}}`,
			wantErr: []string{"line 1", `in "prices": expected a JSON number, found a string`},
		},
		{
			name:    "a negative price names the entry",
			content: `{"prices":{"t3.medium":0.0416,"m5.large":-0.096}}`,
			wantErr: []string{`price of "m5.large" is -0.096`, "positive"},
		},
		{
			name:    "a zero price names the entry",
			content: `{"prices":{"t3.micro":0}}`,
			wantErr: []string{`price of "t3.micro" is 0`},
		},
		{
			name:    "an empty table is rejected",
			content: `{"currency":"USD","prices":{}}`,
			wantErr: []string{`"prices" is empty`},
		},
		{
			name:    "a missing table is rejected",
			content: `{"currency":"USD"}`,
			wantErr: []string{`"prices" is empty`},
		},
		{
			name:    "a misspelt key is rejected rather than ignored",
			content: `{"hoursPerMonht":730,"prices":{"t3.micro":0.01}}`,
			wantErr: []string{`unknown field "hoursPerMonht"`},
		},
		{
			name:    "a negative hours per month is rejected",
			content: `{"hoursPerMonth":-1,"prices":{"t3.micro":0.01}}`,
			wantErr: []string{"hoursPerMonth is -1"},
		},
		{
			name:    "an empty file says so",
			content: ``,
			wantErr: []string{"empty or ends early"},
		},
		{
			name:    "trailing data after the object is rejected",
			content: `{"prices":{"t3.micro":0.01}} {}`,
			wantErr: []string{"unexpected data after the JSON object"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := LoadPricing(writeFile(t, tt.content))
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("LoadPricing succeeded with %+v, want error containing %q", p, tt.wantErr)
				}
				for _, frag := range tt.wantErr {
					if !strings.Contains(err.Error(), frag) {
						t.Errorf("error %q does not contain %q", err, frag)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("LoadPricing: %v", err)
			}
			if p.Currency != tt.wantCur || p.HoursPerMonth != tt.wantHours || len(p.Prices) != len(tt.wantPrice) {
				t.Errorf("got %+v, want currency %s, hours %v, prices %v", p, tt.wantCur, tt.wantHours, tt.wantPrice)
			}
			for k, v := range tt.wantPrice {
				if p.Prices[k] != v {
					t.Errorf("price of %s = %v, want %v", k, p.Prices[k], v)
				}
			}
		})
	}
}

func TestLoadPricingMissingFileNamesThePath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "absent.json")
	_, err := LoadPricing(path)
	if err == nil || !strings.Contains(err.Error(), path) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("LoadPricing(missing) = %v, want a not-exist error naming %s", err, path)
	}
}

func TestDefaultPricingCoversCommonTypes(t *testing.T) {
	p := DefaultPricing()
	if p.Currency != "USD" || p.HoursPerMonth != 730 {
		t.Errorf("DefaultPricing currency %q hours %v, want USD and 730", p.Currency, p.HoursPerMonth)
	}
	var required []string
	for _, size := range []string{"micro", "small", "medium", "large", "xlarge", "2xlarge"} {
		required = append(required, "t3."+size)
	}
	for _, fam := range []string{"m5", "m6i", "m7i"} {
		required = append(required, fam+".large", fam+".xlarge", fam+".2xlarge")
	}
	for _, fam := range []string{"c5", "c6i", "r5", "r6i"} {
		required = append(required, fam+".large", fam+".xlarge")
	}
	for _, typ := range required {
		if p.Prices[typ] <= 0 {
			t.Errorf("DefaultPricing has no price for %s", typ)
		}
	}
	if got := p.Prices["t3.medium"]; got != 0.0416 {
		t.Errorf("t3.medium = %v, want the us-east-1 on-demand price 0.0416", got)
	}
}

func TestDefaultPricingReturnsIndependentCopies(t *testing.T) {
	a := DefaultPricing()
	a.Prices["t3.medium"] = 99
	a.Currency = "XXX"
	b := DefaultPricing()
	if b.Prices["t3.medium"] == 99 || b.Currency == "XXX" {
		t.Fatalf("changing one DefaultPricing result changed the next: %v %s", b.Prices["t3.medium"], b.Currency)
	}
}
