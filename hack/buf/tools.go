//go:build tools

package buf

import _ "github.com/bufbuild/buf/cmd/buf"
