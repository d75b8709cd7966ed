/*
 * Deliveries page: the live feed. Each `delivery` event of /ui/api/events (one
 * row as JSON) becomes a table row at the top, built with textContent only —
 * a hook name or code can never become markup. A `run` event (a run started or
 * finished) rewrites the Run cell of its row, if the row is on the page.
 */
(function () {
  "use strict";
  var tbody = document.getElementById("delivery-rows");
  if (!tbody || !tbody.dataset.live || typeof EventSource === "undefined") return;
  var status = document.getElementById("live-status");
  var added = 0;

  function cell(tr, text, className) {
    var td = document.createElement("td");
    if (className) td.className = className;
    if (text instanceof Node) td.appendChild(text);
    else td.textContent = text;
    tr.appendChild(td);
    return td;
  }

  function rowOf(r) {
    var tr = document.createElement("tr");
    tr.dataset.id = r.id;
    tr.className = "new";
    var time = document.createElement("time");
    time.dateTime = r.receivedAt;
    time.textContent = r.time;
    cell(tr, time);
    var link = document.createElement("a");
    link.href = r.href;
    link.textContent = r.hook || "(none)";
    cell(tr, link);
    cell(tr, r.mapping);
    var badge = document.createElement("span");
    badge.className = "status " + r.statusClass;
    badge.textContent = String(r.status);
    var st = cell(tr, badge);
    if (r.code) st.appendChild(document.createTextNode(" " + r.code));
    cell(tr, r.latency, "num");
    cell(tr, r.runStatus);
    return tr;
  }

  var source = new EventSource(tbody.dataset.live);
  source.addEventListener("open", function () {
    if (status) status.textContent = "Live: new deliveries appear at the top.";
  });
  source.addEventListener("delivery", function (event) {
    var r = JSON.parse(event.data);
    if (tbody.querySelector('tr[data-id="' + CSS.escape(r.id) + '"]')) return;
    tbody.insertBefore(rowOf(r), tbody.firstChild);
    var empty = document.getElementById("no-deliveries");
    if (empty) empty.remove();
    added += 1;
    if (status) status.textContent = "Live: " + added + " new " + (added === 1 ? "delivery" : "deliveries") + " since the page loaded.";
  });
  // A run started or finished: its row's Run cell (the last one) changes in place.
  source.addEventListener("run", function (event) {
    var r = JSON.parse(event.data);
    var tr = tbody.querySelector('tr[data-id="' + CSS.escape(r.id) + '"]');
    if (tr && tr.lastElementChild) tr.lastElementChild.textContent = r.runStatus;
  });
  source.addEventListener("error", function () {
    if (status) status.textContent = "Live feed interrupted; reconnecting…";
  });
})();
