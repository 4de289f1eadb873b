//go:build !wasm

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"specdash/server"
)

// version is specdash's version, set at build time with
// -ldflags="-X main.version=...".
var version = "dev"

// shutdownTimeout bounds the graceful shutdown after SIGINT/SIGTERM.
const shutdownTimeout = 10 * time.Second

// registerServe adds the "serve" command: the web UI and the same-origin
// Prometheus proxy.
func registerServe(a *kingpin.Application, cmds map[string]func() error) {
	cmd := a.Command("serve", "Serve the dashboard (web UI and a read-only proxy to Prometheus).")
	promURL := cmd.Flag("prometheus.url", "Prometheus HTTP API root that holds the vLLM metrics, e.g. http://127.0.0.1:9090 (a path prefix such as /prometheus is kept).").String()
	listen := cmd.Flag("web.listen-address", "Address to listen on for the web UI.").Default(":8080").String()
	scrape := cmd.Flag("prometheus.scrape-interval", "Scrape interval of the vLLM targets in that Prometheus; the query step never goes below it.").Default("15s").Duration()
	cmds[cmd.FullCommand()] = func() error {
		if *promURL == "" {
			return errors.New("serve: --prometheus.url is required (the Prometheus that scrapes vLLM, e.g. --prometheus.url=http://127.0.0.1:9090)")
		}
		if *scrape <= 0 {
			return fmt.Errorf("serve: --prometheus.scrape-interval must be positive, got %s", *scrape)
		}
		log := slog.New(slog.NewTextHandler(os.Stderr, nil))
		h, err := server.New(server.Config{
			PrometheusURL:  *promURL,
			ScrapeInterval: *scrape,
			Version:        version,
			Logger:         log,
		})
		if err != nil {
			return err
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return runServer(ctx, log, *listen, server.DisplayString(*promURL), h)
	}
}

// runServer listens on addr and serves h until ctx ends, then shuts down
// gracefully (bounded by shutdownTimeout).
func runServer(ctx context.Context, log *slog.Logger, addr, source string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve: listen on %s: %w", addr, err)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	log.Info("specdash serving", "address", "http://"+displayAddr(ln.Addr()), "prometheus", source, "version", version)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	return nil
}

// displayAddr turns a wildcard listen address into one a browser can open.
func displayAddr(a net.Addr) string {
	ta, ok := a.(*net.TCPAddr)
	if !ok || !ta.IP.IsUnspecified() {
		return a.String()
	}
	return net.JoinHostPort("localhost", fmt.Sprint(ta.Port))
}
