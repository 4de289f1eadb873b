// specdash first paint, before the wasm runs (app/prerender.go).
//
// The server pre-renders the dashboard with its numbers; each chart with an
// option carries it in data-option (base64 of the option JSON: go-app writes
// pre-rendered attributes with strconv.Quote, not HTML escaping), with
// data-preview-at (server time, Unix ms) and data-preview-url (base64url of
// the page's path and query); the server also drew the charts
// as static HTML and SVG inside their divs ([data-chart-static], package
// chartsvg), so they are on screen with the first paint, and specdash.css
// shows go-app's full-page loader as a small badge over a preview. This
// script (deferred) also runs ECharts, which the page preloads: at once
// without a fresh preview, after the first frame with one (see loadECharts).
// It:
//
//  1. leaves the page alone unless the body's first element is a pre-rendered
//     dashboard (data-state="preview") rendered less than MAX_AGE_MS ago for
//     this very URL (go-app's service worker may serve an old copy of "/")
//     in a zone with the browser's UTC offsets (data-zone-offsets),
//     and then marks the body data-preview="skipped" (the full-page loader
//     comes back over the old numbers);
//  2. hands the live page the pre-render's load time (data-load-at) and
//     answers (data-answers, then dropped from the DOM): its first load
//     reads at that time and takes those answers instead of asking the
//     proxy (app/prerender.go firstLoadAt, previewAnswers);
//  3. moves that root into an overlay (#specdash-preview: on top, opaque,
//     same layout, pointer-events: none but on its charts and the controls
//     that work without the wasm (works: the view's selects, group-by
//     boxes, sort buttons, filter menus and Live go to the page they
//     choose, Refresh reloads; the control that led here gets the focus), its other
//     controls inert, with a "starting" hint)
//     and puts an empty first child in its place: go-app's engine replaces
//     the body's first child when the wasm mounts, so the live dashboard
//     grows underneath;
//  4. after the first frame, runs ECharts and draws with it (no animation)
//     the pre-rendered charts within NEAR_PX of the viewport, one per frame
//     in page order, each replacing its static drawing in the same task;
//     a chart further down keeps its static drawing until it scrolls near
//     (the live page draws only the charts in view too: drawing the others
//     twice cost the main thread ~0.1 s a chart while the wasm started);
//     the first chart drawn leaves the mark specdash:preview:first-chart
//     and sends the document the event specdash:preview-drawn (boot.js
//     starts the Go program after it);
//     a span selected on a time chart loads the page zoomed to it
//     (zoomable, zoomURL), as on the live page;
//  5. hands the charts it drew over to the live page (window.specdashPreview
//     .take, which charts.js adopt calls: a live chart takes the one drawn
//     here, updated to its own option when that differs, instead of
//     drawing one anew), and
//     removes the overlay when the live dashboard is ready or failed
//     (data-state "ready"/"error", checked on every DOM change: the overlay
//     goes in the task that made the live dashboard ready, so a ready live
//     dashboard is never hidden or doubled), or SAFETY_MS after the live
//     dashboard mounted, whichever comes first, handing the filter menus
//     left open (with their search text) and the focus to the live page
//     (handOver).
//
// Label values (model names) in the options stay data: options are parsed
// with JSON.parse and handed to ECharts; nothing here writes HTML.
(function () {
  "use strict";
  var MAX_AGE_MS = 60000; // older previews are skipped (stale numbers)
  var SAFETY_MS = 15000; // the overlay never outlives the mounted wasm by more
  var NEAR_PX = 200; // a chart this close to the viewport is drawn (app.LazyMargin)
  var KEEP_MS = 60000; // a drawn chart waits this long after the overlay for the live page

  function decode(b64) {
    var bin = atob(b64);
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new TextDecoder("utf-8").decode(bytes);
  }
  function decodeURLSafe(b64) {
    var s = b64.replace(/-/g, "+").replace(/_/g, "/");
    while (s.length % 4) s += "=";
    return decode(s);
  }

  // ECharts: the page preloads it (server/server.go) and this script runs
  // it: at once, or, on a page with a fresh preview, after the first frame
  // (the static drawings are painted before its 50-100 ms of script).
  // then (optional) runs once it has run.
  function loadECharts(then) {
    if (window.echarts) {
      if (then) then();
      return;
    }
    var s = document.querySelector('script[src*="echarts"]');
    if (!s) {
      var link = document.querySelector('link[rel="preload"][href*="echarts"]');
      if (!link) return;
      s = document.createElement("script");
      s.src = link.href;
      document.head.appendChild(s);
    }
    if (then) s.addEventListener("load", function () { if (window.echarts) then(); });
  }

  // go loads the page of a data-href (base64url of a path and query on
  // this site), never another origin's, once; el, the control, gets the
  // focus back on the new page (focusBack, by its focusKey).
  var FOCUS_KEY = "specdash.previewFocus";
  var leaving = false;
  function go(href, el) {
    if (!href) return;
    try {
      goURL(decodeURLSafe(href), el);
    } catch (e) {
      // Not base64: the control does nothing, as an inert one.
    }
  }
  function goURL(href, el) {
    if (!href || leaving) return;
    try {
      var u = new URL(href, location.href);
      if (u.origin !== location.origin) return;
      leaving = true;
      try {
        var key = focusKey(el);
        if (key) sessionStorage.setItem(FOCUS_KEY, key);
      } catch (e) { }
      location.assign(u.href);
    } catch (e) {
      // Not a URL: the control does nothing, as an inert one.
    }
  }

  // decodeOption is the label value of a filter box's value or a chip's
  // data-value (view.EncodeOption: "v:" and base64url); null for another
  // string.
  function decodeOption(s) {
    s = String(s || "");
    if (s.indexOf("v:") !== 0) return null;
    try {
      return decodeURLSafe(s.slice(2));
    } catch (e) {
      return null;
    }
  }

  // filterURL is the page the filter menu menu leads to when value v is
  // turned on or off: its data-filter-href (the page without this
  // label's filter, view.FilterHref) with one data-filter-param parameter
  // per value kept (the chips' values, v added or removed), sorted, as
  // the live page's Query.SetFilter writes them. "" for no value.
  function filterURL(menu, v, on) {
    if (v === null) return "";
    var vals = [];
    var chips = menu.querySelectorAll("[data-chip]");
    for (var i = 0; i < chips.length; i++) {
      var c = decodeOption(chips[i].getAttribute("data-value"));
      if (c !== null && c !== v && vals.indexOf(c) < 0) vals.push(c);
    }
    if (on) vals.push(v);
    vals.sort();
    var u = new URL(decodeURLSafe(menu.getAttribute("data-filter-href")), location.href);
    for (var j = 0; j < vals.length; j++) u.searchParams.append(menu.getAttribute("data-filter-param"), vals[j]);
    return u.pathname + u.search;
  }

  // zoomURL is the page a span selected on a pre-rendered time chart el
  // leads to: its data-zoom-href (the server's zoom on the whole window)
  // with from and to set to the start of the first and the end of the
  // last bucket of the span (category indices from..to; on the heatmap,
  // columns, whose first buckets are data-zoom-first), as the live page's
  // view.Query.Zoom sets them; the grid is the dashboard root's
  // (data-window-start, data-step-seconds, data-buckets). "" when the span
  // holds no bucket. (e2e TestPreviewZoom)
  function zoomURL(el, from, to) {
    var href = el.getAttribute("data-zoom-href");
    var root = el.closest("[data-dashboard]");
    if (!href || !root) return "";
    var start = Number(root.getAttribute("data-window-start"));
    var step = Math.round(Number(root.getAttribute("data-step-seconds")) * 1000);
    var n = Number(root.getAttribute("data-buckets"));
    if (!(step > 0 && n > 0 && isFinite(start))) return "";
    var first = el.getAttribute("data-zoom-first");
    if (first) {
      first = first.split(",").map(Number);
      if (from < 0 || to < from || from >= first.length) return "";
      var b = first[from];
      to = to + 1 < first.length ? first[to + 1] - 1 : n - 1;
      from = b;
    }
    from = Math.max(from, 0);
    to = Math.min(to, n - 1);
    if (to < from) return "";
    // RFC 3339 in UTC, as the server writes them (view.formatTime).
    var iso = function (ms) { return new Date(ms).toISOString().replace(/\.000Z$/, "Z"); };
    var u = new URL(decodeURLSafe(href), location.href);
    u.searchParams.set("from", iso(start + from * step));
    u.searchParams.set("to", iso(start + (to + 1) * step));
    return u.pathname + u.search;
  }

  // zoomable lets a span selected on the pre-rendered chart el (drawn on
  // inst) load the page zoomed to it, as on the live page (charts.js
  // update and app/chart.go's brushEnd handler); it reports whether it
  // did (and took the brush cursor).
  function zoomable(el, inst, opt) {
    if (!opt.brush || !el.hasAttribute("data-zoom-href")) return false;
    inst.dispatchAction({ type: "takeGlobalCursor", key: "brush", brushOption: { brushType: "lineX", brushMode: "single" } });
    inst.on("brushEnd", function (ev) {
      var r = ev && ev.areas && ev.areas[0] && ev.areas[0].coordRange;
      if (!r || r.length < 2) return;
      var a = Math.round(r[0]), b = Math.round(r[1]);
      goURL(zoomURL(el, Math.min(a, b), Math.max(a, b)));
    });
    return true;
  }

  // reset shows a control as the server rendered it, which its hrefs are
  // for: the browser may have restored another state (Back restores form
  // controls).
  function reset(el) {
    if (el.matches("select")) {
      for (var i = 0; i < el.options.length; i++) el.options[i].selected = el.options[i].defaultSelected;
    } else if (el.matches('input[type="checkbox"]')) {
      el.checked = el.defaultChecked;
    } else if (el.matches("input.filter-search")) {
      el.value = el.defaultValue;
      var menu = el.closest("[data-filter-href]");
      if (menu) showMatching(menu, el.value);
    }
  }

  // works makes a control of the preview work before the wasm runs, as a
  // plain link would, and says whether it did: a select whose options carry
  // data-href (the page the choice leads to, the server's
  // view.SelectHref), or a checkbox or button that carries it (the
  // group-by labels, the table's sort buttons, Live: view.EditHref), goes
  // there when changed or clicked; the Refresh button loads the page again
  // (the server renders it with fresh numbers). A select changed from the
  // keyboard (the arrows step through a closed select's options) goes on
  // Enter or when it loses the focus, so that a keyboard user can read the
  // options first. The filter menus work too (filterURL), their search
  // too (showMatching, searchKey). Other controls (the auto-refresh
  // period, the time inputs) wait for the wasm.
  var working = [];
  function works(el) {
    if (el.matches("select") && el.querySelector("option[data-href]")) {
      reset(el);
      var keyed = false;
      var follow = function () {
        keyed = false;
        var o = el.options[el.selectedIndex];
        if (o && !o.defaultSelected) go(o.getAttribute("data-href"), el);
      };
      el.addEventListener("keydown", function (e) {
        if (e.key === "Enter") follow();
        else keyed = true;
      });
      el.addEventListener("mousedown", function () { keyed = false; });
      el.addEventListener("change", function () { if (!keyed) follow(); });
      el.addEventListener("blur", function () { if (keyed) follow(); });
      working.push(el);
      return true;
    }
    if (el.matches('input[type="checkbox"][data-href]')) {
      reset(el);
      el.addEventListener("change", function () { go(el.getAttribute("data-href"), el); });
      working.push(el);
      return true;
    }
    if (el.matches("button[data-href]")) {
      el.addEventListener("click", function () { go(el.getAttribute("data-href"), el); });
      return true;
    }
    // A filter menu (data-filter-href on its .control-filter): its toggle
    // opens it (a <details>), a value's box and a chip's remove button go
    // to the page with that value added or removed, Clear to the page
    // without the filter; its search lists the values that match.
    var menu = el.closest("[data-filter-href]");
    if (menu) {
      if (el.matches("summary")) return true;
      if (el.matches('input[type="checkbox"][data-filter-value]')) {
        reset(el);
        el.addEventListener("change", function () { goURL(filterURL(menu, decodeOption(el.value), el.checked), el); });
        working.push(el);
        return true;
      }
      if (el.matches("button.chip-remove")) {
        el.addEventListener("click", function () {
          var chip = el.closest("[data-chip]");
          if (chip) goURL(filterURL(menu, decodeOption(chip.getAttribute("data-value")), false), el);
        });
        return true;
      }
      if (el.matches("button.filter-clear")) {
        el.addEventListener("click", function () { go(menu.getAttribute("data-filter-href"), el); });
        return true;
      }
      if (el.matches("input.filter-search")) {
        reset(el);
        el.addEventListener("input", function () { showMatching(menu, el.value); });
        el.addEventListener("keydown", function (e) { searchKey(menu, el, e); });
        working.push(el);
        return true;
      }
    }
    if (el.matches("button.refresh-now")) {
      el.addEventListener("click", function () { location.reload(); });
      return true;
    }
    return false;
  }

  // showMatching shows, in the filter menu menu, only the values whose
  // text contains search (trimmed, any case), as the live menu lists them
  // (view.MenuValues), and says so when none does ("No value matches").
  // It returns the first value's box shown, or null.
  function showMatching(menu, search) {
    var s = String(search || "").trim().toLowerCase();
    var opts = menu.querySelectorAll(".filter-option");
    var first = null;
    for (var i = 0; i < opts.length; i++) {
      var show = s === "" || opts[i].textContent.toLowerCase().indexOf(s) >= 0;
      opts[i].style.display = show ? "" : "none";
      if (show && !first) first = opts[i].querySelector('input[type="checkbox"]');
    }
    var none = menu.querySelector(".filter-none");
    if (!none && !first) {
      var list = menu.querySelector(".filter-options");
      if (list) {
        none = document.createElement("div");
        none.className = "filter-none";
        none.textContent = "No value matches";
        list.insertAdjacentElement("afterend", none);
      }
    }
    if (none) none.style.display = first ? "none" : "";
    return first;
  }

  // searchKey: Enter in a filter menu's search toggles the first value
  // listed (its box's change goes to that page), Escape clears the search,
  // closes the menu and puts the focus back on its toggle, as on the live page
  // (app/filters.go onFilterKey).
  function searchKey(menu, el, e) {
    if (e.key === "Enter") {
      e.preventDefault();
      var box = showMatching(menu, el.value);
      if (box) {
        box.checked = !box.checked;
        box.dispatchEvent(new Event("change"));
      }
    } else if (e.key === "Escape") {
      // Cleared, as the live menu's (Chrome may clear the box on Escape
      // without an input event).
      el.value = "";
      showMatching(menu, "");
      var details = el.closest("details");
      if (details) {
        details.open = false;
        var toggle = details.querySelector("summary");
        if (toggle) toggle.focus();
      }
    }
  }

  // handOver gives the live page, once the overlay is gone, what the user
  // did in the preview that loaded no page: the filter menus left open,
  // with the text typed in their search (an input event, which the live
  // menu's handler reads), and the focus, by its focusKey (the live page
  // renders the same ids and chips).
  function handOver(open, focus) {
    for (var i = 0; i < open.length; i++) {
      var live = document.getElementById(open[i].id);
      if (!live || live.tagName !== "DETAILS") continue;
      live.open = true;
      var search = live.querySelector("input.filter-search");
      if (search && open[i].search && search.value !== open[i].search) {
        search.value = open[i].search;
        search.dispatchEvent(new Event("input", { bubbles: true }));
      }
    }
    var root = document.body.firstElementChild;
    var f = root && findFocus(root, focus);
    if (f && !f.closest("[inert]")) f.focus();
  }

  // focusKey names a control so that the same control is found on another
  // rendering of the page (the next page, the live one): "#" and its id;
  // a chip's remove button as "chip", its label and its place among that
  // label's chips; another control of a filter menu without an id (a
  // value's box, Clear) as "menu" and its label; "" for none.
  function focusKey(el) {
    if (!el || el === document.body) return "";
    if (el.id) return "#" + el.id;
    var control = el.closest && el.closest("[data-filter]");
    if (!control) return "";
    var label = control.getAttribute("data-filter");
    var chip = el.matches("button.chip-remove") && el.closest("[data-chip]");
    if (chip) {
      var chips = control.querySelectorAll("[data-chip]");
      return "chip\n" + label + "\n" + Array.prototype.indexOf.call(chips, chip);
    }
    return "menu\n" + label;
  }
  // findFocus is the control of key in root: a chip's remove button at its
  // place, else the one before it (the chip was removed: the live page
  // does the same, app/filters.go focusAfterChip), else its menu's toggle.
  function findFocus(root, key) {
    if (!key) return null;
    if (key.charAt(0) === "#") {
      var el = document.getElementById(key.slice(1));
      return el && root.contains(el) ? el : null;
    }
    var parts = key.split("\n");
    var controls = root.querySelectorAll("[data-filter]");
    for (var i = 0; i < controls.length; i++) {
      if (controls[i].getAttribute("data-filter") !== parts[1]) continue;
      if (parts[0] === "chip") {
        var buttons = controls[i].querySelectorAll("[data-chip] button.chip-remove");
        var n = Math.min(+parts[2], buttons.length - 1);
        if (n >= 0) return buttons[n];
      }
      return controls[i].querySelector("details.filter-menu > summary");
    }
    return null;
  }
  // focusBack focuses, in root, the control whose change loaded this page
  // (go), as the live page keeps the focus on a control it applies in
  // place.
  function focusBack(root) {
    try {
      var key = sessionStorage.getItem(FOCUS_KEY);
      sessionStorage.removeItem(FOCUS_KEY);
      var el = findFocus(root, key);
      if (el && !el.closest("[inert]")) el.focus();
    } catch (e) { }
  }
  // A page shown again from the back/forward cache: its controls work
  // again, as rendered.
  window.addEventListener("pageshow", function (e) {
    if (!e.persisted) return;
    leaving = false;
    for (var i = 0; i < working.length; i++) reset(working[i]);
  });

  var scheduled = false; // start set ECharts to load after the first frame
  try {
    start();
  } finally {
    if (!scheduled) loadECharts();
  }

  function start() {
  
  try {
    var body = document.body;
    var root = body && body.firstElementChild;
    if (!root || !root.matches('[data-dashboard][data-state="preview"]')) return;
    var charts = root.querySelectorAll("[data-chart][data-option]");
    // Not this page's fresh preview: go-app's full-page loader hides it
    // (specdash.css shows the loader as a badge over a preview).
    var skip = function () { body.setAttribute("data-preview", "skipped"); };
    if (charts.length === 0) return skip();
    var first = charts[0];
    var at = Number(first.getAttribute("data-preview-at"));
    var age = Date.now() - at;
    if (!(age < MAX_AGE_MS && age > -MAX_AGE_MS)) return skip();
    if (decodeURLSafe(first.getAttribute("data-preview-url") || "") !== location.pathname + location.search) return skip();
    // Its "local" times are in the zone the server took for this browser
    // (the browser's from boot.js's cookie, else the server's own:
    // server/zone.go): shown only when the browser's zone has the same
    // UTC offsets at the window's start and end (data-zone-offsets).
    var offsets = root.getAttribute("data-zone-offsets");
    if (offsets) {
      var o = offsets.split(",");
      var at0 = Number(root.getAttribute("data-window-start")), at1 = Number(root.getAttribute("data-window-end"));
      if (-new Date(at0).getTimezoneOffset() * 60 !== Number(o[0]) || -new Date(at1).getTimezoneOffset() * 60 !== Number(o[1])) return skip();
    }

    // 2. The pre-render's time: the live page's first load reads at it
    // (app/prerender.go firstLoadAt), so it asks what the pre-render asked.
    window.specdashPreviewLoadAt = Number(root.getAttribute("data-load-at")) || 0;
    // Its answers: the live page's first load takes them instead of asking
    // the proxy again (app/prerender.go previewAnswers). They carry no Date
    // header, from which the live page learns the server's clock: the
    // page's server time (data-preview-at, taken while the server made the
    // page) and the middle of its request and answer here (this clock)
    // stand in for it, when the two were at most a second apart.
    var answers = root.querySelector(":scope > [data-answers]");
    if (answers) {
      window.specdashPreviewAnswers = answers.getAttribute("data-answers") || "";
      answers.remove();
      try {
        var nav = performance.getEntriesByType("navigation")[0];
        if (nav && nav.requestStart > 0 && nav.responseEnd >= nav.requestStart && nav.responseEnd - nav.requestStart <= 1000) {
          window.specdashPreviewServerAt = at;
          window.specdashPreviewReceivedAt = performance.timeOrigin + (nav.requestStart + nav.responseEnd) / 2;
        }
      } catch (e) { }
    }

    // 3. The overlay, and go-app's fresh first child.
    var overlay = document.createElement("div");
    overlay.id = "specdash-preview";
    overlay.setAttribute("aria-busy", "true");
    // Pointers pass through the overlay except on its charts, which answer
    // hovers (ECharts' tooltips) once preview.js has drawn them, and on the
    // controls that work without the wasm (works); the others have no
    // handlers before the wasm runs: inert (no focus, no clicks).
    overlay.style.cssText = "position:absolute;top:0;left:0;right:0;z-index:900;pointer-events:none;";
    var controls = root.querySelectorAll("input,select,button,textarea,summary,a[href],[tabindex]");
    // A focusable container (the <main> landmark has tabindex=-1 for the
    // skip link) is not a control: made inert it would take its charts'
    // hovers with it. Controls that work without the wasm stay (works).
    for (var c = 0; c < controls.length; c++) {
      if (works(controls[c])) controls[c].style.pointerEvents = "auto";
      else if (!controls[c].querySelector("[data-chart]")) controls[c].inert = true;
    }
    for (var h = 0; h < charts.length; h++) charts[h].style.pointerEvents = "auto";
    body.insertBefore(document.createElement("div"), root);
    overlay.appendChild(root);
    body.appendChild(overlay);
    focusBack(root);
    // go-app's full-page loader stays the small badge of specdash.css now
    // that the root has moved into the overlay.
    body.setAttribute("data-preview", "shown");

    // 4. The charts near the viewport, in page order, one per frame: the
    // first is painted as soon as it is drawn, the others follow. Each
    // replaces the server's static drawing of the same option (chartsvg),
    // if any, in the same task: no frame without a chart. The others are
    // queued when they scroll near (an IntersectionObserver from when
    // ECharts has run).
    var insts = [];
    var drawn = {}; // data-chart name -> {el, inst, json, cursor}: what take hands over
    var firstDrawn = false; // the first chart's mark and event are out (insts shrinks by take)
    var done = false;
    var queue = [];
    var busy = false; // a drawNext is scheduled
    var near = function (el) {
      var r = el.getBoundingClientRect();
      var h = window.innerHeight || document.documentElement.clientHeight;
      return r.bottom > -NEAR_PX && r.top < h + NEAR_PX;
    };
    var enqueue = function (el) {
      if (el.__specdashQueued) return;
      el.__specdashQueued = true;
      queue.push(el);
      queue.sort(function (a, b) { return Array.prototype.indexOf.call(charts, a) - Array.prototype.indexOf.call(charts, b); });
      if (!busy) {
        busy = true;
        requestAnimationFrame(function () { setTimeout(drawNext, 0); });
      }
    };
    var watcher = null;
    var startDrawing = function () {
      for (var i = 0; i < charts.length; i++) {
        if (near(charts[i])) enqueue(charts[i]);
      }
      if (window.IntersectionObserver) {
        watcher = new IntersectionObserver(function (entries) {
          for (var i = 0; i < entries.length; i++) {
            if (entries[i].isIntersecting) enqueue(entries[i].target);
          }
        }, { rootMargin: NEAR_PX + "px 0px" });
        for (var j = 0; j < charts.length; j++) watcher.observe(charts[j]);
      } else {
        for (var k = 0; k < charts.length; k++) enqueue(charts[k]);
      }
    };
    var drawNext = function () {
      if (done || queue.length === 0) {
        busy = false;
        return;
      }
      var el = queue.shift();
      if (watcher) watcher.unobserve(el);
      try {
        var json = decode(el.getAttribute("data-option"));
        var opt = JSON.parse(json);
        opt.animation = false;
        var drawing = el.querySelector("[data-chart-static]");
        if (drawing) drawing.remove();
        // The canvas renderer, the one web/echarts/entry.js builds in (as
        // the live page's): the live page adopts this chart (charts.js).
        var inst = echarts.init(el, null, { renderer: "canvas" });
        inst.setOption(opt, true);
        var cursor = zoomable(el, inst, opt);
        insts.push(inst);
        drawn[el.getAttribute("data-chart")] = { el: el, inst: inst, json: json, cursor: cursor };
        if (!firstDrawn) {
          firstDrawn = true;
          try { performance.mark("specdash:preview:first-chart"); } catch (e2) { }
          window.__specdashPreviewDrawn = true;
          document.dispatchEvent(new Event("specdash:preview-drawn"));
        }
      } catch (e) {
        // One bad chart must not stop the others; the wasm draws it anyway.
      }
      // After the next paint (a timer set in an animation frame runs after
      // that frame is painted).
      requestAnimationFrame(function () { setTimeout(drawNext, 0); });
    };
    // After the next frame (the static drawings are painted first): the
    // hint, then ECharts, which then draws.
    requestAnimationFrame(function () {
      setTimeout(function () {
        addHint();
        loadECharts(startDrawing);
      }, 0);
    });
    scheduled = true;
    var addHint = function () {
      if (done) return;
      var hint = document.createElement("div");
      hint.setAttribute("data-preview-hint", "true");
      // 24-hour time in the page's time zone (the tz select: local or
      // UTC), as the dashboard's own times; written out by hand: the first
      // toLocaleTimeString call loads the browser's locale data, 60-135 ms
      // of the main thread on a 2-core machine.
      var t = new Date(at);
      var utc = (root.querySelector("select#tz") || {}).value === "utc";
      var two = function (n) { return (n < 10 ? "0" : "") + n; };
      var asOf = "numbers as of " +
        two(utc ? t.getUTCHours() : t.getHours()) + ":" + two(utc ? t.getUTCMinutes() : t.getMinutes()) + ":" +
        two(utc ? t.getUTCSeconds() : t.getSeconds());
      hint.textContent = "Starting the live dashboard… " + asOf;
      hint.style.cssText = "position:fixed;right:12px;bottom:12px;z-index:901;padding:6px 10px;border-radius:6px;" +
        "font:13px system-ui,sans-serif;background:rgba(17,24,39,0.85);color:#fff;";
      overlay.appendChild(hint);
      // The wasm could not be loaded (boot.js): the page stays this
      // preview, and says so.
      var failed = function (msg) {
        // The loader's badge says the same (specdash.css hides it then).
        document.body.setAttribute("data-start-failed", "true");
        hint.setAttribute("role", "alert");
        hint.textContent = "The live dashboard did not start: " + msg + ". The page shows the " + asOf + ".";
      };
      if (window.__specdashStartFailed) failed(window.__specdashStartFailed);
      document.addEventListener("specdash:start-failed", function (e) { failed(String(e.detail || "")); });
    };
    var onResize = function () {
      for (var j = 0; j < insts.length; j++) insts[j].resize();
    };
    window.addEventListener("resize", onResize);

    // 5. Handing over to the wasm. take(name) gives the live page
    // (charts.js adopt) the preview's drawn chart called name: its element
    // (the pre-rendered attributes gone) and ECharts instance, without the
    // preview's zoom handler, the option JSON it drew and whether it took
    // the brush cursor; null when there is none. The live page then does
    // not draw that chart anew (0.05-0.1 s of the main thread a chart on a
    // 2-core machine): it keeps it, or updates it to its own option. The
    // overlay's removal leaves the charts not taken yet to the live
    // charts still pending (out of view), KEEP_MS longer.
    window.specdashPreview = {
      take: function (name) {
        var d = drawn[name];
        if (!d || d.inst.isDisposed()) return null;
        delete drawn[name];
        var i = insts.indexOf(d.inst);
        if (i >= 0) insts.splice(i, 1);
        d.inst.off("brushEnd");
        var attrs = ["data-chart", "data-option", "data-preview-at", "data-preview-url", "data-zoom-href", "data-zoom-first", "role", "aria-labelledby", "style"];
        for (var a = 0; a < attrs.length; a++) d.el.removeAttribute(attrs[a]);
        d.el.className = "";
        d.el.setAttribute("data-chart-adopted", name);
        return { el: d.el, inst: d.inst, json: d.json, cursor: d.cursor };
      }
    };
    var observer;
    var timer = 0;
    var drop = function () {
      if (done) return;
      done = true;
      if (observer) observer.disconnect();
      if (watcher) watcher.disconnect();
      if (timer) clearTimeout(timer);
      window.removeEventListener("resize", onResize);
      var act = document.activeElement;
      var focus = act && overlay.contains(act) ? focusKey(act) : "";
      var open = [];
      var menus = overlay.querySelectorAll("details.filter-menu[open]");
      for (var m = 0; m < menus.length; m++) {
        var search = menus[m].querySelector("input.filter-search");
        if (menus[m].id) open.push({ id: menus[m].id, search: search ? search.value : "" });
      }
      setTimeout(function () {
        // Every instance not taken (take removes it from insts), those of
        // a name drawn twice too.
        for (var j = 0; j < insts.length; j++) {
          try { insts[j].dispose(); } catch (e) { }
        }
        insts = [];
        drawn = {};
      }, KEEP_MS);
      overlay.remove();
      try {
        handOver(open, focus);
      } catch (e) { }
    };
    var check = function () {
      var live = body.firstElementChild;
      if (!live || live === overlay || !live.matches("[data-dashboard]")) return;
      var state = live.getAttribute("data-state");
      if (state === "ready" || state === "error") {
        drop();
      } else if (!timer) {
        timer = setTimeout(drop, SAFETY_MS);
      }
    };
    observer = new MutationObserver(check);
    observer.observe(body, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-state"] });
    check();
  } catch (e) {
    // The preview is an optimisation: any failure leaves the page to go-app.
  }
  }
})();
