/*
 * Deliveries page: the live feed and the relative times.
 *
 * Each `delivery` event of /ui/api/events (one row as JSON) becomes a table row at
 * the top, built with textContent only — a hook name, event or code can never
 * become markup. A `run` event (a run started or finished) rewrites the Run cell
 * of its row, if the row is on the page. A `gap` event says the server skipped
 * updates while this tab did not read (its buffer was full).
 *
 * One stream serves every dashboard tab of the browser (a Web Lock picks the tab that
 * holds it, a BroadcastChannel relays its events; each tab applies its own filters):
 * a browser keeps at most 6 connections to one host, so a stream per tab left a
 * seventh tab unable to load any page. Without those APIs (not a secure context)
 * each tab opens its own.
 *
 * The browser reconnects by itself after a dropped connection; when it gives up
 * (an answer that is not a stream: 401 after a restart, 503 with too many feeds)
 * the page opens a new feed after 1 s, 2 s, 4 s … at most 60 s apart. It first asks
 * /ui/api/session whether its login still holds: when the session has ended (logged
 * out, expired, the gateway restarted) the page says so, with a link to log in again,
 * instead of "trying again" (it still tries, so logging in elsewhere resumes it).
 *
 * In a sandboxed frame (OpenClaw's Control UI tab: an opaque origin, scripts allowed, forms
 * not) the page opens its own stream (an opaque origin has no Web Locks), and the search
 * and filter form, a GET, is followed as a link (a sandbox without allow-forms submits none).
 *
 * Times show "5 min ago" (the exact UTC time is the title), refreshed every 20 s
 * with the rule of src/inspector/views/time-format.ts.
 */
