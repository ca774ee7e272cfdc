// The pages' one script. The search page's question box (a textarea: a pasted log keeps its
// lines), and the focus on what a search or a decision found. Without this
// script the box and its button work as any form; with it, Enter searches and Shift+Enter
// starts a new line, the box grows with its text where CSS `field-sizing` is unknown, and a
// search that does not arrive (the network down, no answer in time) is said on the page with
// the question kept in the box, a reload of the page too, and a button to send it again,
// instead of the browser's own error page with the question gone; one long in coming
// (patchy 4G) says so and offers to send it again before the wait is out.
// Loaded from this server (the pages' CSP allows no inline script and nothing elsewhere).
(function () {
  "use strict";
  // What a search or a decision found (the results' count, a decision's outcome) takes the
  // focus when the page is reached afresh (a screen reader says it, Tab goes on from it);
  // not back or forward to it, nor a reload: those return to where the page was left.
  var found = document.querySelector("[data-focus]");
  var entries = window.performance && performance.getEntriesByType ?
    performance.getEntriesByType("navigation") : [];
  if (found && (!entries.length || entries[0].type === "navigate")) {
    found.focus();
  }
  // A page the browser kept (Back or Forward to it, a tab left open) while `kb sync` or
  // `kb rollback` switched the release: shown again, it asks which release is served, and
  // when that is another one says so above the page with a link that loads it afresh (the
  // cited lines, a dose, a decision may have changed). Offline, or without this script,
  // nothing is said: the page's footer names its release.
  var stale = document.getElementById("kb-stale");
  function checkRelease() {
    if (!stale || !window.fetch) {
      return;
    }
    fetch("/api/healthz", {cache: "no-store", credentials: "same-origin"}).then(function (r) {
      return r.ok ? r.json() : null;
    }).then(function (body) {
      var rel = body && body.release;
      if (!rel) {
        return;
      }
      var now = (rel.tag || "") + " " + (rel.source_commit || "");
      if (now === stale.getAttribute("data-release")) {
        stale.hidden = true;
        return;
      }
      stale.querySelector("span").textContent = stale.getAttribute("data-words")
        .replace("{tag}", rel.tag || (rel.source_commit || "").slice(0, 12));
      stale.hidden = false;
      noteHeight();
    }).catch(function () {});
  }
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) {
      checkRelease();
    }
  });
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") {
      checkRelease();
    }
  });

  // The offline copies (offline.js): registered where the browser allows a service worker
  // (a secure context: localhost, 127.0.0.1 or HTTPS); the page itself kept too when the
  // worker was not yet in charge of it (the first page opened). A page shown from a copy
  // says so (its note, shown by the worker) with the time it was saved, in the reader's
  // local time.
  var offline = document.getElementById("kb-offline");
  if (offline && offline.hasAttribute("data-saved")) {
    var saved = new Date(offline.getAttribute("data-saved"));
    var when = offline.querySelector("time");
    if (when && !isNaN(saved.getTime())) {
      when.setAttribute("datetime", saved.toISOString());
      when.textContent = offline.getAttribute("data-when").replace(
        "{time}", saved.toLocaleString(document.documentElement.lang));
    }
    // the language its address asks for, remembered as the server's cookie would have been:
    // the worker sets it only where a worker has a cookie store (not Safari's), and the next
    // page asked of the server, back online, was in the browser's language
    var asked = new URLSearchParams(location.search).get("lang");
    if (asked && asked === document.body.getAttribute("data-ui")) {
      document.cookie = "kb_lang=" + asked + "; path=/; max-age=" + 365 * 86400 +
        "; samesite=strict";
    }
  } else if (offline && window.isSecureContext && navigator.serviceWorker) {
    // whether the worker answered this page's own request (then it kept it): not whether it
    // is in charge now, which it can take while the page loads, its request gone past it
    var nav = performance.getEntriesByType ? performance.getEntriesByType("navigation")[0]
      : null;
    var served = nav ? nav.workerStart > 0 : !!navigator.serviceWorker.controller;
    navigator.serviceWorker.register("/offline.js").then(function () {
      return navigator.serviceWorker.ready;
    }).then(function (registration) {
      if (registration.active && !served) {
        // with the files it shows (stylesheet, script, formulas, pictures), fetched already
        var files = (performance.getEntriesByType ? performance.getEntriesByType("resource")
          : []).map(function (e) { return e.name; });
        registration.active.postMessage({keep: location.pathname + location.search,
                                         files: files});
      }
    }).catch(function () {});
  }

  // The notes above a page (a copy's, a switched release's) stay at the top of the screen
  // and covered what a link's #fragment is scrolled to: a citation opened from a copy on a
  // phone showed its lines from the fifth on. The note's height is the margin a fragment
  // is scrolled to (style.css `--kb-note`), again when the screen turns, and a page opened
  // at a fragment is scrolled to it once more with its note there.
  // Both notes shown are stacked in one box (`#kb-notes`): its height is theirs together.
  function noteHeight() {
    var notes = document.getElementById("kb-notes");
    var height = notes ? notes.getBoundingClientRect().height : 0;
    document.documentElement.style.setProperty("--kb-note", height + "px");
    return height;
  }
  window.addEventListener("resize", noteHeight);
  function fragmentTarget() {
    try {  // a fragment that is no escaped UTF-8 (`#%E0`) names nothing
      return document.getElementById(decodeURIComponent(location.hash.slice(1)));
    } catch (e) {
      return null;
    }
  }
  var linkedTo = location.hash.length > 1 ? fragmentTarget() : null;
  if (noteHeight() && linkedTo) {
    linkedTo.scrollIntoView();
  }

  var box = document.getElementById("kb-q");
  if (!box || !box.form) {
    return;
  }
  var form = box.form;
  var note = document.getElementById("kb-sending");
  var retry = document.getElementById("kb-retry");
  // sessionStorage (this tab only): {url, q, state} of a question that did not arrive, put
  // back in the box when the page at `url` is shown again (reloaded, back to it)
  var UNSENT = "kb-unsent";
  // the search on its way: {stop, timers, late, dropped}; null when none is
  var pending = null;
  var state = "";
  // where the offline worker (offline.js `UNSENT`) keeps a language chosen offline that the
  // server was not told yet (Safari: its worker cannot set the cookie)
  var CHOICE_CACHE = "kb-choice";
  var CHOICE = "/offline.js?unsent";

  // The language chosen offline and not yet told the server, or null. The form's POST
  // passes the worker by (it keeps no form): sent first back online, it was answered in the
  // earlier language, then asked and searched again in the chosen one.
  function unsentLang() {
    if (!window.caches) {
      return Promise.resolve(null);
    }
    return caches.match(CHOICE, {cacheName: CHOICE_CACHE}).then(function (kept) {
      return kept ? kept.text() : "";
    }).then(function (lang) {
      return lang === "zh" || lang === "en" ? lang : null;
    }, function () {
      return null;
    });
  }
  // Where the form is sent: its action, with the language chosen offline as its `?lang=`
  // (the server sets its cookie and keeps it in the results' address, as for a link's).
  function target(lang) {
    var url = new URL(form.action, location.href);
    if (lang && !url.searchParams.has("lang")) {
      url.searchParams.set("lang", lang);
    }
    return url.href;
  }

  box.addEventListener("keydown", function (event) {
    // an input method confirming its text (Chinese pinyin) ends with Enter too: not a search
    if (event.key !== "Enter" || event.shiftKey || event.isComposing || event.keyCode === 229) {
      return;
    }
    event.preventDefault();
    if (form.requestSubmit) {
      form.requestSubmit();
    } else {
      form.submit();
    }
  });
  var sizes = !(window.CSS && CSS.supports && CSS.supports("field-sizing", "content"));
  function grow() {
    if (sizes) {
      box.style.height = "auto";
      box.style.height = box.scrollHeight + 2 + "px";
    }
  }

  // What the note under the box says: "busy" while a search is on its way, "waiting" when
  // it is long in coming, "offline" or "slow" when it did not arrive, "interrupted" when the
  // page was reloaded while it was on its way, "" nothing. Its words are the page's (data-*
  // attributes). The button that sends the question again is shown with all but "busy" and
  // "" (patchy 4G: a request lost on the way is never answered).
  function say(next) {
    state = next;
    if (!note) {
      return;
    }
    note.setAttribute("data-state", next);
    note.textContent = next ? note.getAttribute("data-" + next) : "";
    note.className = next && next !== "busy" && next !== "waiting" ? "sending failed" : "sending";
    note.hidden = !next;
    if (retry) {
      var shown = !!next && next !== "busy";
      if (!shown && document.activeElement === retry) {
        box.focus();  // the button pressed goes: the focus back to the question, not lost
      }
      retry.hidden = !shown;
    }
  }
  function keep(unsent) {
    try {
      if (unsent) {
        sessionStorage.setItem(UNSENT, JSON.stringify({url: location.href, q: box.value,
                                                       state: unsent}));
      } else {
        sessionStorage.removeItem(UNSENT);
      }
    } catch (e) {
      // storage refused (a private window's quota): the box still holds the question
    }
  }
  function kept() {
    try {
      var unsent = JSON.parse(sessionStorage.getItem(UNSENT) || "null");
      return unsent && unsent.url === location.href ? unsent : null;
    } catch (e) {
      return null;
    }
  }
  function putBack() {
    var unsent = kept();
    if (unsent) {
      box.value = unsent.q;
      say(unsent.state);
    }
  }
  // The search on its way given up: its timers stopped, its answer (if one still comes)
  // ignored.
  function drop() {
    if (pending) {
      pending.dropped = true;
      pending.timers.forEach(clearTimeout);
      pending.stop.abort();
      pending = null;
    }
  }

  // The form sent by this script: the browser's navigation would leave the page for its own
  // "no connection" page (or wait for minutes), the question typed no longer anywhere. A
  // search on its way is given up for this one.
  function send() {
    drop();
    var mine = {stop: new AbortController(), timers: [], late: false, dropped: false};
    pending = mine;
    var wait = Number(form.getAttribute("data-wait")) || 60;
    var patience = Number(form.getAttribute("data-patience")) || 0;
    mine.timers.push(setTimeout(function () {
      mine.late = true;
      mine.stop.abort();
    }, wait * 1000));
    if (patience > 0 && patience < wait) {
      mine.timers.push(setTimeout(function () {
        if (pending === mine) {
          say("waiting");
        }
      }, patience * 1000));
    }
    function done() {
      mine.timers.forEach(clearTimeout);
      if (pending === mine) {
        pending = null;
      }
    }
    say("busy");
    keep("interrupted");  // what a reload of the page finds until the search arrives
    var body = new URLSearchParams(new FormData(form));
    var sentTo = form.action;  // with the language chosen offline once it is read
    unsentLang().then(function (lang) {
      sentTo = target(lang);
      return fetch(sentTo, {method: "POST", body: body, credentials: "same-origin",
                            signal: mine.stop.signal});
    })
      .then(function (response) {
        if (mine.dropped) {
          return null;  // sent again meanwhile: the later one is followed
        }
        if (!response.redirected) {
          // refused by the server itself (a form too long): its page, as without the script,
          // in the language chosen offline as the search would have been (the address is
          // read when the form is submitted: the form's own is put back)
          done();
          keep("");
          say("");
          var action = form.getAttribute("action");
          form.action = sentTo;
          form.submit();
          form.setAttribute("action", action);
          return null;
        }
        // the results page read whole into the browser's cache (private, no-cache, with an
        // ETag): going to it is answered "not modified", not searched and logged again
        return response.text().then(function () {
          if (mine.dropped) {
            return;
          }
          done();
          keep("");
          location.assign(response.url);
        });
      })
      .catch(function () {
        if (mine.dropped || leaving) {
          // given up for a search sent again (that one says how it went), or cut off by the
          // page going (a reload, a pull to refresh): "interrupted", kept, is what it finds
          return;
        }
        done();
        var failed = mine.late ? "slow" : "offline";
        say(failed);
        keep(failed);
      });
  }
  // the page is going (reloaded, left): a search it cut off did not fail on the network
  var leaving = false;
  window.addEventListener("pagehide", function () {
    leaving = true;
  });
  window.addEventListener("pageshow", function () {
    leaving = false;
  });
  form.addEventListener("submit", function (event) {
    if (!note || !window.fetch || !window.AbortController || !window.FormData ||
        !window.URLSearchParams) {
      return;  // the browser sends it
    }
    event.preventDefault();
    if (pending && state !== "waiting") {
      return;  // a second Enter while the first search is on its way
    }
    send();  // (long in coming: a second Enter sends it again, as the button does)
  });
  if (retry) {
    retry.addEventListener("click", send);
  }

  // Back or forward to a page kept whole (the back/forward cache): its fields are as they
  // were left, a next question perhaps typed over the one this page answers. They go back to
  // what the page answers (the form's `autocomplete="off"` does it for a page loaded again),
  // or to a question typed here that did not arrive.
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) {
      drop();
      form.reset();
      say("");
      putBack();
      grow();
    }
  });
  box.addEventListener("input", function () {
    var unsent = kept();
    if (unsent) {
      keep(unsent.state);  // the question kept is the one in the box
    }
    grow();
  });
  putBack();
  grow();
})();
