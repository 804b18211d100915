/* connection.c -- HELLO, CLIENT and SELECT. See connection.h. */
#include "connection.h"

#include <string.h>

#include "alloc.h"
#include "command.h"
#include "reply.h"
#include "server.h"
#include "strnum.h"

/* Redis allows printable ASCII without spaces in client names. */
static int valid_client_name(const arg *a) {
    for (size_t i = 0; i < a->len; i++)
        if (a->ptr[i] < '!' || a->ptr[i] > '~') return 0;
    return 1;
}

static void set_client_name(client *c, const arg *name) {
    mem_free(c->name);
    c->name = name->len ? mem_strndup(name->ptr, name->len) : NULL;
}

/* ==== HELLO [protover [AUTH username password] [SETNAME name]] ==== */

static void reply_hello_map(client *c) {
    reply_map(c, 7);
    reply_bulk_cstr(c, "server");
    reply_bulk_cstr(c, "redis");
    reply_bulk_cstr(c, "version");
    reply_bulk_cstr(c, SERVER_COMPAT_VERSION);
    reply_bulk_cstr(c, "proto");
    reply_integer(c, c->proto);
    reply_bulk_cstr(c, "id");
    reply_integer(c, (long long)c->id);
    reply_bulk_cstr(c, "mode");
    reply_bulk_cstr(c, "standalone");
    reply_bulk_cstr(c, "role");
    reply_bulk_cstr(c, "master");
    reply_bulk_cstr(c, "modules");
    reply_array(c, 0);
}

void hello_command(client *c, int argc, arg *argv) {
    long long version = c->proto;
    if (argc >= 2) {
        if (!string_to_ll(argv[1].ptr, argv[1].len, &version)) {
            reply_error(c, "Protocol version is not an integer or out of range");
            return;
        }
        if (version < 2 || version > 3) {
            reply_error(c, "-NOPROTO unsupported protocol version");
            return;
        }
    }
    /* Check every option before changing anything: a bad HELLO changes
     * nothing. There are no passwords here, so AUTH is accepted for the
     * default user, as Redis does when the default user has no password. */
    const arg *new_name = NULL;
    for (int i = 2; i < argc; i++) {
        if (arg_is(&argv[i], "auth") && i + 2 < argc) {
            if (!arg_is(&argv[i + 1], "default")) {
                reply_error(c, "-WRONGPASS invalid username-password pair or user is disabled.");
                return;
            }
            i += 2;
        } else if (arg_is(&argv[i], "setname") && i + 1 < argc) {
            new_name = &argv[++i];
            if (!valid_client_name(new_name)) {
                reply_error(c,
                            "Client names cannot contain spaces, newlines or special characters.");
                return;
            }
        } else {
            reply_errorf(c, "Syntax error in HELLO option '%.*s'", (int)argv[i].len, argv[i].ptr);
            return;
        }
    }
    if (new_name) set_client_name(c, new_name);
    c->proto = (int)version;
    reply_hello_map(c);
}

/* ==== CLIENT ID | GETNAME | SETNAME name | SETINFO attr value ==== */

static int client_arity_ok(client *c, int argc, int want, const char *full_name) {
    if (argc == want) return 1;
    reply_wrong_arity(c, full_name);
    return 0;
}

static void client_setinfo(client *c, arg *argv) {
    if (!arg_is(&argv[2], "lib-name") && !arg_is(&argv[2], "lib-ver")) {
        reply_errorf(c, "Unrecognized option '%.*s'", (int)argv[2].len, argv[2].ptr);
        return;
    }
    if (!valid_client_name(&argv[3])) {
        reply_errorf(c, "%.*s cannot contain spaces, newlines or special characters.",
                     (int)argv[2].len, argv[2].ptr);
        return;
    }
    reply_ok(c); /* accepted; this server does not report it anywhere */
}

/* ==== CLIENT KILL ID id | TYPE type | SKIPME yes|no ... ==== */

/* What CLIENT KILL matches: every option given must hold. */
typedef struct {
    uint64_t id;   /* ID, or 0: any */
    int type;      /* TYPE as a client_type, or -1: any */
    int skip_self; /* SKIPME: never the caller (the default) */
} kill_filter;

/* Redis's names, "slave" and "replica" alike; "pubsub" is a type no client
 * here has. Returns the type, -2 for pubsub, or -1 for no such name. */
static int client_type_by_name(const arg *name) {
    if (arg_is(name, "normal")) return CLIENT_TYPE_NORMAL;
    if (arg_is(name, "replica") || arg_is(name, "slave")) return CLIENT_TYPE_REPLICA;
    if (arg_is(name, "master")) return CLIENT_TYPE_MASTER;
    if (arg_is(name, "pubsub")) return -2;
    return -1;
}

/* Parse the option-value pairs of argv[2..argc) as Redis's clientCommand()
 * does (networking.c, 7.0.15), replying to a bad one. ADDR, LADDR and USER
 * are not kept here: they are refused as a syntax error. Returns 1 if ok. */
