package sdkexample

import (
	"os"
	"strings"
	"testing"
)

func TestGoCommandsAreTheShellBlockUnderTheHeading(t *testing.T) {
	readme := "# SDK\n```sh\ngo run elsewhere\n```\n" + section + "\n\ntext\n```sh\n" +
		"mkdir hello && cd hello\ngo mod init example.com/hello\n# a comment\n" +
		"go mod edit -require a@v0 \\\n            -replace a=/path/to/kubeopera/sdk\n" +
		"go build -o /x .   # a trailing comment\nkubeopera plugins list\n```\n```sh\ngo vet\n```\n"
	got, err := GoCommands([]byte(readme))
	if err != nil {
		t.Fatal(err)
	}
	want := "go mod init example.com/hello|go mod edit -require a@v0 -replace a=/path/to/kubeopera/sdk|go build -o /x ."
	var lines []string
	for _, c := range got {
		lines = append(lines, strings.Join(c, " "))
	}
	if strings.Join(lines, "|") != want {
		t.Errorf("commands %q, want %q", lines, strings.Split(want, "|"))
	}
}

func TestGoCommandsRefuseABlockThatBuildsNothing(t *testing.T) {
	for name, readme := range map[string]string{
		"no heading":     "```sh\ngo mod init x\ngo build .\n```\n",
		"no go build":    section + "\n```sh\ngo mod init x\n```\n",
		"no go mod init": section + "\n```sh\ngo build .\n```\n",
	} {
		if _, err := GoCommands([]byte(readme)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// The SDK README's own block passes, so the tests that build the example
// run it rather than fail on the README's shape.
func TestTheSDKReadmeHasTheCommands(t *testing.T) {
	readme, err := os.ReadFile("../../../sdk/README.md")
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := GoCommands(readme)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cmds {
		if s := strings.Join(c, " "); strings.Contains(s, "replace") && !strings.Contains(s, placeholderRepo+"/sdk") {
			t.Errorf("%q does not point the SDK at %s/sdk", s, placeholderRepo)
		}
	}
}
