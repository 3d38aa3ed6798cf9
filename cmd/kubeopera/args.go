package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// needsArg wants exactly one argument and, without it, says what it is and
// how the command is written, e.g. "login needs the server's URL: kubeopera
// login https://kubeopera.example.com", where cobra would say "accepts 1
// arg(s), received 0".
func needsArg(what, example string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) == 0:
			return &exitError{code: exitUsage, err: fmt.Errorf("%s needs %s: %s %s", commandName(cmd), what, cmd.CommandPath(), example)}
		case len(args) > 1:
			return &exitError{code: exitUsage, err: fmt.Errorf("%s takes one argument, %s, not %d: %s %s",
				commandName(cmd), what, len(args), cmd.CommandPath(), example)}
		}
		return nil
	}
}

// explainMissingArgs gives every command below root whose usage names its
// arguments (such as "get NAME") the same treatment as needsArg: too few
// arguments are answered with the usage line, not cobra's count.
func explainMissingArgs(root *cobra.Command) {
	for _, c := range root.Commands() {
		explainMissingArgs(c)
	}
	check, wanted := root.Args, placeholders(root.Use)
	if check == nil || len(wanted) == 0 {
		return
	}
	root.Args = func(cmd *cobra.Command, args []string) error {
		err := check(cmd, args)
		var done *exitError
		if err == nil || len(args) >= len(wanted) || errors.As(err, &done) {
			return err
		}
		return &exitError{code: exitUsage, err: fmt.Errorf("%s needs %s: %s %s", commandName(cmd),
			strings.Join(wanted[len(args):], " and "), cmd.CommandPath(), strings.Join(strings.Fields(cmd.Use)[1:], " "))}
	}
}

// placeholders are the required arguments a usage line names: its
// upper-case words before the first flag ("scale NAME --nodes N": NAME);
// optional ones are in brackets and not counted.
func placeholders(use string) []string {
	words := strings.Fields(use)
	if len(words) < 2 {
		return nil
	}
	var out []string
	for _, w := range words[1:] {
		if strings.HasPrefix(w, "-") {
			break
		}
		if w == strings.ToUpper(w) && !strings.HasPrefix(w, "[") {
			out = append(out, w)
		}
	}
	return out
}

// commandName is the command as typed after "kubeopera", e.g. "clusters get".
func commandName(cmd *cobra.Command) string {
	path := cmd.CommandPath()
	if cmd.HasParent() {
		path = strings.TrimPrefix(path, cmd.Root().Name()+" ")
	}
	return path
}
