package server

import (
	"bytes"
	"compress/gzip"
	"net/url"
	"sync"
	"time"
)

// answer is an upstream answer as the proxy returns it to browsers.
type answer struct {
	status int
	ctype  string
	body   []byte

	gzOnce sync.Once
	gz     []byte
}

// gzipped compresses the body once (BestSpeed: the answers are JSON).
func (a *answer) gzipped() []byte {
	a.gzOnce.Do(func() {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
		zw.Write(a.body)
		zw.Close()
		a.gz = b.Bytes()
	})
	return a.gz
}

// cache holds successful answers for a short time, keyed by source,
// endpoint and the canonical form of the request's parameters. Bounded in
// entries and bytes; expired entries are dropped on insert.
type cache struct {
	ttl        time.Duration
	maxEntries int
	maxBytes   int

	mu      sync.Mutex
	entries map[string]cacheEntry
	bytes   int
}

type cacheEntry struct {
	a       *answer
	expires time.Time
}

func newCache(ttl time.Duration, maxEntries, maxBytes int) *cache {
	return &cache{ttl: ttl, maxEntries: maxEntries, maxBytes: maxBytes, entries: map[string]cacheEntry{}}
}

func (c *cache) get(key string, now time.Time) *answer {
	if c.ttl <= 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return nil
	}
	if !now.Before(e.expires) {
		delete(c.entries, key)
		c.bytes -= len(e.a.body)
		return nil
	}
	return e.a
}

func (c *cache) put(key string, a *answer, now time.Time) {
	if c.ttl <= 0 || len(a.body) > c.maxBytes/8 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[key]; ok {
		c.bytes -= len(old.a.body)
		delete(c.entries, key)
	}
	if len(c.entries) >= c.maxEntries || c.bytes+len(a.body) > c.maxBytes {
		for k, e := range c.entries {
			if !now.Before(e.expires) {
				c.bytes -= len(e.a.body)
				delete(c.entries, k)
			}
		}
	}
	if len(c.entries) >= c.maxEntries || c.bytes+len(a.body) > c.maxBytes {
		return // full of live entries: serve uncached
	}
	c.entries[key] = cacheEntry{a: a, expires: now.Add(c.ttl)}
	c.bytes += len(a.body)
}

// cacheKey identifies a request: the same source, endpoint and parameters
// (in any order, from the query string or a form body) give the same key.
// The dashboard's queries are step-aligned (start and end multiples of the
// step), so every viewer of the same view sends the same parameters.
func cacheKey(source, endpoint string, params url.Values) string {
	return source + "\x00" + endpoint + "\x00" + params.Encode()
}
