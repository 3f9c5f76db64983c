// Morning Deck's service worker (issue 28, item 5), served at /sw.js after two lines the server
// writes: SHELL, the hashed URLs of the stylesheet, scripts and icons, and VERSION. It keeps
// the shell, the pages the reader opened and, when asked (app.js, at most every ten minutes),
// the pages /offline/pages lists: Today, Items, the latest report of each briefing and the
// latest few hundred items. Online, a page always comes from the server (its copy is kept);
// offline, from the copy. Read and star changes made offline are queued by app.js.
"use strict";
var SHELL_CACHE = "md-shell-" + VERSION, PAGES = "md-pages", MAX_PAGES = 450;

self.addEventListener("install", function (e) {
  e.waitUntil(caches.open(SHELL_CACHE).then(function (c) { return c.addAll(SHELL); }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (e) {
  e.waitUntil(caches.keys().then(function (keys) {
    return Promise.all(keys.filter(function (k) { return k.indexOf("md-shell-") === 0 && k !== SHELL_CACHE; }).map(function (k) { return caches.delete(k); }));
  }).then(function () { return self.clients.claim(); }));
});

function offlinePage() {
  return new Response("<!DOCTYPE html><meta charset=utf-8><meta name=viewport content='width=device-width, initial-scale=1'><title>Offline · Morning Deck</title>" +
    "<p style='font:1rem/1.5 system-ui, sans-serif; margin: 2rem'>You are offline, and this page was not kept for reading offline. <a href='/'>Today</a> and the latest items and reports are.</p>",
    { status: 503, headers: { "Content-Type": "text/html; charset=utf-8" } });
}

function keep(req, res) {
  if (!res || res.status !== 200 || res.redirected || res.type !== "basic") return;
  var copy = res.clone();
  caches.open(PAGES).then(function (c) { return c.put(req.url, copy); });
}

self.addEventListener("fetch", function (e) {
  var req = e.request, url = new URL(req.url);
  if (req.method !== "GET" || url.origin !== self.location.origin) return;
  if (url.pathname.indexOf("/static/") === 0) {
    e.respondWith(caches.match(req).then(function (hit) { return hit || fetch(req); }));
    return;
  }
  var page = req.mode === "navigate" || (req.headers.get("Accept") || "").indexOf("text/html") >= 0;
  if (!page || url.pathname.indexOf("/fragments/") === 0 || url.pathname.indexOf("/api/") === 0) return;
  e.respondWith(fetch(req).then(function (res) {
    keep(req, res);
    return res;
  }).catch(function () {
    return caches.open(PAGES).then(function (c) {
      return c.match(req.url).then(function (hit) { return hit || c.match(req.url, { ignoreSearch: true }); });
    }).then(function (hit) { return hit || offlinePage(); });
  }));
});

// Keeping the listed pages: four at a time, each asked as an offline copy (it marks nothing
// read and takes no message meant for the reader); then the oldest copies beyond MAX_PAGES go.
function keepListed() {
  return fetch("/offline/pages", { credentials: "same-origin", headers: { Accept: "application/json" } }).then(function (r) {
    if (!r.ok) throw new Error("offline pages: " + r.status);
    return r.json();
  }).then(function (list) {
    var urls = (list && list.pages) || [], at = 0;
    return caches.open(PAGES).then(function (c) {
      function next() {
        if (at >= urls.length) return Promise.resolve();
        var u = urls[at++];
        return fetch(u, { credentials: "same-origin", headers: { "X-Offline-Copy": "1", Accept: "text/html" } }).then(function (res) {
          if (res.ok && !res.redirected) return c.put(new URL(u, self.location.origin).href, res);
        }).catch(function () {}).then(next);
      }
      return Promise.all([next(), next(), next(), next()]).then(function () {
        return c.keys().then(function (keys) {
          var extra = keys.length - MAX_PAGES;
          return Promise.all(keys.slice(0, Math.max(0, extra)).map(function (k) { return c.delete(k); }));
        });
      });
    });
  });
}

self.addEventListener("message", function (e) {
  if (e.data && e.data.type === "keep-pages") {
    var done = keepListed().then(function () {
      if (e.source) e.source.postMessage({ type: "pages-kept" });
    }).catch(function () {});
    if (e.waitUntil) e.waitUntil(done);
  }
});
