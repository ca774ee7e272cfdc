// The pages' offline copies: a service worker (registered by search.js where the browser
// allows one: a secure context, which `http://localhost` and `http://127.0.0.1` are, and an
// HTTPS address; not a plain `http://` LAN address). A technician's tablet on patchy 4G
// reloading a page it had opened got the browser's own error page.
//
// - Every page and file is asked of the server first (network first): while it answers,
//   what it answers is shown, an error page too. Only when the server cannot be reached is
//   a copy shown, and only of the exact address (a search's question is in it) in the
//   language the server would answer it in: a page's copy is kept under its address and
//   its interface language (`data-ui` of <body>; the address's `?lang=` left out of the
//   key, the language is in it). Offline, the language asked is the server's choice
//   (`i18n.pick_lang`): the address's `?lang=`, else the one the reader chose (the
//   `kb_lang` cookie, as the pages said it: `data-ui-chosen`), else the browser's
//   languages. A page read in English is never shown as the copy of a Chinese one.
// - The copies are of one release at a time: a page names its release (the `data-release`
//   of `#kb-stale`, its tag and source commit), and a page of another release, a sync's or
//   a rollback's, drops every copy of the earlier one before it is kept. A copy is never
//   shown beside a newer release's answers, nor one release's picture in another's page.
// - A copy shown is marked: its `#kb-offline` note (hidden while served afresh) is shown,
//   naming its release, with the time the server sent it (`data-saved`, search.js says it).
// Only GET answers of 200 from this server are kept: no form sent, no refusal, no redirect.
"use strict";

var PREFIX = "kb-pages ";
var RELEASE = /data-release="([^"]*)"/;
var NOTE = 'id="kb-offline" role="status" hidden';
var UI = /<body[^>]* data-ui="(zh|en)"/;
var CHOSEN = /<body[^>]* data-ui-chosen/;
// as kbtools/serve/i18n.py: LANGS, DEFAULT_LANG, OTHER_BROWSERS_LANG, CHINESE_TAGS
var LANGS = ["zh", "en"];
var DEFAULT_LANG = "zh";
var OTHER_BROWSERS_LANG = "en";
var CHINESE_TAGS = ["cmn", "yue", "wuu", "nan", "hak", "lzh"];
var COOKIE = "kb_lang";
// where the current cache remembers the language the reader chose (none: the browser's)
var CHOICE = "/offline.js?chosen";
// a language chosen offline that the server's cookie does not say yet (a worker without a
// cookie store, Safari's, cannot set it): kept apart from the releases' copies (a sync
// drops those), and told to the server with the next page asked of it
var UNSENT_CACHE = "kb-choice";
var UNSENT = "/offline.js?unsent";

self.addEventListener("install", function () {
  self.skipWaiting();
});
self.addEventListener("activate", function (event) {
  event.waitUntil(self.clients.claim());
});

// The name of the cache holding the copies (of the release last seen), or null.
function current() {
  return caches.keys().then(function (names) {
    return names.filter(function (n) { return n.indexOf(PREFIX) === 0; })[0] || null;
  });
}

// The key a page's copy is kept under: its address without `?lang=`, and its language.
function pageKey(url, ui) {
  var u = new URL(url);
  u.searchParams.delete("lang");
  u.searchParams.append("kb-ui", ui);
  return new Request(u.href);
}

function langParam(url) {
  var lang = new URL(url).searchParams.get("lang");
  return LANGS.indexOf(lang) >= 0 ? lang : null;
}

// The browser's language as the server reads its Accept-Language (`i18n.pick_lang`).
function browserLang() {
  var named = (self.navigator && self.navigator.languages) || [];
  for (var i = 0; i < named.length; i++) {
    var primary = String(named[i]).replace("_", "-").split("-")[0].toLowerCase();
    if (CHINESE_TAGS.indexOf(primary) >= 0) {
      primary = "zh";
    }
    if (LANGS.indexOf(primary) >= 0) {
      return primary;
    }
  }
  return named.some(function (n) { return n && n !== "*"; }) ? OTHER_BROWSERS_LANG : DEFAULT_LANG;
}

