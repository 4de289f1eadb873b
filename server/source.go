package server

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/prometheus/common/config"
)

// Source kinds, as the UI shows them.
const (
	// KindPrometheus is an HTTP upstream that answers the Prometheus query
	// API (Prometheus, Thanos Query, Mimir, VictoriaMetrics, ...).
	KindPrometheus = "prometheus"
	// KindEmbedded is specdash's in-process Prometheus (package embedded),
	// reached without the network through Source.Handler.
	KindEmbedded = "embedded"
)

// DefaultSourceName is the name of the one source configured by
// Config.PrometheusURL.
const DefaultSourceName = "default"

// sourceName is what a source may be called: it appears in URLs
// (?source=<name>, /prom/s/<name>/api/v1/...).
var sourceName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// Source is one named upstream the proxy may reach. Exactly one of URL and
// Handler is set.
type Source struct {
	// Name identifies the source in URLs: 1..64 of [A-Za-z0-9_.-],
	// starting with a letter or digit.
	Name string
	// URL is the root of the upstream's Prometheus HTTP API, including any
	// path prefix: "http://prometheus:9090", "http://mimir:8080/prometheus",
	// "http://vmselect:8481/select/0/prometheus". Userinfo is sent as basic
	// auth (and never shown); no query or fragment.
	URL string
	// HTTPClient holds the upstream's client settings (prometheus/common
	// config: basic_auth, authorization / bearer token file, oauth2,
	// tls_config, proxy_url, http_headers such as X-Scope-OrgID).
	// follow_redirects is ignored: the proxy never follows redirects.
	HTTPClient config.HTTPClientConfig
	// Params are added to every upstream request's query string, replacing
	// any the browser sent under the same names (e.g. Thanos'
	// partial_response=false and dedup=true, VictoriaMetrics' nocache=1).
	Params url.Values
	// ScrapeInterval of the upstream's vLLM targets (default 15 s, or the
	// embedded engine's): the query step never goes below it.
	ScrapeInterval time.Duration
	// Handler is an in-process upstream (the embedded engine's Handler),
	// serving the API at /api/v1/...; URL must then be "".
	Handler http.Handler
	// Label is shown in the UI as the source (default: the URL without
	// userinfo; for Handler sources "embedded").
	Label string
	// Kind is KindPrometheus or KindEmbedded (default: KindEmbedded when
	// Handler is set).
	Kind string
	// Transport replaces the transport built from HTTPClient (tests).
	Transport http.RoundTripper
}

// upstream is a validated Source, ready to forward to.
type upstream struct {
	Source
	base      *url.URL          // URL without userinfo, path without trailing slash
	transport http.RoundTripper // nil for Handler sources
	// manualAuth is the basic auth to set by hand when a test transport
	// replaces the one built from HTTPClient.
	manualAuth *config.BasicAuth
}

func (u *upstream) display() string {
	if u.Label != "" {
		return u.Label
	}
	if u.base != nil {
		return DisplayURL(u.base)
	}
	return "embedded"
}

// newUpstream validates s and builds its transport.
func newUpstream(s Source, cfg *Config) (*upstream, error) {
	if !sourceName.MatchString(s.Name) {
		return nil, fmt.Errorf("server: source name %q: want 1 to 64 of A-Z a-z 0-9 _ . - (starting with a letter or digit)", s.Name)
	}
	if s.ScrapeInterval < 0 {
		return nil, fmt.Errorf("server: source %s: scrape interval %v must be positive", s.Name, s.ScrapeInterval)
	}
	if s.ScrapeInterval == 0 {
		s.ScrapeInterval = 15 * time.Second
	}
	u := &upstream{Source: s}
	if s.Handler != nil {
		if s.URL != "" {
			return nil, fmt.Errorf("server: source %s: both a URL and an in-process handler", s.Name)
		}
		if u.Kind == "" {
			u.Kind = KindEmbedded
		}
		return u, nil
	}
	if s.URL == "" {
		if s.Name == DefaultSourceName {
			return nil, errors.New("server: no Prometheus URL configured")
		}
		return nil, fmt.Errorf("server: source %s: no URL", s.Name)
	}
	if u.Kind == "" {
		u.Kind = KindPrometheus
	}
	base, err := parseUpstream(s.URL)
	if err != nil {
		if s.Name != DefaultSourceName {
			return nil, fmt.Errorf("source %s: %w", s.Name, err)
		}
		return nil, err
	}
	hc := s.HTTPClient
	if base.User != nil {
		if hc.BasicAuth != nil || hc.Authorization != nil || hc.OAuth2 != nil || hc.BearerToken != "" || hc.BearerTokenFile != "" {
			return nil, fmt.Errorf("server: source %s: credentials both in the URL and in the HTTP client settings", s.Name)
		}
		pass, _ := base.User.Password()
		hc.BasicAuth = &config.BasicAuth{Username: base.User.Username(), Password: config.Secret(pass)}
		base.User = nil
	}
	u.base = base
	u.Source.HTTPClient = hc
	if t := s.Transport; t != nil || cfg.Transport != nil {
		if t == nil {
			t = cfg.Transport
		}
		u.transport, u.manualAuth = t, hc.BasicAuth
		return u, nil
	}
	if err := hc.Validate(); err != nil {
		return nil, fmt.Errorf("server: source %s: HTTP client settings: %w", s.Name, err)
	}
	hc.FollowRedirects = false
	rt, err := config.NewRoundTripperFromConfig(hc, "specdash-"+s.Name,
		config.WithDialContextFunc(guardedDialer().DialContext),
		config.WithUserAgent("specdash/"+cfg.Version))
	if err != nil {
		return nil, fmt.Errorf("server: source %s: HTTP client: %w", s.Name, err)
	}
	u.transport = rt
	return u, nil
}

