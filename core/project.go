package core

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// MaxProjects is the most projects a server serves (spec 003's hard limit
// of list_projects).
const MaxProjects = 100

// ProjectID returns the UUID of a project without a configured one: a
// name-based UUID of its key, so it is the same across restarts and on
// every machine, and two servers that share a database and a key (and so
// the same nodes) agree on it.
func ProjectID(key string) string { return NameUUID("project\x00" + key) }

// ProjectCatalog is the set of projects a server serves: fixed by its
// configuration (key, id, name, slug, description), with the dates kept by
// the store, since they have no file. A project is created at the first
// start that serves it and updated when its name, slug or description
// changes. Nothing is cached (spec 003): every List reads the records.
type ProjectCatalog struct {
	store      ProjectStore
	configured []Project
	now        func() time.Time

	mu sync.Mutex // one writer of records at a time
}

// NewProjectCatalog returns the catalog of projects (Key, ID, Name, Slug
// and Description set) kept in store.
func NewProjectCatalog(store ProjectStore, projects []Project) *ProjectCatalog {
	return &ProjectCatalog{store: store, configured: slices.Clone(projects), now: time.Now}
}

// WithClock sets the clock that dates new and changed projects (tests).
func (c *ProjectCatalog) WithClock(now func() time.Time) *ProjectCatalog {
	c.now = now
	return c
}

// Lookup returns the configured project with this UUID (any letter case).
func (c *ProjectCatalog) Lookup(id string) (Project, bool) {
	id = strings.ToLower(id)
	for _, p := range c.configured {
		if p.ID == id {
			return p, true
		}
	}
	return Project{}, false
}

// Keys returns the store keys of the configured projects, in configuration
// order.
func (c *ProjectCatalog) Keys() []string {
	keys := make([]string, len(c.configured))
	for i, p := range c.configured {
		keys[i] = p.Key
	}
	return keys
}

// Sync makes the store's records match the configuration: it is called
// at start, and List does the same for a record still missing (the store
// may have been down at start).
func (c *ProjectCatalog) Sync(ctx context.Context) error {
	_, err := c.records(ctx)
	return err
}

// records reads the served projects' records, writing those missing or
// out of date first.
func (c *ProjectCatalog) records(ctx context.Context) ([]Project, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	stored, err := c.store.ListProjects(ctx)
	if err != nil {
		return nil, fmt.Errorf("projects: %w", err)
	}
	byID := make(map[string]Project, len(stored))
	for _, p := range stored {
		byID[p.ID] = p
	}
	now := c.now().UTC()
	out := make([]Project, len(c.configured))
	for i, want := range c.configured {
		have, ok := byID[want.ID]
		switch {
		case !ok:
			want.CreatedAt, want.UpdatedAt = now, now
		case have.Key != want.Key || have.Name != want.Name || have.Slug != want.Slug || have.Description != want.Description || have.Host != want.Host || have.Path != want.Path:
			want.CreatedAt, want.UpdatedAt = have.CreatedAt, now
		default:
			out[i] = have
			continue
		}
		if err := c.store.SaveProject(ctx, want); err != nil {
			return nil, fmt.Errorf("projects: %w", err)
		}
		out[i] = want
	}
	return out, nil
}

// List returns the served projects ordered by name case-insensitively,
// then ID, at most MaxProjects.
func (c *ProjectCatalog) List(ctx context.Context) ([]Project, error) {
	out, err := c.records(ctx)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b Project) int {
		return cmp.Or(cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), cmp.Compare(a.ID, b.ID))
	})
	if len(out) > MaxProjects {
		out = out[:MaxProjects]
	}
	return out, nil
}

// SyncOrigin says where a project's last full sync ran: the host and the
// vault's path there. A full sync from another host or path that would
// delete notes refuses unless forced (issue 44.8: two hosts syncing one
// vault identity with different content must not silently erase each
// other's notes; vault.Config.AllowForeignDeletes).
type SyncOrigin struct {
	Host string
	Path string
	At   time.Time // when the first full sync from this host and path ended
}

// IsZero reports whether no origin is recorded.
func (o SyncOrigin) IsZero() bool { return o.Host == "" && o.Path == "" }

// SyncOrigins records per project where its last full sync ran.
type SyncOrigins interface {
	// SyncOrigin returns the origin recorded for project; the zero
	// SyncOrigin when there is none.
	SyncOrigin(ctx context.Context, project string) (SyncOrigin, error)
	// SaveSyncOrigin records o as the origin of project's last full sync.
	SaveSyncOrigin(ctx context.Context, project string, o SyncOrigin) error
}