// The language the reader chose, as the current cache remembers it, or null.
function chosen(cache) {
  return cache.match(CHOICE).then(function (kept) {
    return kept ? kept.text() : "";
  }).then(function (lang) {
    return LANGS.indexOf(lang) >= 0 ? lang : null;
  });
}

function choose(cache, lang) {
  return lang ? cache.put(CHOICE, new Response(lang)) : cache.delete(CHOICE);
}

// `response`, a page of a release, kept under `request`'s address in its language: the
// copies of any other release dropped first; the language the reader chose remembered.
function keepPage(request, response) {
  return response.clone().text().then(function (html) {
    var found = RELEASE.exec(html);
    var ui = UI.exec(html);
    if (!found || !ui) {
      return null;  // a page naming no release (an error page) is not kept
    }
    var name = PREFIX + found[1];
    return caches.keys().then(function (names) {
      return Promise.all(names.filter(function (n) {
        return n.indexOf(PREFIX) === 0 && n !== name;
      }).map(function (n) { return caches.delete(n); }));
    }).then(function () {
      return caches.open(name);
    }).then(function (cache) {
      return Promise.all([cache.put(pageKey(request.url, ui[1]), response),
                          choose(cache, CHOSEN.test(html) ? ui[1] : null)]);
    });
  });
}

// A file a page shows (its stylesheet, script, formulas, pictures), kept with the pages of
// the release last seen (none kept before a page is).
function keepFile(request, response) {
  return current().then(function (name) {
    return name && caches.open(name).then(function (cache) {
      return cache.put(request, response);
    });
  });
}

// Whether `url` is a file of this server's a page shows.
function shown(url) {
  return url.origin === self.location.origin && /^\/(static|formulas|asset)\//.test(url.pathname);
}

function keepable(response) {
  return response && response.status === 200 && response.type === "basic" && !response.redirected;
}

// The copy of `request` kept, or undefined: a page's in the language the server would
// answer it in.
function copyOf(request, page) {
  return current().then(function (name) {
    return name ? caches.open(name).then(function (cache) {
      if (!page) {
        return cache.match(request, {ignoreVary: true});
      }
      var asked = langParam(request.url);
      return (asked ? Promise.resolve(asked) : chosen(cache)).then(function (lang) {
        return cache.match(pageKey(request.url, lang || browserLang()), {ignoreVary: true});
      });
    }) : undefined;
  });
}

// An address's `?lang=` followed offline, remembered as the server's cookie would have
// been (and set as that cookie where the browser lets a worker set one; where it does not,
// Safari's, the copy's page sets it (search.js) when one is shown, and `tell` gives it to the
// server before the next page asked of it, a copy shown or not): the next page opened
// without it is in that language too, offline and once the server is back.
function remember(request) {
  var asked = langParam(request.url);
  if (!asked) {
    return Promise.resolve();
  }
  return current().then(function (name) {
    return name && caches.open(name).then(function (cache) { return choose(cache, asked); });
  }).then(function () {
    var set;
    try {
      set = self.cookieStore ? self.cookieStore.set({
        name: COOKIE, value: asked, path: "/", sameSite: "strict",
        expires: Date.now() + 365 * 86400 * 1000}) : Promise.reject(new Error("no store"));
    } catch (e) {
      set = Promise.reject(e);
    }
    return Promise.resolve(set).then(function () { return unsent(null); },
                                     function () { return unsent(asked); });
  }).catch(function () {});
}

// The language chosen offline the server has not been told (`lang`), or none (null: its
// cache is there only while one is kept).
function unsent(lang) {
  return lang ? caches.open(UNSENT_CACHE).then(function (cache) {
    return cache.put(UNSENT, new Response(lang));
  }) : caches.delete(UNSENT_CACHE);
}

