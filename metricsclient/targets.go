package metricsclient

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Target is one scrape target of a source (/api/v1/targets).
type Target struct {
	URL        string    `json:"scrapeUrl"`
	Health     string    `json:"health"`
	LastError  string    `json:"lastError"`
	LastScrape time.Time `json:"lastScrape"`
}

// FetchTargets GETs <addr>/api/v1/targets?state=active (the dashboard
// reads an embedded source's targets through the server's proxy) with a
// plain RoundTripper and a 10 s bound.
func FetchTargets(ctx context.Context, addr string) (out []Target, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("target status: internal error: %v", r)
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, addr+"/api/v1/targets?state=active", nil)
	if err != nil {
		return nil, err
	}
	resp, err := (&http.Client{Transport: http.DefaultTransport}).Do(req)
	if err != nil {
		return nil, fmt.Errorf("target status unavailable: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, fmt.Errorf("target status unavailable: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("target status unavailable: HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(body)))
	}
	var r struct {
		Data struct {
			ActiveTargets []Target `json:"activeTargets"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("target status unreadable: %v", err)
	}
	return r.Data.ActiveTargets, nil
}
