// node_client.mjs -- the tutorial's servers through ioredis and node-redis.
//
// Learners who write JavaScript will point ioredis or node-redis (the `redis`
// package) at their server. Both are used here with their DEFAULT settings,
// and their current majors do a lot when they connect: ioredis 6 sends
// HELLO 3, CLIENT SETINFO and INFO (its ready check); node-redis 6 sends
// HELLO 3, CLIENT SETINFO and CLIENT MAINT_NOTIFICATIONS. So both speak RESP3
// by default; node-redis is also run once with RESP: 2 to cover RESP2.
// Checked: connect, a binary value (a Buffer) through SET/GET, a pipeline of
// 200 commands, DEL, from step 04 EXPIRE/TTL, and QUIT.
//
//   node node_client.mjs PORT ioredis|node-redis|node-redis-resp2 [--no-keyspace] [--expiry]
//   node node_client.mjs --version ioredis|node-redis
//
// --no-keyspace is for step 01, which has no keys: PING/ECHO instead.
// Exit status: 0 passed, 1 failed (the first mismatch on stderr).
// The packages are installed by tests/clients/install.sh outside the source
// tree, in build/clients/node_modules; run.sh runs this and says where in
// NODE_CLIENTS_DIR. An import() of a bare name would look beside this file.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

const CLIENTS_DIR = process.env.NODE_CLIENTS_DIR ||
                    fileURLToPath(new URL('../../build/clients', import.meta.url));
const require = createRequire(join(CLIENTS_DIR, 'package.json'));
const load = (name) => import(pathToFileURL(require.resolve(name)).href);
const PIPELINE = 200;
// A value with every byte a text protocol could trip on.
const BINARY = Buffer.from('a\0b\r\nc\n\r$-1\r\n*2\r\n\xff', 'latin1');

