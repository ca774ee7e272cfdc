// The pages' one script. The search page's question box (a textarea: a pasted log keeps its
// lines), and the focus on what a search or a decision found. Without this
// script the box and its button work as any form; with it, Enter searches and Shift+Enter
// starts a new line, the box grows with its text where CSS `field-sizing` is unknown, and a
// search that does not arrive (the network down, no answer in time) is said on the page with
// the question kept in the box, a reload of the page too, instead of the browser's own error
// page with the question gone.
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
  var box = document.getElementById("kb-q");
  if (!box || !box.form) {
    return;
  }
  var form = box.form;
  var note = document.getElementById("kb-sending");
  // sessionStorage (this tab only): {url, q, state} of a question that did not arrive, put
  // back in the box when the page at `url` is shown again (reloaded, back to it)
  var UNSENT = "kb-unsent";
  var sending = false;

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

  // What the note under the box says: "busy" while a search is on its way, "offline" or
  // "slow" when it did not arrive, "" nothing. Its words are the page's (data-* attributes).
  function say(state) {
    if (!note) {
      return;
    }
    note.setAttribute("data-state", state);
    note.textContent = state ? note.getAttribute("data-" + state) : "";
    note.className = state && state !== "busy" ? "sending failed" : "sending";
    note.hidden = !state;
  }
  function keep(state) {
    try {
      if (state) {
        sessionStorage.setItem(UNSENT, JSON.stringify({url: location.href, q: box.value,
                                                       state: state}));
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

  // The form sent by this script: the browser's navigation would leave the page for its own
  // "no connection" page (or wait for minutes), the question typed no longer anywhere.
  form.addEventListener("submit", function (event) {
    if (!note || !window.fetch || !window.AbortController || !window.FormData ||
        !window.URLSearchParams) {
      return;  // the browser sends it
    }
    event.preventDefault();
    if (sending) {
      return;  // a second Enter while the first search is on its way
    }
    sending = true;
    var late = false;
    var stop = new AbortController();
    var wait = Number(form.getAttribute("data-wait")) || 60;
    var timer = setTimeout(function () {
      late = true;
      stop.abort();
    }, wait * 1000);
    say("busy");
    fetch(form.action, {method: "POST", body: new URLSearchParams(new FormData(form)),
                        credentials: "same-origin", signal: stop.signal})
      .then(function (response) {
        if (!response.redirected) {
          // refused by the server itself (a form too long): its page, as without the script
          clearTimeout(timer);
          sending = false;
          say("");
          form.submit();
          return null;
        }
        // the results page read whole into the browser's cache (private, no-cache, with an
        // ETag): going to it is answered "not modified", not searched and logged again
        return response.text().then(function () {
          clearTimeout(timer);
          keep("");
          location.assign(response.url);
        });
      })
      .catch(function () {
        clearTimeout(timer);
        sending = false;
        var state = late ? "slow" : "offline";
        say(state);
        keep(state);
      });
  });

  // Back or forward to a page kept whole (the back/forward cache): its fields are as they
  // were left, a next question perhaps typed over the one this page answers. They go back to
  // what the page answers (the form's `autocomplete="off"` does it for a page loaded again),
  // or to a question typed here that did not arrive.
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) {
      sending = false;
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
