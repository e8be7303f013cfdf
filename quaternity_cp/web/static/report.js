// The report page: shows one step of the record at a time. All facts were computed by quaternity_cp.report.
(function () {
  "use strict";
  const doc = JSON.parse(document.getElementById("report-data").textContent);
  const steps = doc.steps;
  const last = steps.length - 1;
  const el = (id) => document.getElementById(id);
  let current = 0;
  let selected = null; // {card} or {set}: show only that explanation

  function node(tag, cls, text) {
    const n = document.createElement(tag);
    if (cls) n.className = cls;
    if (text !== undefined) n.textContent = text;
    return n;
  }

  // the move list: the start, every applied move, the illegal move (if any)
  const list = el("moves");
  steps.forEach((s, i) => {
    const li = node("li", "", s.index === 0 ? "(start)" : s.move);
    li.dataset.step = String(i);
    if (s.forced_answer) li.appendChild(node("span", "tag", "forced"));
    if (s.claims.length) li.appendChild(node("span", "tag", "claims " + s.claims.join(", ")));
    li.addEventListener("click", () => show(i));
    list.appendChild(li);
  });
  if (doc.illegal) {
    const li = node("li", "illegal", doc.illegal.move);
    li.title = doc.illegal.message;
    li.appendChild(node("span", "tag", "illegal"));
    li.addEventListener("click", () => show(last));
    list.appendChild(li);
  }
  el("slider").max = String(last);
  // the "Why" panel only for a game whose steps carry explanations (a list, maybe empty, in every step)
  if (!doc.steps.some((s) => Array.isArray(s.explanations))) {
    document.querySelectorAll(".why-section").forEach((n) => { n.hidden = true; });
  }

  function explanation(e) {
    const box = node("div", "why" + (e.card ? "" : " claimed"));
    if (e.card) box.dataset.card = e.card;
    if (e.set) box.dataset.set = e.set;
    e.lines.forEach((line) => box.appendChild(node("p", "", line)));
    return box;
  }

  function show(i) {
    current = Math.max(0, Math.min(last, i));
    const s = steps[current];
    if (selected && !(s.explanations || []).some(matches)) selected = null;
    el("grid").innerHTML = s.svg;
    el("where").textContent = current === 0 ? "start" : "after move " + s.index + " of " + doc.moves.length;
    el("slider").value = String(current);
    el("first").disabled = el("prev").disabled = current === 0;
    el("next").disabled = el("last").disabled = current === last;
    list.querySelectorAll("li").forEach((li) => li.classList.toggle("current", li.dataset.step === String(current)));
    keepInView(list.querySelector("li.current"));

    const info = el("step-info");
    info.innerHTML = "";
    info.appendChild(node("p", "move", s.index === 0 ? "The start of the game." : "Move " + s.index + ": " + s.move
      + (s.forced_answer ? " (the only legal answer)" : "")));
    if (s.claims.length) info.appendChild(node("p", "claim", "Claims " + s.claims.join(", ")));
    if (s.deals_text !== undefined) {
      const d = node("p", "deals", s.deals_text);
      d.id = "deals";
      if (s.deals !== null && s.deals !== undefined) d.dataset.deals = s.deals;
      info.appendChild(d);
      info.appendChild(node("p", "hint", "consistent deals"));
    }
    if (s.text) s.text.forEach((t) => info.appendChild(node("p", "", t)));

    const marker = document.getElementById("history-marker");
    if (marker) {
      const a = parseFloat(marker.dataset.left), b = parseFloat(marker.dataset.right);
      const x = last ? a + (b - a) * current / last : a;
      marker.setAttribute("x1", x); marker.setAttribute("x2", x);
    }

    const bad = el("illegal");
    bad.innerHTML = "";
    if (doc.illegal && current === last) {
      const box = node("div", "error");
      box.id = "illegal-move";
      box.appendChild(node("p", "", "Illegal move " + doc.illegal.index + " (" + doc.illegal.move + "): "
        + doc.illegal.kind + ": " + doc.illegal.message));
      doc.illegal.lines.forEach((line) => box.appendChild(node("p", "", line)));
      bad.appendChild(box);
    }

    const why = el("explanations");
    why.innerHTML = "";
    const all = s.explanations || [];
    const shown = selected ? all.filter(matches) : all;
    if (!shown.length) why.appendChild(node("p", "hint", s.explanations_note || "Nothing is forced here."));
    shown.forEach((e) => why.appendChild(explanation(e)));
    if (selected) {
      const back = node("button", "", "show all");
      back.addEventListener("click", () => { selected = null; show(current); });
      why.appendChild(back);
    }
  }

  // scroll the move list (never the page) so that the current move shows
  function keepInView(li) {
    const box = list.parentElement;
    if (!li || box.scrollHeight <= box.clientHeight) return;
    if (li.offsetTop < box.scrollTop) box.scrollTop = li.offsetTop - 8;
    else if (li.offsetTop + li.offsetHeight > box.scrollTop + box.clientHeight) {
      box.scrollTop = li.offsetTop + li.offsetHeight - box.clientHeight + 8;
    }
  }

  function matches(e) {
    if (!selected) return true;
    return selected.card ? e.card === selected.card : e.set === selected.set && !e.card;
  }

  el("grid").addEventListener("click", (ev) => {
    const cell = ev.target.closest("[data-state=forced], .claimed");
    if (!cell) return;
    selected = cell.dataset.state === "forced" ? { card: cell.dataset.card } : { set: cell.dataset.set };
    show(current);
  });
  el("first").addEventListener("click", () => show(0));
  el("prev").addEventListener("click", () => show(current - 1));
  el("next").addEventListener("click", () => show(current + 1));
  el("last").addEventListener("click", () => show(last));
  el("slider").addEventListener("input", (ev) => show(parseInt(ev.target.value, 10)));
  document.addEventListener("keydown", (ev) => {
    if (ev.target && ev.target.tagName === "INPUT") return;
    if (ev.key === "ArrowRight") { show(current + 1); ev.preventDefault(); }
    else if (ev.key === "ArrowLeft") { show(current - 1); ev.preventDefault(); }
    else if (ev.key === "Home") { show(0); ev.preventDefault(); }
    else if (ev.key === "End") { show(last); ev.preventDefault(); }
  });
  show(0);
})();
