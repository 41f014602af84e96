// The waterfall page: lays out each run, renders only the runs near the viewport, draws
// their bars on a canvas, and answers hover, click, zoom and pan. Every logged value is
// shown through textContent, never parsed as HTML.
(function () {
  "use strict";
  var started = performance.now();
  var data = JSON.parse(document.getElementById("ptc-data").textContent);
  var OUTCOMES = ["ok", "error", "denied", "cancelled", "timeout", "unsettled"];
  var ROW = 18, BAR = 12, HEAD = 30, AXIS = 20, GAP = 10, PAD = 8, LIST_MAX = 2000, MIN_W = 3;
  var css = getComputedStyle(document.documentElement);
  var COLOR = {};
  OUTCOMES.forEach(function (o) { COLOR[o] = css.getPropertyValue("--" + o).trim() || "#999"; });
  var main = document.getElementById("runs");
  var tip = document.getElementById("tip");
  var details = document.getElementById("details");
  var dpr = window.devicePixelRatio || 1;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function fmtMs(ms) {
    if (ms < 1000) return (Math.round(ms * 10) / 10) + " ms";
    if (ms < 60000) return (ms / 1000).toFixed(2) + " s";
    var s = Math.round(ms / 1000);
    return Math.floor(s / 60) + " min " + (s % 60) + " s";
  }
  function endOf(run, bar) { return bar.end === null || bar.end === undefined ? run.data.until : bar.end; }
  function duration(run, bar) { return bar.end === null || bar.end === undefined ? null : bar.end - bar.start; }

  // ---- layout: every run's place, and its sub-calls per lane (in start order) ----
  var counts = {};
  var runs = [];
  var byId = new Map();
  var top = 0;
  data.runs.forEach(function (r, i) {
    var rowH = r.lanes > 400 ? 4 : r.lanes > 100 ? 8 : ROW;
    var lanes = [];
    for (var l = 0; l < r.lanes; l++) lanes.push([]);
    r.children.forEach(function (c, j) { lanes[c.lane].push(j); });
    [r].concat(r.children).forEach(function (c) { counts[c.outcome] = (counts[c.outcome] || 0) + 1; });
    var height = HEAD + (1 + r.lanes) * rowH + AXIS;
    var span = Math.max(1, r.until - r.start);
    var run = { data: r, index: i, top: top, height: height, rowH: rowH, lanes: lanes,
      t0: r.start, t1: r.start + span, full: [r.start, r.start + span], el: null, canvas: null };
    runs.push(run);
    byId.set(r.id, { run: run, bar: r, row: 0 });
    r.children.forEach(function (c) { byId.set(c.id, { run: run, bar: c, row: 1 + c.lane }); });
    top += height + GAP;
  });
  main.style.height = top + "px";

  // ---- header ----
  document.body.dataset.runs = String(runs.length);
  document.body.dataset.calls = String(data.calls);
  document.body.dataset.skipped = String(data.skipped.length);
  var errors = data.calls - (counts.ok || 0);
  document.getElementById("stats").textContent = runs.length + " run" + (runs.length === 1 ? "" : "s") +
    " · " + data.calls + " call" + (data.calls === 1 ? "" : "s") + " · " + errors + " not ok" +
    (data.epoch_ms ? " · from " + new Date(data.epoch_ms).toLocaleString() : "");
  if (data.skipped.length) {
    var sk = document.getElementById("skipped");
    sk.hidden = false;
    sk.textContent = data.skipped.length + " damaged line" + (data.skipped.length === 1 ? " was" : "s were") +
      " skipped: " + data.skipped.slice(0, 3).map(function (s) { return "line " + s.line + " (" + s.error + ")"; }).join("; ") +
      (data.skipped.length > 3 ? "; …" : "");
  }
  var legend = document.getElementById("legend");
  OUTCOMES.forEach(function (o) {
    var li = el("li", null, o + " " + (counts[o] || 0));
    li.style.setProperty("--c", COLOR[o]);
    li.dataset.outcome = o;
    legend.appendChild(li);
  });

  // ---- rendering the runs near the viewport ----
  function xOf(run, t, w) { return PAD + (t - run.t0) / (run.t1 - run.t0) * (w - 2 * PAD); }
  function tOf(run, x, w) { return run.t0 + (x - PAD) / (w - 2 * PAD) * (run.t1 - run.t0); }

  function build(run) {
    var r = run.data;
    var sec = el("section", "run");
    sec.style.top = run.top + "px";
    sec.dataset.callId = r.id;
    sec.dataset.name = r.name;
    sec.dataset.outcome = r.outcome;
    sec.dataset.calls = String(r.children.length);
    sec.dataset.lanes = String(r.lanes);
    var h = el("h2", null, r.id + " " + r.title);
    var dur = duration(run, r);
    h.appendChild(el("span", "meta", r.outcome + " · " + (dur === null ? "never settled" : fmtMs(dur)) +
      " · " + r.children.length + " sub-call" + (r.children.length === 1 ? "" : "s") +
      (r.lanes > 1 ? " · " + r.lanes + " lanes" : "")));
    sec.appendChild(h);
    var canvas = el("canvas");
    canvas.style.height = ((1 + r.lanes) * run.rowH + AXIS) + "px";
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", "timeline of " + r.id);
    sec.appendChild(canvas);
    if (r.children.length + 1 <= LIST_MAX) {
      var ol = el("ol", "bars");
      [r].concat(r.children).forEach(function (c, k) {
        var li = el("li", "bar", c.name + " " + c.id + " " + c.outcome);
        li.dataset.callId = c.id;
        li.dataset.name = c.name;
        li.dataset.outcome = c.outcome;
        li.dataset.role = k === 0 ? "run" : "call";
        li.dataset.lane = String(k === 0 ? -1 : c.lane);
        li.dataset.startMs = String(c.start);
        if (c.end !== null && c.end !== undefined) li.dataset.endMs = String(c.end);
        ol.appendChild(li);
      });
      sec.appendChild(ol);
    }
    run.el = sec;
    run.canvas = canvas;
    attach(run, canvas);
    main.appendChild(sec);
    draw(run);
  }

  function draw(run) {
    var canvas = run.canvas, r = run.data;
    var w = canvas.clientWidth || main.clientWidth, h = (1 + r.lanes) * run.rowH + AXIS;
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
    var ctx = canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    var axisY = (1 + r.lanes) * run.rowH;
    // time axis: a "nice" step giving a tick every ~100 px
    var per = (run.t1 - run.t0) / Math.max(1, (w - 2 * PAD) / 100);
    var step = Math.pow(10, Math.floor(Math.log10(Math.max(per, 1e-3))));
    step *= per / step > 5 ? 10 : per / step > 2 ? 5 : per / step > 1 ? 2 : 1;
    ctx.fillStyle = "#868e96";
    ctx.strokeStyle = "#f1f3f5";
    for (var t = Math.ceil((run.t0 - r.start) / step) * step; t + r.start <= run.t1; t += step) {
      var x = xOf(run, t + r.start, w);
      ctx.beginPath(); ctx.moveTo(x + 0.5, 0); ctx.lineTo(x + 0.5, axisY); ctx.stroke();
      ctx.fillText(fmtMs(t), x + 2, axisY + AXIS / 2);
    }
    var bh = Math.min(BAR, run.rowH - 2);
    function bar(c, row) {
      var x0 = xOf(run, c.start, w), x1 = xOf(run, endOf(run, c), w);
      if (x1 < 0 || x0 > w) return;
      var bw = Math.max(MIN_W, x1 - x0), y = row * run.rowH + (run.rowH - bh) / 2;
      ctx.fillStyle = COLOR[c.outcome] || "#999";
      ctx.fillRect(x0, y, bw, bh);
      if (bw > 40 && bh >= 10) {
        ctx.save();
        ctx.beginPath(); ctx.rect(x0, y, bw, bh); ctx.clip();
        ctx.fillStyle = c.outcome === "unsettled" ? "#495057" : "#fff";
        ctx.fillText(c.name, Math.max(x0, 0) + 4, y + bh / 2 + 0.5);
        ctx.restore();
      }
    }
    bar(r, 0);
    run.lanes.forEach(function (lane, l) {
      lane.forEach(function (j) { bar(r.children[j], 1 + l); });
    });
  }

  var rendered = new Set();
  function render() {
    var vt = -main.getBoundingClientRect().top, vh = window.innerHeight;
    var lo = vt - vh, hi = vt + 2 * vh;
    // first run whose bottom is below lo
    var a = 0, b = runs.length;
    while (a < b) { var m = (a + b) >> 1; if (runs[m].top + runs[m].height < lo) a = m + 1; else b = m; }
    var want = new Set();
    for (var i = a; i < runs.length && runs[i].top <= hi; i++) want.add(runs[i]);
    rendered.forEach(function (run) {
      if (!want.has(run)) { run.el.remove(); run.el = run.canvas = null; rendered.delete(run); }
    });
    want.forEach(function (run) { if (!rendered.has(run)) { build(run); rendered.add(run); } });
  }
  var pending = false;
  function schedule() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; render(); });
  }
  window.addEventListener("scroll", schedule, { passive: true });
  window.addEventListener("resize", function () {
    rendered.forEach(function (run) { draw(run); });
    schedule();
  });

  // ---- hover, click, zoom, pan ----
  // The bar under (px, py): of the bars drawn there (at least MIN_W wide, so neighbours
  // may overlap when zoomed out), the one whose middle is nearest; 1 px of slack.
  function hit(run, px, py) {
    var w = run.canvas.clientWidth, row = Math.floor(py / run.rowH), r = run.data;
    function distance(c) {
      var x0 = xOf(run, c.start, w), bw = Math.max(MIN_W, xOf(run, endOf(run, c), w) - x0);
      var outside = px < x0 ? x0 - px : px > x0 + bw ? px - x0 - bw : 0;
      return outside > 1 ? Infinity : outside * 1e6 + Math.abs(px - x0 - bw / 2);
    }
    if (row === 0) return distance(r) < Infinity ? r : null;
    var lane = run.lanes[row - 1];
    if (!lane) return null;
    var t = tOf(run, px + MIN_W + 1, w), a = 0, b = lane.length;
    while (a < b) { var m = (a + b) >> 1; if (r.children[lane[m]].start <= t) a = m + 1; else b = m; }
    var best = null, bestD = Infinity;
    // Earlier bars in a lane end before later ones start: a few candidates suffice.
    for (var k = a - 1; k >= Math.max(0, a - 8); k--) {
      var c = r.children[lane[k]], d = distance(c);
      if (d < bestD) { best = c; bestD = d; }
    }
    return best;
  }
  function local(canvas, ev) {
    var rect = canvas.getBoundingClientRect();
    return [ev.clientX - rect.left, ev.clientY - rect.top];
  }
  function summaryLine(run, c) {
    var d = duration(run, c);
    var lines = [c.name + "  " + c.id, c.outcome + " · " + (d === null ? "never settled" : fmtMs(d)) +
      " · at +" + fmtMs(c.start - run.data.start)];
    if (c.error) lines.push((c.error.code ? c.error.code + ": " : "") + c.error.message.split("\n")[0]);
    else if (c.summary) lines.push(c.summary);
    if (c.policy) lines.push("policy: " + c.policy);
    return lines.join("\n");
  }
  function attach(run, canvas) {
    var drag = null;
    canvas.addEventListener("mousemove", function (ev) {
      var p = local(canvas, ev);
      if (drag) {
        var w = canvas.clientWidth, dt = (drag.x - p[0]) / (w - 2 * PAD) * (drag.t1 - drag.t0);
        if (drag.moved || Math.abs(drag.x - p[0]) > 3) {
          drag.moved = true;
          pan(run, drag.t0 + dt, drag.t1 + dt);
          return;
        }
      }
      var c = hit(run, p[0], p[1]);
      if (!c) { tip.hidden = true; return; }
      tip.textContent = summaryLine(run, c);
      tip.dataset.callId = c.id;
      tip.hidden = false;
      var x = Math.min(ev.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
      tip.style.left = Math.max(4, x) + "px";
      tip.style.top = (ev.clientY + 16) + "px";
    });
    canvas.addEventListener("mouseleave", function () { tip.hidden = true; drag = null; });
    canvas.addEventListener("mousedown", function (ev) {
      drag = { x: local(canvas, ev)[0], t0: run.t0, t1: run.t1, moved: false };
    });
    canvas.addEventListener("mouseup", function (ev) {
      var moved = drag && drag.moved;
      drag = null;
      if (moved) return;
      var p = local(canvas, ev), c = hit(run, p[0], p[1]);
      if (c) show(run, c);
    });
    canvas.addEventListener("dblclick", function () { pan(run, run.full[0], run.full[1]); });
    canvas.addEventListener("wheel", function (ev) {
      var w = canvas.clientWidth, px = local(canvas, ev)[0];
      if (ev.ctrlKey || ev.metaKey) {
        ev.preventDefault();
        var f = Math.exp(ev.deltaY * 0.002), tc = tOf(run, px, w);
        var t0 = tc - (tc - run.t0) * f, t1 = tc + (run.t1 - tc) * f;
        if (t1 - t0 < 0.5) return;
        pan(run, t0, t1);
      } else if (ev.shiftKey || Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) {
        ev.preventDefault();
        var d = (ev.shiftKey ? ev.deltaY : ev.deltaX) / (w - 2 * PAD) * (run.t1 - run.t0);
        pan(run, run.t0 + d, run.t1 + d);
      }
    }, { passive: false });
  }
  function pan(run, t0, t1) {
    var span = Math.min(t1 - t0, run.full[1] - run.full[0]);
    t0 = Math.max(run.full[0], Math.min(t0, run.full[1] - span));
    run.t0 = t0;
    run.t1 = t0 + span;
    if (run.canvas) draw(run);
  }

  function show(run, c) {
    var d = duration(run, c);
    document.getElementById("d-title").textContent = c.name + " — " + c.id;
    var dl = document.getElementById("d-fields");
    dl.textContent = "";
    function field(name, value, code) {
      if (value === null || value === undefined || value === "") return;
      dl.appendChild(el("dt", null, name));
      var dd = el("dd", code ? "code" : null, value);
      dd.dataset.field = name.toLowerCase();
      dl.appendChild(dd);
    }
    var badge = el("span", "outcome", c.outcome);
    badge.style.setProperty("--c", COLOR[c.outcome]);
    dl.appendChild(el("dt", null, "Outcome"));
    var odd = el("dd");
    odd.dataset.field = "outcome";
    odd.appendChild(badge);
    dl.appendChild(odd);
    field("Title", c.title !== c.name ? c.title : "");
    field("Started", "+" + fmtMs(c.start - run.data.start) + " into " + run.data.id +
      (data.epoch_ms ? " (" + new Date(data.epoch_ms + c.start).toISOString() + ")" : ""));
    field("Duration", d === null ? "never settled" : fmtMs(d));
    field("Policy", c.policy);
    if (c.error) field("Error", (c.error.code ? c.error.code + (c.error.name ? " (" + c.error.name + ")" : "") + "\n" : "") + c.error.message, true);
    field("Result", c.summary);
    field("Arguments", c.args, true);
    details.dataset.callId = c.id;
    setDetails(true);
  }
  // The open panel narrows the timelines instead of covering them.
  function setDetails(open) {
    if (details.hidden === !open) return;
    details.hidden = !open;
    document.body.classList.toggle("with-details", open);
    rendered.forEach(function (run) { draw(run); });
  }
  document.getElementById("close").addEventListener("click", function () { setDetails(false); });
  document.addEventListener("keydown", function (ev) { if (ev.key === "Escape") setDetails(false); });

  render();

  // For tests and scripts: scroll a call's bar into view, zoom its timeline until the bar
  // is at least 12 px wide, and say where its middle is (whole pixels, as mice move).
  window.ptcWaterfall = {
    ready: true,
    runs: runs.length,
    calls: data.calls,
    loadMs: performance.now() - started,
    locate: function (id) {
      var found = byId.get(id);
      if (!found) return null;
      var run = found.run, bar = found.bar;
      window.scrollTo(0, main.getBoundingClientRect().top + window.scrollY + run.top - 60);
      render();
      var w = run.canvas.clientWidth, end = endOf(run, bar);
      var narrow = xOf(run, end, w) - xOf(run, bar.start, w) < 12;
      if (narrow || bar.start < run.t0 || end > run.t1) {
        var span = narrow ? Math.max(end - bar.start, 0.5) * (w - 2 * PAD) / 40
          : Math.max(run.t1 - run.t0, (end - bar.start) * 1.2);
        var mid = (bar.start + end) / 2;
        pan(run, mid - span / 2, mid + span / 2);
      }
      var rect = run.canvas.getBoundingClientRect();
      var x0 = xOf(run, bar.start, w), x1 = xOf(run, end, w);
      return { x: Math.round(rect.left + x0 + Math.max(MIN_W, x1 - x0) / 2),
        y: Math.round(rect.top + found.row * run.rowH + run.rowH / 2) };
    }
  };
})();