(function () {
  "use strict";
  var tbody = document.getElementById("delivery-rows");
  if (!tbody) return;
  var status = document.getElementById("live-status");
  // An opaque origin: a sandboxed frame (OpenClaw's Control UI tab).
  var sandboxed = self.origin === "null";
  var filters = document.querySelector("form.filters");
  if (sandboxed && filters && filters.method === "get")
    filters.addEventListener("submit", function (event) {
      event.preventDefault();
      var url = new URL(filters.action, location.href);
      new FormData(filters).forEach(function (value, name) {
        if (value !== "") url.searchParams.append(name, String(value));
      });
      location.assign(url.href);
    });

  function pad(n) {
    return n < 10 ? "0" + n : String(n);
  }
  function relTime(iso, now) {
    var t = Date.parse(iso);
    if (isNaN(t)) return iso;
    var s = Math.max(0, Math.floor((now - t) / 1000));
    if (s < 60) return s + " s ago";
    if (s < 3600) return Math.floor(s / 60) + " min ago";
    if (s < 86400) return Math.floor(s / 3600) + " h ago";
    var d = new Date(t);
    return d.getUTCFullYear() + "-" + pad(d.getUTCMonth() + 1) + "-" + pad(d.getUTCDate()) + " " + pad(d.getUTCHours()) + ":" + pad(d.getUTCMinutes());
  }
  function refreshTimes() {
    var now = Date.now();
    Array.prototype.forEach.call(tbody.querySelectorAll("time[data-relative]"), function (el) {
      el.textContent = relTime(el.dateTime, now);
    });
  }
  setInterval(refreshTimes, 20000);

  if (!tbody.dataset.live || typeof EventSource === "undefined") return;
  var added = 0;
  var missed = 0;
  // The newest delivery of the feed seen so far: a stream opened again resumes after it (?after=, feed-resume.ts).
  var lastId = null;

  function say(text) {
    if (status) status.textContent = text;
  }
  function liveText() {
    var text =
      added === 0
        ? "Live: new deliveries appear at the top."
        : "Live: " + added + " new " + (added === 1 ? "delivery" : "deliveries") + " since the page loaded.";
    if (missed > 0)
      text += " " + missed + " " + (missed === 1 ? "update was" : "updates were") + " skipped while this tab was not reading; reload for the full list.";
    return text;
  }

  function cell(tr, className, label) {
    var td = document.createElement("td");
    td.className = className;
    td.setAttribute("data-label", label);
    tr.appendChild(td);
    return td;
  }
  function span(className, text, title) {
    var el = document.createElement("span");
    el.className = className;
    el.textContent = text;
    if (title) el.title = title;
    return el;
  }

  function rowOf(r) {
    var tr = document.createElement("tr");
    tr.dataset.id = r.id;
    tr.className = "new";
    var time = document.createElement("time");
    time.dateTime = r.receivedAt;
    time.title = r.time;
    time.setAttribute("data-relative", "");
    time.textContent = relTime(r.receivedAt, Date.now());
    cell(tr, "when", "Received").appendChild(time);
    var what = cell(tr, "what", "Hook");
    var link = document.createElement("a");
    link.href = r.href;
    link.textContent = r.hook || "(none)";
    what.appendChild(link);
    if (r.event) {
      what.appendChild(document.createTextNode(" "));
      what.appendChild(span("event", r.event));
    }
    r.badges.forEach(function (b) {
      what.appendChild(document.createTextNode(" "));
      what.appendChild(span("badge badge-" + b.kind, b.label, b.title));
    });
    cell(tr, "mapping", "Mapping").textContent = r.mapping;
    var answer = cell(tr, "answer", "Status");
    answer.appendChild(span("status " + r.statusClass, String(r.status)));
    if (r.code) answer.appendChild(document.createTextNode(" " + r.code));
    cell(tr, "num latency", "Latency").textContent = r.latency;
    cell(tr, "run", "Run").textContent = r.runStatus;
    return tr;
  }

  // What the page's valid filters let through (the feed's own rule, delivery-filters.ts matchesFilters).
  var params = new URL(tbody.dataset.live, location.href).searchParams;
  var wantHook = params.get("hook");
  var wantStatus = params.get("status");
  function passes(r) {
    if (wantHook !== null && r.hook !== wantHook) return false;
    if (wantStatus === null) return true;
    if (/^[1-5]xx$/i.test(wantStatus)) return String(r.status).charAt(0) === wantStatus.charAt(0);
    return String(r.status) === wantStatus;
  }

  /** What the state says when the session has ended (a value, not text: each tab links to its own page). */
  var LOGGED_OUT = { loggedOut: true };
  function sayLoggedOut() {
    if (!status) return;
    status.textContent = "Your dashboard session has ended (logged out or expired), so the live feed stopped. ";
    if (!tbody.dataset.login) return status.appendChild(document.createTextNode("Reload the page to see new deliveries."));
    var link = document.createElement("a");
    link.href = tbody.dataset.login + "?next=" + encodeURIComponent(location.pathname + location.search);
    link.textContent = "Log in again";
    status.appendChild(link);
    status.appendChild(document.createTextNode(" to see new deliveries."));
  }

  // One event of the feed (from this tab's stream or relayed by the tab that holds it).
  var handle = {
    delivery: function (data) {
      var r = JSON.parse(data);
      // Delivery ids are UUIDs (the feed refuses any other `after`).
      if (/^[0-9a-f-]{36}$/i.test(r.id)) lastId = r.id;
      if (!passes(r) || tbody.querySelector('tr[data-id="' + CSS.escape(r.id) + '"]')) return;
      tbody.insertBefore(rowOf(r), tbody.firstChild);
      var empty = document.getElementById("no-deliveries");
      if (empty) empty.remove();
      added += 1;
      say(liveText());
    },
    // A run started or finished: its row's Run cell changes in place.
    run: function (data) {
      var r = JSON.parse(data);
      var tr = tbody.querySelector('tr[data-id="' + CSS.escape(r.id) + '"]');
      var run = tr && tr.querySelector("td.run");
      if (run) run.textContent = r.runStatus;
    },
    gap: function (data) {
      missed += JSON.parse(data).missed;
      say(liveText());
    },
    // The stream's state: null when it is open, LOGGED_OUT when the session has ended, else what to say.
    state: function (problem) {
      if (problem && problem.loggedOut) return sayLoggedOut();
      say(problem === null ? liveText() : problem);
    },
  };

  var delayMs = 1000;
  var retryTimer;
  /** Set while the stream waits to be opened again: opens it now. */
  var retryNow = null;
  var state = "Connecting to the live feed…";
  /** Opens the stream; `relay` (when given) hears every event and state change too. */
  function connect(url, relay) {
    var tell = function (kind, data) {
      handle[kind](data);
      if (relay) relay(kind, data);
    };
    var setState = function (problem) {
      state = problem;
      tell("state", problem);
    };
    // The browser's own reconnection sends Last-Event-ID; a new stream says where to resume in its URL.
    var source = new EventSource(lastId === null ? url : url + (url.indexOf("?") < 0 ? "?" : "&") + "after=" + encodeURIComponent(lastId));
    source.addEventListener("open", function () {
      delayMs = 1000;
      setState(null);
    });
    ["delivery", "run", "gap"].forEach(function (kind) {
      source.addEventListener(kind, function (event) {
        tell(kind, event.data);
      });
    });
    source.addEventListener("error", function () {
      if (source.readyState !== EventSource.CLOSED) {
        setState("Live feed interrupted; reconnecting…");
        return;
      }
      // The browser gave up on this stream: open a new one later, waiting longer each time.
      source.close();
      var wait = delayMs;
      delayMs = Math.min(delayMs * 2, 60000);
      clearTimeout(retryTimer);
      var retry = function () {
        clearTimeout(retryTimer);
        retryNow = null;
        connect(url, relay);
      };
      retryNow = retry;
      retryTimer = setTimeout(retry, wait);
      // Refused because the session ended? Then "trying again" would never help: say so, with the way back.
      sessionEnded(function (ended) {
        if (retryNow === retry) setState(ended ? LOGGED_OUT : "Live feed interrupted; trying again in " + Math.round(wait / 1000) + " s…");
      });
    });
  }

  /** Calls back true when the dashboard answers 401 (the login is gone), false otherwise (up, busy, or away). */
  function sessionEnded(callback) {
    if (typeof fetch !== "function" || !tbody.dataset.session) return callback(false);
    fetch(tbody.dataset.session, { credentials: "same-origin", cache: "no-store" }).then(
      function (res) {
        callback(res.status === 401);
      },
      function () {
        callback(false);
      },
    );
  }

  /*
   * One stream for all the dashboard's tabs. A browser keeps at most 6 connections
   * to one host, and each stream holds one: with a stream per tab, a seventh tab
   * (any page of the gateway) never loaded. The tab that holds the Web Lock opens
   * the stream, unfiltered, and relays every event over a BroadcastChannel; each tab
   * applies its own filters. When that tab goes, another one takes the lock over.
   */
  if (sandboxed || !navigator.locks || typeof BroadcastChannel === "undefined") return connect(tbody.dataset.live);
  var channel = new BroadcastChannel("gw-ui-live-feed");
  var leading = false;
  channel.addEventListener("message", function (m) {
    var msg = m.data || {};
    // A tab that opens (after logging in again, say) makes a waiting stream try again at once.
    if (msg.kind === "hello") {
      if (!leading) return;
      channel.postMessage({ kind: "state", data: state });
      if (retryNow) retryNow();
    } else if (!leading && Object.prototype.hasOwnProperty.call(handle, msg.kind)) handle[msg.kind](msg.data);
  });
  channel.postMessage({ kind: "hello" });
  navigator.locks.request("gw-ui-live-feed", function () {
    leading = true;
    connect(new URL(tbody.dataset.live, location.href).pathname, function (kind, data) {
      channel.postMessage({ kind: kind, data: data });
    });
    return new Promise(function () {});
  });
})();
