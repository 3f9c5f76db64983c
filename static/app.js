// Morning Deck: small progressive enhancements. Every page works without this file.
(function () {
  "use strict";

  var root = document.documentElement;

  // ---------- theme ----------
  var THEME_KEY = "md-theme";
  function storedTheme() {
    try { return localStorage.getItem(THEME_KEY); } catch (e) { return null; }
  }
  function applyTheme(t) {
    if (t === "light" || t === "dark") root.setAttribute("data-theme", t);
    else root.removeAttribute("data-theme");
  }
  applyTheme(storedTheme());

  function currentTheme() {
    var t = root.getAttribute("data-theme");
    if (t) return t;
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }
  function labelToggles() {
    var next = currentTheme() === "dark" ? "light" : "dark";
    document.querySelectorAll("[data-theme-toggle]").forEach(function (b) {
      b.hidden = false;
      b.textContent = next === "dark" ? "Dark theme" : "Light theme";
      b.setAttribute("aria-label", "Switch to " + next + " theme");
    });
  }

  // ---------- relative times ----------
  var rtf = window.Intl && Intl.RelativeTimeFormat ? new Intl.RelativeTimeFormat(undefined, { numeric: "auto", style: "short" }) : null;
  var dtf = window.Intl ? new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }) : null;
  function relative(date) {
    var diff = (date.getTime() - Date.now()) / 1000;
    var abs = Math.abs(diff);
    if (abs < 45) return diff < 0 ? "just now" : "in a moment";
    var units = [["minute", 60, 3600], ["hour", 3600, 86400], ["day", 86400, 604800], ["week", 604800, 2629800], ["month", 2629800, 31557600], ["year", 31557600, Infinity]];
    for (var i = 0; i < units.length; i++) {
      if (abs < units[i][2]) {
        var n = Math.round(diff / units[i][1]);
        if (rtf) return rtf.format(n, units[i][0]);
        return Math.abs(n) + " " + units[i][0] + (Math.abs(n) === 1 ? "" : "s") + (n < 0 ? " ago" : " from now");
      }
    }
    return "";
  }
  function updateTimes(scope) {
    (scope || document).querySelectorAll("time[datetime][data-relative]").forEach(function (t) {
      var d = new Date(t.getAttribute("datetime"));
      if (isNaN(d.getTime())) return;
      // A time something is due at (a source's next fetch) that has passed is due now.
      t.textContent = t.hasAttribute("data-due") && d.getTime() <= Date.now() ? "due now" : relative(d);
      if (dtf) t.title = dtf.format(d);
    });
  }

  // ---------- flashes ----------
  function dismiss(el) {
    el.classList.add("leaving");
    setTimeout(function () { el.remove(); }, 450);
  }
  function setupFlashes(scope) {
    (scope || document).querySelectorAll("[data-flash]").forEach(function (f) {
      if (f.dataset.ready) return;
      f.dataset.ready = "1";
      var b = f.querySelector("[data-dismiss]");
      if (b) { b.hidden = false; b.addEventListener("click", function () { dismiss(f); }); }
      if (f.dataset.autodismiss) {
        var timer = setTimeout(function () { dismiss(f); }, 5000);
        f.addEventListener("mouseenter", function () { clearTimeout(timer); });
        f.addEventListener("focusin", function () { clearTimeout(timer); });
      }
    });
  }

  // ---------- confirmation dialog for destructive forms ----------
  var confirmDialog, pendingForm;
  function setupConfirm() {
    confirmDialog = document.getElementById("confirm-dialog");
    if (!confirmDialog || typeof confirmDialog.showModal !== "function") return;
    confirmDialog.addEventListener("close", function () {
      var form = pendingForm;
      pendingForm = null;
      if (form && confirmDialog.returnValue === "confirm") {
        var ok = document.createElement("input");
        ok.type = "hidden"; ok.name = "confirm"; ok.value = "yes";
        form.appendChild(ok);
        form.dataset.confirmed = "1";
        if (form.requestSubmit) form.requestSubmit(); else form.submit();
      }
    });
    document.addEventListener("submit", function (e) {
      var form = e.target;
      if (!form.matches || !form.matches("form[data-confirm]") || form.dataset.confirmed) return;
      e.preventDefault();
      pendingForm = form;
      confirmDialog.querySelector("[data-confirm-text]").textContent = form.dataset.confirm;
      var go = confirmDialog.querySelector("[data-confirm-button]");
      go.textContent = form.dataset.confirmButton || "Delete";
      confirmDialog.returnValue = "";
      confirmDialog.showModal();
      var cancel = confirmDialog.querySelector("[value=cancel]");
      if (cancel) cancel.focus();
    }, true);
  }

  // ---------- keyboard ----------
  function typing(e) {
    var t = e.target;
    return t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
  }
  var current = -1, pendingG = 0, currentId = "", refocus = null;
  var reducedMotion = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  // A card swapped in place by htmx (star, read) keeps the keyboard focus ring, and the button
  // that had the focus has it again in the new card, without scrolling.
  document.addEventListener("htmx:beforeSwap", function (e) {
    var target = e.detail && e.detail.target, a = document.activeElement;
    refocus = null;
    if (target && target.id && a && a !== document.body && target.contains(a) && a.dataset.testid) {
      refocus = { id: target.id, testid: a.dataset.testid };
    }
  });
  document.addEventListener("htmx:afterSettle", function () {
    var el = currentId && document.getElementById(currentId);
    if (el && !el.classList.contains("is-current")) el.classList.add("is-current");
    if (refocus) {
      var card = document.getElementById(refocus.id);
      var b = card && card.querySelector("[data-testid='" + refocus.testid + "']");
      if (b) b.focus({ preventScroll: true });
      refocus = null;
    }
  });
  function items() { return Array.prototype.slice.call(document.querySelectorAll("[data-testid=item]")); }
  function focusItem(step) {
    var list = items();
    if (!list.length) return;
    var at = list.findIndex(function (el) { return el.classList.contains("is-current"); });
    if (at >= 0) list[at].classList.remove("is-current");
    current = Math.max(0, Math.min(list.length - 1, (at < 0 ? (step > 0 ? -1 : list.length) : at) + step));
    var el = list[current];
    el.classList.add("is-current");
    currentId = el.id;
    var link = el.querySelector("a[data-item-link]");
    if (link) link.focus({ preventScroll: true });
    el.scrollIntoView({ block: "nearest", behavior: reducedMotion ? "auto" : "smooth" });
  }
  function openItem() {
    var el = document.querySelector("[data-testid=item].is-current");
    var link = el && el.querySelector("a[data-item-link]");
    if (link) window.location.href = link.href;
  }
  function showShortcuts() {
    var d = document.getElementById("shortcuts-dialog");
    if (d && typeof d.showModal === "function" && !d.open) d.showModal();
  }
  function setupKeys() {
    document.addEventListener("keydown", function (e) {
      if (e.ctrlKey || e.metaKey || e.altKey || typing(e)) return;
      if (document.querySelector("dialog[open]")) return;
      var k = e.key;
      if (pendingG && Date.now() - pendingG < 1200) {
        pendingG = 0;
        var to = { s: "/sources", i: "/items", t: "/", b: "/briefings", q: "/queues" }[k];
        if (to) { e.preventDefault(); window.location.href = to; }
        return;
      }
      // On an item's page, j/n and k/p go to the next and previous item of the list it was opened from.
      var step = { j: "next", n: "next", k: "prev", p: "prev" }[k];
      var pager = step && document.querySelector("[data-testid=item-page]") && document.querySelector("a[data-item-nav=" + step + "]");
      if (pager) { e.preventDefault(); window.location.href = pager.href; return; }
      switch (k) {
        case "j": e.preventDefault(); focusItem(1); break;
        case "k": e.preventDefault(); focusItem(-1); break;
        case "o": case "Enter":
          if (k === "Enter" && !document.querySelector("[data-testid=item].is-current")) return;
          e.preventDefault(); openItem(); break;
        case "/":
          var f = document.querySelector("[data-search]");
          if (f) { e.preventDefault(); f.focus(); if (f.select) f.select(); }
          break;
        case "s": case "m": case "f": case "e":
          var cur = document.querySelector("[data-testid=item].is-current") || (document.querySelector("[data-testid=item-page]") && document);
          var btn = cur && cur.querySelector("button[data-key=" + k + "]");
          if (btn) { e.preventDefault(); btn.click(); }
          break;
        case "+": case "-":
          var here = document.querySelector("[data-testid=item].is-current") || (document.querySelector("[data-testid=item-page]") && document);
          var fb = here && here.querySelector('button[data-key="' + k + '"]');
          if (fb) { e.preventDefault(); fb.click(); }
          break;
        case "g": pendingG = Date.now(); break;
        case "?": e.preventDefault(); showShortcuts(); break;
      }
    });
    document.querySelectorAll("[data-shortcuts]").forEach(function (a) {
      a.addEventListener("click", function (e) { e.preventDefault(); showShortcuts(); });
    });
  }

  // ---------- start ----------
  function start() {
    labelToggles();
    document.querySelectorAll("[data-theme-toggle]").forEach(function (b) {
      b.addEventListener("click", function () {
        var next = currentTheme() === "dark" ? "light" : "dark";
        applyTheme(next);
        try { localStorage.setItem(THEME_KEY, next); } catch (e) { /* private mode */ }
        labelToggles();
      });
    });
    if (window.matchMedia) {
      var mq = window.matchMedia("(prefers-color-scheme: dark)");
      if (mq.addEventListener) mq.addEventListener("change", labelToggles);
    }
    document.querySelectorAll("select[data-autosubmit]").forEach(function (sel) {
      var b = sel.form && sel.form.querySelector("[data-autosubmit-button]");
      if (b) b.hidden = true;
      sel.addEventListener("change", function () { sel.form.submit(); });
    });
    // A field that does not submit itself (a number: a phone's number pad has no Go key) brings
    // the Apply button back as soon as it is changed.
    document.querySelectorAll("[data-autosubmit-button]").forEach(function (b) {
      if (!b.form) return;
      b.form.addEventListener("input", function (e) {
        var t = e.target;
        if (t && t.tagName === "INPUT" && t.type !== "search" && t.type !== "hidden") b.hidden = false;
      });
    });
    // Polling never swaps a region under an open dialog, an open row menu (not to swap it away
    // under the pointer) or a field being edited: it does not ask while one is open, and an
    // answer that arrives after one was opened is dropped (the next poll asks again).
    function pollHeld(el) {
      if (!el || !el.hasAttribute("data-poll")) return false;
      var a = document.activeElement;
      return !!(document.querySelector("dialog[open]") || el.querySelector("details.menu[open]") ||
        (a && el.contains(a) && a !== document.body && /^(INPUT|SELECT|TEXTAREA)$/.test(a.tagName)));
    }
    document.addEventListener("htmx:beforeRequest", function (e) {
      if (pollHeld(e.detail && e.detail.elt)) e.preventDefault();
    });
    document.addEventListener("htmx:beforeSwap", function (e) {
      if (e.detail && pollHeld(e.detail.elt)) e.detail.shouldSwap = false;
    });
    // The score's reason on a tap or Enter (touch has no hover): one open at a time.
    document.addEventListener("click", function (e) {
      var t = e.target.closest ? e.target.closest("[data-reason-toggle]") : null;
      document.querySelectorAll("[data-reason-toggle][aria-expanded=true]").forEach(function (o) { if (o !== t) o.setAttribute("aria-expanded", "false"); });
      if (t) t.setAttribute("aria-expanded", t.getAttribute("aria-expanded") === "true" ? "false" : "true");
    });
    document.addEventListener("keydown", function (e) {
      var t = e.target;
      if ((e.key === "Enter" || e.key === " ") && t && t.hasAttribute && t.hasAttribute("data-reason-toggle")) {
        e.preventDefault();
        e.stopImmediatePropagation(); // not also the Enter that opens the current item
        t.click();
      }
    });
    // Row menus (Sources): one open at a time, closed by a click elsewhere or Escape (polling
    // waits while one is open: pollHeld).
    document.addEventListener("click", function (e) {
      document.querySelectorAll("details.menu[open]").forEach(function (d) { if (!d.contains(e.target)) d.open = false; });
    });
    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape") document.querySelectorAll("details.menu[open]").forEach(function (d) { d.open = false; });
    });
    updateTimes();
    setInterval(updateTimes, 30000);
    setupFlashes();
    setupConfirm();
    setupKeys();
    // Fragments swapped in by htmx get the same treatment.
    document.addEventListener("htmx:load", function (e) { updateTimes(e.detail.elt); setupFlashes(e.detail.elt); });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

