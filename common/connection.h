/* connection.h -- the commands a client library sends when it connects.
 *
 * None of these is about data. They exist because real clients send them
 * before the learner's first SET, and fail if the answer is wrong:
 *   HELLO 3        node-redis and ioredis switch to RESP3 with it
 *   CLIENT SETINFO redis-py, node-redis, ioredis announce their name/version
 *   CLIENT SETNAME / GETNAME / ID
 *   SELECT n       redis-cli -n n and libraries' "db" option (redis-cli
 *                  sends nothing for 0: cliSelect() returns early, 7.4.0)
 *   CONFIG GET     redis-benchmark asks for `save` and `appendonly` first
 * Every step has them, identical, so they live here. This server has one database, like Redis
 * started with `databases 1`, so SELECT accepts only 0. */
#ifndef CONNECTION_H
#define CONNECTION_H

#include "net.h"

/* What HELLO and INFO report as the version: the Redis release whose replies
 * the server matches for every command the two have in common. Clients decide
 * which features to use from it. A command from a later release (a step may
 * add one, and its chapter says which release it comes from) does not change
 * it: a client that sends such a command knows it wants it. */
#define SERVER_COMPAT_VERSION "7.4.0"

void hello_command(client *c, int argc, arg *argv);
void client_command(client *c, int argc, arg *argv);
void select_command(client *c, int argc, arg *argv);
void config_command(client *c, int argc, arg *argv);

#endif
