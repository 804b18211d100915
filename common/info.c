/* info.c -- INFO's text format and the sections every step has. */
#define _POSIX_C_SOURCE 200809L
#include "info.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "alloc.h"
#include "clock.h"
#include "command.h"
#include "connection.h"
#include "reply.h"

int info_section(info_request *r, const char *section, const char *title) {
    int wanted = r->argc <= 1;
    for (int i = 1; i < r->argc && !wanted; i++)
        wanted = arg_is(&r->argv[i], section) || arg_is(&r->argv[i], "all") ||
                 arg_is(&r->argv[i], "default") || arg_is(&r->argv[i], "everything");
    if (!wanted) return 0;
    if (r->text.len) buf_append(&r->text, "\r\n", 2); /* blank line between sections */
    info_field(r, "#", " %s", title);
    return 1;
}

void info_field(info_request *r, const char *name, const char *fmt, ...) {
    char line[256];
    int n = snprintf(line, sizeof(line), "%s%s", name, name[0] == '#' ? "" : ":");
    va_list ap;
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof(line) - 1) n = (int)sizeof(line) - 1;
    buf_append(&r->text, line, (size_t)n);
    buf_append(&r->text, "\r\n", 2);
}

int info_server_section(info_request *r, const info_server_facts *facts) {
    if (!info_section(r, "server", "Server")) return 0;
    int64_t uptime_s = (clock_now_ms() - facts->start_ms) / 1000;
    info_field(r, "redis_version", "%s", SERVER_COMPAT_VERSION);
    info_field(r, "redis_mode", "standalone");
    info_field(r, "tutorial_step", "%s", facts->step);
    info_field(r, "process_id", "%ld", (long)getpid());
    info_field(r, "tcp_port", "%d", facts->port);
    info_field(r, "uptime_in_seconds", "%lld", (long long)uptime_s);
    info_field(r, "uptime_in_days", "%lld", (long long)(uptime_s / 86400));
    return 1;
}

void info_clients_section(info_request *r, const net_server *s) {
    if (!info_section(r, "clients", "Clients")) return;
    info_field(r, "connected_clients", "%zu", s->client_count);
}

/* "1.50M" style, as Redis's used_memory_human. */
static void human_bytes(char *out, size_t outlen, size_t bytes) {
    const char *units = "BKMGT";
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(out, outlen, "%zuB", bytes);
    else
        snprintf(out, outlen, "%.2f%c", v, units[u]);
}

void info_memory_section(info_request *r) {
    if (!info_section(r, "memory", "Memory")) return;
    char human[32];
    human_bytes(human, sizeof(human), mem_used());
    info_field(r, "used_memory", "%zu", mem_used());
    info_field(r, "used_memory_human", "%s", human);
}

int info_stats_section(info_request *r, const net_server *s) {
    if (!info_section(r, "stats", "Stats")) return 0;
    info_field(r, "total_connections_received", "%llu", (unsigned long long)s->total_connections);
    info_field(r, "total_commands_processed", "%llu", (unsigned long long)s->total_commands);
    return 1;
}

void info_reply(client *c, info_request *r) {
    reply_verbatim(c, r->text.data ? r->text.data : "", r->text.len);
    buf_free(&r->text);
}
