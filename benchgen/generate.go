package benchgen

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// Generate writes the vault cfg describes into dir, which is created when
// missing and must otherwise be empty (so the folder holds exactly the
// generated vault). It returns the manifest of what was written.
func Generate(dir string, cfg Config) (*Manifest, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if err := emptyDir(dir); err != nil {
		return nil, err
	}
	p := newPlan(cfg)
	for _, f := range p.folders {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(f)), 0o755); err != nil {
			return nil, fmt.Errorf("benchgen: create folder: %w", err)
		}
	}

	notes := make([]rendered, cfg.Notes)
	next := make(chan int)
	errs := make(chan error, cfg.workers())
	var wg sync.WaitGroup
	for range cfg.workers() {
		wg.Go(func() {
			for i := range next {
				r := p.render(i)
				if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p.paths[i])), r.data, 0o644); err != nil {
					errs <- fmt.Errorf("benchgen: write note: %w", err)
					return
				}
				r.size, r.data = len(r.data), nil // keep the counts, not the bytes
				notes[i] = r
			}
		})
	}
	var err error
feed:
	for i := range cfg.Notes {
		select {
		case next <- i:
		case err = <-errs:
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err == nil && len(errs) > 0 {
		err = <-errs
	}
	if err != nil {
		return nil, err
	}
	return newManifest(p, notes), nil
}

// emptyDir creates dir or checks that it holds nothing.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("benchgen: create %s: %w", dir, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("benchgen: read %s: %w", dir, err)
	case len(entries) > 0:
		return fmt.Errorf("benchgen: %s is not empty: generate into a new folder", dir)
	}
	return nil
}
