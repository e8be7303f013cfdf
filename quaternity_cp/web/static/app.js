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

  // -- setting up a game ------------------------------------------------------------------
  function fillSetup() {
    const game = $("game");
    game.innerHTML = "";
    Object.keys(catalogue).forEach((name) => game.appendChild(new Option(name, name)));
    const presets = (catalogue.quartets && catalogue.quartets.presets) || [];
    presets.forEach((p) => $("preset").appendChild(new Option(p, p)));
    refreshSeats();
  }

  function seatCount() {
    return $("game").value === "quarto" ? 2 : Math.max(2, parseInt($("players").value, 10) || 2);
  }

  function refreshSeats() {
    const quarto = $("game").value === "quarto";
    $("quartets-options").hidden = quarto;
    $("quarto-options").hidden = !quarto;
    const n = seatCount();
    const human = $("human");
    const keep = human.value;
    human.innerHTML = "";
    for (let s = 0; s < n; s++) human.appendChild(new Option(quarto ? "player " + s : "seat " + s, String(s)));
    human.value = keep && parseInt(keep, 10) < n ? keep : "0";
    const box = $("agents");
    const previous = {};
    box.querySelectorAll("select").forEach((sel) => { previous[sel.dataset.seat] = sel.value; });
    box.querySelectorAll("label").forEach((l) => l.remove());
    const agents = (catalogue[$("game").value] || {}).agents || [];
    const preferred = ["knowledge", "greedy", "koole-combined", "random"].find((a) => agents.includes(a)) || agents[0];
    for (let s = 0; s < n; s++) {
      if (String(s) === human.value) continue;
      const label = node("label", "", (quarto ? "player " : "seat ") + s + " ");
      const sel = node("select");
      sel.dataset.seat = String(s);
      agents.forEach((a) => sel.appendChild(new Option(a, a)));
      sel.value = previous[s] && agents.includes(previous[s]) ? previous[s] : preferred;
      label.appendChild(sel);
      box.appendChild(label);
    }
  }

  async function startGame(ev) {
    if (ev) ev.preventDefault();
    const game = $("game").value;
    const options = game === "quarto" ? { squares: $("squares").checked }
      : { preset: $("preset").value, players: seatCount(), sets: parseInt($("sets").value, 10),
          set_size: parseInt($("set-size").value, 10) };
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
    $("prob-toggle").hidden = data.kind !== "quartets";
    $("solve").hidden = data.kind !== "quarto";
    document.querySelectorAll(".why-section").forEach((n) => { n.hidden = data.kind !== "quartets"; });
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
  ["game", "players", "human"].forEach((id) => $(id).addEventListener("change", refreshSeats));

  api("/api/games").then((data) => { catalogue = data; fillSetup(); document.body.dataset.ready = "1"; });
})();
