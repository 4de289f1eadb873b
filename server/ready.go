package server

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// readyProbeTimeout bounds one readiness probe of the default source
// (orchestrators' probes time out after a few seconds).
const readyProbeTimeout = 5 * time.Second

// sourceReady is the default readiness (Config.Ready unset): specdash is
// not ready until the default source has answered once, either a viewer's
// query through the proxy or the probe /api/v1/query?query=1 that /-/ready
// sends (cheap, and answered by Prometheus, Thanos, Mimir and
// VictoriaMetrics alike). An embedded source answers as soon as its engine
// (its storage) is open. Once answered, ready stays true: a later upstream
// outage shows in the UI and in /metrics, and restarting specdash would
// not help.
type sourceReady struct {
	p        *proxy
	answered *atomic.Bool
	mu       sync.Mutex // one probe at a time
}

func (s *sourceReady) check() error {
	if s.answered.Load() {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.answered.Load() {
		return nil
	}
	src := s.p.def
	ctx, cancel := context.WithTimeout(context.Background(), min(readyProbeTimeout, s.p.timeout))
	defer cancel()
	var (
		a   *answer
		err error
	)
	if src.Handler != nil {
		a, err = s.p.callHandler(ctx, src, "query", http.MethodGet, "query=1", nil, "")
	} else {
		a, err = s.p.roundTrip(ctx, src, "query", http.MethodGet, "query=1", nil, "")
	}
	if err != nil {
		return fmt.Errorf("default source %s has not answered yet: %s", src.Name, s.p.describeUpstreamError(src, err))
	}
	if a.status != http.StatusOK {
		return fmt.Errorf("default source %s has not answered yet: a query got HTTP %d %s", src.Name, a.status, http.StatusText(a.status))
	}
	s.answered.Store(true)
	return nil
}
