package vault

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/vaultgraph/vaultgraph/confine"
)

// A rename rewrites many files, and a crash can stop it anywhere. So
// before the first file is touched its whole plan is written to a journal
// entry, and the entry is removed only when every file is done. Any
// vaultgraph process that opens the vault (serve, sync, call) first
// settles the entries it finds: an entry whose note has not moved yet
// changed nothing and is dropped (the rename did not happen); otherwise it
// applies every file's link rewrites, each a compare-and-write that parses
// the file afresh (so an edit made since is kept) and rewrites only links
// still written the old way (so a file already done is left as it is).
//
// The journal lives in the vault, under .vaultgraph/journal (a dot-folder,
// which Obsidian, the sync and the watcher ignore), rather than in a state
// folder: every process that can reach the vault, on any host that shares
// it, can then finish it (docs/DECISIONS.md, "Rename journal").

// journalDir is the vault-relative folder of journal entries.
const journalDir = ".vaultgraph/journal"

// journalEntry is one multi-file operation under way.
type journalEntry struct {
	Op    string        `json:"op"` // "rename"
	From  string        `json:"from"`
	To    string        `json:"to"`
	Files []journalFile `json:"files"`
}

// journalFile is one file's link rewrites (a fileRewrite).
type journalFile struct {
	From     string            `json:"from"`
	Path     string            `json:"path"`
	Wiki     map[string]string `json:"wiki,omitempty"`
	Markdown map[string]string `json:"markdown,omitempty"`
	Card     map[string]string `json:"card,omitempty"` // a canvas's file cards
}

func journalFiles(plans []*fileRewrite) []journalFile {
	out := make([]journalFile, 0, len(plans))
	for _, p := range plans {
		f := journalFile{From: p.from, Path: p.path}
		for lt, t := range p.texts {
			if lt.card {
				if f.Card == nil {
					f.Card = map[string]string{}
				}
				f.Card[lt.written] = t
			} else if lt.markdown {
				if f.Markdown == nil {
					f.Markdown = map[string]string{}
				}
				f.Markdown[lt.written] = t
			} else {
				if f.Wiki == nil {
					f.Wiki = map[string]string{}
				}
				f.Wiki[lt.written] = t
			}
		}
		out = append(out, f)
	}
	return out
}

func (f journalFile) plan() *fileRewrite {
	p := &fileRewrite{from: f.From, path: f.Path, texts: map[linkText]string{}}
	for w, t := range f.Wiki {
		p.texts[linkText{written: w}] = t
	}
	for w, t := range f.Markdown {
		p.texts[linkText{markdown: true, written: w}] = t
	}
	for w, t := range f.Card {
		p.texts[linkText{card: true, written: w}] = t
	}
	return p
}

// writeJournal records j durably and returns its vault-relative path.
func (m *Mirror) writeJournal(j journalEntry) (string, error) {
	data, err := json.Marshal(j)
	if err != nil {
		return "", fmt.Errorf("vault: journal: %w", err)
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	rel := journalDir + "/" + hex.EncodeToString(rnd[:]) + ".json"
	if err := m.fs.Create(rel, data, confine.WriteOptions{Perm: 0o600}); err != nil {
		return "", fileError("write journal", rel, err)
	}
	return rel, nil
}

// dropJournal removes a finished entry.
func (m *Mirror) dropJournal(rel string) {
	if err := m.fs.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		m.log.Warn("vault: cannot remove a finished journal entry", "path", rel, "err", err)
	}
}

// recoverJournal finishes every journal entry a crash left. m.mu must be
// held (or the Mirror not yet shared).
func (m *Mirror) recoverJournal(ctx context.Context) error {
	entries, err := m.fs.ReadDir(journalDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fileError("read journal", journalDir, err)
	}
	for _, d := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(d.Name(), ".json") {
			continue
		}
		rel := journalDir + "/" + d.Name()
		if err := m.finishJournal(rel); err != nil {
			return err
		}
	}
	return nil
}

func (m *Mirror) finishJournal(rel string) error {
	raw, _, err := m.fs.ReadFile(rel, 0)
	if err != nil {
		return fileError("read journal", rel, err)
	}
	var j journalEntry
	if err := json.Unmarshal(raw, &j); err != nil || j.Op != "rename" {
		m.log.Warn("vault: removing a journal entry that cannot be read", "path", rel, "err", err)
		m.dropJournal(rel)
		return nil
	}
	// The move comes before any rewrite: a note still at its old name
	// means nothing was changed yet, and the rename is undone by dropping
	// the entry (the reader of the vault saw no part of it).
	if _, err := m.fs.Stat(j.To); errors.Is(err, fs.ErrNotExist) {
		m.log.Info("vault: a rename a crash interrupted had not started; dropped", "from", j.From, "to", j.To)
		m.dropJournal(rel)
		return nil
	}
	plans := make([]*fileRewrite, 0, len(j.Files))
	for _, f := range j.Files {
		plans = append(plans, f.plan())
	}
	written, links, err := m.rewriteFiles(plans, confine.WriteOptions{NoSync: true})
	if serr := m.fs.SyncAll(); err == nil && serr != nil {
		err = fileError("flush", j.To, serr)
	}
	if err != nil {
		return err
	}
	m.log.Info("vault: finished a rename that a crash interrupted",
		"from", j.From, "to", j.To, "files_rewritten", len(written), "links", links)
	m.dropJournal(rel)
	return nil
}