function expect(what, got, want) {
    if (!isDeepStrictEqual(got, want))
        throw new Error(`${what}: expected ${show(want)}, got ${show(got)}`);
}
function show(v) {
    return Buffer.isBuffer(v) ? `<Buffer ${JSON.stringify(v.toString('latin1'))}>`
                              : JSON.stringify(v);
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Fail fast instead of letting a client retry forever: both emit 'error'
// when a connection or handshake goes wrong.
function watchErrors(client) {
    return new Promise((_, reject) => client.on('error', (e) => reject(e)));
}

// ---- ioredis ----------------------------------------------------------------

async function ioredis(port, keyspace, expiry) {
    const { default: Redis } = await load('ioredis');
    const r = new Redis(port, '127.0.0.1');
    const failed = watchErrors(r);
    const run = async () => {
        await new Promise((resolve) => r.once('ready', resolve));
        const hello = await r.call('HELLO'); // no argument: this connection's facts
        expect('HELLO proto (ioredis defaults to RESP3)', field(hello, 'proto'), 3);
        expect('PING', await r.ping(), 'PONG');
        expect('ECHO of a binary value', await r.echoBuffer(BINARY), BINARY);
        if (keyspace) {
            expect('SET of a binary value', await r.set('clients:io:bin', BINARY), 'OK');
            expect('GET of a binary value', await r.getBuffer('clients:io:bin'), BINARY);
            expect('GET of a missing key', await r.get('clients:io:missing'), null);
        }
        const p = r.pipeline();
        const steps = pipelineSteps('clients:io', keyspace);
        for (const { cmd, args } of steps) p[cmd](...args);
        // ioredis answers a pipeline with [error, reply] pairs.
        expect(`pipeline of ${PIPELINE}`, await p.exec(), steps.map((s) => [null, s.reply]));
        if (keyspace) {
            expect('DEL', await r.del('clients:io:bin', 'clients:io:missing'), 1);
            expect('GET after DEL', await r.get('clients:io:bin'), null);
        }
        if (expiry) await checkExpiry('clients:io:ttl', r.set.bind(r), r.expire.bind(r),
                                      r.pexpire.bind(r), r.ttl.bind(r), r.get.bind(r));
        expect('QUIT', await r.quit(), 'OK');
    };
    await Promise.race([run(), failed]);
}

// HELLO's reply: a Map or object in RESP3, a flat array [k, v, ...] in RESP2.
function field(hello, name) {
    if (hello instanceof Map) return hello.get(name);
    if (Array.isArray(hello)) return hello[hello.indexOf(name) + 1];
    return hello[name];
}

// ---- node-redis ---------------------------------------------------------------

async function nodeRedis(port, keyspace, expiry, resp) {
    const { createClient, RESP_TYPES } = await load('redis');
    const options = { url: `redis://127.0.0.1:${port}` };
    if (resp) options.RESP = resp; // only for the extra RESP2 run
    const client = createClient(options);
    const failed = watchErrors(client);
    const run = async () => {
        await client.connect();
        // Bulk strings as Buffers, for the binary value.
        const raw = client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
        expect('HELLO proto', field(await client.hello(), 'proto'), resp ?? 3);
        expect('PING', await client.ping(), 'PONG');
        expect('CLIENT GETNAME (a null)', await client.clientGetName(), null);
        expect('ECHO of a binary value', await raw.echo(BINARY), BINARY);
        if (keyspace) {
            expect('SET of a binary value', await client.set('clients:nr:bin', BINARY), 'OK');
            expect('GET of a binary value', await raw.get('clients:nr:bin'), BINARY);
            expect('GET of a missing key', await client.get('clients:nr:missing'), null);
        }
        const m = client.multi();
        const steps = pipelineSteps('clients:nr', keyspace);
        for (const { cmd, args } of steps) m[cmd](...args);
        // execAsPipeline: the 200 commands in one write, without MULTI/EXEC.
        expect(`pipeline of ${PIPELINE}`, await m.execAsPipeline(), steps.map((s) => s.reply));
        if (keyspace) {
            expect('DEL', await client.del(['clients:nr:bin', 'clients:nr:missing']), 1);
            expect('GET after DEL', await client.get('clients:nr:bin'), null);
        }
        if (expiry) await checkExpiry('clients:nr:ttl', (k, v) => client.set(k, v),
                                      (k, s) => client.expire(k, s),
                                      (k, ms) => client.pExpire(k, ms),
                                      (k) => client.ttl(k), (k) => client.get(k));
        expect('QUIT', await client.quit(), 'OK');
    };
    await Promise.race([run(), failed]);
}

// ---- shared -----------------------------------------------------------------

// The pipeline: ECHO i without a keyspace; else SET p0, GET p0, SET p2, GET p2...
function pipelineSteps(prefix, keyspace) {
    const steps = [];
    for (let i = 0; i < PIPELINE; i++) {
        const n = String(i - (i % 2));
        if (!keyspace) steps.push({ cmd: 'echo', args: [String(i)], reply: String(i) });
        else if (i % 2 === 0) steps.push({ cmd: 'set', args: [`${prefix}:p${n}`, n], reply: 'OK' });
        else steps.push({ cmd: 'get', args: [`${prefix}:p${n}`], reply: n });
    }
    return steps;
}

async function checkExpiry(key, set, expire, pexpire, ttl, get) {
    await set(key, 'v');
    expect('TTL without expiry', await ttl(key), -1);
    expect('EXPIRE', Number(await expire(key, 100)), 1);
    const t = await ttl(key);
    if (!(t >= 99 && t <= 100)) throw new Error(`TTL: expected 99..100, got ${t}`);
    expect('TTL of a missing key', await ttl(`${key}:missing`), -2);
    // And the key really goes: 100 ms to live, looked at after 300.
    expect('PEXPIRE', Number(await pexpire(key, 100)), 1);
    await sleep(300);
    expect('GET after the key expired', await get(key), null);
}

function version(name) {
    const pkg = name === 'ioredis' ? 'ioredis/package.json' : 'redis/package.json';
    return require(pkg).version;
}

const [first, second, ...flags] = process.argv.slice(2);
if (first === '--version') {
    console.log(version(second));
    process.exit(0);
}
const port = Number(first);
const keyspace = !flags.includes('--no-keyspace');
const expiry = flags.includes('--expiry');
const clients = {
    'ioredis': () => ioredis(port, keyspace, expiry),
    'node-redis': () => nodeRedis(port, keyspace, expiry),
    'node-redis-resp2': () => nodeRedis(port, keyspace, expiry, 2),
};
if (!port || !clients[second]) {
    console.error('usage: node node_client.mjs PORT ioredis|node-redis|node-redis-resp2 ' +
                  '[--no-keyspace] [--expiry]');
    process.exit(2);
}
try {
    await clients[second]();
    process.exit(0);
} catch (e) {
    console.error(`node_client ${second}: ${e.message}`);
    process.exit(1);
}
