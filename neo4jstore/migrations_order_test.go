package neo4jstore

import "testing"

// Toolsets add their migrations in their own version ranges (10-19 chunks,
// 20-29 memories, 30-39 entities...); the list must stay in ascending
// version order with no version used twice, or status and the migration
// record disagree with the order steps ran in.
func TestMigrationVersionsAscendAndAreUnique(t *testing.T) {
	for i := 1; i < len(migrations); i++ {
		if migrations[i].version <= migrations[i-1].version {
			t.Errorf("migration %d (%s) follows %d (%s)", migrations[i].version, migrations[i].name,
				migrations[i-1].version, migrations[i-1].name)
		}
	}
}
