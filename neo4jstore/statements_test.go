package neo4jstore

import (
	"slices"
	"testing"

	"github.com/vaultgraph/vaultgraph/cypher"
)

// Every .cypher file is a statement this package runs, and every statement
// it runs is a file: a dead file would rot unnoticed, and a missing one
// panics at start-up (stmt), which this test binary would show too.
func TestEveryCypherFileIsUsedAndEveryUsedNameExists(t *testing.T) {
	var names []string
	used.Range(func(k, _ any) bool {
		names = append(names, k.(string))
		return true
	})
	slices.Sort(names)
	files := cypher.Names()
	for _, n := range files {
		if _, ok := slices.BinarySearch(names, n); !ok {
			t.Errorf("cypher/%s.cypher is not used by neo4jstore", n)
		}
	}
	for _, n := range names {
		if _, ok := cypher.Get(n); !ok {
			t.Errorf("neo4jstore uses %q, which has no cypher file", n)
		}
	}
}
