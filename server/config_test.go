package server

import (
	"testing"
)

// TestParseConfigUnknownKey: an unknown key is named by its path in the
// file and its line (yaml.v2 names a Go type instead, "server.plain" for a
// source); every unknown key is listed; other YAML errors keep their
// message.
func TestParseConfigUnknownKey(t *testing.T) {
	for _, tc := range []struct{ yml, want string }{
		{"sources:\n  - name: a\n    url: http://x\n    scrape_intervall: 15s\n",
			"line 4: unknown key sources[0].scrape_intervall"},
		{"sources:\n  - name: a\n    url: http://x\n  - name: b\n    embedded:\n      targets: [http://y]\n      retension: 6h\n",
			"line 7: unknown key sources[1].embedded.retension"},
		{"sources:\n  - name: a\n    url: http://x\n    basic_auth: {username: u, pasword_file: /p}\nfoo: 1\n",
			"line 4: unknown key sources[0].basic_auth.pasword_file; line 5: unknown key foo"},
		{"sources:\n  - name: a\n    url: http://x\nweb:\n  listen_adress: \":8080\"\n",
			"line 5: unknown key web.listen_adress"},
	} {
		_, err := ParseConfig([]byte(tc.yml))
		if err == nil || err.Error() != tc.want {
			t.Errorf("ParseConfig(%q): %v, want %q", tc.yml, err, tc.want)
		}
	}
	// A value its parser refuses is named by its key and line too.
	for _, tc := range []struct{ yml, want string }{
		{"sources:\n  - name: a\n    url: http://x\n    scrape_interval: soon\n",
			`line 4: sources[0].scrape_interval: not a valid duration string: "soon"`},
		{"web:\n  prerender_timeout: -1s\nsources:\n  - name: a\n    url: http://x\n",
			`line 2: web.prerender_timeout: not a valid duration string: "-1s"`},
		{"sources:\n  - name: a\n    embedded:\n      targets: [http://y]\n      retention: 1 week\n",
			`line 5: sources[0].embedded.retention: unknown unit " week" in duration "1 week"`},
		// A value of the wrong kind: the key whose value starts on that line.
		{"web:\n  prerender_timeout: [-1s]\nsources:\n  - name: a\n    url: http://x\n",
			`line 2: web.prerender_timeout: cannot unmarshal !!seq into string`},
		{"sources:\n  - name: a\n    embedded:\n      targets: [http://y]\n      series_limit: lots\n",
			"line 5: sources[0].embedded.series_limit: cannot unmarshal !!str `lots` into int"},
		// A second document would be ignored: refused, named by its line.
		{"sources:\n  - name: a\n    url: http://x\n---\nweb: {prerender_timeout: 5s}\n",
			"line 5: a second YAML document (after ---): put every setting in one"},
		// The same bad value twice, or once with an alias: yaml's message, no guess.
		{"sources:\n  - name: a\n    label: &d -1s\n    url: http://x\n    scrape_interval: *d\n",
			`not a valid duration string: "-1s"`},
		{"web:\n  cache_ttl: soon\n  upstream_timeout: soon\nsources:\n  - name: a\n    url: http://x\n",
			`not a valid duration string: "soon"`},
	} {
		_, err := ParseConfig([]byte(tc.yml))
		if err == nil || err.Error() != tc.want {
			t.Errorf("ParseConfig(%q): %v, want %q", tc.yml, err, tc.want)
		}
	}
	// Document markers around one document, or an empty one after it, are fine.
	for _, yml := range []string{
		"---\nsources:\n  - name: a\n    url: http://x\n",
		"sources:\n  - name: a\n    url: http://x\n---\n",
		"sources:\n  - name: a\n    url: http://x\n---\n# nothing\n...\n",
	} {
		if _, err := ParseConfig([]byte(yml)); err != nil {
			t.Errorf("ParseConfig(%q): %v, want one document read", yml, err)
		}
	}
}

// TestParseConfigPreRenderTimeout: web.prerender_timeout unset is nil (the
// flag's value), 0s is a zero duration (no numbers in the pre-rendered
// page), 2s is 2s.
func TestParseConfigPreRenderTimeout(t *testing.T) {
	const src = "sources:\n  - name: a\n    url: http://x\n"
	for _, tc := range []struct {
		web  string
		want string
	}{
		{"", "unset"},
		{"web:\n  prerender_timeout: 0s\n", "0s"},
		{"web:\n  prerender_timeout: 2s\n", "2s"},
	} {
		c, err := ParseConfig([]byte(src + tc.web))
		if err != nil {
			t.Fatalf("%q: %v", tc.web, err)
		}
		got := "unset"
		if d := c.Web.PreRenderTimeout; d != nil {
			got = d.String()
		}
		if got != tc.want {
			t.Errorf("%q: prerender_timeout %s, want %s", tc.web, got, tc.want)
		}
	}
}
