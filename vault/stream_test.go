package vault

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// A first sync that writes in parts reads each note's text again when it
// writes the note (withBodies). Written in staged calls of a few notes or
// in plain batches, the store must hold exactly what a sync that kept
// every note's text gives (one staged call): content, frontmatter, tags
// and links.
func TestFirstSyncReadsTextsBackExactly(t *testing.T) {
	special := map[string]string{
		"fm/crlf.md":     "---\r\ntitle: Windows\r\ntags: [a, b]\r\n---\r\nline one\r\n[[bom]] and #c\r\n",
		"fm/bom.md":      "\ufeff---\nup: \"[[crlf]]\"\n---\nbody after a BOM [[fm/crlf|alias]]\n",
		"fm/nofm.md":     "\ufeffno frontmatter, a BOM [[bom#part]]",
		"fm/unclosed.md": "---\ntitle: x\nnever closed [[nofm]]",
		"fm/empty.md":    "",
	}
	for seed := range uint64(12) {
		rng := rand.New(rand.NewPCG(seed, 24))
		files := genVault(rng, 10+rng.IntN(20))
		for p, c := range special {
			files[p] = c
		}
		root := writeVault(t, files)
		want := memstore.New()
		// The reference: the note's text as parsed, never read back.
		_, err := newTestMirror(t, root, want).Sync(t.Context())
		require.NoError(t, err)
		for name, mk := range map[string]func() (core.GraphStore, func(*Config)){
			"staged calls of 3": func() (core.GraphStore, func(*Config)) {
				return memstore.New(), func(c *Config) { c.BatchSize, c.StagedBatch = 2, 3 }
			},
			"batches of 2": func() (core.GraphStore, func(*Config)) {
				return struct{ core.GraphStore }{memstore.New()}, func(c *Config) { c.BatchSize = 2 }
			},
			"one staged call, texts kept": func() (core.GraphStore, func(*Config)) {
				return memstore.New(), func(c *Config) { c.BatchSize = 2 }
			},
			"staged calls of 3 into a store that has the notes (rewrite: no streaming)": func() (core.GraphStore, func(*Config)) {
				st := memstore.New()
				_, err := newTestMirror(t, root, st).Sync(t.Context())
				require.NoError(t, err)
				return st, func(c *Config) { c.BatchSize, c.StagedBatch, c.Rewrite = 2, 3, true }
			},
			"fake store": func() (core.GraphStore, func(*Config)) {
				return newFakeStore(), func(c *Config) { c.BatchSize = 4 }
			},
		} {
			store, cfg := mk()
			m := newTestMirror(t, root, store, cfg)
			stats, err := m.Sync(t.Context())
			require.NoError(t, err)
			require.Equal(t, len(files), stats.Written, "seed %d %s", seed, name)
			require.Zero(t, m.Pending())
			require.Empty(t, m.bodies, "no note's body offset is kept once written")
			require.Equal(t, normalized(storeSnapshot(t, want, testProject)), normalized(storeSnapshot(t, store, testProject)), "seed %d %s", seed, name)
		}
	}
}

// A note file edited, replaced or removed after the first sync parsed it
// but before it wrote it: the store ends up equal to a fresh sync of the
// vault as it is afterwards, the edited note never written with the links
// of its old text.
func TestFileChangedBetweenParseAndWrite(t *testing.T) {
	files := map[string]string{
		"a.md":     "[[b]] [[c]] [[gone]]",
		"b.md":     "B",
		"c.md":     "C",
		"gone.md":  "going",
		"x/c.md":   "another c",
		"late.md":  "---\ntitle: Late\n---\nlate [[a]]",
		"z/end.md": "[[late]]",
	}
	for name, mk := range map[string]func() (core.GraphStore, func(*Config)){
		"plain batches of 2": func() (core.GraphStore, func(*Config)) {
			return struct{ core.GraphStore }{memstore.New()}, func(c *Config) { c.BatchSize = 2 }
		},
		"staged calls of 2": func() (core.GraphStore, func(*Config)) {
			return memstore.New(), func(c *Config) { c.BatchSize, c.StagedBatch = 2, 2 }
		},
	} {
		t.Run(name, func(t *testing.T) {
			store, cfg := mk()
			root := writeVault(t, files)
			calls := 0
			// Before the first part is read when the sync streams
			// (stream.go), before the write reads the texts back when it
			// does not.
			streamHook = func(int) { bodyHook() }
			bodyHook = func() {
				calls++
				if calls > 1 {
					return
				}
				// b.md gains a link and a new size; late.md changes
				// with the same size; gone.md goes (a.md's [[gone]] is
				// now broken, and c.md's twin decides nothing new).
				writeFile(t, root, "b.md", "B now links [[late]] and [[z/end]]")
				writeFile(t, root, "late.md", "---\ntitle: Late\n---\nLATE [[c]]")
				require.NoError(t, os.Remove(filepath.Join(root, "gone.md")))
			}
			t.Cleanup(func() { bodyHook, streamHook = nil, nil })
			m := newTestMirror(t, root, store, cfg)
			_, err := m.Sync(t.Context())
			require.NoError(t, err)
			require.Positive(t, calls)
			require.Zero(t, m.Pending())
			bodyHook, streamHook = nil, nil

			fresh := memstore.New()
			_, err = newTestMirror(t, root, fresh).Sync(t.Context())
			require.NoError(t, err)
			require.Equal(t, normalized(storeSnapshot(t, fresh, testProject)), normalized(storeSnapshot(t, store, testProject)))
			require.Equal(t, []string{"late.md", "z/end.md"}, noteTargets(storeNote(t, store, "b.md")))
			require.Equal(t, []string{"b.md", "c.md", ""}, noteTargets(storeNote(t, store, "a.md")))

			// The mirror's index agrees too: a rescan finds nothing to do.
			stats, err := m.Sync(t.Context())
			require.NoError(t, err)
			require.Zero(t, stats.Written+stats.Deleted)
		})
	}
}

// normalized drops the notes' sizes, which say whether a file was read
// within racyWindow of its change (racySize), a matter of timing here, and
// their keys, which only the fake store returns.
func normalized(notes map[string]core.Note) map[string]core.Note {
	for id, n := range notes {
		n.Size, n.Keys = 0, nil
		if len(n.Links) == 0 {
			n.Links = nil // the fake store keeps an empty list as given
		}
		notes[id] = n
	}
	return notes
}
