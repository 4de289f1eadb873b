package server

import (
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// go-app's service worker (app-worker.js, app.DefaultAppWorkerJS) answers
// every request of the page it controls: it looks the request up in its
// cache and, when it is not there, fetches it itself. For specdash that put
// the worker between the page and its data: every /prom query (POST
// included) of a returning visitor, and of every refresh of an open
// dashboard, went through the worker's thread, a cache look-up that
// always misses and a second fetch from the worker; and a visit to "/"
// was answered cache-first, with the page cached when the worker was
// installed, whose hours-old pre-rendered numbers preview.js refuses to
// show (in Chromium the cached "/" did not match a navigation, whose
// headers differ: network-first says what is meant).
//
// workerFetch replaces the worker's fetch handler:
//
//   - the data path (/prom/, every method) and anything but a same-origin
//     GET never reach the worker's code: Chromium's static routing
//     (InstallEvent.addRoutes) sends /prom/ straight to the network; where
//     that API is missing, the handler returns without answering, and the
//     browser fetches the request as if there were no worker;
//   - pages (navigations) come from the network, the cached copy only when
//     the network fails (offline);
//   - assets stay cache-first, as go-app has them (their URLs carry a
//     content hash or go-app's version).
const workerFetch = `// specdash (server/worker.go): the data path bypasses the worker; pages
// come from the network (the cache only offline); assets cache-first.
const specdashDataPrefix = "/prom/";

self.addEventListener("install", (event) => {
  if (!event.addRoutes || typeof URLPattern === "undefined") {
    return;
  }
  try {
    event.waitUntil(event.addRoutes([
      { condition: { urlPattern: new URLPattern({ pathname: specdashDataPrefix + "*" }) }, source: "network" },
    ]).catch(() => {}));
  } catch (error) {
    // An older static routing API: the fetch handler below lets the
    // data path through instead.
  }
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  let url;
  try {
    url = new URL(request.url);
  } catch (error) {
    return;
  }
  if (request.method !== "GET" || url.origin !== self.location.origin || url.pathname.startsWith(specdashDataPrefix)) {
    return; // the browser's own fetch, as without a worker
  }
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(async (error) => {
      const cached = (await caches.match(request)) || (await caches.match("/"));
      if (cached) {
        return cached;
      }
      throw error;
    }));
    return;
  }
  event.respondWith(fetchWithCache(request));
});`

// goappWorkerFetch is the fetch handler of go-app's worker that
// workerFetch replaces (TestWorkerTemplate fails when a go-app upgrade
// changes it).
const goappWorkerFetch = `self.addEventListener("fetch", (event) => {
  event.respondWith(fetchWithCache(event.request));
});`

// workerTemplate is go-app's worker with workerFetch in place of its fetch
// handler (its install, activate, cache and push code unchanged); go-app's
// own template if its fetch handler is not found.
func workerTemplate() string {
	if !strings.Contains(app.DefaultAppWorkerJS, goappWorkerFetch) {
		return app.DefaultAppWorkerJS
	}
	return strings.Replace(app.DefaultAppWorkerJS, goappWorkerFetch, workerFetch, 1)
}
