package storetest

import (
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

// warmCases hold for a store that warms its writes up
// (core.WriteWarmer); a store without it skips them.
var warmCases = []testCase{
	{"warming the writes up leaves the project it is named after as it was", func(e *env) {
		w, ok := e.store.(core.WriteWarmer)
		if !ok {
			e.t.Skip("the store warms nothing up (core.WriteWarmer)")
		}
		p := e.project()
		notes := chain("a.md", "b.md", "c.md")
		notes[2].Links = append(notes[2].Links, ghost("nobody"))
		e.upsert(p, notes...)
		e.appendChanges(p, changeAt(1, core.ChangeCreated, "a.md"))
		states, changes := e.states(p), e.changes(p, core.ChangeQuery{Limit: 10})
		hubs := e.hubs(p, core.MetricInDegree, 10)

		// Twice: the second finds what the first wrote gone.
		for range 2 {
			require.NoError(e.t, w.WarmWrites(e.ctx, p), "warm writes up")
		}
		assert.Equal(e.t, states, e.states(p), "note states")
		assert.Equal(e.t, changes, e.changes(p, core.ChangeQuery{Limit: 10}), "change log")
		e.sameHubs(hubs, e.hubs(p, core.MetricInDegree, 10), "hubs")
		assert.Equal(e.t, []string{"nobody"}, e.unresolvedKeys(p, "c.md"), "ghosts")
	}},
}

func (e *env) unresolvedKeys(project, id string) []string {
	e.t.Helper()
	var keys []string
	for _, l := range e.get(project, id).Links {
		if l.Target == "" {
			keys = append(keys, l.Key)
		}
	}
	return keys
}
