// Package browsertest holds the headless Chromium settings shared by the
// end-to-end tests (e2e/) and the benchmarks (bench/): Debian's Chromium,
// the flags this machine kind needs (no sandbox as root, no GPU, no
// background network traffic), a fresh profile per browser.
package browsertest

import "github.com/chromedp/chromedp"

// ChromiumPath is Debian's Chromium (package chromium, installed by make deps).
const ChromiumPath = "/usr/bin/chromium"

// AllocatorOptions are the chromedp.NewExecAllocator options for a headless
// Chromium with a fresh profile in profileDir and a 1440x1000 window.
func AllocatorOptions(profileDir string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(ChromiumPath),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.UserDataDir(profileDir),
		chromedp.WindowSize(1440, 1000),
	}
}
