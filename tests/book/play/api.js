/* api.js -- RedisPlayground: a step's real server, compiled to WebAssembly
 * (glue.c), behind one small API that the book's pages, the browser check
 * (tests/tools/play_check.py) and anyone's own page use alike.
 *
 *   <script src="play/05-active-sampling.js"></script>
 *   const server = await RedisPlayground.start("05-active-sampling");
 *   server.command('SET k v PX 500')  // "OK": the reply as redis-cli prints it
 *   server.send("*1\r\n$4\r\nPING\r\n") // Uint8Array of the reply's bytes
 *   server.pause(); server.advance(1000); server.now(); server.resume();
 *   server.inspect()                  // the chapter's structures, as an object
 *   server.takeLog()                  // the lines the server printed (its log) since the last call
 *
 * build.sh appends this file to every step's module, so a page may load
 * several steps: the first copy defines RedisPlayground, and each module
 * registers itself under its step's name. */
var RedisPlayground = typeof RedisPlayground !== "undefined" ? RedisPlayground : (function () {
  "use strict";
  const factories = {};
  const encoder = new TextEncoder();

  /* ---- redis-cli's side of the conversation ---- */

  /* A typed line split into arguments as redis-cli splits it (sdssplitargs
   * in Redis's sds.c): blanks separate; "double quotes" know \n \r \t \b \a
   * \xHH and \<any>; 'single quotes' know only \'. A closing quote must be
   * followed by a blank. Returns an array of Uint8Array, or null when the
   * quotes do not balance (redis-cli: "Invalid argument(s)"). */
  function splitArgs(line) {
    const s = encoder.encode(line);
    const out = [];
    const isSpace = (c) => c === 32 || (c >= 9 && c <= 13);
    const isHex = (c) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
    const hex = (c) => (c <= 57 ? c - 48 : (c | 32) - 87);
    let p = 0;
    for (;;) {
      while (p < s.length && isSpace(s[p])) p++;
      if (p >= s.length) return out;
      const cur = [];
      let inq = false, insq = false, done = false;
      while (!done) {
        const c = p < s.length ? s[p] : 0;
        const next = p + 1 < s.length ? s[p + 1] : 0;
        if (inq) {
          if (c === 92 && next === 120 && isHex(s[p + 2] || 0) && isHex(s[p + 3] || 0)) {
            cur.push(hex(s[p + 2]) * 16 + hex(s[p + 3]));
            p += 3;
          } else if (c === 92 && next) {
            p++;
            const esc = {110: 10, 114: 13, 116: 9, 98: 8, 97: 7}[s[p]];
            cur.push(esc === undefined ? s[p] : esc);
          } else if (c === 34) {
            if (next && !isSpace(next)) return null;
            done = true;
          } else if (!c) {
            return null;
          } else {
            cur.push(c);
          }
        } else if (insq) {
          if (c === 92 && next === 39) {
            p++;
            cur.push(39);
          } else if (c === 39) {
            if (next && !isSpace(next)) return null;
            done = true;
          } else if (!c) {
            return null;
          } else {
            cur.push(c);
          }
        } else if (c === 32 || c === 10 || c === 13 || c === 9 || c === 0) {
          done = true;
        } else if (c === 34) {
          inq = true;
        } else if (c === 39) {
          insq = true;
        } else {
          cur.push(c);
        }
        if (p < s.length) p++;
      }
      out.push(Uint8Array.from(cur));
    }
  }

  /* The arguments as one RESP array of bulk strings: what redis-cli sends. */
  function encodeCommand(args) {
    const parts = [encoder.encode("*" + args.length + "\r\n")];
    for (const a of args) parts.push(encoder.encode("$" + a.length + "\r\n"), a, encoder.encode("\r\n"));
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }

  /* One RESP2/RESP3 reply parsed from bytes at pos: {type, ...} and the
   * position after it, or null when the bytes end before it does. */
  function parseReply(b, pos) {
    let eol = pos;
    while (eol + 1 < b.length && !(b[eol] === 13 && b[eol + 1] === 10)) eol++;
    if (eol + 1 >= b.length) return null;
    const line = b.subarray(pos + 1, eol);
    const text = String.fromCharCode.apply(null, line);
    const after = eol + 2;
    const bulk = (type) => {
      const n = parseInt(text, 10);
      if (n < 0) return {value: {type: "nil"}, end: after};
      if (after + n + 2 > b.length) return null;
      return {value: {type, bytes: b.subarray(after, after + n)}, end: after + n + 2};
    };
    const many = (type) => {
      let n = parseInt(text, 10);
      if (n < 0) return {value: {type: "nil"}, end: after};
      if (type === "map") n *= 2;
      const items = [];
      let at = after;
      for (let i = 0; i < n; i++) {
        const r = parseReply(b, at);
        if (!r) return null;
        items.push(r.value);
        at = r.end;
      }
      return {value: {type, items}, end: at};
    };
    switch (b[pos]) {
      case 43: return {value: {type: "status", bytes: line}, end: after}; // +
      case 45: return {value: {type: "error", bytes: line}, end: after}; // -
      case 58: return {value: {type: "integer", text}, end: after}; // :
      case 44: return {value: {type: "double", text}, end: after}; // ,
      case 95: return {value: {type: "nil"}, end: after}; // _
      case 35: return {value: {type: "bool", value: text === "t"}, end: after}; // #
      case 40: return {value: {type: "bignum", text}, end: after}; // (
      case 36: return bulk("string"); // $
      case 61: return bulk("verbatim"); // =
      case 42: return many("array"); // *
      case 37: return many("map"); // %
      case 126: return many("set"); // ~
      case 62: return many("push"); // >
      default: return {value: {type: "error", bytes: encoder.encode("unknown reply type")}, end: b.length};
    }
  }

  const raw = (bytes) => String.fromCharCode.apply(null, bytes);

  /* A bulk string as redis-cli quotes it (sdscatrepr in Redis's sds.c). */
  function repr(bytes) {
    let s = '"';
    for (const c of bytes) {
      if (c === 92 || c === 34) s += "\\" + String.fromCharCode(c);
      else if (c === 10) s += "\\n";
      else if (c === 13) s += "\\r";
      else if (c === 9) s += "\\t";
      else if (c === 7) s += "\\a";
      else if (c === 8) s += "\\b";
      else if (c >= 32 && c <= 126) s += String.fromCharCode(c);
      else s += "\\x" + c.toString(16).padStart(2, "0");
    }
    return s + '"';
  }

  /* A reply as redis-cli prints it to a terminal (cliFormatReplyTTY in
   * Redis's redis-cli.c): numbered, nested arrays indented under their
   * number. Each line ends with "\n". */
  function format(r, prefix) {
    switch (r.type) {
      case "error": return "(error) " + raw(r.bytes) + "\n";
      case "status": return raw(r.bytes) + "\n";
      case "integer": return "(integer) " + r.text + "\n";
      case "double": return "(double) " + r.text + "\n";
      case "bignum": return "(big number) " + r.text + "\n";
      case "string": return repr(r.bytes) + "\n";
      case "verbatim": return new TextDecoder().decode(r.bytes.subarray(4)) + "\n";
      case "nil": return "(nil)\n";
      case "bool": return r.value ? "(true)\n" : "(false)\n";
      default: break;
    }
    if (r.items.length === 0) {
      return {array: "(empty array)\n", map: "(empty hash)\n", set: "(empty set)\n", push: "(empty push)\n"}[r.type];
    }
    const count = r.type === "map" ? r.items.length / 2 : r.items.length;
    const width = String(count).length;
    const inner = prefix + " ".repeat(width + 2);
    const sep = {set: "~", map: "#"}[r.type] || ")";
    let out = "";
    for (let i = 0; i < r.items.length; i++) {
      const n = (r.type === "map" ? i / 2 : i) + 1;
      out += (i === 0 ? "" : prefix) + String(n).padStart(width) + sep + " ";
      out += format(r.items[i], inner);
      if (r.type === "map") {
        i++;
        out = out.slice(0, -1) + " => ";
        const v = r.items[i];
        if (v.items && v.items.length) out += "\n" + inner;
        out += format(v, inner);
      }
    }
    return out;
  }

  /* What redis-cli prints for the commands whose replies it shows raw,
   * whatever the output mode (cliSendCommand in Redis 7's redis-cli.c):
   * INFO's text as it comes, not as one quoted string. */
  function printsRaw(args) {
    const w = args.map((a) => raw(a).toLowerCase());
    const [cmd, sub] = w;
    return cmd === "info" || cmd === "lolwut" ||
      (cmd === "debug" && ["htstats", "htstats-key", "client-eviction"].includes(sub)) ||
      (cmd === "memory" && ["malloc-stats", "doctor"].includes(sub)) ||
      (w.length === 2 && cmd === "cluster" && ["nodes", "info"].includes(sub)) ||
      (cmd === "client" && ["list", "info"].includes(sub)) ||
      (w.length === 3 && cmd === "latency" && sub === "graph") ||
      (w.length === 2 && cmd === "latency" && sub === "doctor");
  }

  /* A reply in redis-cli's raw form (cliFormatReplyRaw): strings as they
   * are, line breaks as line breaks, elements one per line. */
  function formatRaw(r) {
    switch (r.type) {
      case "nil": return "";
      case "error": case "status": case "string": case "verbatim":
        return new TextDecoder().decode(r.bytes).replace(/\r\n/g, "\n");
      case "bool": return r.value ? "(true)" : "(false)";
      case "integer": case "double": case "bignum": return r.text;
      default: break;
    }
    const out = [];
    for (let i = 0; i < r.items.length; i += r.type === "map" ? 2 : 1) {
      out.push(formatRaw(r.items[i]) + (r.type === "map" ? " " + formatRaw(r.items[i + 1]) : ""));
    }
    return out.join("\n");
  }

  /* ---- One server ---- */

  class Server {
    constructor(step, mod, log) {
      this.step = step;
      this.mod = mod;
      this.log = log;
      this.running = false;
      this.listeners = [];
      this.timer = null;
      this.lastReal = 0;
      this.carry = 0;
      if (mod._play_start() !== 0) throw new Error("the server did not start: " + log.join("; "));
    }

    /* What the server printed since the last call, one line each: its log
     * (from chapter 08 on, what it says about its saves and loads). */
    takeLog() {
      return this.log.splice(0, this.log.length);
    }

    /* Bytes in, as if read from the connection; the reply's bytes out. */
    send(bytes) {
      const data = typeof bytes === "string" ? encoder.encode(bytes) : bytes;
      const ptr = this.mod._malloc(Math.max(data.length, 1));
      this.mod.HEAPU8.set(data, ptr);
      const n = this.mod._play_send(ptr, data.length);
      this.mod._free(ptr);
      const at = this.mod._play_reply();
      const out = this.mod.HEAPU8.slice(at, at + n);
      this.closed = this.mod._play_closed() === 1;
      this.lastExchange = {sent: data, received: out};
      this.changed();
      return out;
    }

    /* A line as typed at redis-cli's prompt; the reply as it prints it,
     * without the final newline. */
    command(line) {
      const args = splitArgs(line);
      if (args === null) return "Invalid argument(s)";
      if (args.length === 0) return "";
      return this.reply(this.send(encodeCommand(args)), printsRaw(args));
    }

    /* The same, for arguments already split (what a shell hands redis-cli). */
    commandArgs(args) {
      const bytes = args.map((a) => encoder.encode(a));
      return this.reply(this.send(encodeCommand(bytes)), printsRaw(bytes));
    }

    /* Every reply in bytes, formatted; raw as redis-cli shows some commands'. */
    reply(bytes, rawForm) {
      const lines = [];
      for (let at = 0; at < bytes.length;) {
        const r = parseReply(bytes, at);
        if (!r) break;
        lines.push(rawForm ? formatRaw(r.value).replace(/\n$/, "") : format(r.value, "").replace(/\n$/, ""));
        at = r.end;
      }
      return lines.join("\n");
    }

    /* The clock. Real time by default: while running, the server's clock
     * moves by the time that really passes (a tick every TICK_MS). */
    resume() {
      if (this.running) return;
      this.running = true;
      this.lastReal = performance.now();
      const tick = () => {
        const t = performance.now();
        const ms = t - this.lastReal + this.carry;
        this.lastReal = t;
        this.carry = ms - Math.floor(ms);
        if (ms >= 1) this.advance(Math.floor(ms), true);
        this.timer = setTimeout(tick, Server.TICK_MS);
      };
      this.timer = setTimeout(tick, Server.TICK_MS);
      this.changed();
    }

    pause() {
      if (!this.running) return;
      this.running = false;
      clearTimeout(this.timer);
      this.timer = null;
      this.changed();
    }

    paused() {
      return !this.running;
    }

    /* Move the clock forward; the event loop turns whenever it would have
     * woken up on the way (its cron, its before-sleep hook). */
    advance(ms, fromTick) {
      this.mod._play_advance(Math.max(0, Math.floor(ms)));
      this.changed(fromTick ? "tick" : "advance");
    }

    now() {
      return this.mod._play_now();
    }

    /* The chapter's structures, read from the C structs (glue.c). */
    inspect() {
      return JSON.parse(this.mod.UTF8ToString(this.mod._play_inspect()));
    }

    /* fn(server, why) after anything that may change what a drawing shows. */
    onChange(fn) {
      this.listeners.push(fn);
    }

    changed(why) {
      for (const fn of this.listeners) fn(this, why || "command");
    }
  }
  Server.TICK_MS = 50;
  Server.LOG_KEPT = 1000;

  return {
    /* Reply bytes (from send()) as redis-cli prints them, one reply a line. */
    formatReplies: (bytes) => Server.prototype.reply(bytes, false),
    register(step, factory) {
      factories[step] = factory;
    },
    steps() {
      return Object.keys(factories).sort();
    },
    /* A new server for the step, its clock running in real time. */
    async start(step) {
      const factory = factories[step];
      if (!factory) throw new Error("RedisPlayground: no module for step " + step + " on this page");
      /* The server's stdout and stderr, kept for takeLog() (the last
       * LOG_KEPT lines, for a page that never asks). */
      const log = [];
      const keep = (line) => {
        log.push(line);
        if (log.length > Server.LOG_KEPT) log.shift();
      };
      const server = new Server(step, await factory({print: keep, printErr: keep}), log);
      server.resume();
      return server;
    },
    splitArgs,
  };
})();