// Live counts (issue 28): the sidebar's unread, failing and failed counts follow marks, fetches
// (an OPML import's) and other tabs without a page load. GET /fragments/counts answers them as
// JSON (with an ETag: an unchanged answer costs a 304); they are asked for after a change made
// through htmx or by MorningDeck.refreshCounts, after each answer of a polled region (while
// sources are fetched), every half minute while the page is seen, and when it is seen again.
(function () {
  "use strict";
  if (!window.fetch) return;
  var pending = null, last = 0;
  function setCount(holder, testid, n, text, title, word, neutral) {
    if (!holder) return;
    var c = holder.querySelector("[data-testid=" + testid + "]") || (testid === "unread-count" ? document.getElementById("unread-count") : null);
    if (!n) {
      if (c && c.id === "unread-count") { c.hidden = true; c.className = ""; c.textContent = ""; c.removeAttribute("data-testid"); }
      else if (c) c.remove();
      return;
    }
    if (!c) {
      c = document.createElement("span");
      holder.appendChild(c);
    }
    c.hidden = false;
    c.className = neutral ? "count count-neutral" : "count";
    c.setAttribute("data-testid", testid);
    c.title = title;
    c.textContent = text;
    var h = document.createElement("span");
    h.className = "visually-hidden";
    h.textContent = word;
    c.appendChild(h);
  }
  function apply(c) {
    if (!c) return;
    setCount(document.querySelector("[data-testid=nav-items]"), "unread-count", c.unread, c.unreadText, c.unreadTitle, "unread", true);
    setCount(document.querySelector("[data-testid=nav-sources]"), "error-count", c.errorSources, String(c.errorSources), c.errorTitle, "in error", false);
    setCount(document.querySelector("[data-testid=nav-queues]"), "failed-count", c.failedJobs, String(c.failedJobs), c.failedTitle, "failed", false);
    (c.folders || []).forEach(function (f) {
      var a = document.querySelector("a[data-folder-id='" + f.id + "']");
      if (!a) return;
      a.title = f.title;
      setCount(a, "folder-unread", f.unread, f.text, f.title, "unread", true);
    });
  }
  function refresh() {
    last = Date.now();
    return fetch("/fragments/counts", { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(apply)
      .catch(function () { /* offline: the counts wait for the next ask */ });
  }
  // Several changes in a row (marking a page read one by one) ask once.
  function soon(delay) {
    if (!document.querySelector(".nav")) return;
    clearTimeout(pending);
    pending = setTimeout(refresh, delay === undefined ? 250 : delay);
  }
  window.MorningDeck = window.MorningDeck || {};
  window.MorningDeck.refreshCounts = function () { soon(); };
  document.addEventListener("htmx:afterRequest", function (e) {
    var d = e.detail || {}, verb = d.requestConfig && d.requestConfig.verb;
    if (verb && verb.toLowerCase() !== "get") soon();
    else if (d.elt && d.elt.hasAttribute && d.elt.hasAttribute("data-poll") && Date.now() - last > 1800) soon(0);
  });
  setInterval(function () { if (!document.hidden) soon(0); }, 30000);
  document.addEventListener("visibilitychange", function () { if (!document.hidden && Date.now() - last > 5000) soon(0); });
})();

// Reading offline (issue 28, item 5). The service worker (/sw.js) keeps the pages; once online
// at most every ten minutes it is asked to keep the latest ones (/offline/pages). A star or a
// read mark made offline is kept on this device (localStorage "md-pending"), shown at once,
// and sent when the browser is back online; an item page opened offline is marked read so too.
(function () {
  "use strict";
  var KEY = "md-pending";
  function pending() { try { return JSON.parse(localStorage.getItem(KEY) || "[]"); } catch (e) { return []; } }
  function save(list) { try { localStorage.setItem(KEY, JSON.stringify(list)); } catch (e) { /* private mode */ } }
  function note(text) {
    var holder = document.querySelector(".flashes[role=status]");
    if (!holder) {
      holder = document.createElement("div");
      holder.className = "flashes"; holder.setAttribute("role", "status"); holder.setAttribute("aria-live", "polite");
      var main = document.getElementById("main");
      if (!main) return;
      main.parentNode.insertBefore(holder, main);
    }
    var f = document.createElement("div");
    f.className = "flash flash-info"; f.setAttribute("data-testid", "offline-note");
    var p = document.createElement("p"); p.textContent = text; f.appendChild(p);
    holder.appendChild(f);
    setTimeout(function () { f.remove(); }, 5000);
  }
  // The form of a star or read toggle: /items/ID/star or /items/ID/read.
  function toggleOf(form) {
    var m = form && form.getAttribute && /^\/items\/(\d+)\/(star|read)$/.exec(form.getAttribute("action") || "");
    var on = m && form.querySelector("input[name=on]");
    return m && on ? { form: form, id: m[1], action: m[2], on: on } : null;
  }
  function showToggled(t, value) {
    var b = t.form.querySelector("button"), now = value === "true";
    t.on.value = now ? "false" : "true";
    if (b) {
      b.textContent = t.action === "star" ? (now ? "Unstar" : "Star") : (now ? "Mark unread" : "Mark read");
      b.classList.toggle("is-on", now);
      b.setAttribute("aria-pressed", String(now));
    }
    var card = t.form.closest("[data-testid=item]");
    if (card && t.action === "read") card.classList.toggle("is-read", now);
    if (card && t.action === "star") card.classList.toggle("is-starred", now);
  }
  function queue(t) {
    var value = t.on.value, list = pending().filter(function (c) { return !(c.id === t.id && c.action === t.action); });
    list.push({ id: t.id, action: t.action, on: value });
    save(list);
    showToggled(t, value);
  }
  var flushing = false;
  function flush() {
    var list = pending();
    if (flushing || !list.length || !window.fetch || navigator.onLine === false) return;
    flushing = true;
    var left = list.slice();
    function next() {
      if (!left.length) {
        flushing = false;
        if (window.MorningDeck && window.MorningDeck.refreshCounts) window.MorningDeck.refreshCounts();
        return;
      }
      var c = left[0];
      fetch("/items/" + c.id + "/" + c.action, {
        method: "POST", credentials: "same-origin", redirect: "manual",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: "on=" + encodeURIComponent(c.on) + "&return=" + encodeURIComponent("/items/" + c.id)
      }).then(function (r) {
        if (r.type !== "opaqueredirect" && !r.ok && r.status !== 404) throw new Error(r.status);
        left.shift();
        save(pending().filter(function (p) { return !(p.id === c.id && p.action === c.action && p.on === c.on); }));
        next();
      }).catch(function () { flushing = false; });
    }
    next();
  }
  // Offline, a toggle's form is kept instead of sent (before htmx or the browser sends it).
  document.addEventListener("submit", function (e) {
    if (navigator.onLine !== false) return;
    var t = toggleOf(e.target);
    if (!t) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    queue(t);
    note("You are offline: this change is kept on this device and sent when you are back online.");
  }, true);
  document.addEventListener("click", function (e) {
    if (navigator.onLine !== false) return;
    var b = e.target.closest ? e.target.closest("button") : null, t = b && toggleOf(b.form);
    if (!t) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    queue(t);
    note("You are offline: this change is kept on this device and sent when you are back online.");
  }, true);
  window.addEventListener("online", flush);
  function start() {
    flush();
    // An item page read offline counts as opened: its read mark waits with the others.
    if (navigator.onLine === false && document.querySelector("[data-testid=item-page]")) {
      var t = toggleOf(document.querySelector("[data-testid=item-page] form[action$='/read']"));
      if (t && t.on.value === "true") queue(t);
    }
    if (!("serviceWorker" in navigator) || !window.fetch) return;
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).then(function () {
      return navigator.serviceWorker.ready;
    }).then(function (reg) {
      var last = 0;
      try { last = Number(localStorage.getItem("md-pages-kept") || 0); } catch (e) { /* private mode */ }
      if (navigator.onLine === false || Date.now() - last < 10 * 60 * 1000 || !reg.active) return;
      try { localStorage.setItem("md-pages-kept", String(Date.now())); } catch (e) { /* private mode */ }
      reg.active.postMessage({ type: "keep-pages" });
    }).catch(function () { /* no service worker: the app works online */ });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

// Mark as read on scroll (a reading option of Settings, off by default): in a list of items, an
// unread item that was on the screen and has left it through the top is marked read. The card
// is not swapped (the list never jumps): its class and its Mark read button change in place.
(function () {
  "use strict";
  function setup() {
    if (!document.body || !document.body.hasAttribute("data-mark-read-on-scroll") || !window.IntersectionObserver || !window.fetch) return;
    var seen = new WeakSet();
    function markRead(card) {
      var form = card.querySelector("form[action$='/read']");
      var on = form && form.querySelector("input[name=on]");
      if (!form || !on || on.value !== "true" || card.classList.contains("is-read")) return;
      card.classList.add("is-read");
      var body = new URLSearchParams(new FormData(form));
      fetch(form.getAttribute("action"), {
        method: "POST", credentials: "same-origin", body: body,
        headers: { "Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true" }
      }).then(function (r) {
        if (!r.ok) throw new Error(r.status);
        on.value = "false";
        var b = form.querySelector("button");
        if (b) { b.textContent = "Mark unread"; b.classList.add("is-on"); b.setAttribute("aria-pressed", "true"); }
        if (window.MorningDeck && window.MorningDeck.refreshCounts) window.MorningDeck.refreshCounts();
      }).catch(function () { card.classList.remove("is-read"); });
    }
    var io = new IntersectionObserver(function (entries) {
      entries.forEach(function (e) {
        if (e.isIntersecting) { seen.add(e.target); return; }
        var top = e.rootBounds ? e.rootBounds.top : 0;
        if (seen.has(e.target) && e.boundingClientRect.bottom <= top + 1) {
          io.unobserve(e.target);
          markRead(e.target);
        }
      });
    });
    function watch(scope) {
      (scope || document).querySelectorAll("[data-testid=item]:not(.is-read)").forEach(function (el) { io.observe(el); });
      if (scope && scope.matches && scope.matches("[data-testid=item]:not(.is-read)")) io.observe(scope);
    }
    watch();
    document.addEventListener("htmx:load", function (e) { watch(e.detail.elt); });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setup);
  else setup();
})();

// Read to the end (issue 12): on an item's page, once the reader has scrolled to the end of the
// article, tell the server once; it is a signal for what Morning Deck learns of their taste.
(function () {
  "use strict";
  function setup() {
    var page = document.querySelector("[data-read-beacon]");
    if (!page || !window.fetch) return;
    var sent = false;
    function check() {
      if (sent) return;
      if (page.getBoundingClientRect().bottom > window.innerHeight + 40) return;
      sent = true;
      window.removeEventListener("scroll", check);
      fetch(page.getAttribute("data-read-beacon"), {
        method: "POST", credentials: "same-origin", keepalive: true,
        headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Beacon": "true" },
        body: "signal=read_to_end"
      }).catch(function () { /* offline: the signal is lost, nothing else */ });
    }
    window.addEventListener("scroll", check, { passive: true });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setup);
  else setup();
})();

// The briefing form's scope (issue 16): picking a folder or checking a source chooses that
// scope, so the choice is not lost to "All sources". Without JavaScript the radio decides.
(function () {
  "use strict";
  document.addEventListener("change", function (e) {
    var t = e.target, scope = t.closest && t.closest(".briefing-scope");
    if (!scope) return;
    var want = t.name === "folderId" ? "folder" : t.name === "sourceIds" && t.checked ? "sources" : "";
    var radio = want && scope.querySelector('input[name=scope][value="' + want + '"]');
    if (radio) radio.checked = true;
  });

  // A long list of sources gets a filter box: the sources whose name holds what is typed (any
  // case) stay, with a count of those shown and of those chosen; Enter in the box does not
  // submit the form.
  function setupPickFilters() {
    document.querySelectorAll("[data-picks-filter]").forEach(function (box) {
      var input = box.querySelector("input"), status = box.querySelector("[data-picks-status]");
      var list = box.parentElement.querySelector("[data-picks]");
      if (!input || !list) return;
      var labels = Array.prototype.slice.call(list.querySelectorAll("label"));
      function update() {
        var q = input.value.trim().toLowerCase(), shown = 0, chosen = 0;
        labels.forEach(function (l) {
          var show = !q || l.textContent.toLowerCase().indexOf(q) >= 0;
          l.hidden = !show;
          if (show) shown++;
          var c = l.querySelector("input");
          if (c && c.checked) chosen++;
        });
        if (status) status.textContent = (q ? shown + " of " + labels.length + " shown" : labels.length + " sources") + (chosen ? " · " + chosen + " chosen" : "");
      }
      input.addEventListener("input", update);
      input.addEventListener("keydown", function (e) { if (e.key === "Enter") e.preventDefault(); });
      list.addEventListener("change", update);
      box.hidden = false;
      update();
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setupPickFilters);
  else setupPickFilters();

  // A new briefing's time zone, when Settings names none, is the browser's own rather than
  // UTC (issue 28); without JavaScript it stays UTC, as the server wrote it.
  function browserZone() {
    document.querySelectorAll("input[data-browser-zone]").forEach(function (input) {
      var zone = "";
      try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { return; }
      if (zone && (zone.indexOf("/") > 0 || zone === "UTC") && zone.indexOf("Unknown") < 0) input.value = zone;
      input.removeAttribute("data-browser-zone");
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", browserZone);
  else browserZone();
})();
