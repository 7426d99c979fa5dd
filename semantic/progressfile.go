package semantic

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"
)

// ProgressFileName is the file in a vault's state folder where a process
// records its indexer's progress with the embedder's model (the
// indexer's OnProgress calls WriteProgressFile), for status and doctor.
const ProgressFileName = "embedding-progress.json"

// ProgressFile is the progress file's content.
type ProgressFile struct {
	Model     string    `json:"model"`
	Embedded  int       `json:"embedded"`
	Total     int       `json:"total"`
	NotesPerS float64   `json:"notes_per_s"`
	Done      bool      `json:"done"`
	Updated   time.Time `json:"updated"`
}

// WriteProgressFile replaces the progress file in dir (temporary file,
// rename), creating dir when needed. The file only informs status: a
// caller logs a failure and goes on.
func WriteProgressFile(dir string, p Progress) error {
	b, _ := json.Marshal(ProgressFile{Model: p.Model, Embedded: p.Embedded, Total: p.Total,
		NotesPerS: p.Rate, Done: p.Done, Updated: p.Updated.UTC()})
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp := filepath.Join(dir, ProgressFileName+".tmp")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, ProgressFileName))
}

// ReadProgressFile reads the progress file in dir; ok is false when there
// is none or it cannot be read.
func ReadProgressFile(dir string) (p ProgressFile, ok bool) {
	b, err := os.ReadFile(filepath.Join(dir, ProgressFileName))
	if err != nil || json.Unmarshal(b, &p) != nil {
		return p, false
	}
	return p, true
}
