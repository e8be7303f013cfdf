// The web table. It draws what the server says and sends the person's choices back; every rule,
// legal move and fact comes from the quaternity_cp library on the server (the view's keys:
// status, log, table, hand, result, legend, ...). No game is known here by name: the page lays out
// a card table when the seats hold cards, and puts the game's picture on the table otherwise.
//
// What is a game's own (the choices under the table, the clicks on its picture, the hint, the titles)
// is drawn by the game's script part, served from the game's package (/api/games gives each game's
// page.script and page.style; the page loads them all before it opens a table). A part registers itself:
//
//   Quaternity.registerGame(name, {
//     boardTitle(view) -> string       the heading over the picture
//     drawActions(view, table)         fill table.box with the person's choices (buttons that call table.act)
//     hint(view, table) -> string      one line under the choices ("" for none)
//     boardClick(target, view, table)  a click (or Enter) on the picture's element target
//     seatClick(seat, view, table)     a click on another seat's place at the table (optional)
//     clickable: "css selector"        the picture's elements, besides [data-legal], that answer a click
//     whyHint: string                  the text of the "Why" panel before anything was explained
//     reset()                          a new table opens: forget what was chosen at the last one
//   })
//
// Every member is optional; a game with no script gets one button per legal move (its view's "moves", in the
// record's notation). `table` is what the page lends a part: node(tag, cls, text), card(name, cls),
// shortName(name), act(action), explain(query), canAct(), sync(), seat(), seatWord(), view(), setHint(text),
// board (the picture's element) and box (the element for the choices).
window.Quaternity = window.Quaternity || { parts: {}, registerGame(name, part) { this.parts[name] = part; } };
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const SPEEDS = { slow: 1800, normal: 900, fast: 300, instant: 0 }; // pause before another player's move (ms)
  const PALETTE = ["#b3261e", "#1f5fae", "#2e7d32", "#8e44ad", "#c25e00", "#00838f", "#ad1457", "#5d6d1e"];

  const S = {
    catalogue: {},
    id: null, token: null, seat: null,
    view: null,        // the view drawn
    target: null,      // the newest view received (drawn once the moves before it are shown)
    shown: [],         // the log entries on the page
    pending: 0,        // requests that change the table, in flight
    revealing: false,  // showing other players' moves one at a time
    refreshing: false, again: false,
    opening: false,    // a table named by the address is being loaded (busy: the page still shows the last one)
    thinking: null,    // the seat the server says is thinking
    events: null, closed: false,
    lastShownAt: 0, wake: null,
    verdictVersion: null, // the version of the position the verdict shown is about
    links: null,       // seat -> link, for the person who made the table
  };

  // -- small helpers ---------------------------------------------------------------------
  function node(tag, cls, text) {
    const n = document.createElement(tag);
    if (cls) n.className = cls;
    if (text !== undefined && text !== null) n.textContent = text;
    return n;
  }
  const setOf = (card) => String(card).replace(/\d+$/, "");
  function colourOf(set) {
    let h = 0;
    if (/^[A-Z]$/.test(set)) h = set.charCodeAt(0) - 65;
    else for (const ch of set) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
    return PALETTE[h % PALETTE.length];
  }
  function card(name, cls) {
    const c = node("span", "card " + (cls || ""));
    c.dataset.card = name;
    c.style.setProperty("--suit", colourOf(setOf(name)));
    c.appendChild(node("span", "card-set", setOf(name)));
    c.appendChild(node("span", "card-name", name));
    return c;
  }
  const shortName = (name) => String(name).replace(/\s*\([^)]*\)$/, "");
  function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }
  const speed = () => SPEEDS[$("speed").value] ?? SPEEDS.normal;
  function sleep(ms) {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done() { clearTimeout(t); S.wake = null; resolve(); }
      S.wake = done;
    });
  }

  // -- talking to the server ----------------------------------------------------------------
  class TableError extends Error {
    constructor(message, status) { super(message); this.status = status; }
  }
  function words(status, data) {
    if (data && typeof data.error === "string" && data.error && !/^internal error/i.test(data.error)) return data.error;
    if (status === 403) return "This link does not open a seat at this table.";
    if (status === 404 || status === 410) return "This table is no longer open (it was closed, or the server restarted).";
    if (status === 413) return "That request is too large for the table.";
    return "The table could not do that just now. Reload the page to see the game as it is.";
  }
  async function call(path, method, body) {
    const headers = {};
    if (S.token) headers["X-Seat-Token"] = S.token;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let res;
    try {
      res = await fetch(path, { method: method || "GET", headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (err) {
      throw new TableError("The connection to the table was lost. Is the server still running?", 0);
    }
    let data = null;
    try { data = await res.json(); } catch (err) { data = null; }
    if (!res.ok || data === null) throw new TableError(words(res.status, data), res.status);
    return data;
  }
  const tableUrl = (route, query) => {
    const q = new URLSearchParams(query || {});
    if (S.token) q.set("token", S.token);
    const qs = q.toString();
    return "/api/" + route + "/" + encodeURIComponent(S.id) + (qs ? "?" + qs : "");
  };
  const withProbabilities = () => ($("probabilities").checked ? { probabilities: "1" } : {});

  // one change to the table at a time: a second click while a request runs is ignored
  async function run(task) {
    if (S.pending || S.revealing || S.closed) return;
    S.pending++;
    sync();
    hideError();
    let failed = null;
    try {
      await task();
    } catch (err) {
      failed = err;
    } finally {
      S.pending--;
      sync();
    }
    if (failed) {
      showError(failed);
      if (failed.status === 404 || failed.status === 410) closeTable(failed.message);
      else if (S.id && failed.status && failed.status < 500) refresh();
    }
  }
  function showError(err) {
    const box = S.id ? $("error") : $("setup-error");
    box.textContent = err instanceof TableError ? err.message : "Something went wrong on this page; reload it to go on.";
    box.hidden = false;
  }
  function hideError() { $("error").hidden = true; $("setup-error").hidden = true; }

  // -- the setup form: built from each game's metadata (/api/games) ------------------------------
  const spec = () => S.catalogue[$("game").value] || { options: [], agents: [], min_players: 2, max_players: 2 };
  const fieldId = (name) => "opt-" + name.replace(/_/g, "-");

  function fillSetup() {
    const game = $("game");
    game.innerHTML = "";
    Object.keys(S.catalogue).forEach((name) => game.appendChild(new Option(S.catalogue[name].title || name, name)));
    fillOptions();
  }

  function fillOptions() {
    const s = spec();
    $("game-about").textContent = s.description || "";
    $("limits").textContent = (s.limits && s.limits.text) || "";
    $("rules-link").href = rulesUrl($("game").value);
    const box = $("options");
    box.innerHTML = "";
    s.options.forEach((o) => {
      const label = node("label", o.type === "bool" ? "check" : "row");
      let input;
      if (o.choices) {
        input = node("select");
        o.choices.forEach((c) => input.appendChild(new Option(c, c)));
      } else {
        input = node("input");
        input.type = o.type === "bool" ? "checkbox" : o.type === "int" ? "number" : "text";
        if (o.min !== undefined && o.min !== null) input.min = String(o.min);
        if (o.max !== undefined && o.max !== null) input.max = String(o.max);
        if (o.type === "int") input.inputMode = "numeric";
      }
      input.id = fieldId(o.name);
      input.dataset.option = o.name;
      if (o.help) input.title = o.help;
      if (o.type === "bool") input.checked = !!o.default; else input.value = String(o.default);
      if (o.type === "bool") { label.appendChild(input); label.appendChild(document.createTextNode(" " + o.label)); }
      else { label.appendChild(document.createTextNode(o.label + " ")); label.appendChild(input); }
      if (o.name === s.players_option) input.addEventListener("input", fillSeats);
      if (s.rule_sets && o.name === s.rule_sets.option) input.addEventListener("change", followRuleSet);
      box.appendChild(label);
    });
    ruleSetShown = {};  // the fields are new, at their defaults
    followRuleSet();
    fillSeats();
  }

  // a rule set stands for some rule options: choosing it puts its values in the form (and the defaults back
  // where the rule set chosen before had others); every field stays editable, and what is sent is played
  // (a rule set's option set back to its default included)
  let ruleSetShown = {};
  function followRuleSet() {
    const sets = spec().rule_sets;
    if (!sets) return;
    const chosen = (sets.values || {})[$(fieldId(sets.option)).value] || {};
    spec().options.forEach((o) => {
      if (o.name === sets.option) return;
      const input = $(fieldId(o.name));
      const fixed = Object.prototype.hasOwnProperty.call(chosen, o.name);
      const before = Object.prototype.hasOwnProperty.call(ruleSetShown, o.name);
      if (fixed || before) {
        const value = fixed ? chosen[o.name] : o.default;
        if (o.type === "bool") input.checked = !!value; else input.value = String(value);
      }
      input.dataset.ruleSet = fixed ? "1" : "";
      input.title = fixed ? "the rule set's value (change it to play otherwise)" : (o.help || "");
    });
    ruleSetShown = chosen;
  }

  function seatCount() {
    const s = spec();
    if (!s.players_option) return s.min_players;
    const n = parseInt($(fieldId(s.players_option)).value, 10);
    const most = Math.min(s.max_players, optionMax(s.players_option) ?? s.max_players);
    return Math.max(s.min_players, Math.min(most, Number.isFinite(n) ? n : s.min_players));
  }
  function optionMax(name) {
    const o = spec().options.find((x) => x.name === name);
    return o && o.max !== undefined && o.max !== null ? o.max : null;
  }

  function fillSeats() {
    const s = spec();
    const word = s.seat_label || "seat";
    const list = $("seat-list");
    const before = {};
    list.querySelectorAll("select").forEach((sel) => { before[sel.dataset.seat] = sel.value; });
    list.innerHTML = "";
    const agents = s.agents || [];
    const preferred = agents.includes(s.default_agent) ? s.default_agent : agents[0];
    for (let i = 0; i < seatCount(); i++) {
      const label = node("label", "row seat-row");
      label.appendChild(node("span", "", word.charAt(0).toUpperCase() + word.slice(1) + " " + i));
      const sel = node("select");
      sel.dataset.seat = String(i);
      sel.appendChild(new Option("a person", "person"));
      agents.forEach((a) => sel.appendChild(new Option("agent: " + a, a)));
      const old = before[i];
      sel.value = old && (old === "person" || agents.includes(old)) ? old : i === 0 ? "person" : preferred;
      label.appendChild(sel);
      list.appendChild(label);
    }
  }

  function setupRequest() {
    const s = spec();
    const options = {};
    s.options.forEach((o) => {
      const input = $(fieldId(o.name));
      options[o.name] = o.type === "bool" ? input.checked : o.type === "int" ? parseInt(input.value, 10) : input.value;
    });
    // a value out of its bounds goes as typed: the server refuses it saying the bounds (never clamped here)
    const humans = [];
    const agents = {};
    $("seat-list").querySelectorAll("select").forEach((sel) => {
      if (sel.value === "person") humans.push(parseInt(sel.dataset.seat, 10));
      else agents[sel.dataset.seat] = sel.value;
    });
    const seedText = $("seed").value.trim();
    const seed = seedText === "" ? null : parseInt(seedText, 10);
    return { game: $("game").value, options, humans, agents, seed: Number.isFinite(seed) ? seed : null };
  }

  async function create(request) {
    if (!request.humans.length) throw new TableError("Choose a person for at least one seat (you).", 400);
    const data = await call("/api/new", "POST", request);
    enterTable(data, true);
  }

  // -- opening a table -----------------------------------------------------------------------------
  function enterTable(data, fresh) {
    closeEvents();
    S.id = data.id;
    S.seat = data.seat ?? data.human ?? 0;
    S.token = data.token || null;
    S.links = data.links || null;
    S.view = null; S.target = null; S.shown = []; S.thinking = null; S.closed = false;
    $("moves").innerHTML = "";  // nothing of the table this page showed before ("play again")
    Object.values(Quaternity.parts).forEach((p) => { if (p.reset) p.reset(); });
    $("verdict").hidden = true;
    resetExplanation(data.game);
    // the seat's own address (a reload resumes the seat): from the join links, else from its token
    const own = S.links ? S.links[String(S.seat)]
      : S.token ? `/t/${encodeURIComponent(S.id)}/${encodeURIComponent(S.token)}` : null;
    if (own && location.pathname !== own) history.pushState(null, "", own);
    const others = S.links ? Object.keys(S.links).filter((k) => k !== String(S.seat) && k !== "watch") : [];
    showLinks(others.length > 0 && fresh);
    document.body.dataset.screen = "table";
    $("setup-panel").hidden = true;
    $("play").hidden = false;
    $("side").hidden = false;
    $("new-table").hidden = false;
    if (fresh) {
      // the agents' opening moves are shown one at a time, like every later move
      drawTable(data, []);
      S.view = data;
      // until the opening moves have been told, the cards stay hidden (the view is already past them)
      if (data.log.length && speed() > 0) document.body.dataset.catching = "1";
      receive(data);
    } else {
      draw(data);
    }
    openEvents();
  }

  async function openFromUrl() {
    const m = location.pathname.match(/^\/t\/([^/]+)(?:\/([^/]+))?\/?$/);
    if (!m) return false;
    S.id = decodeURIComponent(m[1]);
    S.token = m[2] ? decodeURIComponent(m[2]) : null;
    S.opening = true;
    sync();
    try {
      const data = await call(tableUrl("view"));
      S.opening = false;
      enterTable(Object.assign({ id: S.id, token: S.token }, data, { seat: data.seat ?? data.human }), false);
    } catch (err) {
      S.opening = false;
      S.id = null;
      showSetup();
      showError(err);
    } finally {
      S.opening = false;
      sync();
    }
    return true;
  }

  function showSetup() {
    closeEvents();
    S.id = null; S.token = null; S.view = null; S.target = null; S.shown = []; S.closed = false;
    document.body.dataset.screen = "setup";
    document.body.dataset.state = "";
    $("setup-panel").hidden = false;
    $("links-panel").hidden = true;
    $("play").hidden = true;
    $("side").hidden = true;
    $("new-table").hidden = true;
    $("setup").textContent = "";
    nameTheGame(null);
    $("rules-link").href = rulesUrl($("game").value);
    if (location.pathname !== "/") history.pushState(null, "", "/");
    sync();
  }

  // the header (and the window's title) name the game played at the table; the setup screen names the app
  function nameTheGame(title) {
    const text = title ? title + " table" : "Quaternity table";
    $("brand-name").textContent = text;
    document.title = text;
  }

  // -- join links --------------------------------------------------------------------------------
  function linkRows(list, withOwn) {
    list.innerHTML = "";
    if (!S.links) return;
    const order = (k) => (k === "watch" ? Infinity : Number(k));  // the watch link last
    Object.keys(S.links).sort((a, b) => order(a) - order(b)).forEach((seat) => {
      const own = seat === String(S.seat);
      if (own && !withOwn) return;
      const url = location.origin + S.links[seat];
      const li = node("li", "link-row");
      li.dataset.seat = seat;
      const word = seatWord().charAt(0).toUpperCase() + seatWord().slice(1);
      const label = seat === "watch" ? "Watchers (read only)" : word + " " + seat + (own ? " (you)" : "");
      li.appendChild(node("span", "link-seat", label));
      const input = node("input", "link-url");
      input.type = "text";
      input.readOnly = true;
      input.value = url;
      input.setAttribute("aria-label", "link to " + seatWord() + " " + seat);
      input.addEventListener("focus", () => input.select());
      const copy = node("button", "copy", "Copy");
      copy.type = "button";
      copy.addEventListener("click", () => copyText(input, copy));
      li.appendChild(input);
      li.appendChild(copy);
      list.appendChild(li);
    });
  }
  function showLinks(open) {
    const several = S.links && Object.keys(S.links).length > 1;
    $("invite").hidden = !several;
    if (several) linkRows($("invite-links"), true);
    if (open) {
      linkRows($("links"), true);
      $("links-panel").hidden = false;
    } else {
      $("links-panel").hidden = true;
    }
  }
  async function copyText(input, button) {
    let ok = false;
    try {
      if (navigator.clipboard && window.isSecureContext) { await navigator.clipboard.writeText(input.value); ok = true; }
    } catch (err) { ok = false; }
    if (!ok) {
      input.focus();
      input.select();
      try { ok = document.execCommand("copy"); } catch (err) { ok = false; }
    }
    button.textContent = ok ? "Copied" : "Select and copy";
    setTimeout(() => { button.textContent = "Copy"; }, 1800);
  }
  const seatWord = () => ((S.view && S.view.seat_label) || spec().seat_label || "seat");

  // -- events: every browser at the table hears of every change at once ---------------------------
  function openEvents() {
    if (!S.id || typeof EventSource === "undefined") return;
    const source = new EventSource(tableUrl("events"));
    S.events = source;
    source.onmessage = (ev) => {
      let data = null;
      try { data = JSON.parse(ev.data); } catch (err) { return; }
      if (!data || S.events !== source) return;
      S.thinking = data.thinking ?? null;
      const known = S.target ? S.target.version : undefined;
      const told = data.next !== undefined && !(S.view && S.view.next);  // "play again" at this table
      if ((data.version !== undefined && data.version !== known) || told) refresh();
      else sync();
    };
    source.addEventListener("closed", (ev) => {
      let text = "";
      try { text = JSON.parse(ev.data).error || ""; } catch (err) { text = ""; }
      closeTable(text || "This table was closed after a long time without a move.");
    });
    source.onerror = () => {
      // the browser reconnects by itself; when it gives up, ask the table how it is
      if (source.readyState === EventSource.CLOSED && S.events === source) { S.events = null; refresh(); }
    };
  }
  function closeEvents() {
    if (S.events) S.events.close();
    S.events = null;
  }
  function closeTable(message) {
    closeEvents();
    S.closed = true;
    S.thinking = null;
    $("status").textContent = message;
    document.body.dataset.state = "closed";
    sync();
  }

  async function refresh() {
    if (!S.id || S.closed) return;
    if (S.refreshing) { S.again = true; return; }
    S.refreshing = true;
    sync();
    const id = S.id;
    try {
      do {
        S.again = false;
        const v = await call(tableUrl("view", withProbabilities()));
        if (S.id !== id) return;  // the page moved to another table meanwhile ("play again")
        receive(v);
      } while (S.again);
    } catch (err) {
      if (err.status === 404 || err.status === 410) closeTable(err.message);
      else if (err.status === 0) showError(err);
    } finally {
      S.refreshing = false;
      sync();
    }
  }

  // -- receiving views: other players' moves are shown one at a time -----------------------------
  const sameMove = (a, b) => a.move === b.move && a.seat === b.seat && a.text === b.text;
  function common(shown, log) { // how many entries the two logs share from the start
    let k = 0;
    while (k < shown.length && k < log.length && sameMove(shown[k], log[k])) k++;
    return k;
  }
  // the view continues the moves shown (the last one may have changed: a question answered since)
  function continues(log) {
    const k = common(S.shown, log);
    return k >= S.shown.length - 1 && log.length > k;
  }
  function receive(v) {
    if (S.target && v.version !== undefined && S.target.version !== undefined && v.version < S.target.version) return;
    S.target = v;
    if (v.thinking !== undefined) S.thinking = v.thinking;
    if (S.revealing) return; // the running reveal goes on to this view
    if (S.view && continues(v.log)) reveal();
    else draw(v);
  }

  async function reveal() {
    S.revealing = true;
    sync();
    try {
      for (;;) {
        const t = S.target;
        if (!continues(t.log)) break;
        const k = common(S.shown, t.log);
        const e = t.log[k];
        if (!isMine(e)) {
          const wait = speed() - (Date.now() - S.lastShownAt);
          if (wait > 0) {
            markThinking(e.seat);
            await sleep(wait);
            if (S.target !== t) continue; // a newer view came in: go on from there
          }
        }
        if (k < S.shown.length) { // the last entry changed
          S.shown.pop();
          $("moves").lastElementChild.remove();
        }
        addMove(e);
      }
    } finally {
      S.revealing = false;
      document.body.dataset.catching = "0";
      draw(S.target);
    }
  }
  const isMine = (e) => e.you;

  // -- drawing ---------------------------------------------------------------------------------------
  // the view's names (per seat) and table (per seat: name, cards or null when the game has none, claimed, score)
  const names = (v) => v.names;
  const cardsLayout = (v) => v.table.some((t) => t.cards !== null && t.cards !== undefined);

  // the agent the server is playing now (from the latest view or event)
  function thinkingSeat() {
    const v = S.view;
    return !v || v.over || S.closed ? null : S.thinking ?? null;
  }

  function draw(v) {
    const same = common(S.shown, v.log) === v.log.length && S.shown.length === v.log.length;
    S.view = v;
    S.target = v;
    S.shown = v.log.slice();
    drawTable(v, same ? null : v.log);
  }

  // the whole table; the move list too unless ``log`` is null (it shows these moves already)
  function drawTable(v, log) {
    S.seat = v.seat ?? v.human ?? S.seat;
    nameTheGame(v.title || v.game);
    document.body.dataset.layout = cardsLayout(v) ? "cards" : "board";
    $("setup").textContent = v.setup || "";
    if (v.links) { S.links = v.links; showLinks(!$("links-panel").hidden); }
    if (typeof v.error === "string" && v.error) showError(new TableError(v.error, 200));
    $("rules-link").href = v.rules || rulesUrl(v.game);
    const board = $("board");
    board.innerHTML = v.svg || "";
    const slot = cardsLayout(v) ? $("board-home") : $("board-slot");
    if (board.parentElement !== slot) slot.appendChild(board);
    // a board game: the board is on the table, the move list goes beside it
    const moves = document.querySelector(".moves-panel");
    const home = cardsLayout(v) ? $("play") : $("side");
    if (moves.parentElement !== home) home.appendChild(moves);
    const part = gamePart(v.game);
    makeKeyboardUsable(board, part);
    $("board-title").textContent = part.boardTitle ? part.boardTitle(v) : "";
    drawLegend(v);
    drawSeats(v);
    drawActions(v);
    if (log) drawLog(log); else markLast();
    drawEnd(v);
    const features = v.features || {};
    $("prob-toggle").hidden = !features.probabilities;
    $("probabilities").checked = !!v.probabilities;
    $("note").textContent = v.note || "";
    $("note").hidden = !v.note;
    $("solve").hidden = !features.verdict || v.over;
    // a verdict is about the position it was asked for: gone after a move, an undo or the end
    if (v.over || v.version !== S.verdictVersion) { $("verdict").hidden = true; S.verdictVersion = null; }
    $("why-panel").hidden = !features.explain;
    $("download").href = tableUrl("record");
    $("end-download").href = tableUrl("record");
    sync();
  }

  function drawLegend(v) {
    const list = $("legend");
    list.innerHTML = "";
    (v.legend || []).forEach((item) => {
      const li = node("li");
      li.appendChild(swatch(String(item.mark), item.colour));
      li.appendChild(node("span", "meaning", item.meaning));
      list.appendChild(li);
    });
    $("legend-box").hidden = !list.children.length;
  }
  // a legend's mark drawn as the picture draws it: a tint, an outline, a chip, a glyph or a word in its colour
  function swatch(mark, colour) {
    const box = node("span", "mark");
    const shape = { tint: "sw-tint", outline: "sw-outline", chip: "sw-chip" }[mark];
    if (shape) {
      const s = node("span", "sw " + shape);
      s.setAttribute("aria-label", mark);
      if (colour) s.style.setProperty("--c", colour);
      box.appendChild(s);
    } else {
      const t = node("span", "sw-text" + (mark.length <= 2 ? " glyph" : ""), mark);
      if (colour && light(colour) && mark.length > 2) { t.style.background = colour; t.classList.add("on-colour"); }
      else if (colour) t.style.color = colour;
      box.appendChild(t);
    }
    return box;
  }
  function light(colour) {
    const m = /^#([0-9a-f]{6})$/i.exec(colour);
    if (!m) return false;
    const n = parseInt(m[1], 16);
    return 0.299 * (n >> 16) + 0.587 * ((n >> 8) & 255) + 0.114 * (n & 255) > 170;
  }

  // what the picture says each seat must hold (face up on the table)
  function knownCards(seat) {
    return Array.from($("board").querySelectorAll('[data-state="forced"][data-seat="' + seat + '"]'))
      .map((e) => e.dataset.card);
  }

  function drawSeats(v) {
    const around = $("seats-around");
    around.innerHTML = "";
    const seats = v.table;
    const n = seats.length;
    const mine = seats.find((t) => t.seat === S.seat);
    const lastSeat = v.log.length ? v.log[v.log.length - 1].seat : null;
    for (let k = 1; k < n; k++) {
      const t = seats[(seats.indexOf(mine) + k) % n] || seats[k];
      around.appendChild(plate(v, t, lastSeat));
    }
    const me = $("me");
    me.innerHTML = "";
    if (mine) me.appendChild(plate(v, mine, lastSeat));
  }

  function plate(v, t, lastSeat) {
    const own = t.seat === S.seat;
    const box = node("div", "plate" + (own ? " own" : ""));
    box.dataset.seat = String(t.seat);
    if (!v.over && v.to_move === t.seat) box.classList.add("turn");
    if (t.seat === lastSeat) box.classList.add("acted");
    const head = node("div", "plate-head");
    head.appendChild(node("span", "plate-name", own ? "You" : t.name));
    if (!own && v.humans.includes(t.seat)) head.appendChild(node("span", "tag", "person"));
    const score = "score" in t ? t.score : (v.scores || [])[t.seat];  // null: the game keeps no points
    if (cardsLayout(v) && score !== undefined && score !== null) {
      head.appendChild(node("span", "plate-score", plural(score, "point")));
    }
    head.appendChild(node("span", "thinking", "thinking"));
    box.appendChild(head);
    if (cardsLayout(v)) {
      const hand = node("div", own ? "hand" : "backs");
      const faceUp = own && Array.isArray(v.hand) && v.hand.length ? v.hand : knownCards(t.seat);
      faceUp.forEach((c) => hand.appendChild(card(c, own ? "" : "small")));
      const count = t.cards ?? faceUp.length;
      const hidden = Math.max(0, count - faceUp.length);
      for (let i = 0; i < Math.min(hidden, own ? 16 : 10); i++) hand.appendChild(node("span", "back" + (own ? "" : " small")));
      if (hidden > (own ? 16 : 10)) hand.appendChild(node("span", "more", "+" + (hidden - (own ? 16 : 10))));
      box.appendChild(hand);
      const facts = [plural(count, "card")];
      if (faceUp.length && hidden && !(own && v.hand && v.hand.length)) facts.push(faceUp.length + " known");
      box.appendChild(node("div", "plate-count", facts.join(", ")));
    }
    const claimed = t.claimed || [];
    if (claimed.length) {
      const chips = node("div", "chips");
      claimed.forEach((s) => {
        const chip = node("button", "chip", "set " + s);
        chip.type = "button";
        chip.dataset.set = s;
        chip.style.setProperty("--suit", colourOf(s));
        chip.title = "Why was set " + s + " claimed?";
        chip.addEventListener("click", () => explain("set=" + encodeURIComponent(s)));
        chips.appendChild(chip);
      });
      box.appendChild(chips);
    }
    if (!own) box.addEventListener("click", (ev) => {
      if (ev.target.closest("button")) return;
      const part = gamePart(v.game);
      if (part.seatClick && S.view) part.seatClick(t.seat, S.view, tableTools);
    });
    return box;
  }

  function markThinking(seat) {
    document.querySelectorAll(".plate.thinking-now").forEach((p) => p.classList.remove("thinking-now"));
    const p = document.querySelector('.plate[data-seat="' + seat + '"]');
    if (p) p.classList.add("thinking-now");
    const name = p ? p.querySelector(".plate-name").textContent : seatWord() + " " + seat;
    $("status").textContent = name + " is thinking…";
  }

  // the move list and the narration
  function drawLog(log) {
    const list = $("moves");
    list.innerHTML = "";
    log.forEach((e) => list.appendChild(moveItem(e)));
    markLast();
  }
  function moveItem(e) {
    const li = node("li", isMine(e) ? "you" : "");
    li.dataset.seat = String(e.seat);
    li.appendChild(node("span", "say", e.text || e.move));
    if (e.text) li.appendChild(node("code", "notation", e.move));
    return li;
  }
  function markLast() {
    const list = $("moves");
    list.querySelectorAll("li.last").forEach((li) => li.classList.remove("last"));
    const last = list.lastElementChild;
    if (last) {
      last.classList.add("last");
      if (list.scrollHeight > list.clientHeight) list.scrollTop = list.scrollHeight; // the list, never the page
    }
    const say = last ? last.querySelector(".say").textContent : "";
    $("narration").textContent = say;
    $("narration").hidden = !say;
    document.querySelectorAll(".plate.acted").forEach((p) => p.classList.remove("acted"));
    if (last) {
      const p = document.querySelector('.plate[data-seat="' + last.dataset.seat + '"]');
      if (p) p.classList.add("acted");
    }
  }
  function addMove(e) {
    S.shown.push(e);
    $("moves").appendChild(moveItem(e));
    markLast();
    document.querySelectorAll(".plate.thinking-now").forEach((p) => p.classList.remove("thinking-now"));
    S.lastShownAt = Date.now();
  }

  // -- the person's moves -----------------------------------------------------------------------------
  // the game's script part (Quaternity.registerGame), loaded with the catalogue; a game without one draws no choices
  const gamePart = (game) => Quaternity.parts[game] || {};
  // what the page lends a game's part
  const tableTools = {
    node, card, shortName,
    act: (action) => act(action),
    explain: (query) => explain(query),
    canAct: () => canAct(),
    sync: () => sync(),
    seat: () => S.seat,
    seatWord: () => seatWord(),
    view: () => S.view,
    setHint: (text) => { $("hint").textContent = text || ""; },
    get board() { return $("board"); },
    get box() { return $("game-actions"); },
  };

  function drawActions(v) {
    const part = gamePart(v.game);
    if (part.drawActions) part.drawActions(v, tableTools); else plainMoves(v);
    $("hint").textContent = part.hint ? part.hint(v, tableTools) || "" : "";
  }

  // a game without its own script: one button per legal move of the person's (the view's "moves", in the
  // record's notation), so that every game can be played at the page
  function plainMoves(v) {
    const box = $("game-actions");
    box.innerHTML = "";
    if (!v.your_turn || !Array.isArray(v.moves)) return;
    const row = node("div", "plain-moves");
    v.moves.forEach((m) => {
      const b = node("button", "act", String(m));
      b.type = "button";
      b.dataset.action = String(m);
      b.addEventListener("click", () => act(String(m)));
      row.appendChild(b);
    });
    box.appendChild(row);
  }

  function act(action) {
    return run(async () => {
      const v = await call(tableUrl("act"), "POST", { action, probabilities: $("probabilities").checked });
      receive(v);
    });
  }

  // clicks on the picture: the game's part says what they do (a move, an explanation)
  function boardClick(target) {
    const v = S.view;
    if (!v) return;
    const part = gamePart(v.game);
    if (part.boardClick) part.boardClick(target, v, tableTools);
  }

  // the picture's clickable parts can be reached with the keyboard too
  function makeKeyboardUsable(board, part) {
    board.querySelectorAll("[data-legal]" + (part.clickable ? ", " + part.clickable : "")).forEach((e) => {
      e.setAttribute("tabindex", "0");
      e.setAttribute("role", "button");
      const what = e.dataset.action || e.dataset.cell || e.dataset.piece || e.dataset.set || e.textContent.trim();
      if (what) e.setAttribute("aria-label", what);
    });
  }

  // -- explanations, the verdict ------------------------------------------------------------------
  let explaining = false;
  async function explain(query) {
    const v = S.view;
    if (!v || !(v.features || {}).explain || explaining) return;
    explaining = true;
    const box = $("explanation");
    try {
      const q = Object.fromEntries(new URLSearchParams(query));
      const data = await call(tableUrl("explain", q));
      box.innerHTML = "";
      (data.lines || []).forEach((l) => box.appendChild(node("p", "", l)));
    } catch (err) {
      box.innerHTML = "";
      box.appendChild(node("p", "hint", err instanceof TableError ? err.message : "No explanation now."));
    } finally {
      explaining = false;
    }
    if (window.matchMedia("(max-width: 980px)").matches) $("why-panel").scrollIntoView({ block: "nearest" });
  }
  function resetExplanation(game) {
    const box = $("explanation");
    box.innerHTML = "";
    const part = gamePart(game);
    box.appendChild(node("p", "hint", part.whyHint || ""));
  }

  let solving = false;
  async function solve() {
    if (solving || !S.id) return;
    solving = true;
    sync();
    const box = $("verdict");
    const asked = S.view ? S.view.version : null;
    S.verdictVersion = asked;
    box.hidden = false;
    box.textContent = "Working out the best play…";
    try {
      const text = (await call(tableUrl("solve"))).text;
      if (S.verdictVersion === asked) box.textContent = text; // else the game has moved on: not shown
    } catch (err) {
      if (S.verdictVersion === asked) box.textContent = err instanceof TableError ? err.message : "No verdict now.";
    } finally {
      solving = false;
      sync();
    }
  }

  // -- the end of the game -------------------------------------------------------------------------
  function drawEnd(v) {
    const panel = $("end-panel");
    panel.hidden = !v.over;
    $("felt").classList.toggle("over", !!v.over);
    if (!v.over) return;
    const r = v.result || {};
    // "won", "lost" or "draw" (nobody won): a draw is never told as a loss
    const outcome = r.outcome || (r.you_won === true ? "won" : r.you_won === false ? "lost" : "over");
    $("end-title").textContent = { won: "You won!", lost: "You lost", draw: "A draw: nobody won" }[outcome] || "Game over";
    panel.dataset.outcome = outcome;
    $("end-text").textContent = r.text || v.status || "";
    const hands = $("end-hands");
    hands.innerHTML = "";
    const n = names(v);
    Object.keys(r.hands || {}).sort((a, b) => a - b).forEach((seat) => {
      const row = node("div", "end-hand");
      row.dataset.seat = seat;
      row.appendChild(node("span", "end-name", parseInt(seat, 10) === S.seat ? "You" : n[seat] || seatWord() + " " + seat));
      const cards = node("span", "end-cards");
      const held = r.hands[seat];
      if (held.length) held.forEach((c) => cards.appendChild(card(c, "small")));
      else cards.appendChild(node("span", "hint", "no cards"));
      row.appendChild(cards);
      hands.appendChild(row);
    });
    hands.hidden = $("end-hands-title").hidden = !hands.children.length;
  }

  function playAgain() {
    // the same people in the same seats, the same agents: every page of this table is told, and offered to follow
    if (!S.view) return;
    run(async () => enterTable(await call(tableUrl("again"), "POST", {}), true));
  }
  function follow(ev) {
    const next = S.view && S.view.next;
    if (!next) return;
    ev.preventDefault();
    history.pushState(null, "", next.link);
    openFromUrl();
  }

  // -- enabling and disabling --------------------------------------------------------------------------
  function canAct() { return !S.pending && !S.revealing && !S.closed && !!S.view && !!S.view.your_turn; }

  function sync() {
    const v = S.view;
    const ready = canAct();
    document.querySelectorAll("#actions button").forEach((b) => { b.disabled = !ready; });
    $("board").classList.toggle("locked", !ready);
    $("undo").disabled = !v || !v.can_undo || !!S.pending || S.revealing || S.closed;
    $("play-again").disabled = $("end-new").disabled = !!S.pending;
    const next = v && v.next;
    $("follow").hidden = !next;
    $("play-again").hidden = !!next || (v && v.seat < 0);  // the new table is there: follow it; a watcher cannot start one
    if (next) $("follow").href = next.link;
    $("start").disabled = !!S.pending;
    $("solve").disabled = solving;
    const thinker = S.revealing ? null : thinkingSeat();
    document.querySelectorAll(".plate").forEach((p) => {
      if (!S.revealing) p.classList.toggle("thinking-now", thinker !== null && p.dataset.seat === String(thinker));
    });
    if (v && !S.closed && !S.revealing) {
      $("status").textContent = thinker !== null && !v.your_turn ? names(v)[thinker] + " is thinking…" : v.status;
    }
    const busy = !!S.pending || S.revealing || S.refreshing || S.opening || (thinker !== null && !S.closed);
    document.body.dataset.busy = busy ? "1" : "0";
    if (v && !S.closed) document.body.dataset.state = v.over ? "over" : v.your_turn ? "your-turn" : "waiting";
    $("felt").classList.toggle("your-turn", !!(v && v.your_turn && !S.revealing));
  }

  // the rules page of a game of the catalogue (its page part), else none
  function rulesUrl(game) { return ((S.catalogue[game] || {}).page || {}).rules || "#"; }

  // a game's page parts (its script and style), each loaded once; a part that fails to load leaves the game
  // without its own choices (the page says so once) but the rest of the page works
  const loading = {};
  function loadParts(game) {
    if (loading[game]) return loading[game];
    const page = (S.catalogue[game] || {}).page || {};
    if (page.style) {
      const link = document.createElement("link");
      link.rel = "stylesheet";
      link.href = page.style;
      document.head.appendChild(link);
    }
    loading[game] = !page.script ? Promise.resolve() : new Promise((resolve) => {
      const script = document.createElement("script");
      script.src = page.script;
      script.onload = () => resolve();
      script.onerror = () => { showError(new TableError("The page of the game " + game + " could not be loaded.", 0)); resolve(); };
      document.head.appendChild(script);
    });
    return loading[game];
  }

  // -- wiring ----------------------------------------------------------------------------------------
  // A double click plays once. Its first click plays, and the controls stay disabled while the move is on its
  // way; but the answer can come back between the two clicks (a fast server, a busy browser) and draw the next
  // choices under the pointer, where the second click would play one of them (answer the next question, take
  // back one more move). So the second and later clicks of a double or triple click (`detail` > 1; a key's
  // click has 0) never reach the controls that change the table.
  document.addEventListener("click", (ev) => {
    if (ev.detail > 1 && ev.target instanceof Element && ev.target.closest("#game-actions, #board, #undo, #play-again")) {
      ev.preventDefault();
      ev.stopImmediatePropagation();
    }
  }, true);
  $("board").addEventListener("click", (ev) => boardClick(ev.target));
  $("board").addEventListener("keydown", (ev) => {
    if ((ev.key === "Enter" || ev.key === " ") && ev.target.getAttribute("role") === "button") {
      ev.preventDefault();
      boardClick(ev.target);
    }
  });
  $("undo").addEventListener("click", () => run(async () => {
    receive(await call(tableUrl("undo"), "POST", { probabilities: $("probabilities").checked }));
  }));
  $("probabilities").addEventListener("change", () => run(async () => {
    draw(await call(tableUrl("view", withProbabilities())));
  }));
  $("solve").addEventListener("click", solve);
  $("speed").addEventListener("change", () => {
    try { localStorage.setItem("quaternity.speed", $("speed").value); } catch (err) { /* private mode */ }
    if (S.wake) S.wake();
  });
  $("new-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    run(() => create(setupRequest()));
  });
  $("game").addEventListener("change", fillOptions);
  $("new-table").addEventListener("click", showSetup);
  $("end-new").addEventListener("click", showSetup);
  $("play-again").addEventListener("click", playAgain);
  $("follow").addEventListener("click", follow);
  $("links-done").addEventListener("click", () => { $("links-panel").hidden = true; $("felt").scrollIntoView({ block: "start" }); });
  window.addEventListener("popstate", () => { if (!openFromUrlSafe()) showSetup(); });
  window.addEventListener("unhandledrejection", (ev) => { ev.preventDefault(); });

  function openFromUrlSafe() {
    if (!/^\/t\//.test(location.pathname)) return false;
    openFromUrl();
    return true;
  }

  if (window.matchMedia("(max-width: 980px)").matches) $("legend-box").open = false; // a phone: the table first
  try {
    const saved = localStorage.getItem("quaternity.speed");
    if (saved && SPEEDS[saved] !== undefined) $("speed").value = saved;
    else $("speed").value = "normal";
  } catch (err) { $("speed").value = "normal"; }

  call("/api/games").then(async (data) => {
    // every game with its options (other keys, such as limits, are not games)
    S.catalogue = Object.fromEntries(Object.entries(data || {}).filter(([, g]) => g && Array.isArray(g.options)));
    await Promise.all(Object.keys(S.catalogue).map(loadParts));
    fillSetup();
    if (!(await openFromUrl())) showSetup();
    document.body.dataset.ready = "1";
  }).catch((err) => {
    showError(err);
    document.body.dataset.ready = "1";
  });
})();
