//go:build !js

package e2e

import (
	"context"
	"io/fs"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"specdash/internal/browsertest"
	"specdash/web"
)

// One headless Chromium per test binary; each test gets its own tab.
var (
	browserOnce   sync.Once
	browserCtx    context.Context
	browserErr    error
	browserCancel = func() {}
	profileDir    string
)

func TestMain(m *testing.M) {
	code := m.Run()
	browserCancel()
	if profileDir != "" {
		os.RemoveAll(profileDir)
	}
	os.Exit(code)
}

// needAssets fails the test when the front end is not built or Chromium is
// missing (real parts: never skip).
func needAssets(t *testing.T) {
	t.Helper()
	skipShort(t)
	if _, err := fs.Stat(web.FS, "dist/app.wasm"); err != nil {
		t.Fatalf("web/dist/app.wasm is not built (embedded web.FS has none): run `make assets` first, then rerun the test")
	}
	if _, err := fs.Stat(web.FS, "dist/echarts.min.js"); err != nil {
		t.Fatalf("web/dist/echarts.min.js is missing: run `make assets` first, then rerun the test")
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("%s not found (%v): install it with `make deps`", chromiumPath, err)
	}
}

// skipShort skips a browser test under -short: every e2e test drives a
// real Chromium (make test runs them).
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs Chromium (skipped under -short; make test runs it)")
	}
}

// newTab opens a tab of the shared browser (started on first use), closed
// with the test; on failure the tab's console errors are logged.
func newTab(t *testing.T) context.Context {
	t.Helper()
	needAssets(t)
	browserOnce.Do(func() {
		profileDir, browserErr = os.MkdirTemp("", "specdash-e2e-chromium-")
		if browserErr != nil {
			return
		}
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), browsertest.AllocatorOptions(profileDir)...)
		b, cancelB := chromedp.NewContext(alloc)
		browserCtx = b
		browserCancel = func() { cancelB(); cancelAlloc() }
		browserErr = chromedp.Do(b) // starts the browser
	})
	if browserErr != nil {
		t.Fatalf("start chromium: %v", browserErr)
	}
	tab, cancel := chromedp.NewContext(browserCtx)
	t.Cleanup(cancel)
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("open tab: %v", err)
	}
	var consoleLog []string
	logConsole(tab, &consoleLog)
	t.Cleanup(func() {
		if t.Failed() && len(consoleLog) > 0 {
			t.Logf("browser console:\n%s", strings.Join(consoleLog, "\n"))
		}
	})
	return tab
}
