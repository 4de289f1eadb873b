//go:build !js

package app

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"specdash/internal/fixtures"
	"specdash/metricsclient"
)

// TestLoadFilterMatchingNothing: a model filter that matches no series
// fails the load with the filtered diagnosis, and the result still carries
// the label lists of the series that exist, so the filter menus offer the
// real values instead of only the one that matches nothing.
func TestLoadFilterMatchingNothing(t *testing.T) {
	fx := fixtures.KnownAnswer()
	const scrape = 15 * time.Second
	c := knownAnswerClient(t, fx, scrape)
	now := time.Unix(fixtures.StartUnix+1350, 0)
	q := DefaultQuery()
	q.Range = "15m"
	q.Filter = map[string][]string{"model_name": {"no-such-model"}}
	res := Load(context.Background(), c, q, scrape, now)
	var miss *metricsclient.MissingMetricsError
	if !errors.As(res.Err, &miss) || miss.Cause != metricsclient.CauseFiltered {
		t.Fatalf("err %v, want a MissingMetricsError with cause %q", res.Err, metricsclient.CauseFiltered)
	}
	if want := []string{fixtures.ModelA, fixtures.ModelB}; !slices.Equal(res.Models, want) {
		t.Errorf("models %q, want %q", res.Models, want)
	}
	if want := []string{"0", "1"}; !slices.Equal(res.Engines, want) {
		t.Errorf("engines %q, want %q", res.Engines, want)
	}
	if res.Labels["model_name"] == nil {
		t.Errorf("labels %v lack model_name", res.Labels)
	}

	// Another error (nothing at all in the window) leaves them unset.
	res = Load(context.Background(), c, q, scrape, now.Add(48*time.Hour))
	if res.Err == nil || res.Models != nil || res.Labels != nil {
		t.Errorf("empty window: err %v, models %q, labels %v; want an error and no label lists", res.Err, res.Models, res.Labels)
	}
}
