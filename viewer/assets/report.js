"use strict";
(function () {
  // Everything shown comes from the take's JSON and is set with
  // textContent: nothing from the recorded page is ever parsed as HTML.
  var D = JSON.parse(document.getElementById("take").textContent);
  var thumbs = JSON.parse(document.getElementById("thumbs").textContent);
  var fullEl = document.getElementById("full");
  var full = fullEl ? JSON.parse(fullEl.textContent) : null;
  var frames = D.frames, steps = D.steps, dur = Math.max(D.duration_ms, 1);
  var events = D.events || [];
  var $ = function (id) { return document.getElementById(id); };
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function secs(ms) { return (ms / 1000).toFixed(2) + "s"; }
  function pct(ms) { return Math.max(0, Math.min(100, ms / dur * 100)) + "%"; }
  function where(s) { return (s.file || D.script || "script") + ":" + s.line + ":" + s.col; }
  function stepTitle(s) { return s.label || s.text || s.target || ""; }

  var pin = -1, cur = 0, playing = false, speed = 1, shownFrame = -2, curStep = -1, curThumb = -1, lastTick = 0;

  // Header.
  $("name").textContent = D.name;
  var badge = $("outcome");
  badge.textContent = D.outcome;
  // Only a known outcome becomes a class: classList.add throws on "" or a
  // space, and the whole report would stay blank.
  if (["ok", "failed", "interrupted", "error", "aborted"].indexOf(D.outcome) >= 0) badge.classList.add(D.outcome);
  var meta = $("meta");
  [D.started ? "recorded " + D.started : "", secs(D.duration_ms), D.viewport.width + "×" + D.viewport.height + " @" + D.viewport.scale + "x",
    frames.length + " frames", steps.length + " steps", D.verified || ""].forEach(function (t) { if (t) meta.appendChild(el("span", "", t)); });

  // Failures, first and loud, each with a button to the moment it failed.
  var failed = steps.filter(function (s) { return s.failed; });
  var fbox = $("failures");
  if (failed.length || (D.outcome !== "ok" && D.error)) {
    fbox.hidden = false;
    failed.forEach(function (s) {
      var f = el("div", "fail");
      f.appendChild(el("div", "what", "Step " + s.n + " failed: " + s.kind + (stepTitle(s) ? " · " + stepTitle(s) : "") + " [" + s.outcome + "]"));
      if (s.error) f.appendChild(el("pre", "", s.error));
      f.appendChild(el("div", "muted", where(s) + " · " + secs(s.start) + " → " + secs(s.end)));
      nearEvents(s).forEach(function (e) { f.appendChild(el("div", "muted", "near it: " + evText(e))); });
      var b = el("button", "primary", "Show the frame where it failed");
      b.type = "button";
      b.dataset.failStep = s.n;
      b.addEventListener("click", function () { seek(s.end); selectStep(s.n); });
      f.appendChild(b);
      fbox.appendChild(f);
    });
    if (!failed.length && D.error) {
      var f = el("div", "fail");
      f.appendChild(el("div", "what", "The run ended " + D.outcome));
      f.appendChild(el("pre", "", D.error));
      fbox.appendChild(f);
    }
  }

  // Step list.
  var list = $("steps"), items = [];
  steps.forEach(function (s, i) {
    var li = el("li", "step" + (s.failed ? " failed" : "") + (s.outcome === "ok" && !s.failed ? " ok" : "") + (isPresentation(s) ? " pres" : ""));
    li.dataset.step = s.n;
    li.appendChild(el("span", "n", s.n));
    var body = el("span", "");
    body.appendChild(el("span", "k", s.kind));
    if (stepTitle(s)) { body.appendChild(document.createTextNode(" ")); body.appendChild(el("span", "lbl", stepTitle(s))); }
    if (s.target && s.label) { body.appendChild(el("div", "tgt", s.target)); }
    li.appendChild(body);
    li.appendChild(el("span", "t", secs(s.start)));
    if (s.failed || (s.error && s.outcome !== "ok")) {
      li.appendChild(el("pre", "detail", (s.error || "failed") + " [" + s.outcome + "]"));
      li.appendChild(el("div", "where", where(s) + (s.optional ? " · optional" : "")));
      nearEvents(s).forEach(function (e) { li.appendChild(el("div", "near", evText(e))); });
    }
    if (s.late) li.appendChild(el("div", "late", s.late));
    li.addEventListener("click", function () { seek(s.start); selectStep(s.n); setHash("step=" + s.n); });
    list.appendChild(li);
    items.push(li);
  });
  function isPresentation(s) { return ["pause", "chapter", "caption", "cursor", "zoom", "hold", "resume"].indexOf(s.kind) >= 0; }

  // Lanes: steps, chapters and documents, holds, page events.
  var lanes = $("lanes");
  function lane(name) {
    var l = el("div", "lane");
    l.appendChild(el("span", "lab", name));
    var t = el("div", "track");
    t.addEventListener("click", function (ev) {
      if (ev.target !== t) return;
      var r = t.getBoundingClientRect();
      seek((ev.clientX - r.left) / r.width * dur);
    });
    l.appendChild(t);
    lanes.appendChild(l);
    return t;
  }
  function mark(track, cls, start, end, tip, onclick) {
    var m = el("div", "mark " + cls);
    m.style.left = pct(start);
    if (end !== null) m.style.width = "calc(" + pct(end - start) + " + 0px)";
    m.title = tip;
    m.addEventListener("click", function (ev) { ev.stopPropagation(); onclick(); });
    track.appendChild(m);
    return m;
  }
  var stepTrack = lane("steps"), stepMarks = [];
  steps.forEach(function (s) {
    stepMarks.push(mark(stepTrack, s.failed ? "failed" : isPresentation(s) ? "pres" : "ok", s.start, Math.max(s.end, s.start), "step " + s.n + " " + s.kind + " " + stepTitle(s),
      function () { seek(s.start); selectStep(s.n); }));
  });
  var chapTrack = lane("pages");
  steps.filter(function (s) { return s.kind === "chapter"; }).forEach(function (s) {
    mark(chapTrack, "chap", s.start, null, "chapter: " + stepTitle(s), function () { seek(s.start); });
    var p = el("span", "pin", stepTitle(s)); p.style.left = pct(s.start); chapTrack.appendChild(p);
  });
  D.documents.forEach(function (d) {
    mark(chapTrack, "doc", d.at, null, "document " + d.n + ": " + d.url, function () { seek(d.at); });
  });
  if (D.holds.length) {
    var holdTrack = lane("holds");
    D.holds.forEach(function (h) { mark(holdTrack, "hold", h.start, h.end, "tab " + h.tab + " held " + secs(h.start) + " → " + secs(h.end), function () { seek(h.start); }); });
  }
  var evTrack = lane("errors");
  var bad = events.filter(isBad);
  bad.forEach(function (e) { mark(evTrack, e.level === "warning" ? "warn" : "err", e.t, null, evText(e), function () { seek(e.t); }); });
  var head = el("div", "playhead");
  lanes.appendChild(head);

  // Filmstrip.
  var film = $("film"), thumbImgs = [], thumbFrame = [];
  frames.forEach(function (f, i) {
    if (f.thumb < 0) return;
    var im = el("img", "");
    im.src = "data:image/jpeg;base64," + thumbs[f.thumb];
    im.alt = "frame at " + secs(f.t);
    im.title = secs(f.t);
    im.addEventListener("click", function () { seek(f.t); });
    film.appendChild(im);
    thumbImgs.push(im);
    thumbFrame.push(i);
  });

  // Documents, events, accounting, cleanup, about.
  var docs = $("docs");
  D.documents.forEach(function (d) {
    var li = el("li", "");
    li.appendChild(el("span", "muted", secs(d.at) + " "));
    li.appendChild(el("span", "url", d.url));
    if (d.title) li.appendChild(el("div", "", d.title));
    li.addEventListener("click", function () { seek(d.at); });
    docs.appendChild(li);
  });
  var evBox = $("events");
  if (!events.length) evBox.appendChild(el("div", "muted", D.events ? "no console messages, page errors or failed requests" : "this take does not record page events"));
  bad.concat(events.filter(function (e) { return !isBad(e); })).slice(0, 500).forEach(function (e) {
    var r = el("div", "ev " + (e.level || ""));
    r.appendChild(el("span", "lvl", e.level || e.kind));
    r.appendChild(el("span", "msg", secs(e.t) + " " + evText(e)));
    if (e.source) r.appendChild(el("span", "src", e.source));
    if (e.stack && isBad(e)) r.appendChild(el("pre", "src", e.stack));
    r.addEventListener("click", function () { seek(e.t); });
    evBox.appendChild(r);
  });
  if (D.events_dropped) evBox.appendChild(el("div", "muted", D.events_dropped + " more events were not kept (the take bounds them)"));
  var a = D.accounting, acct = $("acct");
  acct.appendChild(el("div", "eq", a.received + " received = " + a.delivered + " delivered + " + a.overflow + " overflow + " + a.late + " late + " + a.duplicates + " duplicates + " + a.rejected + " rejected"));
  var tb = el("table", "acct");
  [["frames per second", a.per_second.toFixed(1)], ["screenshots taken by the recorder", a.seeded], ["dropped by Chromium before sending", a.upstream], ["capture ended", a.end_reason], ["frames in this report", D.mode === "folder" ? "beside it, in " + D.frames_dir + "/" : "embedded"]]
    .forEach(function (r) { var tr = el("tr", ""); tr.appendChild(el("td", "", r[0])); tr.appendChild(el("td", "", r[1])); tb.appendChild(tr); });
  acct.appendChild(tb);
  var cl = $("cleanup");
  if (D.cleanup) {
    var ct = el("table", "acct");
    [["connection", D.cleanup.connection], ["process", D.cleanup.process], ["profile", D.cleanup.profile]].forEach(function (r) { var tr = el("tr", ""); tr.appendChild(el("td", "", r[0])); tr.appendChild(el("td", "", r[1])); ct.appendChild(tr); });
    cl.appendChild(ct);
  } else cl.appendChild(el("div", "muted", "no cleanup receipt"));
  var about = $("about");
  [["script", D.script], ["tool", D.tool], ["revision", D.revision], ["browser", D.chromium], ["recovered", D.recovered]].forEach(function (r) {
    if (!r[1]) return; about.appendChild(el("dt", "", r[0])); about.appendChild(el("dd", "", r[1]));
  });

  // Page events.
  function isBad(e) { return e.level === "error" || e.kind === "exception" || (e.kind === "request" && (e.failed || e.status >= 400)); }
  function evText(e) {
    if (e.kind === "request") return (e.method || "GET") + " " + e.url + " → " + (e.failed ? "failed: " + e.failed : e.status);
    return (e.kind === "exception" ? "uncaught: " : "") + e.text;
  }
  function nearEvents(s) {
    return events.filter(function (e) { return isBad(e) && e.t >= s.start - 2000 && e.t <= s.end + 500; }).slice(0, 5);
  }

  // The player.
  var img = $("frame"), canvas = $("overlay"), ctx = canvas.getContext("2d");
  function frameAt(t) {
    var lo = 0, hi = frames.length - 1, ans = -1;
    while (lo <= hi) { var mid = (lo + hi) >> 1; if (frames[mid].t <= t) { ans = mid; lo = mid + 1; } else hi = mid - 1; }
    return ans;
  }
  function stepAt(t) {
    var ans = -1;
    for (var i = 0; i < steps.length; i++) { if (steps[i].start <= t) ans = i; else break; }
    return ans;
  }
  function show() {
    var fi = frameAt(cur);
    if (fi < 0 && frames.length) fi = 0;
    if (fi !== shownFrame) {
      shownFrame = fi;
      $("nofr").hidden = fi >= 0;
      if (fi >= 0) {
        var f = frames[fi];
        img.src = full ? "data:image/jpeg;base64," + full[fi] : f.src;
        document.body.dataset.frame = f.seq;
      }
      var ti = -1;
      for (var k = 0; k < thumbFrame.length; k++) { if (thumbFrame[k] <= fi) ti = k; else break; }
      if (ti !== curThumb) {
        if (curThumb >= 0) thumbImgs[curThumb].classList.remove("cur");
        curThumb = ti;
        if (ti >= 0) {
          var t = thumbImgs[ti]; t.classList.add("cur");
          var left = t.offsetLeft - film.offsetLeft;
          if (left < film.scrollLeft || left + t.offsetWidth > film.scrollLeft + film.clientWidth) film.scrollLeft = left - film.clientWidth / 2;
        }
      }
    }
    // A step sought to stays current while the time is within it, though
    // later steps may start at the same moment.
    var p = pin >= 0 ? steps[pin] : null;
    var si = p && p.start <= cur && cur <= Math.max(p.end, p.start) ? pin : stepAt(cur);
    if (si !== curStep) {
      if (curStep >= 0) { items[curStep].classList.remove("cur"); stepMarks[curStep].classList.remove("cur"); }
      curStep = si;
      if (si >= 0) {
        items[si].classList.add("cur"); stepMarks[si].classList.add("cur");
        if (playing) scrollStep(items[si]);
        document.body.dataset.step = steps[si].n;
      }
    }
    $("holdtag").hidden = !D.holds.some(function (h) { return h.start <= cur && cur < h.end; });
    $("clock").textContent = secs(cur) + " / " + secs(dur);
    $("scrub").value = String(Math.round(cur / dur * 1000));
    head.style.left = "calc(88px + (100% - 88px) * " + (cur / dur) + ")";
    document.body.dataset.t = String(Math.round(cur));
    drawPointer();
  }
  function scrollStep(li) {
    var side = li.closest(".side");
    var top = li.offsetTop - side.offsetTop;
    if (top < side.scrollTop || top > side.scrollTop + side.clientHeight - 40) side.scrollTop = top - 80;
  }
  function drawPointer() {
    var w = img.clientWidth, h = img.clientHeight;
    if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
    ctx.clearRect(0, 0, w, h);
    if (!D.viewport.width || !D.pointer.length) return;
    // Only the pointer of the tab the frame shows is drawn over it.
    var tab = shownFrame >= 0 ? frames[shownFrame].tab || "" : "";
    var k = w / D.viewport.width, last = null, downs = [];
    for (var i = 0; i < D.pointer.length; i++) {
      var p = D.pointer[i];
      if (p.t > cur) break;
      if (tab && p.tab && p.tab !== tab) continue;
      last = p;
      if (p.k === "down" && cur - p.t < 700) downs.push(p);
    }
    downs.forEach(function (p) {
      var age = (cur - p.t) / 700;
      ctx.beginPath(); ctx.arc(p.x * k, p.y * k, 8 + 22 * age, 0, 2 * Math.PI);
      ctx.strokeStyle = "rgba(217,45,32," + (1 - age) + ")"; ctx.lineWidth = 3; ctx.stroke();
    });
    if (last) {
      var x = last.x * k, y = last.y * k;
      ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(x, y + 18); ctx.lineTo(x + 5, y + 14); ctx.lineTo(x + 9, y + 22); ctx.lineTo(x + 12, y + 20); ctx.lineTo(x + 8, y + 13); ctx.lineTo(x + 14, y + 13); ctx.closePath();
      ctx.fillStyle = "#fff"; ctx.strokeStyle = "#111"; ctx.lineWidth = 1.5; ctx.fill(); ctx.stroke();
    }
  }
  function seek(t) { pin = -1; cur = Math.max(0, Math.min(dur, t)); show(); }
  function selectStep(n) {
    for (var i = 0; i < steps.length; i++) if (steps[i].n === n) { pin = i; show(); scrollStep(items[i]); }
  }
  function setHash(h) { try { history.replaceState(null, "", "#" + h); } catch (e) { /* some file:// hosts refuse */ } }
  function setPlaying(p) {
    playing = p;
    $("play").textContent = p ? "Pause" : "Play";
    if (p) { if (cur >= dur) cur = 0; lastTick = performance.now(); requestAnimationFrame(tick); }
  }
  function tick(now) {
    if (!playing) return;
    cur += (now - lastTick) * speed; lastTick = now;
    if (cur >= dur) { cur = dur; show(); setPlaying(false); return; }
    show();
    requestAnimationFrame(tick);
  }
  function stepFrame(d) {
    var fi = frameAt(cur) + d;
    if (d < 0 && frameAt(cur) >= 0 && frames[frameAt(cur)].t < cur) fi = frameAt(cur);
    fi = Math.max(0, Math.min(frames.length - 1, fi));
    if (frames.length) seek(frames[fi].t);
  }
  $("play").classList.add("primary");
  $("play").addEventListener("click", function () { setPlaying(!playing); });
  $("prev").addEventListener("click", function () { setPlaying(false); stepFrame(-1); });
  $("next").addEventListener("click", function () { setPlaying(false); stepFrame(1); });
  $("speed").addEventListener("change", function (e) { speed = parseFloat(e.target.value) || 1; });
  $("scrub").addEventListener("input", function (e) { seek(e.target.value / 1000 * dur); });
  document.addEventListener("keydown", function (e) {
    if (e.target && (e.target.tagName === "SELECT" || e.target.tagName === "INPUT" && e.target.type !== "range")) return;
    if (e.key === "ArrowRight") { setPlaying(false); stepFrame(1); e.preventDefault(); }
    else if (e.key === "ArrowLeft") { setPlaying(false); stepFrame(-1); e.preventDefault(); }
    else if (e.key === " ") { setPlaying(!playing); e.preventDefault(); }
    else if (e.key === "Home") seek(0);
    else if (e.key === "End") seek(dur);
  });
  window.addEventListener("resize", drawPointer);
  img.addEventListener("load", drawPointer);
  function fromHash() {
    var h = location.hash.slice(1), m;
    try { h = decodeURIComponent(h); } catch (e) { return; } // a stray % is not a place in the take
    if ((m = /^t=([0-9.]+)$/.exec(h))) seek(parseFloat(m[1]) * 1000);
    else if ((m = /^step=([0-9]+)$/.exec(h))) {
      var n = parseInt(m[1], 10);
      for (var i = 0; i < steps.length; i++) if (steps[i].n === n) { seek(steps[i].start); selectStep(n); }
    }
  }
  window.addEventListener("hashchange", fromHash);
  show();
  fromHash();
  document.body.dataset.ready = "1";
})();
