package server

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/units"
	"github.com/prometheus/common/config"
	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v2"
	yaml3 "go.yaml.in/yaml/v3"
)

// FileConfig is the YAML file of `specdash serve --config.file` (see
// docs/CONFIG.md for the reference and examples):
//
//	default_source: prod
//	sources:
//	  - name: prod                       # [A-Za-z0-9_.-], in URLs as ?source=prod
//	    url: http://prometheus:9090      # API root, path prefix kept
//	    scrape_interval: 15s             # of the vLLM targets
//	    params: {dedup: "true"}          # added to every upstream request
//	    # prometheus/common HTTP client settings, inline:
//	    basic_auth: {username: u, password_file: /run/secrets/p}
//	    authorization: {type: Bearer, credentials_file: /run/secrets/t}
//	    tls_config: {ca_file: ca.pem}
//	    http_headers: {X-Scope-OrgID: {values: [team-a]}}
//	  - name: lab
//	    embedded:                        # in-process Prometheus
//	      targets: [http://gpu-1:8000/metrics]
//	      scrape_interval: 5s
//	      retention: 6h
//	      storage_path: ""               # "" = temporary directory
//	      series_limit: 100000
//	      body_size_limit: 10MiB         # scrape and query limits
//	      query_timeout: 20s             # (docs/CONFIG.md)
//	web:
//	  listen_address: ":8080"
//	  upstream_timeout: 30s
//	  max_response_bytes: 32MiB
//	  cache_ttl: 5s
//	  basic_auth_users: {alice: <bcrypt hash>}   # or:
//	  trusted_header: X-Forwarded-User
//
// Relative file names (password_file, ca_file, ...) are relative to the
// config file's directory.
type FileConfig struct {
	DefaultSource string       `yaml:"default_source,omitempty"`
	Sources       []FileSource `yaml:"sources"`
	Web           WebConfig    `yaml:"web,omitempty"`
}

// FileSource is one source of FileConfig: url (with the HTTP client
// settings) or embedded.
type FileSource struct {
	Name           string            `yaml:"name"`
	Label          string            `yaml:"label,omitempty"`
	URL            string            `yaml:"url,omitempty"`
	ScrapeInterval model.Duration    `yaml:"scrape_interval,omitempty"`
	Params         map[string]string `yaml:"params,omitempty"`
	Embedded       *EmbeddedConfig   `yaml:"embedded,omitempty"`

	HTTPClient config.HTTPClientConfig `yaml:",inline"`
}

// EmbeddedConfig configures an embedded source (package embedded's Config).
type EmbeddedConfig struct {
	Targets        []string       `yaml:"targets"`
	ScrapeInterval model.Duration `yaml:"scrape_interval,omitempty"`
	Retention      model.Duration `yaml:"retention,omitempty"`
	StoragePath    string         `yaml:"storage_path,omitempty"`
	SeriesLimit    int            `yaml:"series_limit,omitempty"`
	// Scrape and query limits (0: the flag's value; see docs/CONFIG.md).
	BodySizeLimit         units.Base2Bytes `yaml:"body_size_limit,omitempty"`
	SampleLimit           int              `yaml:"sample_limit,omitempty"`
	LabelLimit            int              `yaml:"label_limit,omitempty"`
	LabelNameLengthLimit  int              `yaml:"label_name_length_limit,omitempty"`
	LabelValueLengthLimit int              `yaml:"label_value_length_limit,omitempty"`
	QueryMaxConcurrency   int              `yaml:"query_max_concurrency,omitempty"`
	QueryMaxSamples       int              `yaml:"query_max_samples,omitempty"`
	QueryTimeout          model.Duration   `yaml:"query_timeout,omitempty"`
}

// WebConfig is the server part of FileConfig.
type WebConfig struct {
	ListenAddress    string           `yaml:"listen_address,omitempty"`
	UpstreamTimeout  model.Duration   `yaml:"upstream_timeout,omitempty"`
	MaxResponseBytes units.Base2Bytes `yaml:"max_response_bytes,omitempty"`
	// CacheTTL: unset = the default 5 s; 0s = no cache.
	CacheTTL *model.Duration `yaml:"cache_ttl,omitempty"`
	// PreRenderTimeout: unset = --web.prerender-timeout (default
	// DefaultPreRenderTimeout); 0s = no numbers in the pre-rendered page.
	PreRenderTimeout *model.Duration `yaml:"prerender_timeout,omitempty"`
	AuthConfig       `yaml:",inline"`
}

