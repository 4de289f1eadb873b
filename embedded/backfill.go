package embedded

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/textparse"
	"github.com/prometheus/prometheus/tsdb"
)

// BackfillOpenMetrics writes the samples of openMetrics (OpenMetrics text
// ending in "# EOF"; every sample must carry a timestamp, in seconds) as a
// TSDB block into dir, as `promtool tsdb create-blocks-from openmetrics`
// does. Pass dir as Config.StoragePath to New afterwards (New must not be
// running on dir yet). It parses with Prometheus' textparse OpenMetrics
// parser and writes with tsdb.BlockWriter; `_created` lines of their own
// gauge families are stored as samples. Errors: parse errors (with the
// parser's position), a sample without timestamp, and write errors.
//
// Time-based retention is relative to the newest block, so old data
// backfilled alone is not deleted at once.
func BackfillOpenMetrics(dir string, openMetrics []byte, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	mint, maxt, n, err := scanOpenMetrics(openMetrics, nil)
	if err != nil {
		return err
	}
	if n == 0 {
		return errors.New("embedded: backfill: no samples in the input")
	}
	const twoHours = int64(2 * 60 * 60 * 1000)
	// One block covering the whole input (aligned to 2 h, as promtool's
	// default block duration), so every sample lands in it.
	blockSize := twoHours
	for mint/blockSize != maxt/blockSize {
		blockSize *= 2
	}
	w, err := tsdb.NewBlockWriter(logger, dir, blockSize)
	if err != nil {
		return fmt.Errorf("embedded: backfill: %w", err)
	}
	defer w.Close()
	ctx := context.Background()
	app := w.Appender(ctx)
	if _, _, _, err := scanOpenMetrics(openMetrics, func(ls labels.Labels, t int64, v float64) error {
		_, err := app.Append(0, ls, t, v)
		return err
	}); err != nil {
		_ = app.Rollback()
		return err
	}
	if err := app.Commit(); err != nil {
		return fmt.Errorf("embedded: backfill: commit: %w", err)
	}
	if _, err := w.Flush(ctx); err != nil {
		return fmt.Errorf("embedded: backfill: flush block: %w", err)
	}
	return nil
}

// scanOpenMetrics parses text and calls f (if not nil) for each float
// sample; it returns the time range (ms) and the number of samples.
func scanOpenMetrics(text []byte, f func(labels.Labels, int64, float64) error) (mint, maxt int64, n int, err error) {
	p, err := textparse.New(text, "application/openmetrics-text; version=1.0.0", labels.NewSymbolTable(), textparse.ParserOptions{})
	if err != nil {
		return 0, 0, 0, fmt.Errorf("embedded: backfill: %w", err)
	}
	var ls labels.Labels
	for {
		entry, err := p.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, 0, 0, fmt.Errorf("embedded: backfill: parse: %w", err)
		}
		if entry != textparse.EntrySeries {
			continue
		}
		series, ts, v := p.Series()
		if ts == nil {
			return 0, 0, 0, fmt.Errorf("embedded: backfill: sample %s has no timestamp", series)
		}
		p.Labels(&ls)
		if n == 0 || *ts < mint {
			mint = *ts
		}
		if n == 0 || *ts > maxt {
			maxt = *ts
		}
		n++
		if f != nil {
			if err := f(ls, *ts, v); err != nil {
				return 0, 0, 0, fmt.Errorf("embedded: backfill: append %s: %w", ls, err)
			}
		}
	}
	return mint, maxt, n, nil
}