static int parse_kill_filter(client *c, int argc, arg *argv, kill_filter *f) {
    *f = (kill_filter){0, -1, 1};
    if (argc < 4) {
        reply_syntax_error(c);
        return 0;
    }
    for (int i = 2; i < argc; i += 2) {
        if (i + 1 >= argc) {
            reply_syntax_error(c);
            return 0;
        }
        const arg *opt = &argv[i], *val = &argv[i + 1];
        long long id;
        if (arg_is(opt, "id")) {
            if (!string_to_ll(val->ptr, val->len, &id) || id < 1) {
                reply_error(c, "client-id should be greater than 0");
                return 0;
            }
            f->id = (uint64_t)id;
        } else if (arg_is(opt, "type")) {
            f->type = client_type_by_name(val);
            if (f->type == -1) {
                reply_errorf(c, "Unknown client type '%.*s'", (int)val->len, val->ptr);
                return 0;
            }
        } else if (arg_is(opt, "skipme") && (arg_is(val, "yes") || arg_is(val, "no"))) {
            f->skip_self = arg_is(val, "yes");
        } else {
            reply_syntax_error(c);
            return 0;
        }
    }
    return 1;
}

static int kill_matches(const kill_filter *f, const client *caller, const client *c) {
    if (f->id && c->id != f->id) return 0;
    if (f->type != -1 && (int)repl_client_type(&server.repl, c) != f->type) return 0;
    return !(c == caller && f->skip_self);
}

/* Close every client that matches, and answer how many. The caller, if it
 * matches (SKIPME no), is closed once its reply is written. Killing the
 * link to our master, or a replica's connection, is how a test breaks
 * replication on purpose: both sides then reconnect and continue. */
static void client_kill(client *c, int argc, arg *argv) {
    kill_filter f;
    if (!parse_kill_filter(c, argc, argv, &f)) return;
    long long killed = 0;
    client *next;
    for (client *other = server.net.clients; other; other = next) {
        next = other->next; /* closing frees it */
        if (!kill_matches(&f, c, other)) continue;
        killed++;
        if (other == c)
            c->close_after_reply = 1;
        else
            client_close(other);
    }
    reply_integer(c, killed);
}

void client_command(client *c, int argc, arg *argv) {
    arg *sub = &argv[1];
    if (arg_is(sub, "id")) {
        if (client_arity_ok(c, argc, 2, "client|id")) reply_integer(c, (long long)c->id);
    } else if (arg_is(sub, "getname")) {
        if (!client_arity_ok(c, argc, 2, "client|getname")) return;
        if (c->name)
            reply_bulk_cstr(c, c->name);
        else
            reply_null(c);
    } else if (arg_is(sub, "setname")) {
        if (!client_arity_ok(c, argc, 3, "client|setname")) return;
        if (!valid_client_name(&argv[2])) {
            reply_error(c, "Client names cannot contain spaces, newlines or special characters.");
            return;
        }
        set_client_name(c, &argv[2]);
        reply_ok(c);
    } else if (arg_is(sub, "setinfo")) {
        if (client_arity_ok(c, argc, 4, "client|setinfo")) client_setinfo(c, argv);
    } else if (arg_is(sub, "kill")) {
        client_kill(c, argc, argv);
    } else {
        reply_unknown_subcommand(c, sub, "CLIENT");
    }
}

/* ==== SELECT index ==== */

void select_command(client *c, int argc, arg *argv) {
    (void)argc;
    long long index;
    if (!string_to_ll(argv[1].ptr, argv[1].len, &index) || index < -2147483648LL ||
        index > 2147483647LL) {
        reply_not_integer(c);
        return;
    }
    if (index != 0) {
        reply_error(c, "DB index is out of range");
        return;
    }
    reply_ok(c);
}

/* ==== CONFIG GET parameter [parameter ...] ====
 *
 * Only what clients ask for at start-up, with the values this server
 * really has: snapshots (their settings are snapshot.c's), no append-only
 * file, one database. Unknown parameters are simply absent from the reply,
 * as in Redis. */

static const char *const config_names[] = {"save", "appendonly", "databases", "dir", "dbfilename"};

/* The value of config_names[i]; out holds it when it must be built. */
static const char *config_value(size_t i, char *out, size_t outlen) {
    if (strcmp(config_names[i], "appendonly") == 0) return "no";
    if (strcmp(config_names[i], "databases") == 0) return "1";
    return snapshot_config_value(&server.snap, config_names[i], out, outlen);
}

void config_command(client *c, int argc, arg *argv) {
    if (!arg_is(&argv[1], "get")) {
        reply_unknown_subcommand(c, &argv[1], "CONFIG");
        return;
    }
    if (argc < 3) {
        reply_wrong_arity(c, "config|get");
        return;
    }
    size_t n = sizeof(config_names) / sizeof(config_names[0]);
    long long found = 0;
    for (size_t i = 0; i < n; i++)
        for (int j = 2; j < argc; j++)
            if (arg_is(&argv[j], config_names[i])) {
                found++;
                break;
            }
    reply_map(c, found);
    char value[1024];
    for (size_t i = 0; i < n; i++)
        for (int j = 2; j < argc; j++)
            if (arg_is(&argv[j], config_names[i])) {
                reply_bulk_cstr(c, config_names[i]);
                reply_bulk_cstr(c, config_value(i, value, sizeof(value)));
                break;
            }
}
