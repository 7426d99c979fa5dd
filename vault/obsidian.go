package vault

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/vaultgraph/vaultgraph/confine"
)

// obsidianSettings are the settings of the vault's Obsidian app
// (.obsidian/app.json) that decide how files are written, with Obsidian's
// defaults for those the file does not set (or when there is no file).
type obsidianSettings struct {
	// TrashOption is what a delete does: "system" (Obsidian's default) or
	// "local" move the note to the vault's .trash folder, "none" deletes
	// it (docs/DECISIONS.md, "Deletes follow trashOption").
	TrashOption string `json:"trashOption"`
	// NewLinkFormat is the text of the links vaultgraph rewrites when they
	// are written by name or path: "shortest" (Obsidian's default),
	// "relative" or "absolute" (linkplan.go, textFor).
	NewLinkFormat string `json:"newLinkFormat"`
	// NewFileLocation is where a note created without a folder goes:
	// "root" (Obsidian's default), "current" (beside the note open in
	// Obsidian; vaultgraph has none, so the root) or "folder"
	// (NewFileFolderPath, when that folder exists; else the root, as in
	// Obsidian). See newNoteDir.
	NewFileLocation   string `json:"newFileLocation"`
	NewFileFolderPath string `json:"newFileFolderPath"`
}

// appSettingsPath is Obsidian's settings file, vault-relative.
const appSettingsPath = ".obsidian/app.json"

// maxSettingsSize caps the settings file read: app.json is a few hundred
// bytes.
const maxSettingsSize = 1 << 20

// obsidianSettings reads the vault's Obsidian settings afresh (a change
// made in Obsidian applies to the next write): defaults when the file is
// missing, unreadable or not JSON.
func (m *Mirror) obsidianSettings() obsidianSettings {
	s := obsidianSettings{TrashOption: "system", NewLinkFormat: "shortest", NewFileLocation: "root"}
	raw, _, err := m.fs.ReadFile(appSettingsPath, maxSettingsSize)
	if err != nil {
		return s
	}
	var read obsidianSettings
	if json.Unmarshal(raw, &read) != nil {
		m.log.Warn("vault: .obsidian/app.json is not JSON: Obsidian's default settings apply", "path", appSettingsPath)
		return s
	}
	if t := strings.TrimSpace(read.TrashOption); t == "local" || t == "system" || t == "none" {
		s.TrashOption = t
	}
	if f := strings.TrimSpace(read.NewLinkFormat); f == "relative" || f == "absolute" {
		s.NewLinkFormat = f
	}
	if l := strings.TrimSpace(read.NewFileLocation); l == "current" || l == "folder" {
		s.NewFileLocation = l
	}
	s.NewFileFolderPath = read.NewFileFolderPath
	return s
}

// newNoteDir is the folder, vault-relative, of a note created without
// one, as the vault's newFileLocation says: the root, or
// newFileFolderPath when it is set to "folder" and that folder exists
// (Obsidian falls back to the root too). A folder that is not a plain
// vault folder (outside the vault, hidden, ignored, a file, a symbolic
// link) is the root, with a warning in the log. m.mu must be held.
func (m *Mirror) newNoteDir() string {
	s := m.obsidianSettings()
	if s.NewFileLocation != "folder" {
		return ""
	}
	dir := strings.Trim(strings.TrimSpace(s.NewFileFolderPath), "/")
	if dir == "" || dir == "." {
		return ""
	}
	clean, err := m.cleanNewDir(dir)
	if err == nil {
		clean, err = m.existingDirCase(clean)
	}
	if err == nil {
		var info confine.Info
		if info, err = m.fs.Stat(clean); err == nil && !info.IsDir() {
			err = fmt.Errorf("%s is not a folder", clean)
		}
	}
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			m.log.Warn("vault: .obsidian/app.json's newFileFolderPath is not a folder of the vault: new notes go to the root", "newFileFolderPath", s.NewFileFolderPath, "err", err)
		}
		return ""
	}
	return clean
}

// trashDir is the vault's own trash folder, Obsidian's "local" trash.
const trashDir = ".trash"

// deleteNoteFile deletes the note file rel as the vault's settings say:
// moved to .trash (as "name.md", else "name 1.md", "name 2.md"... when
// the trash holds one by that name, as Obsidian names them), or removed.
func (m *Mirror) deleteNoteFile(rel string) error {
	if m.obsidianSettings().TrashOption == "none" {
		return m.removeFile(rel)
	}
	base := path.Base(rel)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	for i := 0; i < 1000; i++ {
		to := trashDir + "/" + base
		if i > 0 {
			to = fmt.Sprintf("%s/%s %d%s", trashDir, stem, i, ext)
		}
		err := m.fs.Rename(rel, to, true)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return fileError("move to the trash", rel, err)
	}
	return fileError("move to the trash", rel, fs.ErrExist)
}
