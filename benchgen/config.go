package benchgen

import (
	"errors"
	"fmt"
	"runtime"
)

// Config says which vault to generate. Notes and Seed decide the output
// completely; Workers only how fast it is written.
type Config struct {
	// Notes is the number of notes, at least 1.
	Notes int
	// Seed selects the vault: the same Notes and Seed give byte-identical
	// files on every machine and every run.
	Seed uint64
	// Workers is how many notes are rendered and written at once; 0 means
	// GOMAXPROCS. It never changes the output.
	Workers int
}

// The shape of a vault. They are constants, not Config fields, so that
// "10k notes, seed 1" names one vault for everyone comparing numbers.
const (
	minNoteSize    = 100
	maxNoteSize    = 300 * 1024
	medianNoteSize = 1200 // log-normal median; with sizeSigma the mean is about 3 KB
	sizeSigma      = 1.3
	// bytesPerLink sets the out-degree of ordinary notes: one link per
	// bytesPerLink of text on average (scaled by a factor in [0.5, 1.5)).
	bytesPerLink = 500
	// mocShare of notes are "maps of content": 50..299 links each,
	// whatever their size (the out-degree hubs).
	mocShare = 0.01
	// Of the links: brokenShare point at no note, hubShare at a
	// Zipf(hubZipfS)-chosen hub, the rest at a uniformly chosen note.
	brokenShare = 0.05
	hubShare    = 0.35
	hubZipfS    = 1.2
	// dupShare of notes take a name from dupNames (when their folder
	// has none of that name yet).
	dupShare = 0.05
	// One folder per notesPerFolder notes (at least the top folders),
	// nested at most maxFolderDepth levels; rootShare of notes sit at the
	// vault root.
	notesPerFolder = 40
	maxFolderDepth = 4
	rootShare      = 0.02
	// frontmatterShare of notes have frontmatter; tagVocabulary distinct
	// tags are used, chosen with Zipf(tagZipfS) popularity.
	frontmatterShare = 0.8
	tagVocabulary    = 150
	tagZipfS         = 1.2
)

func (c Config) validate() error {
	if c.Notes < 1 {
		return errors.New("benchgen: notes must be at least 1")
	}
	if c.Workers < 0 {
		return fmt.Errorf("benchgen: workers must not be negative, got %d", c.Workers)
	}
	return nil
}

func (c Config) workers() int {
	if c.Workers > 0 {
		return c.Workers
	}
	return runtime.GOMAXPROCS(0)
}
