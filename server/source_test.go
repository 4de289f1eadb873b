package server

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingPasswordFile: a password_file that does not exist is reported
// as such, naming the setting, the path and the source, by the proxy, the
// dashboard's client and /-/ready; it was reported as "Prometheus is
// unreachable".
func TestMissingPasswordFile(t *testing.T) {
	rec := newRecorder(t, nil)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "specdash.yml")
	yml := "sources:\n  - name: secured\n    url: " + rec.srv.URL + "\n    basic_auth: {username: u, password_file: secrets/prom-password}\n"
	if err := os.WriteFile(cfgPath, []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	fc, err := LoadConfigFile(cfgPath)
	if err != nil {
		t.Fatalf("LoadConfigFile: %v", err)
	}
	var log bytes.Buffer
	s := newServer(t, Config{Sources: []Source{fc.Sources[0].Source()}, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	missing := filepath.Join(dir, "secrets", "prom-password")
	want := "the basic_auth.password_file of source secured, " + missing + ", does not exist"
	if !strings.Contains(log.String(), "level=WARN") || !strings.Contains(log.String(), want) {
		t.Errorf("startup log %q: want a warning saying %q", log.String(), want)
	}

	code, _, body := get(t, s.URL+"/prom/api/v1/query?query=up")
	if code != 502 || !strings.Contains(body, want) || strings.Contains(body, "unreachable") {
		t.Errorf("proxy: %d %q, want 502 saying %q", code, body, want)
	}
	code, _, body = get(t, s.URL+"/-/ready")
	if code != 503 || !strings.Contains(body, want) {
		t.Errorf("/-/ready: %d %q, want 503 saying %q", code, body, want)
	}
	if n := len(rec.requests()); n != 0 {
		t.Errorf("upstream asked %d times without credentials, want 0", n)
	}

	// Unreadable (a directory where the file should be).
	if err := os.MkdirAll(missing, 0o700); err != nil {
		t.Fatal(err)
	}
	code, _, body = get(t, s.URL+"/prom/api/v1/labels")
	if want := "the basic_auth.password_file of source secured, " + missing + ", cannot be read"; code != 502 || !strings.Contains(body, want) {
		t.Errorf("unreadable file: %d %q, want 502 saying %q", code, body, want)
	}

	// Once the file is there, the source answers with the credentials.
	os.Remove(missing)
	if err := os.WriteFile(missing, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, body = get(t, s.URL+"/prom/api/v1/series?match[]=up")
	if code != 200 {
		t.Fatalf("with the file: %d %q", code, body)
	}
	reqs := rec.requests()
	if u, p, ok := reqs[len(reqs)-1].BasicAuth(); !ok || u != "u" || p != "s3cret" {
		t.Errorf("upstream got basic auth %q %q %v, want u and the file's password", u, p, ok)
	}
}
