package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"sigs.k8s.io/yaml"
)

// emit writes v in the chosen format: json and yaml print the API's
// objects as they are; table and wide call table, which writes columns
// (wide adds some).
func emit(w io.Writer, format string, v any, table func(tw *tabwriter.Writer, wide bool)) error {
	switch format {
	case "json":
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return fmt.Errorf("encode JSON: %w", err)
		}
		_, err = fmt.Fprintln(w, string(b))
		return err
	case "yaml":
		b, err := yaml.Marshal(v)
		if err != nil {
			return fmt.Errorf("encode YAML: %w", err)
		}
		_, err = w.Write(b)
		return err
	case "table", "wide", "":
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		table(tw, format == "wide")
		return tw.Flush()
	}
	return &exitError{code: exitUsage, err: fmt.Errorf("-o %q: want table, wide, json or yaml", format)}
}
