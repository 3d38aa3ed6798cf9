package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// confirmFlags make a command that destroys or lets go of a cluster ask
// first: on a terminal it asks for the cluster's name, as the dashboard
// does; elsewhere (a script, a pipe) it needs --yes, or --confirm NAME,
// which must be the cluster's name, and refuses to guess.
type confirmFlags struct {
	yes     bool
	confirm string
	// doIt is what the command does to the cluster: "tear it down",
	// "disconnect it".
	doIt string
}

func (f *confirmFlags) add(cmd *cobra.Command, doIt string) {
	f.doIt = doIt
	cmd.Flags().BoolVarP(&f.yes, "yes", "y", false, "do not ask for the cluster's name (scripts)")
	cmd.Flags().StringVar(&f.confirm, "confirm", "", "do not ask, and go on only if this is the cluster's name (scripts)")
}

// canAsk refuses, before anything is sent, a run that is not confirmed by
// a flag and has no terminal to ask on; ref is the cluster as given.
func (f *confirmFlags) canAsk(cmd *cobra.Command, ref string) error {
	if f.yes || f.confirm != "" {
		return nil
	}
	if _, ok := terminalIn(cmd); ok {
		return nil
	}
	return &exitError{code: exitUsage, err: fmt.Errorf(
		"standard input is not a terminal, so %s cannot ask you to type the cluster's name: pass --confirm %s "+
			"(or --yes) to %s", commandName(cmd), ref, f.doIt)}
}

// confirmed is nil when the user means the cluster named name: --yes,
// --confirm with that name, or the name typed at the prompt, which first
// says what will happen (consequence).
func (f *confirmFlags) confirmed(cmd *cobra.Command, name, consequence string) error {
	switch {
	case f.confirm != "" && f.confirm != name:
		return &exitError{code: exitUsage, err: fmt.Errorf("--confirm %q is not the cluster's name %q: nothing was done", f.confirm, name)}
	case f.yes || f.confirm != "":
		return nil
	}
	in, ok := terminalIn(cmd)
	if !ok {
		return f.canAsk(cmd, name)
	}
	w := cmd.ErrOrStderr()
	fmt.Fprintf(w, "%s\nType the cluster's name (%s) to %s: ", consequence, name, f.doIt)
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("read the cluster's name: %w", err)
	}
	switch typed := strings.TrimSpace(line); typed {
	case name:
		return nil
	case "":
		return &exitError{code: exitUsage, err: fmt.Errorf("no name was typed: %s was not done", commandName(cmd))}
	default:
		return &exitError{code: exitUsage, err: fmt.Errorf("you typed %q, not the cluster's name %q: nothing was done", typed, name)}
	}
}

// terminalIn is the command's standard input when it is a terminal.
func terminalIn(cmd *cobra.Command) (*os.File, bool) {
	f, ok := cmd.InOrStdin().(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil, false
	}
	return f, true
}
