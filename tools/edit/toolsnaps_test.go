package edit

import (
	"testing"

	"github.com/vaultgraph/vaultgraph/tools/toolsnaps"
)

func TestToolSnapshots(t *testing.T) {
	for _, spec := range Specs() {
		t.Run(spec.Name, func(t *testing.T) { toolsnaps.Test(t, spec) })
	}
}
