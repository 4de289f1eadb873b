//go:build !js

// Command precompress writes brotli and gzip copies of built assets next
// to them (FILE.br at brotli quality 11 with a 16 MiB window, FILE.gz at
// gzip level 9), so that the server sends app.wasm and echarts.min.js
// compressed without compressing per request (server/assets.go serves
// FILE.br for "Accept-Encoding: br", FILE.gz for gzip, and checks once that
// each decompresses to FILE). `make assets` runs it on web/dist.
//
// Usage: go run ./bench/cmd/precompress FILE...
//
// A FILE whose .br and .gz are newer than it is skipped. Brotli quality 11
// takes about a minute for the 20 MB wasm on one core.
package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"sync"

	"github.com/andybalholm/brotli"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: precompress FILE...")
		os.Exit(2)
	}
	failed := false
	for _, name := range os.Args[1:] {
		if err := precompress(name); err != nil {
			fmt.Fprintln(os.Stderr, "precompress:", err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

func precompress(name string) error {
	st, err := os.Stat(name)
	if err != nil {
		return err
	}
	if fresh(name+".br", st) && fresh(name+".gz", st) {
		return nil
	}
	body, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	var br, gz bytes.Buffer
	var brErr, gzErr error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		w := brotli.NewWriterOptions(&br, brotli.WriterOptions{Quality: brotli.BestCompression, LGWin: 24})
		if _, brErr = w.Write(body); brErr == nil {
			brErr = w.Close()
		}
	}()
	go func() {
		defer wg.Done()
		w, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		if _, gzErr = w.Write(body); gzErr == nil {
			gzErr = w.Close()
		}
	}()
	wg.Wait()
	if brErr != nil || gzErr != nil {
		return fmt.Errorf("%s: brotli: %v, gzip: %v", name, brErr, gzErr)
	}
	// Write to temporary names, then rename: a half-written sidecar is
	// never seen (the server would reject it anyway).
	for ext, b := range map[string][]byte{".br": br.Bytes(), ".gz": gz.Bytes()} {
		tmp := name + ext + ".tmp"
		if err := os.WriteFile(tmp, b, 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmp, name+ext); err != nil {
			return err
		}
	}
	fmt.Printf("precompress: %s: %d bytes, brotli %d, gzip %d\n", name, len(body), br.Len(), gz.Len())
	return nil
}

// fresh reports whether side exists and is newer than the source.
func fresh(side string, src os.FileInfo) bool {
	st, err := os.Stat(side)
	return err == nil && st.ModTime().After(src.ModTime())
}
