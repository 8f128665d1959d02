// Progressive enhancement only: every page works without this script.
// Admin action forms carry data-confirm="question"; ask before sending them.
document.addEventListener("submit", (event) => {
  const question = event.target.getAttribute("data-confirm");
  if (question && !window.confirm(question)) {
    event.preventDefault();
  }
});

// Times are written in UTC; hovering one shows it in the viewer's own time zone.
function localTimes(root) {
  root.querySelectorAll("time[datetime]").forEach((time) => {
    const at = new Date(time.getAttribute("datetime"));
    if (!Number.isNaN(at.getTime())) {
      time.title = at.toLocaleString(undefined, {
        year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit",
        timeZoneName: "short",
      }) + " (your time)";
    }
  });
}

// Every id (monospace text outside payloads and field comparisons) gets a button that copies it.
function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    return navigator.clipboard.writeText(text);
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.appendChild(area);
  area.select();
  const copied = document.execCommand("copy");
  area.remove();
  return copied ? Promise.resolve() : Promise.reject(new Error("copy refused"));
}

function copyButtons(root) {
  root.querySelectorAll(".mono").forEach((id) => {
    const text = id.textContent.trim();
    if (!text || id.closest("pre, .diff, .changes, button, label, .copy-none")) {
      return;
    }
    const button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    button.title = "Copy";
    button.setAttribute("aria-label", "Copy " + text);
    button.dataset.copy = text;
    id.insertAdjacentElement("afterend", button);
  });
}

document.addEventListener("click", (event) => {
  const button = event.target.closest("button.copy");
  if (!button) {
    return;
  }
  copyText(button.dataset.copy).then(() => {
    button.classList.add("copied");
    button.title = "Copied";
    setTimeout(() => {
      button.classList.remove("copied");
      button.title = "Copy";
    }, 1500);
  }, () => {
    button.title = "Copying was refused: select the text and copy it";
  });
});

localTimes(document);
copyButtons(document);