// UnmarshalYAML starts from prometheus/common's HTTP client defaults.
func (s *FileSource) UnmarshalYAML(unmarshal func(any) error) error {
	type plain FileSource
	*s = FileSource{HTTPClient: config.DefaultHTTPClientConfig}
	return unmarshal((*plain)(s))
}

// LoadConfigFile reads and checks a FileConfig: unknown keys are errors;
// every source has a valid name, exactly one of url and embedded, valid
// HTTP client settings (relative files resolved against the file's
// directory); default_source names a source.
func LoadConfigFile(path string) (*FileConfig, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config file: %w", err)
	}
	c, err := ParseConfig(b)
	if err != nil {
		return nil, fmt.Errorf("config file %s: %w", path, err)
	}
	dir, _ := filepath.Abs(filepath.Dir(path))
	for i := range c.Sources {
		c.Sources[i].HTTPClient.SetDirectory(dir)
	}
	return c, nil
}

// ParseConfig parses and checks the YAML of a FileConfig (relative file
// names stay relative).
func ParseConfig(b []byte) (*FileConfig, error) {
	c := &FileConfig{}
	if err := yaml.UnmarshalStrict(b, c); err != nil {
		// The file's node tree, read once, names the keys in yaml's messages.
		var root yaml3.Node
		if yaml3.Unmarshal(b, &root) != nil {
			return nil, err
		}
		return nil, valueError(&root, unknownKeyError(&root, err))
	}
	if line := secondDocument(b); line > 0 {
		// yaml reads the first document only: the rest would be ignored
		// without a word.
		return nil, fmt.Errorf("line %d: a second YAML document (after ---): put every setting in one", line)
	}
	if len(c.Sources) == 0 {
		return nil, errors.New("no sources: list at least one under sources:")
	}
	seen := map[string]bool{}
	for _, s := range c.Sources {
		if !sourceName.MatchString(s.Name) {
			return nil, fmt.Errorf("source name %q: want 1 to 64 of A-Z a-z 0-9 _ . - (starting with a letter or digit)", s.Name)
		}
		if seen[s.Name] {
			return nil, fmt.Errorf("source %s listed twice", s.Name)
		}
		seen[s.Name] = true
		switch {
		case s.URL == "" && s.Embedded == nil:
			return nil, fmt.Errorf("source %s: give url or embedded", s.Name)
		case s.URL != "" && s.Embedded != nil:
			return nil, fmt.Errorf("source %s: give url or embedded, not both", s.Name)
		case s.Embedded != nil && len(s.Embedded.Targets) == 0:
			return nil, fmt.Errorf("source %s: embedded needs at least one target", s.Name)
		}
		if s.URL != "" {
			if _, err := parseUpstream(s.URL); err != nil {
				return nil, fmt.Errorf("source %s: %w", s.Name, err)
			}
			if err := s.HTTPClient.Validate(); err != nil {
				return nil, fmt.Errorf("source %s: HTTP client settings: %w", s.Name, err)
			}
		}
	}
	if c.DefaultSource != "" && !seen[c.DefaultSource] {
		return nil, fmt.Errorf("default_source %q is not among the sources", c.DefaultSource)
	}
	if _, err := newAuth(c.Web.AuthConfig); err != nil {
		return nil, err
	}
	return c, nil
}

// Source returns the server Source of a url source (embedded ones are
// built by the caller, who owns the engine).
func (s FileSource) Source() Source {
	var params url.Values
	if len(s.Params) > 0 {
		params = url.Values{}
		for k, v := range s.Params {
			params.Set(k, v)
		}
	}
	return Source{
		Name:           s.Name,
		Label:          s.Label,
		URL:            s.URL,
		HTTPClient:     s.HTTPClient,
		Params:         params,
		ScrapeInterval: time.Duration(s.ScrapeInterval),
	}
}

// secondDocument is the line of a second YAML document in b that holds
// something, 0 if none.
func secondDocument(b []byte) int {
	d := yaml3.NewDecoder(bytes.NewReader(b))
	for i := 0; ; i++ {
		var n yaml3.Node
		if d.Decode(&n) != nil {
			return 0
		}
		if i == 0 || len(n.Content) == 0 {
			continue
		}
		if c := n.Content[0]; c.Kind != yaml3.ScalarNode || c.Tag != "!!null" && c.Value != "" {
			return c.Line
		}
	}
}

