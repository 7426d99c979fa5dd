package kv

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type item struct {
	Name string `json:"name"`
	N    int    `json:"n"`
}

// both runs a test on an in-memory DB and on a file, which must behave alike.
func both(t *testing.T, test func(t *testing.T, db *DB)) {
	t.Run("in memory", func(t *testing.T) { test(t, NewMemory()) })
	t.Run("on file", func(t *testing.T) {
		db, err := Open(filepath.Join(t.TempDir(), "sub", "state.db"), time.Second)
		require.NoError(t, err)
		t.Cleanup(func() { _ = db.Close() })
		test(t, db)
	})
}

func TestValuesRoundTripInKeyOrder(t *testing.T) {
	both(t, func(t *testing.T, db *DB) {
		require.NoError(t, db.Update(func(tx *Tx) error {
			for _, it := range []item{{"b", 2}, {"c", 3}, {"a", 1}} {
				if err := tx.Put("items", it.Name, it); err != nil {
					return err
				}
			}
			return nil
		}))
		require.NoError(t, db.View(func(tx *Tx) error {
			all, err := All[item](tx, "items")
			require.NoError(t, err)
			assert.Equal(t, []item{{"a", 1}, {"b", 2}, {"c", 3}}, all)
			var got item
			found, err := tx.Get("items", "b", &got)
			require.NoError(t, err)
			assert.True(t, found)
			assert.Equal(t, item{"b", 2}, got)
			found, err = tx.Get("items", "zz", &got)
			assert.False(t, found)
			assert.NoError(t, err)
			found, err = tx.Get("no-such-bucket", "a", &got)
			assert.False(t, found)
			assert.NoError(t, err)
			none, err := All[item](tx, "no-such-bucket")
			assert.Empty(t, none)
			return err
		}))
	})
}

func TestAFailedUpdateChangesNothing(t *testing.T) {
	both(t, func(t *testing.T, db *DB) {
		require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put("items", "a", item{"a", 1}) }))
		boom := errors.New("boom")
		err := db.Update(func(tx *Tx) error {
			require.NoError(t, tx.Put("items", "a", item{"a", 99}))
			require.NoError(t, tx.Put("items", "new", item{"new", 1}))
			_, err := tx.Delete("items", "a")
			require.NoError(t, err)
			require.NoError(t, tx.Put("other", "x", 1))
			return boom
		})
		assert.ErrorIs(t, err, boom)
		require.NoError(t, db.View(func(tx *Tx) error {
			all, err := All[item](tx, "items")
			assert.Equal(t, []item{{"a", 1}}, all)
			var x int
			found, _ := tx.Get("other", "x", &x)
			assert.False(t, found)
			return err
		}))
	})
}

func TestDeleteReportsWhetherTheKeyExisted(t *testing.T) {
	both(t, func(t *testing.T, db *DB) {
		require.NoError(t, db.Update(func(tx *Tx) error {
			require.NoError(t, tx.Put("items", "a", item{"a", 1}))
			existed, err := tx.Delete("items", "a")
			assert.True(t, existed)
			require.NoError(t, err)
			existed, err = tx.Delete("items", "a")
			assert.False(t, existed)
			require.NoError(t, err)
			existed, err = tx.Delete("no-such-bucket", "a")
			assert.False(t, existed)
			return err
		}))
	})
}

func TestViewsCannotWrite(t *testing.T) {
	both(t, func(t *testing.T, db *DB) {
		require.NoError(t, db.View(func(tx *Tx) error {
			assert.ErrorIs(t, tx.Put("items", "a", 1), ErrReadOnly)
			_, err := tx.Delete("items", "a")
			assert.ErrorIs(t, err, ErrReadOnly)
			return nil
		}))
	})
}

func TestBadValuesAreReportedNotStored(t *testing.T) {
	both(t, func(t *testing.T, db *DB) {
		err := db.Update(func(tx *Tx) error { return tx.Put("items", "a", func() {}) })
		assert.Error(t, err, "functions cannot be encoded")
		require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put("items", "a", "a string") }))
		require.NoError(t, db.View(func(tx *Tx) error {
			var it item
			_, err := tx.Get("items", "a", &it)
			assert.Error(t, err, "a string is not an item")
			_, err = All[item](tx, "items")
			assert.Error(t, err)
			return nil
		}))
	})
}

func TestAFileFromANewerSchemaIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := Open(path, time.Second)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put(metaBucket, schemaVersionKey, SchemaVersion+1) }))
	require.NoError(t, db.Close())
	_, err = Open(path, time.Second)
	assert.ErrorIs(t, err, ErrNewerSchema)
}

func TestALockedFileFailsAfterTheTimeout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := Open(path, time.Second)
	require.NoError(t, err)
	defer db.Close()
	_, err = Open(path, 20*time.Millisecond)
	assert.ErrorIs(t, err, ErrLocked)
}

// Lookup finds what GetRaw finds, keys asked in any order, and nothing
// for a key between two others, after the last or in a missing bucket.
func TestLookupIsGetRaw(t *testing.T) {
	both(t, func(t *testing.T, db *DB) {
		require.NoError(t, db.Update(func(tx *Tx) error {
			for _, k := range []string{"b", "d", "a"} {
				if err := tx.PutRaw("items", k, []byte("value of "+k)); err != nil {
					return err
				}
			}
			get := tx.Lookup("items") // in the transaction that wrote them
			assert.Equal(t, "value of d", string(get("d")))
			return nil
		}))
		require.NoError(t, db.View(func(tx *Tx) error {
			get := tx.Lookup("items")
			for _, k := range []string{"d", "a", "c", "b", "zz", "", "a"} {
				assert.Equal(t, tx.GetRaw("items", k), get(k), "key %q", k)
			}
			assert.Equal(t, "value of b", string(get("b")))
			assert.Nil(t, get("c"))
			assert.Nil(t, tx.Lookup("no-such-bucket")("a"))
			return nil
		}))
	})
}
