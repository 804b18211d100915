/* play.js -- the live part of a chapter page: the step's real server
 * (RedisPlayground, api.js), a console that prints as redis-cli does, the
 * clock, and a drawing of the chapter's structure read through inspect().
 *
 * pages.py puts <aside id="play" data-step="NN-name"> in the page and loads
 * the step's module before this file. Everything is built here, in the
 * page's own DOM: nothing is loaded from the network. Long experiments run in
 * slices (setTimeout, requestAnimationFrame) so the page never freezes. */
(function () {
  "use strict";
  const root = document.getElementById("play");
  if (!root || typeof RedisPlayground === "undefined") return;
  const step = root.dataset.step;
  const num = step.slice(0, 2);

  const HISTORY_MAX = 100;      /* lines kept for the up/down keys */
  const OUTPUT_MAX = 300;       /* console lines kept on screen */
  const DRAW_EVERY_MS = 200;    /* redraws at most this often while the clock runs */
  const ADVANCE_FRAMES = 20;    /* an advance button moves the clock over this many frames */
  const EXPERIMENT_KEYS = 10000;
  const EXPERIMENT_BATCH = 500; /* keys per slice of the experiment, pipelined in one send */
  const EVENTS_SHOWN = 8;       /* lines of a drawing's event log */

  /* ---- Small DOM helpers ---- */
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v);
    }
    for (const c of children) if (c != null) e.append(c);
    return e;
  }
  const button = (label, onclick, title) => el("button", {type: "button", onclick, title: title || label}, label);
  const fmtTime = (ms) => {
    const d = new Date(ms);
    const p = (n, w) => String(n).padStart(w || 2, "0");
    return p(d.getHours()) + ":" + p(d.getMinutes()) + ":" + p(d.getSeconds()) + "." + p(d.getMilliseconds(), 3);
  };
  const secs = (ms) => (ms / 1000).toFixed(ms < 10000 ? 3 : 1) + " s";
  const escapeBytes = (bytes) => Array.from(bytes, (c) =>
    c === 13 ? "\\r" : c === 10 ? "\\n" : c >= 32 && c < 127 ? String.fromCharCode(c) : "\\x" + c.toString(16).padStart(2, "0")).join("");

  /* ---- The frame: clock, console, drawing ---- */
  const clockOut = el("output", {class: "play-now", "aria-live": "off"}, "starting…");
  const clockState = el("span", {class: "play-state"});
  const pauseBtn = button("Pause", () => (server.paused() ? server.resume() : server.pause()));
  const advanceBtns = [[100, "+100 ms"], [1000, "+1 s"], [60000, "+1 min"]].map(([ms, label]) =>
    button(label, () => advanceSmoothly(ms), "Pause the clock and move it forward by " + label.slice(1)));
  const out = el("pre", {class: "play-out", role: "log", "aria-live": "polite", "aria-label": "Replies", tabindex: "0"});
  const input = el("input", {type: "text", class: "play-in", autocomplete: "off", autocapitalize: "off",
    spellcheck: "false", "aria-label": "Command, as typed at redis-cli's prompt (up and down: history)",
    placeholder: "PING"});
  const form = el("form", {class: "play-form"}, el("span", {class: "play-prompt", "aria-hidden": "true"}, "redis>"), input);
  const drawTitle = el("h3", {class: "play-draw-title"});
  const drawButtons = el("div", {class: "play-buttons", role: "group", "aria-label": "Experiments"});
  const figure = el("div", {class: "play-figure"});
  const status = el("p", {class: "play-status", "aria-live": "polite"});
  root.append(
    el("div", {class: "play-head"},
      el("h2", {id: "play-title"}, root.dataset.page === "step" ? "The server" : "Try it: step " + num + "'s server"),
      el("button", {type: "button", class: "play-hide", onclick: () => collapse(true),
        title: "Hide the live server: the text takes the whole width (a tab at the window's edge brings it back)"}, "Hide ▸")),
    el("p", {class: "play-intro"}, "The step's own C code, compiled to WebAssembly, runs in this page. " +
      "Type commands as at redis-cli's prompt. The server's clock runs in real time; pause it and move it forward to watch keys expire without waiting."),
    el("div", {class: "play-clock", role: "group", "aria-label": "The server's clock"},
      el("span", {}, "Server clock "), clockOut, " ", clockState, " ", pauseBtn, ...advanceBtns),
    el("div", {class: "play-console"}, out, form),
    el("section", {class: "play-drawing", "aria-labelledby": "play-draw-title"}, drawTitle, drawButtons, status, figure));
  drawTitle.id = "play-draw-title";

  /* A narrower console wraps more lines: keep its latest line in view. */
  if (typeof ResizeObserver !== "undefined") new ResizeObserver(() => { out.scrollTop = out.scrollHeight; }).observe(out);

  let server = null;
  let drawing = null;
  const history = [];
  let historyAt = 0;

  function print(text, cls) {
    const line = el("span", {class: cls || ""}, text + "\n");
    out.append(line);
    while (out.childNodes.length > OUTPUT_MAX) out.firstChild.remove();
    out.scrollTop = out.scrollHeight;
  }

  /* The server's log (what it prints; from chapter 08 on, its saves and
   * loads), each line under what caused it. A line that shows what a page
   * cannot do as a native server does is explained, once per page. */
  const PAGE_LIMITS = [
    [/Can't save in background: fork:/, "(a web page has no processes, so fork() fails here: BGSAVE, and the save " +
      "points' background saves, cannot start their child. SAVE and DEBUG RELOAD work: they write dump.rdb into " +
      "the page's in-memory files.)"],
  ];
  const explained = new Set();
  function showLog() {
    for (const line of server.takeLog()) {
      print(line, "play-note play-log");
      for (const [re, why] of PAGE_LIMITS) {
        if (re.test(line) && !explained.has(why)) {
          explained.add(why);
          print(why, "play-note");
        }
      }
    }
  }

  /* One line typed at the prompt: shown, run, answered. */
  function run(line) {
    print("redis> " + line, "play-cmd");
    if (/^\s*clear\s*$/i.test(line)) {
      out.textContent = "";
      return "";
    }
    const before = drawing && drawing.afterCommand ? server.inspect() : null;
    const reply = server.command(line);
    if (reply !== "") print(reply, /^\(error\)/.test(reply) ? "play-err" : "");
    if (server.closed) print("(the server closed the connection; the console connected again)", "play-note");
    showLog();
    if (/^\s*shutdown\b/i.test(line) && reply === "") {
      print("(a native server has exited now, after saving as its save points or the option say; this page's " +
        "server has no process to end and goes on serving, its keys still in memory. DEBUG RELOAD makes the " +
        "round trip a restart makes: save, empty, load.)", "play-note");
    }
    if (before) drawing.afterCommand(line, reply, before);
    redraw(true);
    return reply;
  }

  /* Bytes sent as they are (not as redis-cli would send a line): inline
   * commands, pipelining, protocol errors. */
  function sendRaw(text) {
    print("(sent as raw bytes) " + escapeBytes(new TextEncoder().encode(text)), "play-cmd");
    const reply = RedisPlayground.formatReplies(server.send(text));
    if (reply !== "") print(reply, /^\(error\)/.test(reply) ? "play-err" : "");
    if (server.closed) print("(the server closed the connection; the console connected again)", "play-note");
    showLog();
    redraw(true);
  }

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const line = input.value;
    if (!server) return;
    if (line.trim()) {
      history.push(line);
      if (history.length > HISTORY_MAX) history.shift();
    }
    historyAt = history.length;
    input.value = "";
    run(line);
  });
  input.addEventListener("keydown", (ev) => {
    if (ev.key === "ArrowUp" && historyAt > 0) {
      historyAt--;
    } else if (ev.key === "ArrowDown" && historyAt < history.length) {
      historyAt++;
    } else {
      return;
    }
    ev.preventDefault();
    input.value = history[historyAt] || "";
  });

  /* ---- The clock ---- */
  function showClock() {
    clockOut.textContent = fmtTime(server.now());
    clockState.textContent = server.paused() ? "paused" : "real time";
    clockState.className = "play-state " + (server.paused() ? "is-paused" : "is-running");
    pauseBtn.textContent = server.paused() ? "Resume" : "Pause";
    pauseBtn.setAttribute("aria-pressed", server.paused() ? "true" : "false");
  }

  /* Pause, then move the clock in ADVANCE_FRAMES slices, one per frame, so a
   * drawing shows what happens on the way (a key cascading down the wheel). */
  let advancing = Promise.resolve();
  function advanceSmoothly(ms) {
    server.pause();
    advancing = advancing.then(() => new Promise((done) => {
      let left = ms;
      const slice = Math.max(1, Math.ceil(ms / ADVANCE_FRAMES));
      const frame = () => {
        const now = Math.min(slice, left);
        server.advance(now);
        left -= now;
        redraw(true);
        if (left > 0) requestAnimationFrame(frame);
        else done();
      };
      requestAnimationFrame(frame);
    }));
    return advancing;
  }

  /* ---- Drawing ---- */
  let lastDraw = 0, drawQueued = false;
  function redraw(now) {
    if (!server) return;
    showClock();
    const t = performance.now();
    if (!now && t - lastDraw < DRAW_EVERY_MS) {
      if (!drawQueued) {
        drawQueued = true;
        setTimeout(() => { drawQueued = false; redraw(true); }, DRAW_EVERY_MS);
      }
      return;
    }
    lastDraw = t;
    if (drawing) drawing.draw(server.inspect());
  }

  /* Pipelined SETs, EXPERIMENT_BATCH a slice, through the real parser. */
  function setManyKeys(prefix, count, ttlMs) {
    const enc = new TextEncoder();
    let i = 0;
    return new Promise((done) => {
      const slice = () => {
        let chunk = "";
        for (const end = Math.min(i + EXPERIMENT_BATCH, count); i < end; i++) {
          const key = prefix + i, ttl = String(ttlMs);
          chunk += "*5\r\n$3\r\nSET\r\n$" + key.length + "\r\n" + key + "\r\n$1\r\nv\r\n$2\r\nPX\r\n$" + ttl.length + "\r\n" + ttl + "\r\n";
        }
        server.send(enc.encode(chunk));
        status.textContent = "Set " + i.toLocaleString("en") + " of " + count.toLocaleString("en") + " keys…";
        if (i < count) setTimeout(slice, 0);
        else done();
      };
      slice();
    });
  }

  function experimentTenThousand() {
    status.textContent = "";
    print("(experiment: " + EXPERIMENT_KEYS.toLocaleString("en") + " keys exp:0… with a 1 s TTL, sent pipelined; nobody reads them)", "play-note");
    return setManyKeys("exp:", EXPERIMENT_KEYS, 1000).then(() => {
      status.textContent = EXPERIMENT_KEYS.toLocaleString("en") + " keys set with a 1 s TTL. Nobody reads them: watch what the server does as the clock runs (or press +1 s).";
      redraw(true);
    });
  }

  /* Commands typed for the reader, one a step, so each is seen. */
  function typeSlowly(lines, gapMs) {
    return lines.reduce((p, line) => p.then(() => new Promise((done) => {
      run(line);
      setTimeout(done, gapMs);
    })), Promise.resolve());
  }

  /* The drawing's content; a null item is a part the state leaves out. */
  const show = (...items) => figure.replaceChildren(...items.filter((x) => x != null));
  const stat = (label, value, cls) => el("div", {class: "play-stat " + (cls || "")}, el("span", {}, label), el("b", {}, String(value)));
  const stats = (...items) => el("div", {class: "play-stats"}, ...items);
  const events = [];
  function note(text) {
    events.unshift(fmtTime(server.now()) + "  " + text);
    events.length = Math.min(events.length, EVENTS_SHOWN);
  }
  const eventLog = () => events.length ? el("ol", {class: "play-events", "aria-label": "What just happened"},
    ...events.map((e) => el("li", {}, e))) : null;

  /* 01: the bytes of the last exchange. */
  const bytesDrawing = {
    title: "The bytes on the wire",
    buttons: () => [
      button("PING", () => run("PING")),
      button("Inline: PING\\r\\n", () => sendRaw("PING\r\n")),
      button("Pipelined: two commands in one read", () => sendRaw("*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n")),
      button("Protocol error: *1\\r\\n$x", () => sendRaw("*1\r\n$x\r\n")),
    ],
    draw() {
      const x = server.lastExchange;
      show(x ? el("dl", {class: "play-bytes"},
        el("dt", {}, "sent (RESP array, as redis-cli sends it)"), el("dd", {}, el("code", {}, escapeBytes(x.sent))),
        el("dt", {}, "received"), el("dd", {}, el("code", {}, escapeBytes(x.received)))) :
        el("p", {}, "Type a command: its request and reply bytes appear here."));
    },
  };

  /* 02, 03: both tables of the dict, each bucket's chain, the rehash index. */
  function drawTables(d) {
    const dict = d.dict;
    const tables = dict.tables.map((t, i) => {
      if (!t.size) return el("div", {class: "play-table is-empty"}, el("h4", {}, "table[" + i + "]"), el("p", {}, i ? "not in use (no rehash)" : "empty"));
      const rows = t.buckets ? t.buckets.map((chain, b) => el("li", {
        class: "play-bucket" + (i === 0 && dict.rehashing && b < dict.rehash_index ? " is-moved" : "") +
          (i === 0 && dict.rehashing && b === dict.rehash_index ? " is-next" : ""),
      }, el("span", {class: "play-idx"}, String(b)), ...chain.map((k) => el("span", {class: "play-key"}, k)))) :
        [el("li", {}, t.size + " buckets: too many to draw")];
      return el("div", {class: "play-table"}, el("h4", {}, "table[" + i + "]: " + t.size + " buckets, " + t.used + " keys"),
        el("ol", {class: "play-buckets"}, ...rows));
    });
    return el("div", {},
      el("p", {class: "play-caption"}, dict.rehashing
        ? "Rehashing: rehash_index = " + dict.rehash_index + ". Buckets of table[0] below it are already moved; each command moves one more."
        : "No rehash under way. rehash_index = " + dict.rehash_index + "."),
      el("div", {class: "play-tables"}, ...tables));
  }
  const dictDrawing = {
    title: "The hash table: both tables, each bucket's chain",
    buttons: () => {
      const b = [button("Add 12 keys, one a step", () => typeSlowly(Array.from({length: 12}, (_, i) => "SET key:" + (i + 1) + " v"), 400))];
      if (num >= "03") b.push(button("Delete them, one a step", () => typeSlowly(Array.from({length: 12}, (_, i) => "DEL key:" + (i + 1)), 400)));
      return b;
    },
    prev: null,
    /* Where each drawn key sits: key -> "table[t] bucket b". */
    places(dict) {
      const at = new Map();
      dict.tables.forEach((t, i) => (t.buckets || []).forEach((chain, b) => chain.forEach((k) => at.set(k, "table[" + i + "] bucket " + b))));
      return at;
    },
    /* What changed since the last drawing: a rehash starting, moving on,
     * ending; a key unlinked from its chain. */
    noteChanges(dict) {
      const prev = this.prev;
      if (!prev) return;
      const [t0, t1] = dict.tables;
      if (!prev.rehashing && dict.rehashing) {
        note("rehash started: table[1] allocated with " + t1.size + " buckets, " +
          (t1.size > t0.size ? "growing" : "shrinking") + " from " + t0.size);
      } else if (prev.rehashing && dict.rehashing && dict.rehash_index !== prev.rehash_index) {
        note("rehash_index " + prev.rehash_index + " → " + dict.rehash_index + ": table[0]'s buckets below it have moved to table[1]");
      } else if (prev.rehashing && !dict.rehashing) {
        note("rehash done: table[1] became table[0], " + t0.size + " buckets");
      }
      const now = this.places(dict);
      for (const [k, where] of this.places(prev)) {
        if (!now.has(k)) note(k + " unlinked from " + where + "'s chain");
      }
    },
    draw(d) {
      this.noteChanges(d.dict);
      this.prev = d.dict;
      show(stats(stat("keys", d.keys), stat("rehashing", d.dict.rehashing ? "yes" : "no")), eventLog(), drawTables(d));
    },
  };

  /* 04: keys with a TTL; those past their deadline, still held; lazy deletion. */
  const ttlDrawing = {
    title: "Keys with a TTL, and the expired ones still in memory",
    buttons: () => [
      button("SET k v PX 500", () => run("SET k v PX 500")),
      button("10,000 keys with a 1 s TTL, nobody reads", experimentTenThousand),
      button("Read one: GET exp:1", () => run("GET exp:1")),
    ],
    afterCommand(line, reply, before) {
      const d = server.inspect();
      if (d.expired_keys > before.expired_keys) {
        const gone = before.ttl_keys.filter((k) => k.past && !d.ttl_keys.some((n) => n.key === k.key)).map((k) => k.key);
        note("lazy expiry: " + line.trim() + " found " + (gone.length ? gone.slice(0, 3).join(", ") : "a key") +
          " past its deadline and deleted it (" + (d.expired_keys - before.expired_keys) + " deleted)");
      }
    },
    draw(d) {
      const rows = d.ttl_keys.slice(0, 40).map((k) => {
        const left = k.expire_at - d.now;
        return el("li", {class: k.past ? "is-past" : ""}, el("span", {class: "play-key"}, k.key),
          k.past ? " expired " + secs(-left) + " ago, still held in memory" : " expires in " + secs(left));
      });
      show(
        stats(stat("keys in memory", d.keys), stat("with a TTL", d.with_ttl),
          stat("past their deadline, still held", d.past_deadline, d.past_deadline ? "is-bad" : ""),
          stat("deleted when read (expired_keys)", d.expired_keys), stat("used_memory", d.used_memory + " B")),
        eventLog(),
        rows.length ? el("ul", {class: "play-ttl"}, ...rows) : el("p", {}, "No key has a TTL."),
        d.with_ttl > rows.length ? el("p", {class: "play-caption"}, "… and " + (d.with_ttl - rows.length).toLocaleString("en") + " more") : null);
    },
  };

  /* 05: each cycle of the active expiry: its sample, what it deleted, why it stopped. */
  const cycleDrawing = {
    title: "The active expire cycle: each cycle's sample",
    seen: 0,
    deleting: null,
    buttons: () => [
      button("SET k v PX 500", () => run("SET k v PX 500")),
      button("10,000 keys with a 1 s TTL, nobody reads", experimentTenThousand),
    ],
    drawCycle(c, cls) {
      return el("div", {class: "play-cycle " + (cls || "")},
        el("p", {}, el("b", {}, "cycle " + c.n), " (" + (c.fast ? "fast, before sleeping" : "slow, from the cron") + ") at " + fmtTime(c.at) +
          ": sampled " + c.sampled + ", expired " + c.expired + "; keys with a TTL " + c.ttl_before + " → " + c.ttl_after +
          "; stale estimate " + c.stale_before.toFixed(2) + "% → " + c.stale_after.toFixed(2) + "%; stopped: " + c.stop),
        el("ol", {class: "play-sample", "aria-label": "the keys it sampled"}, ...c.sample.map((s) =>
          el("li", {class: s.expired ? "is-expired" : "", title: s.key + (s.expired ? ": expired, deleted" : ": alive")},
            s.key + (s.expired ? " ✗" : "")))),
        c.sampled > c.sample.length ? el("p", {class: "play-caption"}, "(" + c.sample.length + " of the " + c.sampled + " keys sampled are named)") : null);
    },
    draw(d) {
      for (const c of d.cycles) {
        if (c.n > this.seen && c.expired > 0) this.deleting = c;
        if (c.n > this.seen && c.expired > 0) {
          const named = c.sample.filter((s) => s.expired).map((s) => s.key).slice(0, 3).join(", ");
          note("cycle " + c.n + " deleted " + c.expired + " expired key(s)" + (named ? ": " + named : ""));
        }
      }
      if (d.cycles.length) this.seen = d.cycles[d.cycles.length - 1].n;
      const e = d.expirer;
      const recent = d.cycles.filter((c) => !this.deleting || c.n !== this.deleting.n).slice(-4).reverse();
      show(
        stats(stat("keys in memory", d.keys), stat("with a TTL", d.with_ttl),
          stat("past their deadline", d.past_deadline, d.past_deadline ? "is-bad" : ""),
          stat("expired_keys", d.expired_keys), stat("expired_stale_perc", e.stale_perc.toFixed(2)),
          stat("expired_time_cap_reached_count", e.time_cap_reached),
          stat("expire_cycle_cpu_milliseconds", Math.floor(e.cycle_time_used_us / 1000)), stat("cycles", e.cycles)),
        eventLog(),
        this.deleting ? el("div", {}, el("h4", {}, "The last cycle that deleted keys"), this.drawCycle(this.deleting, "is-deleting")) : null,
        el("h4", {}, "The latest cycles"),
        recent.length ? el("div", {}, ...recent.map((c) => this.drawCycle(c))) :
          el("p", {}, "No cycle has sampled anything yet: no key has a TTL. The cron runs " + e.hz + " times a second."));
    },
  };

  /* 06: the wheel's levels and occupied slots; cascades; the slot that fires. */
  const wheelDrawing = {
    title: "The timing wheel: levels, occupied slots, keys cascading and firing",
    slots: null,  /* the occupied slots at the last drawing: "level/slot" -> {l, s, n, keys} */
    fired: 0,
    buttons: () => [
      button("SET k v PX 500", () => run("SET k v PX 500")),
      button("SET k v PX 70000: watch it cascade", () => run("SET k v PX 70000")),
      button("10,000 keys with a 1 s TTL, nobody reads", experimentTenThousand),
    ],
    /* What became of each slot occupied at the last drawing and now empty:
     * its keys moved down a level (a cascade), fired, or left the wheel. */
    noteChanges(slots, w, d) {
      const names = (keys, n) => keys.slice(0, 3).join(", ") + (n > 3 ? " and " + (n - 3).toLocaleString("en") + " more" : "");
      for (const [id, old] of this.slots || []) {
        if (slots.has(id)) continue;
        const moved = [...slots.values()].filter((now) => now.l < old.l && old.keys.some((k) => now.keys.includes(k)));
        if (moved.length) {
          note("level " + old.l + " slot " + old.s + " → " + moved.map((m) => "level " + m.l + " slot " + m.s).join(", ") +
            ": " + names(old.keys, old.n) + " cascaded");
        } else if (w.fired > this.fired) {
          note("level " + old.l + " slot " + old.s + " fired: " + names(old.keys, old.n) + " deleted (expired_keys " + d.expired_keys + ")");
        } else {
          note("level " + old.l + " slot " + old.s + " emptied: " + names(old.keys, old.n) + " left the wheel (TTL removed or key deleted)");
        }
      }
    },
    draw(d) {
      const w = d.wheel;
      const slots = new Map();
      let top = 1;
      w.levels.forEach((occupied, l) => {
        if (occupied.length) top = Math.max(top, l);
        for (const o of occupied) slots.set(l + "/" + o.slot, {l, s: o.slot, n: o.n, keys: o.keys});
      });
      this.noteChanges(slots, w, d);
      this.slots = slots;
      this.fired = w.fired;
      const levels = [];
      for (let l = 0; l <= top; l++) {
        const bySlot = new Map(w.levels[l].map((s) => [s.slot, s]));
        const cursor = Math.floor(w.now_ms / Math.pow(2, w.slot_bits * l)) % 64;
        const cells = [];
        for (let s = 0; s < 64; s++) {
          const o = bySlot.get(s);
          cells.push(el("li", {class: (o ? "is-full" : "") + (s === cursor ? " is-now" : ""),
            title: "level " + l + ", slot " + s + (o ? ": " + o.n + " key(s): " + o.keys.join(", ") : "")}, o ? String(o.n) : ""));
        }
        const span = Math.pow(2, w.slot_bits * l);
        levels.push(el("div", {class: "play-level"},
          el("h4", {}, "level " + l + ": 64 slots of " + (span >= 1000 ? secs(span) : span + " ms")),
          el("ol", {class: "play-slots"}, ...cells),
          el("p", {class: "play-caption"}, w.levels[l].slice(0, 4).map((s) => "slot " + s.slot + ": " + s.keys.join(", ") + (s.n > s.keys.length ? " … (" + s.n + ")" : "")).join("; ") || "no key")));
      }
      show(
        stats(stat("keys in memory", d.keys), stat("in the wheel", w.count), stat("due now", w.due),
          stat("fired", w.fired), stat("cascaded", w.cascaded), stat("expired_keys", d.expired_keys)),
        eventLog(),
        el("p", {class: "play-caption"}, "The outlined slot of each level is where the wheel's time (" + fmtTime(w.now_ms) + ") stands."),
        ...levels);
    },
  };

  /* 07: the last SET's path through the state machine's table. */
  const fsmDrawing = {
    title: "SET's options through the state machine's table",
    reply: null,
    buttons: () => ["SET k v NX EX 10", "SET k v GET KEEPTTL", "SET k v EX 10 PX 5", "SET k v EX ten", "SET k v XX GET PX 100 GET"]
      .map((c) => button(c, () => run(c))),
    afterCommand(line, reply) {
      const args = RedisPlayground.splitArgs(line);
      if (args && args.length && new TextDecoder().decode(args[0]).toLowerCase() === "set") this.reply = reply;
    },
    draw(d) {
      const s = d.set;
      if (!s.args.length) {
        show(el("p", {}, "Type a SET with options, or press one of the buttons: its path through the table appears here."));
        return;
      }
      const head = el("tr", {}, el("th", {}, "token"), ...s.machines.map((m) => el("th", {}, m + " machine")));
      const start = el("tr", {}, el("td", {}, "start"), ...s.start.map((st) => el("td", {}, st)));
      const rows = s.path.map((p) => el("tr", {}, el("td", {}, p.token + (p.value !== null ? " " + p.value : "")),
        ...s.machines.map((_, m) => {
          const x = p.steps.find((t) => t.machine === m);
          return el("td", {class: x ? (x.to === "REJECT" ? "is-reject" : "is-step") : "is-skip"},
            x ? x.from + " → " + x.to + (x.action !== "none" ? " (" + x.action + ")" : "") : "—");
        })));
      const end = el("tr", {}, el("td", {}, "end"), ...s.end.map((st) => el("td", {class: st === "REJECT" ? "is-reject" : ""}, st)));
      show(
        el("p", {}, el("code", {}, s.args.join(" "))),
        el("table", {class: "play-fsm"}, el("thead", {}, head), el("tbody", {}, start, ...rows, end)),
        el("p", {}, (s.accepted ? "Every machine ends in an accepting state" : "A machine rejected a token: syntax error") +
          "; the parse: " + s.outcome + (this.reply !== null ? ". Reply: " + this.reply : ".")));
    },
  };

  /* 08: the snapshot in the page's memory (glue.c): the file, the saves, the
   * last load, and the keys' absolute deadlines, which a load keeps. */
  const snapshotDrawing = {
    title: "The snapshot: dump.rdb, in the page's memory",
    buttons: () => ["SET session:1 alice EX 3600", "SAVE", "BGSAVE", "DEBUG RELOAD", "INFO persistence"]
      .map((c) => button(c, () => run(c))),
    afterCommand(line, reply, before) {
      const was = before.snapshot, now = server.inspect().snapshot;
      if (now.saves === was.saves) return;
      if (/^\(error\)/.test(reply)) note(line.trim() + " failed: " + reply + (/bgsave/i.test(line) ? " (no fork() in a web page)" : ""));
      else if (/reload/i.test(line)) note("DEBUG RELOAD: saved, emptied, loaded " + now.loaded_keys + " key(s) back, " + now.expired_at_load + " skipped as expired");
      else note(line.trim() + ": " + now.dbfilename + " written whole (" + now.file_bytes + " B), then renamed into place");
    },
    draw(d) {
      const s = d.snapshot;
      const rows = d.ttl_keys.slice(0, 12).map((k) => el("li", {}, el("span", {class: "play-key"}, k.key),
        " expires at " + new Date(k.expire_at).toISOString() + " (PEXPIRETIME " + k.expire_at + ")"));
      show(
        stats(stat("keys in memory", d.keys),
          stat(s.dir.replace(/\/?$/, "/") + s.dbfilename, s.file_bytes < 0 ? "not written yet" : s.file_bytes + " B"),
          stat("changes since the last save", s.changes_since_save),
          stat("saves (rdb_saves)", s.saves), stat("LASTSAVE", s.lastsave),
          stat("last BGSAVE", s.last_bgsave_ok ? "ok" : "err", s.last_bgsave_ok ? "" : "is-bad"),
          stat("last load: keys loaded", s.loaded_keys), stat("skipped, expired", s.expired_at_load)),
        eventLog(),
        el("p", {class: "play-caption"}, "SAVE writes temp-<pid>.rdb, fsyncs it and renames it over " + s.dbfilename +
          ", here in the page's in-memory files. BGSAVE forks a child to write it; a web page has no processes, so " +
          "here fork() fails and BGSAVE answers an error, as on a server that cannot fork. DEBUG RELOAD saves, " +
          "empties the keyspace and loads the file back: a restart's round trip, deadlines unchanged."),
        rows.length ? el("ul", {class: "play-ttl"}, ...rows) : el("p", {}, "No key has a TTL."));
    },
  };

  /* The drawing of the newest feature the step has. */
  function pickDrawing(d) {
    if (d.snapshot) return snapshotDrawing;
    if (d.set) return fsmDrawing;
    if (d.wheel) return wheelDrawing;
    if (d.cycles) return cycleDrawing;
    if (d.ttl_keys) return ttlDrawing;
    if (d.dict) return dictDrawing;
    return bytesDrawing;
  }

  /* ---- Where the panel is ----
   * A chapter page (body.play-docked) docks it beside the text on a wide
   * screen (play.css), where its Hide button collapses it to a tab at the
   * window's edge, remembered for the next page. On a narrow screen it sits
   * under the text until a "Try it" button, or a ```play block's button,
   * moves it to where that button is. */
  const docked = document.body.classList.contains("play-docked");
  const wide = window.matchMedia("(min-width: 1100px)");
  const homeParent = root.parentNode, homeNext = root.nextSibling;
  const remember = (on) => { try { localStorage.setItem("book-play-collapsed", on ? "1" : "0"); } catch (e) { /* file:// may refuse */ } };
  function collapse(on) {
    document.body.classList.toggle("play-collapsed", on);
    remember(on);
  }
  if (docked) {
    document.body.append(el("button", {type: "button", class: "play-tab", onclick: () => { collapse(false); input.focus({preventScroll: true}); },
      title: "Show the live server beside the text"}, "◂ Live server"));
    try { if (localStorage.getItem("book-play-collapsed") === "1") document.body.classList.add("play-collapsed"); } catch (e) { /* none kept */ }
    wide.addEventListener("change", () => { if (wide.matches && root.parentNode !== homeParent) homeParent.insertBefore(root, homeNext); });
  }
  function openHere(block, focus) {
    if (docked && wide.matches) {
      collapse(false);
      if (focus) input.focus({preventScroll: true});
    } else {
      if (block && root.previousElementSibling !== block) block.after(root);
      (focus ? root : root.querySelector(".play-console")).scrollIntoView({block: focus ? "start" : "center"});
    }
    root.classList.add("is-flash");
    setTimeout(() => root.classList.remove("is-flash"), 700);
  }
  let started = null;
  const ready = new Promise((done) => { started = done; });
  const main = document.querySelector("main");
  if (main && root.dataset.page === "chapter") {
    /* A "Try it" after each heading of the chapter's concepts. */
    let inConcepts = false;
    for (const h of main.querySelectorAll("h2, h3")) {
      if (h.tagName === "H2") inConcepts = h.id === "the-concepts";
      else if (inConcepts) {
        const here = el("p", {class: "play-here"});
        here.append(button("Try it here ▾", () => openHere(here, true), "Open step " + num + "'s live server here"));
        h.after(here);
      }
    }
    /* A ```play block: each line a button. A line that names one of the
     * panel's buttons ("+1 s", "10,000 keys with a 1 s TTL, nobody reads")
     * presses it; any other is typed at the console's prompt. */
    for (const pre of main.querySelectorAll("pre.play")) {
      const box = el("div", {class: "play-try", role: "group", "aria-label": "Experiments in the live server"},
        el("p", {}, "In the live server (each button types its line into the console, or presses the console's button of that name):"));
      for (const line of pre.textContent.split("\n").map((l) => l.trim()).filter(Boolean)) {
        const b = button(line, () => {
          openHere(box, false);
          ready.then(() => {
            const same = [...root.querySelectorAll("button")].find((x) => x.textContent === line);
            if (same) same.click();
            else run(line);
          });
        }, "Type " + line + " into the live server's console");
        if (!/^[A-Z][A-Z]+\b/.test(line)) b.classList.add("is-experiment");
        box.append(b);
      }
      pre.replaceWith(box);
    }
  }

  RedisPlayground.start(step).then((s) => {
    server = s;
    window.playServer = s; /* for the browser check and the curious */
    drawing = pickDrawing(s.inspect());
    drawTitle.textContent = drawing.title;
    drawButtons.replaceChildren(...drawing.buttons());
    s.onChange((_, why) => {
      if (why !== "command") showLog(); /* what the server's timers logged (a command's: under its reply) */
      redraw(why !== "tick");
    });
    redraw(true);
    showLog();
    print("Connected to step " + step + ". Try PING.", "play-note");
    root.dataset.readyMs = String(Math.round(performance.now())); /* since the page's navigation began */
    root.dataset.ready = "1";
    started();
  }, (err) => {
    clockOut.textContent = "not started";
    print("The server could not start: " + err, "play-err");
  });
})();
