package embedded

import (
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sys/unix"
)

// MinFreeStorage is the free space below which embedded mode reports its
// storage as full: the TSDB's write-ahead log writes 32 KiB pages and cuts
// segments of up to 128 MiB, and a head compaction needs room for a block.
const MinFreeStorage = 1 << 20

// storageHealth remembers the TSDB's count of failed write-ahead-log writes,
// so that a failure since the last look is reported even while some space
// is free again.
type storageHealth struct {
	mu          sync.Mutex
	failed      float64
	lastFailure time.Time
}

// walWritesFailed reads prometheus_tsdb_wal_writes_failed_total from the
// engine's registry (0 when absent).
func walWritesFailed(reg *prometheus.Registry) float64 {
	mfs, err := reg.Gather()
	if err != nil {
		return 0
	}
	for _, mf := range mfs {
		if mf.GetName() != "prometheus_tsdb_wal_writes_failed_total" {
			continue
		}
		sum := 0.0
		for _, m := range mf.GetMetric() {
			sum += m.GetCounter().GetValue()
		}
		return sum
	}
	return 0
}

// StorageError says why the embedded TSDB is not storing samples: its
// directory has less than MinFreeStorage free, or its write-ahead log failed
// to write within the last minute (a full or read-only disk). "" when
// storage is fine. Scrapes still succeed then (the target answers), but
// their samples are not stored, so each target reports this error.
func (e *Engine) StorageError() string {
	now := time.Now()
	failed := walWritesFailed(e.reg)
	e.storage.mu.Lock()
	if failed > e.storage.failed {
		e.storage.failed, e.storage.lastFailure = failed, now
	}
	recent := !e.storage.lastFailure.IsZero() && now.Sub(e.storage.lastFailure) < time.Minute
	e.storage.mu.Unlock()
	var st unix.Statfs_t
	free := int64(-1)
	if err := unix.Statfs(e.dir, &st); err == nil {
		free = int64(st.Bavail) * int64(st.Bsize)
	}
	switch {
	case free >= 0 && free < MinFreeStorage:
		return fmt.Sprintf("storage full: %s has %s free (at least %s needed), so scraped samples are not stored; free space or set --storage.path to a larger disk", e.dir, bytesText(free), bytesText(MinFreeStorage))
	case recent:
		return fmt.Sprintf("storage failing: writes to %s failed in the last minute (%.0f failed writes so far, e.g. a full or read-only disk), so scraped samples may not be stored", e.dir, failed)
	}
	return ""
}

// bytesText prints a byte count in B, KiB, MiB or GiB.
func bytesText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