// upstreamURL is the upstream URL of API path rest ("api/v1/query") with
// the browser's raw query plus the source's Params.
func (u *upstream) upstreamURL(rest, rawQuery string) string {
	q := rawQuery
	if len(u.Params) > 0 {
		vals, _ := url.ParseQuery(rawQuery)
		for k, v := range u.Params {
			vals[k] = v
		}
		q = vals.Encode()
	}
	out := *u.base
	out.Path = strings.TrimRight(out.Path, "/") + "/" + rest
	out.RawPath = ""
	out.RawQuery = q
	return out.String()
}

// sourceFile is a file of a source's HTTP client settings.
type sourceFile struct{ setting, path string }

// files lists the files of the source's HTTP client settings
// (prometheus/common reads them at each request).
func (u *upstream) files() []sourceFile {
	hc := u.Source.HTTPClient
	var out []sourceFile
	add := func(setting, path string) {
		if path != "" {
			out = append(out, sourceFile{setting, path})
		}
	}
	if b := hc.BasicAuth; b != nil {
		add("basic_auth.password_file", b.PasswordFile)
		add("basic_auth.username_file", b.UsernameFile)
	}
	if a := hc.Authorization; a != nil {
		add("authorization.credentials_file", a.CredentialsFile)
	}
	add("bearer_token_file", hc.BearerTokenFile)
	if o := hc.OAuth2; o != nil {
		add("oauth2.client_secret_file", o.ClientSecretFile)
		add("oauth2.tls_config.ca_file", o.TLSConfig.CAFile)
		add("oauth2.tls_config.cert_file", o.TLSConfig.CertFile)
		add("oauth2.tls_config.key_file", o.TLSConfig.KeyFile)
	}
	add("tls_config.ca_file", hc.TLSConfig.CAFile)
	add("tls_config.cert_file", hc.TLSConfig.CertFile)
	add("tls_config.key_file", hc.TLSConfig.KeyFile)
	return out
}

// unreadableFiles describes each file of the source's settings that cannot
// be read now (for a warning at startup: the files are read again at each
// request, so one mounted later still works).
func (u *upstream) unreadableFiles() []string {
	var out []string
	for _, f := range u.files() {
		fh, err := os.Open(f.path)
		if err == nil {
			var b [1]byte
			_, err = fh.Read(b[:])
			fh.Close()
			if err == io.EOF {
				err = nil
			}
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			out = append(out, u.describeFileError(pe))
		}
	}
	return out
}

// describeFileError says which of the source's files could not be read
// (prometheus/common reads credential and TLS files at each request, so a
// missing one shows up as a failed request, not at startup).
func (u *upstream) describeFileError(e *fs.PathError) string {
	setting := "a file of its HTTP client settings"
	var names []string
	for _, f := range u.files() {
		if f.path == e.Path {
			names = append(names, f.setting)
		}
	}
	if len(names) > 0 {
		setting = strings.Join(names, " and ")
	}
	why := "cannot be read"
	switch {
	case errors.Is(e.Err, fs.ErrNotExist):
		why = "does not exist"
	case errors.Is(e.Err, fs.ErrPermission):
		why = "cannot be read (permission denied)"
	}
	return fmt.Sprintf("the %s of source %s, %s, %s: fix the file or the source's settings (Prometheus was not asked)", setting, u.Name, e.Path, why)
}