// Before a page is asked of the server: the language chosen offline and never told it
// (Safari: no cookie store, and no copy's page set the cookie), told now by asking the
// search page in it (the server sets its cookie, as for any `?lang=` address; the page
// asked then carries it). Once the server has it, or an address of its own says the
// language (the server sets the cookie for it), it is no longer kept. The server out of
// reach: kept for the next page.
function tell(request) {
  return caches.match(UNSENT, {cacheName: UNSENT_CACHE}).then(function (kept) {
    return kept ? kept.text() : "";
  }).then(function (lang) {
    if (LANGS.indexOf(lang) < 0) {
      return null;
    }
    if (langParam(request.url)) {
      return unsent(null);
    }
    return fetch("/?lang=" + lang, {credentials: "same-origin", cache: "no-store"})
      .then(function (told) {
        return told.ok ? unsent(null) : null;
      });
  }).catch(function () {});
}

// A kept page as shown offline: its note shown, with the time the server sent it.
function marked(copy) {
  return copy.text().then(function (html) {
    var saved = (copy.headers.get("date") || "").replace(/"/g, "");
    html = html.replace(NOTE, 'id="kb-offline" role="status" data-saved="' + saved + '"');
    var headers = new Headers({"content-type": "text/html; charset=utf-8"});
    ["content-security-policy", "x-content-type-options", "referrer-policy"].forEach(
      function (key) {
        var value = copy.headers.get(key);
        if (value) {
          headers.set(key, value);
        }
      });
    return new Response(html, {status: 200, headers: headers});
  });
}

function fromServer(event, page) {
  return (page ? tell(event.request) : Promise.resolve()).then(function () {
    return fetch(event.request);
  }).then(function (response) {
    if (keepable(response)) {
      var kept = page ? keepPage(event.request, response.clone())
        : keepFile(event.request, response.clone());
      event.waitUntil(kept.catch(function () {}));
    }
    return response;
  }, function (failed) {
    if (page) {
      // the language asked for is the reader's choice whether a copy of this page is kept
      // or not (the language switch on a page never opened in it): the server would have
      // remembered it, and the next page opened offline is in it
      event.waitUntil(remember(event.request));
    }
    return copyOf(event.request, page).then(function (copy) {
      if (!copy) {
        throw failed;  // never opened here: the browser says it cannot connect
      }
      return page ? marked(copy) : copy;
    });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin ||
      url.pathname.indexOf("/api/") === 0 || url.pathname === "/offline.js") {
    return;  // the browser's own way: forms, the API, the worker itself
  }
  var page = request.mode === "navigate";
  if (!page && !shown(url)) {
    return;
  }
  event.respondWith(fromServer(event, page));
});

// A page shown before this worker took charge (the first one opened): search.js asks for it
// to be kept too. Fetched again through the browser's cache, it is a 304 (a results page's
// question is not searched nor logged again).
self.addEventListener("message", function (event) {
  var data = event.data || {};
  if (typeof data.keep !== "string") {
    return;
  }
  var url = new URL(data.keep, self.location.origin);
  if (url.origin !== self.location.origin) {
    return;
  }
  var request = new Request(url.href, {credentials: "same-origin"});
  var files = (Array.isArray(data.files) ? data.files : []).filter(function (f) {
    return typeof f === "string" && shown(new URL(f, self.location.origin));
  });
  event.waitUntil(fetch(request).then(function (response) {
    return keepable(response) ? keepPage(request, response) : null;
  }).then(function () {
    return Promise.all(files.map(function (f) {
      var file = new Request(new URL(f, self.location.origin).href);
      return fetch(file).then(function (response) {
        return keepable(response) ? keepFile(file, response) : null;
      }).catch(function () {});
    }));
  }).catch(function () {}));
});
