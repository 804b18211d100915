/* command.c -- command lookup, dispatch and COMMAND.
 * See command.h. */
#include "command.h"

#include <string.h>

#include "reply.h"
#include "server.h"

/* A linear scan: tables hold a few dozen commands, and arg_is() gives up on
 * an entry at its first differing letter, so almost every entry costs one
 * comparison. (A hash table would win only with hundreds of commands.) */
const command *command_lookup(const command *table, const char *name, size_t len) {
    arg wanted = {name, len};
    for (const command *cmd = table; cmd->name; cmd++)
        if (arg_is(&wanted, cmd->name)) return cmd;
    return NULL;
}

static int arity_ok(const command *cmd, int argc) {
    return cmd->arity > 0 ? argc == cmd->arity : argc >= -cmd->arity;
}

void command_execute(client *c, int argc, arg *argv) {
    const command *cmd = command_lookup(c->server->commands, argv[0].ptr, argv[0].len);
    /* Around every command, run or refused: what it propagates goes to the
     * replicas when it ends, as one unit, and a replica counts every
     * command of its master's into its offset, even one it refuses
     * (replication.h). */
    repl_command_begin(&server.repl, c);
    if (cmd == NULL)
        reply_unknown_command(c, argc, argv);
    else if (!arity_ok(cmd, argc))
        reply_wrong_arity(c, cmd->name);
    else if (!repl_refuses_command(&server.repl, c, cmd->name))
        cmd->proc(c, argc, argv);
    repl_command_end(&server.repl, c);
}

/* ==== COMMAND ==== */

static size_t table_size(const command *table) {
    size_t n = 0;
    while (table[n].name)
        n++;
    return n;
}

/* One command's description, in Redis 7's ten-element shape: name, arity,
 * flags, first key, last key, step, ACL categories, tips, key specs,
 * subcommands. We fill in what we know and leave the lists empty. */
static void reply_command_info(client *c, const command *cmd) {
    reply_array(c, 10);
    reply_bulk_cstr(c, cmd->name);
    reply_integer(c, cmd->arity);
    reply_array(c, 0);
    reply_integer(c, cmd->first_key);
    reply_integer(c, cmd->last_key);
    reply_integer(c, cmd->key_step);
    for (int i = 0; i < 4; i++)
        reply_array(c, 0);
}

void command_command(client *c, int argc, arg *argv) {
    const command *table = c->server->commands;
    if (argc == 1) {
        reply_array(c, (long long)table_size(table));
        for (const command *cmd = table; cmd->name; cmd++)
            reply_command_info(c, cmd);
    } else if (arg_is(&argv[1], "count") && argc == 2) {
        reply_integer(c, (long long)table_size(table));
    } else if (arg_is(&argv[1], "list") && argc == 2) {
        reply_array(c, (long long)table_size(table));
        for (const command *cmd = table; cmd->name; cmd++)
            reply_bulk_cstr(c, cmd->name);
    } else if (arg_is(&argv[1], "info")) {
        reply_array(c, argc - 2);
        for (int i = 2; i < argc; i++) {
            const command *cmd = command_lookup(table, argv[i].ptr, argv[i].len);
            if (cmd)
                reply_command_info(c, cmd);
            else
                reply_null_array(c);
        }
    } else if (arg_is(&argv[1], "docs")) {
        /* An empty map: "no documentation", which redis-cli accepts and
         * answers by using its built-in help. */
        reply_map(c, 0);
    } else {
        reply_unknown_subcommand(c, &argv[1], "COMMAND");
    }
}
