// Command with-sandbox runs a command with KUBEOPERA_TEST_SANDBOX_KUBECONFIG
// naming the admin kubeconfig of a sandbox (a real kube-apiserver,
// kube-controller-manager, kube-scheduler and kwok, with the Ready node
// "n1"), and stops the sandbox when the command ends. It serves the tests
// of modules that cannot import internal/sandbox, such as the SDK's
// Terraform runner (its own module, so plugins need not require this one):
//
//	go run ./hack/with-sandbox go -C sdk/terraform test ./...
//
// When the variable is already set, the command runs against that cluster.
// The exit status is the command's.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

const kubeconfigEnv = "KUBEOPERA_TEST_SANDBOX_KUBECONFIG"

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: with-sandbox command [args...]")
		os.Exit(2)
	}
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if os.Getenv(kubeconfigEnv) != "" {
		return runCommand(args, os.Environ())
	}
	sb, err := sandbox.Start(context.Background(), sandbox.Options{Workloads: true, Nodes: []sandbox.Node{{Name: "n1"}}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "with-sandbox: start the sandbox:", err)
		return 1
	}
	defer func() {
		if err := sb.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "with-sandbox: stop the sandbox:", err)
		}
	}()
	return runCommand(args, append(os.Environ(), kubeconfigEnv+"="+sb.KubeconfigPath))
}

// runCommand runs args and returns its exit status. Ctrl-C reaches the
// command through the terminal's process group; here it only waits, so the
// sandbox is stopped after the command has ended.
func runCommand(args, env []string) int {
	signal.Ignore(os.Interrupt, syscall.SIGTERM)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Env = os.Stdin, os.Stdout, os.Stderr, env
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return exit.ExitCode()
	default:
		fmt.Fprintln(os.Stderr, "with-sandbox:", err)
		return 1
	}
}
