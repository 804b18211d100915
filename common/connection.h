/* connection.h -- the commands a client library sends when it connects
 * (chapter 01).
 *
 * None of these is about data. They exist because real clients send them
 * before the learner's first SET, and fail if the answer is wrong:
 *   HELLO 3        node-redis and ioredis switch to RESP3 with it
 *   CLIENT SETINFO redis-py, node-redis, ioredis announce their name/version
 *   CLIENT SETNAME / GETNAME / ID
 *   SELECT 0       redis-cli -n 0 and most libraries' "db" option
 *   CONFIG GET     redis-benchmark asks for `save` and `appendonly` first
 * Every step has them, identical, so they live here and stay out of the
 * chapters' diffs. This server has one database, like Redis started with
 * `databases 1`, so SELECT accepts only 0. */
#ifndef CONNECTION_H
#define CONNECTION_H

#include "net.h"

/* What HELLO and INFO report as the version: the Redis release whose
 * behaviour the steps follow. Clients decide which features to use from it. */
#define SERVER_COMPAT_VERSION "7.4.0"

void hello_command(client *c, int argc, arg *argv);
void client_command(client *c, int argc, arg *argv);
void select_command(client *c, int argc, arg *argv);
void config_command(client *c, int argc, arg *argv);

#endif
