// specdash chart helpers (loaded like preview.js, deferred): the functions
// app/chart.go calls through syscall/js. They live in this static script so
// that the page's Content-Security-Policy needs no 'unsafe-eval' (they were
// compiled from Go strings with new Function before; server/headers.go).
//
// window.specdashCharts = {
//   update(inst, json, zoom, prev) -> state   draw an option (see below)
//   adopt(div, name, json, zoom) -> {inst, state} | null
//                                             take the preview's chart (adopt)
//   idle(cb, ms) -> handle, cancel(handle)    requestIdleCallback or a timer
//   link(inst, group), unlink(inst)           shared crosshair and tooltip
//   exportPNG(inst, bg, fg, lines) -> url      PNG export with a title
// }
//
// Option values stay data: options are parsed with JSON.parse; nothing here
// writes HTML or evaluates strings.
(function () {
  "use strict";

  // update draws the option JSON json on the ECharts instance inst; prev
  // is what the previous call on inst returned (null after echarts.init or
  // clear). The result is what a fresh instance draws for json:
  //   - "full": setOption(opt, true), when there is no prev or the option's
  //     structure changed: another set of top-level keys, or any top-level
  //     value outside swapKeys that differs (brush, toolbox, animation,
  //     color, ...: merged, not replaced, so they must be equal);
  //   - "merge": setOption(opt, {replaceMerge: the swapKeys present}):
  //     series, axes, grid, title, legend, tooltip and visualMap are built
  //     anew, while the brush and toolbox keep their state (a brush
  //     selection left from a zoom is cleared).
  // For zoom charts the brush's takeGlobalCursor is dispatched only when
  // the instance does not have it yet. state is {rest, cursor, mode}. It
  // throws what setOption throws. (e2e TestChartUpdate)
  var swapKeys = ["series", "xAxis", "yAxis", "grid", "title", "legend", "tooltip", "visualMap"];
  // restOf is the option's structure that update compares: its sorted
  // keys, with the values of those outside swapKeys.
  function restOf(opt, keys) {
    return JSON.stringify(keys.map(function (k) { return swapKeys.indexOf(k) >= 0 ? k : [k, opt[k]]; }));
  }
  function update(inst, json, zoom, prev) {
    var opt = JSON.parse(json);
    var keys = Object.keys(opt).sort();
    var rest = restOf(opt, keys);
    var mode = "full", cursor = false;
    if (prev && prev.rest === rest) {
      mode = "merge";
      cursor = prev.cursor;
      var brush = inst.getModel().getComponent("brush");
      if (brush && brush.areas && brush.areas.length > 0) inst.dispatchAction({type: "brush", areas: []});
      inst.setOption(opt, {replaceMerge: keys.filter(function (k) { return swapKeys.indexOf(k) >= 0; })});
    } else {
      inst.setOption(opt, true);
    }
    if (zoom && opt.brush && !cursor) {
      inst.dispatchAction({type: "takeGlobalCursor", key: "brush", brushOption: {brushType: "lineX", brushMode: "single"}});
      cursor = true;
    }
    return {rest: rest, cursor: cursor, mode: mode};
  }

  // idle runs cb in the browser's idle time, at most ms later
  // (requestIdleCallback), or after 50 ms where there is none.
  function idle(cb, ms) {
    if (window.requestIdleCallback) return {i: window.requestIdleCallback(cb, {timeout: ms})};
    return {t: setTimeout(cb, 50)};
  }
  function cancel(h) {
    if (!h) return;
    if ("i" in h) window.cancelIdleCallback(h.i); else clearTimeout(h.t);
  }

  // Shared crosshair: the time charts of a group (link) show the axis
  // pointer and tooltip at the same x category when the pointer is over
  // any one of them. Categories are matched by their label (the bucket's
  // end time), so charts with other columns (the heatmap's runs of
  // buckets) follow where they have that time. Not echarts.connect: it
  // also relays brush actions, and every chart would post a zoom.
  var groups = {};
  function categories(inst) {
    var o = inst.getOption();
    var x = o && o.xAxis && o.xAxis[0];
    return (x && x.data) || [];
  }
  function follow(src, group, label) {
    var members = groups[group] || [];
    for (var i = 0; i < members.length; i++) {
      var other = members[i];
      if (other === src || other.isDisposed()) continue;
      if (label === null) { other.dispatchAction({type: "hideTip"}); continue; }
      var idx = categories(other).indexOf(label);
      if (idx < 0) { other.dispatchAction({type: "hideTip"}); continue; }
      var o = other.getOption();
      var trig = o && o.tooltip && o.tooltip[0] && o.tooltip[0].trigger;
      // Item tooltips (the heatmap) have no axis pointer to follow.
      if (trig !== "axis") continue;
      // By position (the bucket's x, the plot's middle): a gap at idx
      // has no data point to show a tooltip at.
      var grid = other.getModel().getComponent("grid", 0);
      var rect = grid && grid.coordinateSystem && grid.coordinateSystem.getRect();
      if (!rect) continue;
      other.dispatchAction({type: "showTip", x: other.convertToPixel({xAxisIndex: 0}, idx), y: rect.y + rect.height / 2});
    }
  }
  function link(inst, group) {
    unlink(inst);
    var members = groups[group] || (groups[group] = []);
    members.push(inst);
    var zr = inst.getZr();
    var last = null;
    var move = function (e) {
      if (inst.isDisposed()) return;
      var p = [e.offsetX, e.offsetY];
      var label = null;
      if (inst.containPixel({gridIndex: 0}, p)) {
        var d = inst.convertFromPixel({gridIndex: 0}, p);
        var cats = categories(inst);
        var idx = Math.round(Array.isArray(d) ? Number(d[0]) : NaN);
        if (idx >= 0 && idx < cats.length) label = cats[idx];
      }
      if (label === last) return;
      last = label;
      follow(inst, group, label);
    };
    var out = function () { last = null; follow(inst, group, null); };
    zr.on("mousemove", move);
    zr.on("globalout", out);
    inst.__specdashLink = {group: group, move: move, out: out};
  }
  function unlink(inst) {
    var l = inst && inst.__specdashLink;
    if (!l) return;
    var members = groups[l.group] || [];
    var i = members.indexOf(inst);
    if (i >= 0) members.splice(i, 1);
    if (!inst.isDisposed()) {
      var zr = inst.getZr();
      zr.off("mousemove", l.move);
      zr.off("globalout", l.out);
    }
    inst.__specdashLink = null;
  }

  // exportPNG returns a PNG data URL of the chart as getDataURL draws it
  // (pixel ratio 2, on bg, without the toolbox) under lines of text in fg:
  // the view's summary (filters, window, source, convention, the group a
  // split chart shows; app/exportmeta.go), so that the picture says what
  // it shows. Lines wider than the chart wrap at spaces. Synchronous: the
  // chart is drawn to a canvas (renderToCanvas), not decoded from a URL.
  function exportPNG(inst, bg, fg, lines) {
    var hidden = [];
    inst.getModel().eachComponent({mainType: "toolbox"}, function (c) {
      var v = inst.getViewOfComponentModel(c);
      if (v && !v.group.ignore) { v.group.ignore = true; hidden.push(v); }
    });
    var chart;
    try {
      chart = inst.renderToCanvas({pixelRatio: 2, backgroundColor: bg});
    } finally {
      for (var h = 0; h < hidden.length; h++) hidden[h].group.ignore = false;
    }
    var ratio = 2, size = 12 * ratio, lh = Math.round(size * 1.4), pad = 8 * ratio;
    var font = size + "px system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif";
    var out = document.createElement("canvas");
    var ctx = out.getContext("2d");
    ctx.font = font;
    var rows = [], max = Math.max(chart.width - 2 * pad, 10 * size);
    for (var i = 0; i < (lines || []).length; i++) {
      var words = String(lines[i]).split(" "), row = "";
      for (var w = 0; w < words.length; w++) {
        var next = row ? row + " " + words[w] : words[w];
        if (row && ctx.measureText(next).width > max) { rows.push(row); row = words[w]; } else row = next;
      }
      rows.push(row);
    }
    var top = rows.length ? pad + rows.length * lh : 0;
    out.width = chart.width;
    out.height = chart.height + top;
    ctx = out.getContext("2d"); // sizing reset the state
    ctx.fillStyle = bg;
    ctx.fillRect(0, 0, out.width, out.height);
    ctx.fillStyle = fg;
    ctx.font = font;
    ctx.textBaseline = "top";
    for (var r = 0; r < rows.length; r++) ctx.fillText(rows[r], pad, pad + r * lh);
    ctx.drawImage(chart, 0, top);
    return out.toDataURL("image/png");
  }

  // adopt puts the chart that the preview drew for name (preview.js take)
  // into div, the live chart's element, instead of a new instance: as it
  // is when the preview drew the option JSON json itself, updated to json
  // (update, from the preview's option) otherwise; null when the preview
  // has no chart name (then the caller draws as before). The result is
  // {inst, state}: the instance, and what update returns.
  function adopt(div, name, json, zoom) {
    var p = window.specdashPreview;
    var got = p && p.take(name);
    if (!got) return null;
    var el = got.el, inst = got.inst;
    el.style.cssText = "width:100%;height:100%;";
    div.appendChild(el);
    // echarts.getInstanceByDom(div) finds the instance as for a chart
    // drawn on div itself (ECharts keys its instances by this attribute).
    div.setAttribute("_echarts_instance_", inst.id);
    if (el.clientWidth !== inst.getWidth() || el.clientHeight !== inst.getHeight()) inst.resize();
    var drawn = JSON.parse(got.json);
    var prev = {rest: restOf(drawn, Object.keys(drawn).sort()), cursor: got.cursor, mode: "preview"};
    if (got.json !== json) return {inst: inst, state: update(inst, json, zoom, prev)};
    if (zoom && drawn.brush && !prev.cursor) {
      inst.dispatchAction({type: "takeGlobalCursor", key: "brush", brushOption: {brushType: "lineX", brushMode: "single"}});
      prev.cursor = true;
    }
    return {inst: inst, state: prev};
  }

  window.specdashCharts = {adopt: adopt, update: update, idle: idle, cancel: cancel, link: link, unlink: unlink, exportPNG: exportPNG};
})();
