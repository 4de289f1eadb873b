// specdash: compile the wasm off the page's main thread (a dedicated
// worker started by boot.js; docs/PERFORMANCE.md, "Live dashboard").
//
// WebAssembly.compileStreaming on the page's main thread held that thread
// for 0.65-0.8 s on a 2-core machine (its streaming decoder runs there): no
// frame was painted and the preview's charts could not be drawn or hovered
// until the module was compiled. Here it runs on this worker's thread; the
// compiled module is posted back (a WebAssembly.Module is shared, not
// copied) and instantiated on the page.
//
// The page keeps this worker a while after the module is posted (boot.js,
// KEEP_COMPILER_MS): V8 writes the module's compiled code into the
// browser's code cache through the compile it started here.
//
// Message in: the wasm's URL (same origin). Messages out: {started} at
// once; {received, done} (the wasm's bytes received so far, uncompressed)
// for the page's loader (count); then {module, request, end} (the fetch's
// start and last byte, in ms since this worker's performance.timeOrigin,
// for the page's marks) or {error, status}: every failure, posting the
// module included, answers {error}, with the HTTP status of an answer that
// was not OK.
var PROGRESS_MS = 100;

// count reads a copy of the wasm's body (Response.clone: the compile reads
// the other; the code cache still works, e2e TestWasmCodeCached) and posts
// how many bytes have come, PROGRESS_MS after the first byte of each
// period (so that the last count before a stall is posted too) and at the
// end. Its failures are the compile's too.
function count(resp) {
  "use strict";
  var reader = resp.body.getReader();
  var n = 0;
  var timer = 0;
  var post = function () {
    timer = 0;
    self.postMessage({ received: n, done: false });
  };
  var next = function () {
    return reader.read().then(function (r) {
      if (r.done) {
        clearTimeout(timer);
        self.postMessage({ received: n, done: true });
        return;
      }
      n += r.value.byteLength;
      if (!timer) timer = setTimeout(post, PROGRESS_MS);
      return next();
    });
  };
  next().catch(function () { clearTimeout(timer); });
}

self.onmessage = function (e) {
  "use strict";
  var url = String(e.data);
  var t0 = performance.now();
  self.postMessage({ started: true });
  fetch(url, { credentials: "same-origin" }).then(function (resp) {
    if (!resp.ok) {
      var bad = new Error("app.wasm: HTTP " + resp.status);
      bad.status = resp.status;
      throw bad;
    }
    if (resp.body) count(resp.clone());
    return WebAssembly.compileStreaming(resp);
  }).then(function (m) {
    var end = 0;
    var entries = performance.getEntriesByName(new URL(url, self.location.href).href);
    if (entries.length > 0) {
      t0 = entries[0].requestStart || entries[0].startTime;
      end = entries[0].responseEnd;
    }
    self.postMessage({ module: m, origin: performance.timeOrigin, request: t0, end: end });
  }).catch(function (err) {
    // The fetch or the compile failed, or the module could not be posted
    // (a browser that cannot share a WebAssembly.Module with the page
    // throws DataCloneError): the page then compiles on its own thread.
    self.postMessage({ error: String((err && err.message) || err), status: (err && err.status) || 0 });
  });
};