// unknownField is yaml.v2's message for an unknown key under UnmarshalStrict;
// the type it names is a Go type (often a local "plain" alias), not
// where the key is in the file.
var unknownField = regexp.MustCompile(`^line (\d+): field (.+) not found in type \S+$`)

// cannotUnmarshal is yaml.v2's message for a value of the wrong kind
// (a list where a duration goes); it names the line, not the key.
var cannotUnmarshal = regexp.MustCompile(`^line (\d+): (cannot unmarshal .*)$`)

// unknownKeyError rewrites the unknown-key messages of err (a *yaml.TypeError
// of yaml.UnmarshalStrict; root is the file's node tree) to name the key
// by its path in the file, e.g. "line 4: unknown key
// sources[0].scrape_intervall", and the
// wrong-kind ones to name the key that, with its value, is on that line
// when one is ("line 2: web.prerender_timeout: cannot unmarshal !!seq into
// string"). Other errors, and keys whose path is not found, keep yaml's
// message.
func unknownKeyError(root *yaml3.Node, err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	msgs := make([]string, len(te.Errors))
	for i, e := range te.Errors {
		msgs[i] = e
		if m := unknownField.FindStringSubmatch(e); m != nil {
			line, _ := strconv.Atoi(m[1])
			if p := keyPath(root, line, m[2]); p != "" {
				msgs[i] = fmt.Sprintf("line %d: unknown key %s", line, p)
			}
		} else if m := cannotUnmarshal.FindStringSubmatch(e); m != nil {
			line, _ := strconv.Atoi(m[1])
			var paths []string
			walkMappings(root, "", func(k, v *yaml3.Node, path string) bool {
				if k.Line == line && v.Line == line { // not a block under a key above
					paths = append(paths, path)
				}
				return true
			})
			if len(paths) == 1 {
				msgs[i] = fmt.Sprintf("line %d: %s: %s", line, paths[0], m[2])
			}
		}
	}
	return errors.New(strings.Join(msgs, "; "))
}

// quotedValue is the value a field's parser quotes at the end of its
// message (prometheus/common's `not a valid duration string: "-1s"`).
var quotedValue = regexp.MustCompile(`\s("(?:[^"\\]|\\.)*")$`)

// valueError names the key and line of the value a field's parser refused
// (yaml.v2 passes such an error on without either: `not a valid duration
// string: "-1s"` for web.prerender_timeout: -1s), e.g. `line 2:
// web.prerender_timeout: not a valid duration string: "-1s"`, when the
// message quotes the value and the file has it once (an alias of it
// counting as another); otherwise err as it is.
func valueError(root *yaml3.Node, err error) error {
	if err == nil || strings.HasPrefix(err.Error(), "line ") {
		return err
	}
	m := quotedValue.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	v, uerr := strconv.Unquote(m[1])
	if uerr != nil {
		return err
	}
	var found []string
	line := 0
	walkMappings(root, "", func(_, n *yaml3.Node, path string) bool {
		if n.Kind == yaml3.AliasNode && n.Alias != nil {
			n = n.Alias // *d names &d's value: each key using it is a candidate
		}
		if n.Kind == yaml3.ScalarNode && n.Value == v {
			found, line = append(found, path), n.Line
		}
		return true
	})
	if len(found) != 1 {
		return err
	}
	return fmt.Errorf("line %d: %s: %w", line, found[0], err)
}

// keyPath is the path (sources[0].basic_auth.password_fil) of the mapping
// key named key on line line under n; "" if none.
func keyPath(n *yaml3.Node, line int, key string) string {
	found := ""
	walkMappings(n, "", func(k, _ *yaml3.Node, path string) bool {
		if k.Line == line && k.Value == key {
			found = path
			return false
		}
		return true
	})
	return found
}

// walkMappings calls f with every mapping key under n, its value and its
// path (prefix the path of n), in the file's order, until f returns false.
func walkMappings(n *yaml3.Node, prefix string, f func(k, v *yaml3.Node, path string) bool) bool {
	switch n.Kind {
	case yaml3.DocumentNode:
		for _, c := range n.Content {
			if !walkMappings(c, prefix, f) {
				return false
			}
		}
	case yaml3.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			path := k.Value
			if prefix != "" {
				path = prefix + "." + k.Value
			}
			if !f(k, v, path) || !walkMappings(v, path, f) {
				return false
			}
		}
	case yaml3.SequenceNode:
		for i, c := range n.Content {
			if !walkMappings(c, fmt.Sprintf("%s[%d]", prefix, i), f) {
				return false
			}
		}
	}
	return true
}
