package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestUnsupportedSubcommands(t *testing.T) {
	for _, cmd := range []string{"auth"} {
		var out, errOut bytes.Buffer
		code := Main(context.Background(), []string{cmd, "x"}, strings.NewReader(""), &out, &errOut)
		if code != 1 || out.Len() != 0 || !strings.HasPrefix(errOut.String(), "Error: relay "+cmd+" is not supported yet") {
			t.Errorf("%s: exit %d stdout %q stderr %q", cmd, code, out.String(), errOut.String())
		}
	}
}
