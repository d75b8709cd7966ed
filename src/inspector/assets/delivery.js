/*
 * One delivery's page: a "Copy as curl" button above the curl command (safe to
 * paste: views/curl-command.ts), and a Pretty / Raw toggle
 * above the body when its raw form differs. Without JavaScript the command and the
 * pretty body are still shown; the buttons are only added here.
 */
(function () {
  "use strict";

  function toolbar(before) {
    var bar = document.createElement("div");
    bar.className = "toolbar";
    before.parentNode.insertBefore(bar, before);
    return bar;
  }
  function button(bar, label) {
    var b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    bar.appendChild(b);
    return b;
  }

  var curl = document.getElementById("curl");
  if (curl) {
    var bar = toolbar(curl);
    var copy = button(bar, curl.dataset.copy || "Copy");
    var note = document.createElement("span");
    note.className = "muted";
    note.setAttribute("role", "status");
    bar.appendChild(note);
    copy.addEventListener("click", function () {
      var text = curl.textContent;
      var done = function () {
        note.textContent = "Copied.";
      };
      var select = function () {
        var range = document.createRange();
        range.selectNodeContents(curl);
        var sel = window.getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
        note.textContent = document.execCommand && document.execCommand("copy") ? "Copied." : "Selected: press Ctrl+C to copy.";
      };
      if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, select);
      else select();
    });
  }

  var pretty = document.getElementById("body");
  var raw = document.getElementById("body-raw");
  if (pretty && raw) {
    var views = toolbar(pretty);
    var bPretty = button(views, "Pretty");
    var bRaw = button(views, "Raw");
    var show = function (wantRaw) {
      raw.hidden = !wantRaw;
      pretty.hidden = wantRaw;
      bRaw.setAttribute("aria-pressed", String(wantRaw));
      bPretty.setAttribute("aria-pressed", String(!wantRaw));
    };
    bPretty.addEventListener("click", function () {
      show(false);
    });
    bRaw.addEventListener("click", function () {
      show(true);
    });
    show(false);
  }
})();
