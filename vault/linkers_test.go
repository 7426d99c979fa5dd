package vault

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// linkersOf is what linkers must hold for entries: each key's notes, each
// once, sorted by path.
func linkersOf(entries map[*entry]bool) map[string][]string {
	out := map[string][]string{}
	for e := range entries {
		eachKey(e.links, func(k string) { out[k] = append(out[k], e.path) })
	}
	for k := range out {
		slices.Sort(out[k])
	}
	return out
}

// contents lists l's notes for each of keys, sorted by path.
func contents(l *linkers, keys []string) map[string][]string {
	out := map[string][]string{}
	for _, k := range keys {
		var paths []string
		for _, e := range l.of(k) {
			paths = append(paths, e.path)
		}
		if paths != nil {
			slices.Sort(paths)
			out[k] = paths
		}
	}
	return out
}

// TestLinkersBuiltAtOnceEqualNoteByNote: a restart's linkers (built in
// one block) hold what adding the notes one by one gives, and stay so as
// notes change their links, go and come.
func TestLinkersBuiltAtOnceEqualNoteByNote(t *testing.T) {
	keys := []string{"a", "b", "c", "d/e", "e", "f", "g", "h"}
	for seed := range uint64(20) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 3))
			randomLinks := func() []linkRef {
				n := r.IntN(6)
				if r.IntN(10) == 0 {
					n = smallLinks + 5 // the set path of eachKey
				}
				links := make([]linkRef, n)
				for i := range links {
					links[i].key = keys[r.IntN(len(keys))]
				}
				return links
			}
			var entries []*entry
			live := map[*entry]bool{}
			for i := range 40 {
				e := newEntry(fmt.Sprintf("n%02d.md", i))
				e.links = randomLinks()
				entries = append(entries, e)
				live[e] = true
			}
			built, byNote := newLinkers(0), newLinkers(0)
			built.build(entries)
			for _, e := range entries {
				eachKey(e.links, func(k string) { byNote.add(k, e) })
			}
			want := linkersOf(live)
			require.Equal(t, want, contents(&built, keys))
			require.Equal(t, want, contents(&byNote, keys))

			for step := range 200 {
				e := entries[r.IntN(len(entries))]
				switch {
				case !live[e]:
					e.links = randomLinks()
					eachKey(e.links, func(k string) { built.add(k, e) })
					live[e] = true
				case r.IntN(3) == 0:
					eachKey(e.links, func(k string) { built.remove(k, e) })
					delete(live, e)
				default:
					eachKey(e.links, func(k string) { built.remove(k, e) })
					e.links = randomLinks()
					eachKey(e.links, func(k string) { built.add(k, e) })
				}
				require.Equal(t, linkersOf(live), contents(&built, keys), "step %d", step)
			}
		})
	}
}

// TestLinkersBuiltLaterFollowTheIndex: a restart's linkers, left to build
// (buildLater), hold each key's notes whatever the index does first:
// a note's links replaced (from none, too), a note removed or added, a
// lookup. The property holds after every step of random sequences.
func TestLinkersBuiltLaterFollowTheIndex(t *testing.T) {
	keys := []string{"a", "b", "c", "d/e", "e", "f", "g", "h"}
	for seed := range uint64(100) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 5))
			randomLinks := func() []linkRef {
				n := r.IntN(4) // none a quarter of the time
				if r.IntN(10) == 0 {
					n = smallLinks + 5
				}
				links := make([]linkRef, n)
				for i := range links {
					links[i].key = keys[r.IntN(len(keys))]
				}
				return links
			}
			x := newIndex()
			var entries []*entry
			live := map[*entry]bool{}
			for i := range 30 {
				e := newEntry(fmt.Sprintf("n%02d.md", i))
				e.links = randomLinks()
				x.addUnlinked(e)
				entries = append(entries, e)
				live[e] = true
			}
			x.linkers.buildLater(slices.Clone(entries))
			if seed%2 == 1 {
				// Built outside the lock (Mirror.settleLinkers) while the
				// steps run: each waits for it where it would build.
				build := x.linkers.buildOutside()
				require.NotNil(t, build)
				require.Nil(t, x.linkers.buildOutside(), "one build at a time")
				go build()
			}
			// The first steps go unchecked (a check builds the lists).
			unchecked := r.IntN(12)
			for step := range 60 {
				e := entries[r.IntN(len(entries))]
				switch op := r.IntN(4); {
				case !live[e]:
					e.links = randomLinks()
					x.add(e)
					live[e] = true
				case op == 0:
					x.remove(e)
					delete(live, e)
				case op == 1:
					x.setLinks(e, randomLinks(), nil)
				case op == 2 && r.IntN(4) == 0:
					x.linkers.of(keys[r.IntN(len(keys))])
				default:
					x.setLinks(e, nil, nil)
				}
				if step >= unchecked {
					require.Equal(t, linkersOf(live), contents(&x.linkers, keys), "step %d", step)
				}
			}
		})
	}
}

// A list of the block handed out by of is not changed when its key's
// notes change (they move out of the block).
func TestLinkersBlockListsAreNotChangedUnderTheCaller(t *testing.T) {
	a, b := newEntry("a.md"), newEntry("b.md")
	a.links, b.links = []linkRef{{key: "k"}}, []linkRef{{key: "k"}}
	l := newLinkers(0)
	l.build([]*entry{a, b})
	got := l.of("k")
	l.remove("k", a)
	assert.Equal(t, []*entry{a, b}, got)
	assert.Equal(t, []*entry{b}, l.of("k"))
}

// A restored entry shares its ID as its group key only when that is what
// groupKey gives.
func TestNewStoredEntry(t *testing.T) {
	for _, c := range []struct{ path, id string }{
		{"Folder/Note.md", "folder/note.md"},
		{"Folder/Note.md", "Folder/Note.md"}, // a collision group's other note
		{"note.md", "note.md"},
		{"Café.md", "café.md"},
		{"Cafe\u0301.md", "cafe\u0301.md"}, // NFC changes it
		{"a.md", "b.md"},
		{"a.md", "ab.md"},
	} {
		e := newStoredEntry(c.path, c.id)
		assert.Equal(t, groupKey(c.path), e.lower, c.path)
		assert.Equal(t, c.path, e.path)
	}
	id := "folder/note.md"
	e := newStoredEntry("Folder/Note.md", id)
	assert.Same(t, unsafe.StringData(id), unsafe.StringData(e.lower), "shared")
}
