package memory_test

import (
	"testing"

	memtools "github.com/vaultgraph/vaultgraph/tools/memory"
	"github.com/vaultgraph/vaultgraph/tools/toolsnaps"
)

func TestToolSnapshots(t *testing.T) {
	specs := memtools.Specs()
	if len(specs) != 16 {
		t.Fatalf("%d memory tools, want the 16 of spec 004", len(specs))
	}
	for _, spec := range specs {
		t.Run(spec.Name, func(t *testing.T) { toolsnaps.Test(t, spec) })
	}
}
