// The web table. It draws what the server says and sends the person's choices back;
// every rule, legal move and fact comes from the quaternity_cp library on the server.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  let catalogue = {};
  let gid = null;
  let view = null;
  let chosenCell = null; // Quarto: the cell picked before the piece to give

  function node(tag, cls, text) {
    const n = document.createElement(tag);
    if (cls) n.className = cls;
    if (text !== undefined) n.textContent = text;
    return n;
  }

  async function api(path, options) {
    document.body.dataset.busy = "1";
    try {
      const res = await fetch(path, options);
      const data = await res.json();
      if (!res.ok) throw new Error(data.error || res.statusText);
      $("error").hidden = true;
      return data;
    } catch (err) {
      $("error").textContent = String(err.message || err);
      $("error").hidden = false;
      throw err;
    } finally {
      document.body.dataset.busy = "0";
    }
  }
  const post = (path, data) => api(path, { method: "POST", headers: { "Content-Type": "application/json" },
                                           body: JSON.stringify(data || {}) });

  // -- setting up a game: the form is built from each game's metadata (/api/games) ---------------
  const spec = () => catalogue[$("game").value] || { options: [], agents: [], min_players: 2 };
  const fieldId = (name) => name.replace(/_/g, "-");

  function fillSetup() {
    const game = $("game");
    game.innerHTML = "";
    Object.keys(catalogue).forEach((name) => game.appendChild(new Option(name, name)));
    fillOptions();
  }

  function fillOptions() {
    const box = $("options");
    box.innerHTML = "";
    spec().options.forEach((o) => {
      const label = node("label", o.type === "bool" ? "check" : "");
      let input;
      if (o.choices) {
        input = node("select");
        o.choices.forEach((c) => input.appendChild(new Option(c, c)));
      } else {
        input = node("input");
        input.type = o.type === "bool" ? "checkbox" : o.type === "int" ? "number" : "text";
        if (o.min !== undefined) input.min = String(o.min);
        if (o.max !== undefined) input.max = String(o.max);
      }
      input.id = fieldId(o.name);
      input.title = o.help;
      if (o.type === "bool") input.checked = !!o.default; else input.value = String(o.default);
      if (o.type === "bool") { label.appendChild(input); label.appendChild(document.createTextNode(" " + o.label)); }
      else { label.appendChild(document.createTextNode(o.label + " ")); label.appendChild(input); }
      if (o.name === spec().players_option) input.addEventListener("change", refreshSeats);
      box.appendChild(label);
    });
    refreshSeats();
  }

  function optionValues() {
    const out = {};
    spec().options.forEach((o) => {
      const input = $(fieldId(o.name));
      out[o.name] = o.type === "bool" ? input.checked : o.type === "int" ? parseInt(input.value, 10) : input.value;
    });
    return out;
  }

  function seatCount() {
    const s = spec();
    if (!s.players_option) return s.min_players;
    const n = parseInt($(fieldId(s.players_option)).value, 10) || s.min_players;
    return Math.max(s.min_players, Math.min(s.max_players, n));
  }

  function refreshSeats() {
    const s = spec();
    const word = (s.seat_label || "seat") + " ";
    const n = seatCount();
    const human = $("human");
    const keep = human.value;
    human.innerHTML = "";
    for (let i = 0; i < n; i++) human.appendChild(new Option(word + i, String(i)));
    human.value = keep && parseInt(keep, 10) < n ? keep : "0";
    const box = $("agents");
    const previous = {};
    box.querySelectorAll("select").forEach((sel) => { previous[sel.dataset.seat] = sel.value; });
    box.querySelectorAll("label").forEach((l) => l.remove());
    const agents = s.agents || [];
    const preferred = agents.includes(s.default_agent) ? s.default_agent : agents[0];
    for (let i = 0; i < n; i++) {
      if (String(i) === human.value) continue;
      const label = node("label", "", word + i + " ");
      const sel = node("select");
      sel.dataset.seat = String(i);
      agents.forEach((a) => sel.appendChild(new Option(a, a)));
      sel.value = previous[i] && agents.includes(previous[i]) ? previous[i] : preferred;
      label.appendChild(sel);
      box.appendChild(label);
    }
  }

  async function startGame(ev) {
    if (ev) ev.preventDefault();
    const game = $("game").value;
    const options = optionValues();
    const s = spec();
    if (s.players_option) options[s.players_option] = seatCount();
    const agents = {};
    $("agents").querySelectorAll("select").forEach((sel) => { agents[sel.dataset.seat] = sel.value; });
    const seed = $("seed").value === "" ? null : parseInt($("seed").value, 10);
    const data = await post("/api/new", { game, options, human: parseInt($("human").value, 10), agents, seed });
    gid = data.id;
    $("explanation").textContent = "Click a card's name for why it is where the grid says; a claimed set for why it was claimed.";
    $("verdict").hidden = true;
    show(data);
  }

  // -- drawing ---------------------------------------------------------------------------------
  function show(data) {
    view = data;
    chosenCell = null;
    document.body.dataset.game = data.game;
    $("setup").textContent = data.setup + " — agents: " + Object.entries(data.agents).map(([s, a]) => s + ": " + a).join(", ");
    $("board").innerHTML = data.svg;
    const status = $("status");
    status.className = "status" + (data.your_turn ? " your-turn" : "") + (data.over ? " over" : "");
    status.textContent = statusText(data);
    $("undo").disabled = !data.can_undo;
    $("download").hidden = false;
    $("download").href = "/api/record/" + gid;
    const features = data.features || {};
    $("prob-toggle").hidden = !features.probabilities;
    $("solve").hidden = !features.verdict;
    document.querySelectorAll(".why-section").forEach((n) => { n.hidden = !features.explain; });
    $("probabilities").checked = !!data.probabilities;

    const answers = $("answers");
    answers.innerHTML = "";
    (data.answers || []).forEach((a) => {
      const b = node("button", "", a.answer === "yes" ? "Yes, I have it" : "No");
      b.dataset.action = a.text;
      b.dataset.answer = a.answer;
      b.addEventListener("click", () => act(a.text));
      answers.appendChild(b);
    });
    const decl = $("declarations");
    decl.innerHTML = "";
    (data.declarations || []).forEach((d) => {
      const b = node("button", "", "Declare set " + d.set);
      b.dataset.action = d.text;
      b.addEventListener("click", () => act(d.text));
      decl.appendChild(b);
    });
    $("hint").textContent = hintText(data);

    const log = $("log");
    log.innerHTML = "";
    data.log.forEach((m) => {
      const li = node("li", m.you ? "you" : "", m.move);
      log.appendChild(li);
    });
    log.scrollTop = log.scrollHeight;
  }

  function statusText(d) {
    const names = d.players || [];
    if (d.over) {
      if (d.kind === "quarto") return d.status;
      const w = d.winners || [];
      const who = w.length ? w.map((p) => (p === d.human ? "you" : names[p])).join(", ") : "nobody";
      return "Game over. Scores " + d.scores.join(" : ") + ". Winner" + (w.length > 1 ? "s" : "") + ": " + who + ".";
    }
    if (d.your_turn) {
      if (d.kind === "quarto") return d.piece ? "Your move: place " + d.piece + ", then give a piece." : "Your move: choose the first piece to give.";
      if (d.answers && d.answers.length) return "You are asked " + d.pending + ": answer.";
      return "Your turn.";
    }
    return (names[d.to_move] || "seat " + d.to_move) + " to move.";
  }

  function hintText(d) {
    if (!d.your_turn) return "";
    if (d.kind === "quarto") {
      if (!d.piece) return "Click a piece on the right: your opponent must place it.";
      return "Click a tinted cell to place " + d.piece + ", then a tinted piece to give.";
    }
    if (d.questions) return "Click a tinted cell: you ask that seat for that card." + (d.classic ? " (★ marks your cards.)" : "");
    return "";
  }

  // -- acting ------------------------------------------------------------------------------------
  async function act(action) {
    show(await post("/api/act/" + gid, { action, probabilities: $("probabilities").checked }));
  }

  $("board").addEventListener("click", async (ev) => {
    if (!view) return;
    if (view.kind === "quarto") return quartoClick(ev);
    const legal = ev.target.closest("[data-legal][data-action]");
    if (legal && view.your_turn) return act(legal.dataset.action);
    const forced = ev.target.closest("[data-state=forced]");
    const label = ev.target.closest(".card-label");
    const claimed = ev.target.closest(".claimed");
    if (forced) {
      explain("card=" + encodeURIComponent(forced.dataset.card) + "&seat=" + forced.dataset.seat);
    } else if (label) {
      explain("card=" + encodeURIComponent(label.closest("[data-card]").dataset.card));
    } else if (claimed) {
      explain("set=" + encodeURIComponent(claimed.dataset.set));
    }
  });

  async function explain(query) {
    const data = await api("/api/explain/" + gid + "?" + query);
    const box = $("explanation");
    box.innerHTML = "";
    data.lines.forEach((l) => box.appendChild(node("p", "", l)));
  }

  function quartoClick(ev) {
    if (!view.your_turn) return;
    const cell = ev.target.closest(".cell[data-legal]");
    const piece = ev.target.closest(".left[data-legal]");
    const moves = view.moves || [];
    if (cell) {
      const name = cell.dataset.cell;
      if (moves.includes(name)) return act(name); // the last placement: nothing left to give
      chosenCell = name;
      $("board").querySelectorAll(".cell.selected").forEach((c) => c.classList.remove("selected"));
      cell.classList.add("selected");
      $("hint").textContent = "Now click the piece to give.";
    } else if (piece) {
      const name = piece.dataset.piece;
      if (moves.includes(name)) return act(name); // the opening choice
      if (chosenCell && moves.includes(chosenCell + " " + name)) return act(chosenCell + " " + name);
      $("hint").textContent = "First click a cell to place " + view.piece + ".";
    }
  }

  $("undo").addEventListener("click", async () => {
    show(await post("/api/undo/" + gid, { probabilities: $("probabilities").checked }));
  });
  $("probabilities").addEventListener("change", async () => {
    if (gid) show(await api("/api/view/" + gid + ($("probabilities").checked ? "?probabilities=1" : "")));
  });
  $("solve").addEventListener("click", async () => {
    $("verdict").hidden = false;
    $("verdict").textContent = "Solving…";
    const data = await api("/api/solve/" + gid);
    $("verdict").textContent = data.text;
  });
  $("new-game").addEventListener("click", () => startGame());
  $("new-form").addEventListener("submit", startGame);
  $("game").addEventListener("change", fillOptions);
  $("human").addEventListener("change", refreshSeats);

  api("/api/games").then((data) => { catalogue = data; fillSetup(); document.body.dataset.ready = "1"; });
})();
