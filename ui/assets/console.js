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

const SVG = "http://www.w3.org/2000/svg";
// Drawn rather than typed: a character such as U+29C9 has no glyph in many fonts and shows as an empty box.
const COPY_ICON = "M6 2h8v9H6z M3 5v9h8";
const COPIED_ICON = "M3 8.5l3 3 7-7";

function icon(path) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("width", "12");
  svg.setAttribute("height", "12");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const shape = document.createElementNS(SVG, "path");
  shape.setAttribute("d", path);
  shape.setAttribute("fill", "none");
  shape.setAttribute("stroke", "currentColor");
  shape.setAttribute("stroke-width", "1.5");
  svg.appendChild(shape);
  return svg;
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
    button.appendChild(icon(COPY_ICON));
    // A cell or a description holds its button; beside it, the button would become a cell or an item of its own.
    if (id.matches("td, th, dd, dt")) {
      id.appendChild(button);
    } else {
      id.insertAdjacentElement("afterend", button);
    }
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
    button.replaceChildren(icon(COPIED_ICON));
    setTimeout(() => {
      button.classList.remove("copied");
      button.title = "Copy";
      button.replaceChildren(icon(COPY_ICON));
    }, 1500);
  }, () => {
    button.title = "Copying was refused: select the text and copy it";
  });
});

localTimes(document);
copyButtons(document);
