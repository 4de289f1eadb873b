package server

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"golang.org/x/crypto/bcrypt"
)

// AuthConfig is the optional access control of the whole server (pages,
// assets, proxy, /metrics); /-/healthy and /-/ready stay open for probes.
// At most one mode may be set.
type AuthConfig struct {
	// BasicAuthUsers maps user names to bcrypt hashes of their passwords
	// (as Prometheus' web config: `htpasswd -nBC 10 "" | tr -d ':\n'`).
	BasicAuthUsers map[string]string `yaml:"basic_auth_users,omitempty"`
	// TrustedHeader is the trusted-header mode behind an SSO proxy (e.g.
	// oauth2-proxy's X-Forwarded-User, or X-Forwarded-Email): a request
	// without a non-empty header is refused with 401. The proxy in front
	// MUST set or strip this header on every request, and specdash must be
	// reachable only through it (listen on loopback or a private network):
	// anyone who can reach specdash directly can send the header.
	TrustedHeader string `yaml:"trusted_header,omitempty"`
}

type auth struct {
	users  map[string][]byte
	header string

	mu sync.Mutex
	ok map[[32]byte]bool // verified user+password digests (bcrypt is slow)
}

func newAuth(c AuthConfig) (*auth, error) {
	if len(c.BasicAuthUsers) > 0 && c.TrustedHeader != "" {
		return nil, errors.New("server: auth: basic_auth_users and trusted_header both set: choose one")
	}
	a := &auth{header: http.CanonicalHeaderKey(strings.TrimSpace(c.TrustedHeader)), ok: map[[32]byte]bool{}}
	if len(c.BasicAuthUsers) > 0 {
		a.users = map[string][]byte{}
		for u, h := range c.BasicAuthUsers {
			if _, err := bcrypt.Cost([]byte(h)); err != nil {
				return nil, fmt.Errorf("server: auth: user %q: password hash is not bcrypt: %v", u, err)
			}
			a.users[u] = []byte(h)
		}
	}
	return a, nil
}

// wrap protects h.
func (a *auth) wrap(h http.Handler) http.Handler {
	if a.users == nil && a.header == "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/-/healthy" || r.URL.Path == "/-/ready" {
			h.ServeHTTP(w, r)
			return
		}
		if a.header != "" {
			if strings.TrimSpace(r.Header.Get(a.header)) == "" {
				http.Error(w, "specdash: not authenticated (no "+a.header+" header from the sign-in proxy)", http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
			return
		}
		user, pass, ok := r.BasicAuth()
		if !ok || !a.check(user, pass) {
			w.Header().Set("WWW-Authenticate", `Basic realm="specdash", charset="UTF-8"`)
			http.Error(w, "specdash: unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func (a *auth) check(user, pass string) bool {
	hash, known := a.users[user]
	digest := sha256.Sum256([]byte(user + "\x00" + pass))
	a.mu.Lock()
	cached := a.ok[digest]
	a.mu.Unlock()
	if cached && known {
		return true
	}
	if !known {
		// Same work for unknown users (no user enumeration by timing).
		hash = []byte("$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi")
	}
	err := bcrypt.CompareHashAndPassword(hash, []byte(pass))
	if err != nil || !known {
		return false
	}
	a.mu.Lock()
	if len(a.ok) > 1000 {
		a.ok = map[[32]byte]bool{}
	}
	a.ok[digest] = true
	a.mu.Unlock()
	return true
}
