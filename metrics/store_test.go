package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestStoreMetrics(t *testing.T) {
	m := New()
	m.StoreUp(true)
	m.Statement("read_note", 2*time.Millisecond, true)
	m.Statement("read_note", time.Millisecond, false)
	m.Sessions(3, 50)
	m.Acquired(40 * time.Microsecond)
	m.Reloaded("catalog", 2*time.Second)
	m.Derived("p", "pagerank", time.Now().Add(-90*time.Second))
	if got := testutil.ToFloat64(m.store.up); got != 1 {
		t.Errorf("store up = %v", got)
	}
	m.StoreUp(false)
	if got := testutil.ToFloat64(m.store.up); got != 0 {
		t.Errorf("store up after the breaker opened = %v", got)
	}
	if got := testutil.ToFloat64(m.store.stmtErrors.WithLabelValues("read_note")); got != 1 {
		t.Errorf("statement errors = %v", got)
	}
	if got := testutil.ToFloat64(m.store.inUse); got != 3 {
		t.Errorf("sessions in use = %v", got)
	}
	// The age grows with time: computed at scrape.
	var age float64
	mfs, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "vaultgraph_derived_age_seconds" {
			age = mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	if age < 90 || age > 3600 {
		t.Errorf("derived age = %v, want about 90 s", age)
	}
	if n := testutil.CollectAndCount(m.store.reloadTime); n != 1 {
		t.Errorf("reload series = %d", n)
	}
	var nilM *Metrics
	nilM.StoreUp(true)
	nilM.Statement("x", 0, true)
	nilM.Sessions(1, 1)
	nilM.Acquired(0)
	nilM.Reloaded("catalog", 0)
	nilM.Derived("p", "pagerank", time.Now())
	if !strings.HasPrefix(derivedAgeDesc.String(), "Desc{") {
		t.Error(derivedAgeDesc.String())
	}
}
