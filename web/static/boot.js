// specdash: start the wasm at once (docs/PERFORMANCE.md, "Live dashboard").
//
// go-app's app.js runs deferred, after the whole page (its body waits for the
// server's pre-render load) has been parsed, and then reads app.wasm through
// a progress stream before compiling it. This script runs from the page's
// head, which the server sends before the body (server/pagestream.go): from
// when the page's body starts to arrive, it requests the wasm named by its
// data-wasm attribute and compiles it while it streams
// (WebAssembly.compileStreaming) in a dedicated worker (compile.js, named by
// data-compiler; on the main thread where there is none), while the body is
// parsed and painted. When app.js then asks for the wasm,
// it gets the compiled module:
//
//   - its fetch of that URL (once) answers at once with an empty body (the
//     bytes are already being compiled here);
//   - its WebAssembly.instantiateStreaming (once) instantiates the module
//     compiled here; if the early fetch or compile failed, it fetches and
//     compiles the wasm as go-app would, so the page starts either way.
//
// It also holds go-app's service worker registration back until the live
// dashboard is ready or failed (data-state "ready"/"error"), or 20 s at most
// after the wasm has come (or failed): the worker's install caches "/" (the
// server renders the page again, with a load) and every asset, which
// competed with the start for the CPU, and app.wasm, which it would ask for
// a second time while the page's download still runs.
//
// go-app's loader label shows the wasm's download as it comes (the worker
// counts its bytes), a download that stalled, and why the app could not be
// loaded when the server answered app.wasm with an error status (asked
// once; the service worker is then not registered).
//
// The module is handed over after the page's next painted frame (on a page
// whose preview is shown, after its first chart is drawn, 1 s at most):
// go-app then runs the Go program on the main thread.
//
// Performance marks: specdash:wasm:compile when the request and compile start,
// specdash:wasm:compiled when the module is compiled, and from the worker
// specdash:wasm-request and specdash:wasm-end (its fetch's start and end).
(function () {
  "use strict";
  // The theme of the first paint: a chosen one (?theme=, else the choice
  // the dashboard remembered in local storage, specdash.theme, stored as
  // JSON by go-app) as <html data-theme>, before the body is painted;
  // without one, specdash.css follows the OS (prefers-color-scheme).
  try {
    var theme = new URLSearchParams(location.search).get("theme");
    if (theme !== "dark" && theme !== "light") {
      theme = String(localStorage.getItem("specdash.theme") || "").replace(/"/g, "");
    }
    if (theme === "dark" || theme === "light") document.documentElement.setAttribute("data-theme", theme);
  } catch (e) { }
  // The browser's time zone for the server's pre-render of the next page
  // (server/zone.go, view.ZoneCookie): its "local" times are then the
  // browser's before the wasm runs (preview.js checks the zone it used).
  //
  // A page the server rendered in its own zone, since the request named
  // none (a first visit), carries the server zone's offset now in the
  // cookie specdash_tz_server (server/zone.go, view.ServerZoneCookie).
  // When the browser's offset differs, preview.js would skip that page's
  // numbers (their times are the server's), and the visitor would see none
  // until the live dashboard: the page is asked for once more, now with the
  // zone cookie, from here, before its body has come. The server's second
  // pre-render joins the first's queries (the proxy coalesces and caches
  // them). Once only: the zone cookie must have been absent before and be
  // set now, so the second request carries it.
  try {
    var cookie = function (name) {
      var m = document.cookie.match(new RegExp("(?:^|;\\s*)" + name + "=([^;]*)"));
      return m ? m[1] : null;
    };
    var hadZone = cookie("specdash_tz") !== null;
    var serverOffset = cookie("specdash_tz_server");
    if (serverOffset !== null) document.cookie = "specdash_tz_server=; path=/; max-age=0; samesite=lax";
    var tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (/^[A-Za-z0-9\/_+-]{1,64}$/.test(tz || "")) {
      document.cookie = "specdash_tz=" + tz + "; path=/; max-age=31536000; samesite=lax";
      if (!hadZone && serverOffset !== null && /^-?[0-9]{1,6}$/.test(serverOffset) &&
          Number(serverOffset) !== -60 * new Date().getTimezoneOffset() && cookie("specdash_tz") === tz) {
        window.stop();
        location.reload();
        return;
      }
    }
  } catch (e) { }

  // The browser zone's UTC offsets for the Go program (cmd/specdash's
  // browserLocal, view.ZoneFromOffsets): each Unix time (seconds) in the
  // Float64Array is replaced by the zone's offset there (seconds east of
  // UTC), as Date shows it. One call answers many times: a call from Go
  // to JavaScript costs far more than the answer.
  window.specdashZoneOffsets = function (secs) {
    var d = new Date(0);
    for (var i = 0; i < secs.length; i++) {
      d.setTime(secs[i] * 1000);
      secs[i] = -60 * d.getTimezoneOffset();
    }
  };

  var script = document.currentScript;
  var url = script && script.getAttribute("data-wasm");
  if (!url || typeof WebAssembly !== "object" || !WebAssembly.compileStreaming || !window.fetch) return;
  // A classic script in the head runs before go-app's deferred app.js; if
  // app.js ever ran first (it declares goappInitWebAssembly), it has
  // started the wasm itself: leave it alone. (Loaded async, this script
  // lost that race in 2 of 10 cold loads, when the body came quickly.)
  if (typeof window.goappInitWebAssembly === "function") return;

  var mark = function (name) {
    try { performance.mark(name); } catch (e) { }
  };

  var origFetch = window.fetch;
  var origInstantiate = WebAssembly.instantiateStreaming;
  // The wasm is requested and compiled from when the page's body starts to
  // arrive: before that the server is still rendering the page (its load is
  // bounded), and on a machine it shares with the browser the decoding and
  // compiling slowed that render past its bound (then the page came without
  // numbers).
  var compiled = null;
  // httpError is the failure of a wasm request the server answered with
  // status (not OK): asking again would get the same, so neither the page
  // nor go-app's fallback asks again (before: three requests); the page
  // says what failed instead.
  var httpError = function (status) {
    var err = new Error("app.wasm: HTTP " + status);
    err.status = status;
    return err;
  };
  // compileHere compiles on this (the main) thread: where the page cannot
  // start the compile worker, or the worker failed.
  var compileHere = function () {
    var response = origFetch(url, { credentials: "same-origin" }).then(function (resp) {
      if (!resp.ok) throw httpError(resp.status);
      return resp;
    });
    return WebAssembly.compileStreaming(response);
  };
  // compileInWorker compiles in web/static/compile.js (data-compiler), off
  // the main thread: there compileStreaming held the thread for 0.65-0.8 s
  // (no frame, no preview drawing, no hover). Its fetch's timings become
  // the marks specdash:wasm-request and specdash:wasm-end (a worker's
  // requests are not in the page's resource timings).
  //
  // The worker stays KEEP_COMPILER_MS after it posted the module: V8 writes
  // a module's compiled code into the browser's code cache (beside the
  // HTTP cache's entry of the wasm) once the Go program has run a while,
  // from the context that compiled it. Terminated at once, the worker never
  // did, and every visit compiled each of the ~3,700 functions the start
  // and the first load call on its first call, on the main thread (~0.3 s),
  // and the hot ones again for the top tier on the other core (~0.9 s of
  // CPU). Kept, a visit after the module was cached (from the third on:
  // the first caches the wasm's bytes, the second its code) takes the
  // compiled code from the cache (docs/PERFORMANCE.md, "Returning
  // visitors").
  var KEEP_COMPILER_MS = 120000;
  var compiler = script.getAttribute("data-compiler");

  // The loader's label (go-app's #app-wasm-loader-label, whose own text is
  // "Loading specdash…": its progress counted the empty body its fetch
  // gets here, 100 % at once): how much of the wasm has come, from the
  // worker's counts (data-wasm-length: its uncompressed size); for how
  // long nothing came once STALL_MS passed without a byte; "Starting
  // specdash…" once the module is compiled (go-app removes the loader when
  // the Go program runs).
  var STALL_MS = 15000;
  var wasmLength = Number(script.getAttribute("data-wasm-length")) || 0;
  var labelText = "";
  var label = function (text) {
    if (text) labelText = text;
    var el = document.getElementById("app-wasm-loader-label");
    if (el && labelText && el.textContent !== labelText) el.textContent = labelText;
  };
  var share = function (n) {
    if (wasmLength > 0) return Math.min(100, Math.floor(n * 100 / wasmLength)) + " %";
    return (n / 1e6).toFixed(1) + " MB";
  };

  var compileInWorker = function () {
    return new Promise(function (resolve, reject) {
      var w = new Worker(compiler);
      var started = false;
      var received = 0;
      var since = Date.now(); // the last byte's time (or the worker's start)
      var stall = 0;
      // watch re-arms the stall timer: a worker that has not answered by
      // then is given up (the page compiles the wasm itself); a download
      // that has stopped is said on the label, each STALL_MS again.
      var watch = function () {
        clearTimeout(stall);
        stall = setTimeout(function () {
          if (!started) return fail("it did not start within " + STALL_MS / 1000 + " s");
          label("Loading specdash… " + share(received) + ": nothing received for " + Math.round((Date.now() - since) / 1000) + " s");
          watch();
        }, STALL_MS);
      };
      var fail = function (why, status) {
        clearTimeout(stall);
        w.terminate();
        reject(status ? httpError(status) : new Error("compile worker: " + why));
      };
      w.onmessage = function (e) {
        var d = e.data || {};
        if (d.started) {
          started = true;
          return watch();
        }
        if (typeof d.received === "number") {
          if (d.received > received || d.done) since = Date.now();
          received = Math.max(received, d.received);
          if (d.done) clearTimeout(stall);
          else watch();
          return label("Loading specdash… " + share(received));
        }
        clearTimeout(stall);
        if (!(d.module instanceof WebAssembly.Module)) return fail(d.error || "no module", d.status);
        setTimeout(function () { w.terminate(); }, KEEP_COMPILER_MS);
        try {
          var shift = d.origin - performance.timeOrigin;
          if (d.request) performance.mark("specdash:wasm-request", { startTime: Math.max(0, d.request + shift) });
          if (d.end) performance.mark("specdash:wasm-end", { startTime: Math.max(0, d.end + shift) });
        } catch (err) { }
        resolve(d.module);
      };
      w.onerror = function (e) {
        if (e && e.preventDefault) e.preventDefault();
        // A script that did not load gives an event without a message.
        fail((e && e.message) || compiler + " did not load or failed to start");
      };
      w.onmessageerror = function () { fail("its answer could not be read"); };
      w.postMessage(url);
      watch();
    });
  };
  // wasmSettled: the wasm has come and compiled, or failed (the service
  // worker's 20 s hold counts from then; set below).
  var wasmSettled = function () { };
  var compile = function () {
    if (compiled) return compiled;
    mark("specdash:wasm:compile");
    // compileInWorker's promise rejects when the worker cannot start too.
    var module = compiler && window.Worker ? compileInWorker().catch(function (err) {
      if (err.status) throw err;
      try { console.warn("specdash: " + err.message + "; compiling app.wasm on the main thread"); } catch (e) { }
      return compileHere();
    }) : compileHere();
    compiled = module.then(function (m) {
      mark("specdash:wasm:compiled");
      label("Starting specdash…");
      return m;
    });
    compiled.catch(function () { }); // handled when app.js asks
    var settled = function () { wasmSettled(); }; // as set when it settles
    compiled.then(settled, settled);
    return compiled;
  };
  var bodyArrived = function () {
    return !!(document.body && document.body.firstElementChild);
  };
  if (bodyArrived()) {
    compile();
  } else {
    try {
      var bodyWatch = new MutationObserver(function () {
        if (bodyArrived()) {
          bodyWatch.disconnect();
          compile();
        }
      });
      bodyWatch.observe(document, { childList: true, subtree: true });
    } catch (e) {
      compile();
    }
  }

  var fetchTaken = false;
  window.fetch = function (input, init) {
    if (!fetchTaken && input === url) {
      fetchTaken = true;
      window.fetch = origFetch;
      return Promise.resolve(new Response(new Uint8Array(0), { status: 200, headers: { "Content-Type": "application/wasm" } }));
    }
    return origFetch.apply(this, arguments);
  };

  // After the next painted frame (a timer set in an animation frame runs
  // after that frame), or 100 ms at most (no frames in a hidden tab).
  var afterPaint = function () {
    return new Promise(function (resolve) {
      setTimeout(resolve, 100);
      try {
        requestAnimationFrame(function () { setTimeout(resolve, 0); });
      } catch (e) {
        resolve();
      }
    });
  };

  // previewDrawn waits, on a page whose preview is shown (preview.js), for
  // its first chart drawn by ECharts (the event specdash:preview-drawn),
  // 1 s at most: the Go program's start holds the main thread for a
  // second, and a preview chart drawn before it answers hovers during it.
  var previewDrawn = function () {
    return new Promise(function (resolve) {
      if (window.__specdashPreviewDrawn || document.body.getAttribute("data-preview") !== "shown") return resolve();
      document.addEventListener("specdash:preview-drawn", function () { resolve(); });
      setTimeout(resolve, 1000);
    });
  };

  // DOMContentLoaded comes after every deferred script has run, preview.js
  // included: go-app must not mount (replacing the body's first child)
  // before preview.js has moved the pre-rendered page into its overlay.
  var parsed = new Promise(function (resolve) {
    document.addEventListener("DOMContentLoaded", function () { resolve(); });
  });
  // go-app's app.js (deferred) writes its label once it runs.
  parsed.then(function () { label(); });

  WebAssembly.instantiateStreaming = function (source, imports) {
    WebAssembly.instantiateStreaming = origInstantiate;
    if (!fetchTaken) return origInstantiate.call(WebAssembly, source, imports); // not go-app's wasm
    // go-app runs the Go program (runtime and package init, its first
    // render: a few hundred ms of main thread) as soon as this resolves:
    // after the deferred scripts (preview.js) and the next painted frame.
    // With a compiled module ready early, go-app otherwise mounted before
    // preview.js ran (the pre-rendered page was replaced by the empty live
    // one) or held up the first paint.
    return Promise.all([compile(), parsed.then(previewDrawn).then(afterPaint)]).then(function (r) {
      var m = r[0];
      label(); // after app.js's own writes
      return WebAssembly.instantiate(m, imports).then(function (instance) {
        return { module: m, instance: instance };
      });
    }, function (err) {
      if (err && err.status) {
        // go-app's loader shows this message (its label); preview.js's
        // hint says it too (specdash:start-failed).
        var msg = "specdash could not load its app: app.wasm answered HTTP " + err.status + "; reload the page to try again";
        window.__specdashStartFailed = msg;
        swBlocked = true; // its install would ask for app.wasm again
        try { document.dispatchEvent(new CustomEvent("specdash:start-failed", { detail: msg })); } catch (e) { }
        throw new Error(msg);
      }
      return origInstantiate.call(WebAssembly, origFetch(url, { credentials: "same-origin" }), imports);
    });
  };

  // go-app's service worker: registered once the live dashboard is up;
  // never when the wasm could not be loaded (swBlocked: the worker's
  // install caches app.wasm, so it would ask for it again).
  var swBlocked = false;
  var sw = navigator.serviceWorker;
  if (sw && sw.register) {
    var origRegister = sw.register;
    var released = false;
    var waiting = [];
    var release = function () {
      if (released) return;
      released = true;
      if (observer) observer.disconnect();
      if (swBlocked) return;
      for (var i = 0; i < waiting.length; i++) waiting[i]();
    };
    var observer = null;
    var check = function () {
      var root = document.body && document.body.firstElementChild;
      var state = root && root.getAttribute("data-state");
      if (state === "ready" || state === "error") release();
    };
    try {
      observer = new MutationObserver(check);
      observer.observe(document, { subtree: true, attributes: true, attributeFilter: ["data-state"] });
    } catch (e) {
      released = true;
    }
    // 20 s after the wasm has come or failed, not from the page's start: a
    // download slower than that (a slow link, a stalled answer: e2e
    // TestWasmLoaderProgress) had the worker's install ask for app.wasm
    // a second time beside it.
    wasmSettled = function () { setTimeout(release, 20000); };
    sw.register = function () {
      var self = this, args = arguments;
      sw.register = origRegister;
      if (released && !swBlocked) return origRegister.apply(self, args);
      return new Promise(function (resolve) {
        waiting.push(resolve);
      }).then(function () {
        return origRegister.apply(self, args);
      });
    };
  }
})();
