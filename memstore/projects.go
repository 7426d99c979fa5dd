package memstore

import (
	"context"
	"fmt"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// bucketProjects holds ProjectRecords by ID.
const bucketProjects = "projects"

// ProjectRecord describes a project (a vault). It lives here until core
// has a project type; it is the first durable, non-vault data of the store.
type ProjectRecord struct {
	Key         string    `json:"key,omitempty"` // the project name notes carry (core.Project.Key)
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Slug        string    `json:"slug"`
	Description string    `json:"description"`
	Host        string    `json:"host,omitempty"`
	Path        string    `json:"path,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// PutProject stores rec as given, replacing any record with its ID. When it
// returns nil the record is on disk (fsynced), for a store from Open.
func (s *Store) PutProject(ctx context.Context, rec ProjectRecord) error {
	if err := s.check(ctx); err != nil {
		return fmt.Errorf("memstore: put project: %w", err)
	}
	if rec.ID == "" {
		return fmt.Errorf("memstore: put project: %w", core.InvalidArgument("project id is empty"))
	}
	err := s.updateOutsideNotes(func(tx *kv.Tx) error { return tx.Put(bucketProjects, rec.ID, rec) })
	if err != nil {
		return fmt.Errorf("memstore: put project %s: %w", rec.ID, core.NewProviderError("write state", err))
	}
	return nil
}

// Project returns the record with this ID, or an error wrapping
// core.ErrNotFound.
func (s *Store) Project(ctx context.Context, id string) (*ProjectRecord, error) {
	if err := s.check(ctx); err != nil {
		return nil, fmt.Errorf("memstore: get project: %w", err)
	}
	var rec ProjectRecord
	var found bool
	err := s.kv.View(func(tx *kv.Tx) error {
		var err error
		found, err = tx.Get(bucketProjects, id, &rec)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("memstore: get project %s: %w", id, core.NewProviderError("read state", err))
	}
	if !found {
		return nil, fmt.Errorf("memstore: get project %s: %w", id, core.ErrNotFound)
	}
	return &rec, nil
}

// Projects returns every project record, by ID.
func (s *Store) Projects(ctx context.Context) ([]ProjectRecord, error) {
	if err := s.check(ctx); err != nil {
		return nil, fmt.Errorf("memstore: list projects: %w", err)
	}
	var recs []ProjectRecord
	err := s.kv.View(func(tx *kv.Tx) error {
		var err error
		recs, err = kv.All[ProjectRecord](tx, bucketProjects)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("memstore: list projects: %w", core.NewProviderError("read state", err))
	}
	return recs, nil
}

// SaveProject stores p (core.ProjectStore).
func (s *Store) SaveProject(ctx context.Context, p core.Project) error {
	return s.PutProject(ctx, ProjectRecord{
		Key: p.Key, ID: p.ID, Name: p.Name, Slug: p.Slug, Description: p.Description,
		Host: p.Host, Path: p.Path, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	})
}

// ListProjects returns every project record, by ID (core.ProjectStore).
func (s *Store) ListProjects(ctx context.Context) ([]core.Project, error) {
	recs, err := s.Projects(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]core.Project, len(recs))
	for i, r := range recs {
		out[i] = core.Project{
			Key: r.Key, ID: r.ID, Name: r.Name, Slug: r.Slug, Description: r.Description,
			Host: r.Host, Path: r.Path, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		}
	}
	return out, nil
}
