/* unit_rdb.c -- Check unit tests for chapter 08's file format (rdb.c).
 *
 * The format is tested against bytes Redis 7.0.15 itself wrote: the check
 * value of its CRC-64, the LZF of 21 'a's, the encodings of -7 and 12345,
 * and a whole dump.rdb of two keys (../shared reference, section 1.9, as
 * redis-check-rdb read it). Then every file this writer produces is read
 * back, and every way of cutting or corrupting a file is refused with an
 * offset inside the file. Nothing here touches the network or the clock. */
#define _POSIX_C_SOURCE 200809L
#include "rdb.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ==== Helpers ==== */

/* What a read found: up to 16 keys, copied out of the handler's call. */
typedef struct found {
    int n;
    char key[16][64];
    size_t keylen[16];
    char val[16][256];
    size_t vallen[16];
    int has_expire[16];
    int64_t expire[16];
} found;

static int collect(void *ctx, const rdb_key *k, const char **why) {
    found *f = ctx;
    if (f->n == 16) {
        *why = "more keys than the test keeps";
        return -1;
    }
    /* Long keys and values are kept in part; their lengths in full. */
    memcpy(f->key[f->n], k->key, k->keylen < 64 ? k->keylen : 64);
    f->keylen[f->n] = k->keylen;
    memcpy(f->val[f->n], k->val, k->vallen < 256 ? k->vallen : 256);
    f->vallen[f->n] = k->vallen;
    f->has_expire[f->n] = k->has_expire;
    f->expire[f->n] = k->expire_at_ms;
    f->n++;
    return 0;
}

/* Write through rdb_writer into a temporary file and return its bytes. */
typedef struct written {
    uint8_t *bytes;
    size_t len;
} written;

static FILE *start_file(rdb_writer *w, size_t keys, size_t with_ttl) {
    FILE *f = tmpfile();
    ck_assert_msg(f != NULL, "tmpfile() failed");
    rdb_aux aux = {1796150576, 1038296, keys, with_ttl};
    rdb_write_start(w, fileno(f), &aux);
    return f;
}

static written end_file(rdb_writer *w, FILE *f) {
    ck_assert_msg(rdb_write_end(w) == 0, "rdb_write_end failed: errno %d", w->error);
    written out;
    long len = lseek(fileno(f), 0, SEEK_END);
    out.len = (size_t)len;
    out.bytes = malloc(out.len);
    ck_assert(pread(fileno(f), out.bytes, out.len, 0) == (ssize_t)out.len);
    fclose(f);
    return out;
}

/* The record bytes a single key makes: a file with only that key, minus the
 * header, AUX fields, SELECTDB and RESIZEDB before it and EOF + CRC after. */
static rdb_writer writer;

static size_t header_len(void) {
    FILE *f = start_file(&writer, 0, 0);
    written w = end_file(&writer, f);
    free(w.bytes);
    return w.len - 9; /* without FF and the 8-byte checksum */
}

static void expect_key_bytes(const char *key, size_t keylen, const char *val, size_t vallen,
                             int64_t expire, const uint8_t *want, size_t want_len) {
    size_t skip = header_len() + 2 + 3; /* FE 00, FB 01 00/01 */
    FILE *f = start_file(&writer, 1, expire != 0);
    rdb_write_string_key(&writer, key, keylen, val, vallen, expire);
    written w = end_file(&writer, f);
    size_t got_len = w.len - skip - 9;
    int same = got_len == want_len && memcmp(w.bytes + skip, want, want_len) == 0;
    char got[512] = "", exp[512] = "";
    for (size_t i = 0; i < got_len && i < 150; i++)
        snprintf(got + strlen(got), sizeof(got) - strlen(got), "%02x ", w.bytes[skip + i]);
    for (size_t i = 0; i < want_len && i < 150; i++)
        snprintf(exp + strlen(exp), sizeof(exp) - strlen(exp), "%02x ", want[i]);
    free(w.bytes);
    ck_assert_msg(same, "key '%.*s' = '%.*s': expected the record %s, wrote %s", (int)keylen, key,
                  (int)vallen, val, exp, got);
}

/* The dump.rdb Redis 7.0.15 wrote for SET foo bar; SET baz qux;
 * PEXPIREAT baz 1893456000000; SAVE (121 bytes). */
static const uint8_t REDIS_DUMP[] = {
    0x52, 0x45, 0x44, 0x49, 0x53, 0x30, 0x30, 0x31, 0x30, 0xfa, 0x09, 0x72, 0x65, 0x64, 0x69, 0x73,
    0x2d, 0x76, 0x65, 0x72, 0x06, 0x37, 0x2e, 0x30, 0x2e, 0x31, 0x35, 0xfa, 0x0a, 0x72, 0x65, 0x64,
    0x69, 0x73, 0x2d, 0x62, 0x69, 0x74, 0x73, 0xc0, 0x40, 0xfa, 0x05, 0x63, 0x74, 0x69, 0x6d, 0x65,
    0xc2, 0x30, 0x15, 0x0f, 0x6b, 0xfa, 0x08, 0x75, 0x73, 0x65, 0x64, 0x2d, 0x6d, 0x65, 0x6d, 0xc2,
    0xd8, 0xd7, 0x0f, 0x00, 0xfa, 0x08, 0x61, 0x6f, 0x66, 0x2d, 0x62, 0x61, 0x73, 0x65, 0xc0, 0x00,
    0xfe, 0x00, 0xfb, 0x02, 0x01, 0xfc, 0x00, 0xb4, 0xc5, 0xda, 0xb8, 0x01, 0x00, 0x00, 0x00, 0x03,
    0x62, 0x61, 0x7a, 0x03, 0x71, 0x75, 0x78, 0x00, 0x03, 0x66, 0x6f, 0x6f, 0x03, 0x62, 0x61, 0x72,
    0xff, 0x7f, 0xcc, 0xfb, 0xa8, 0x97, 0x40, 0xd5, 0x79};

static int read_all(const uint8_t *bytes, size_t len, found *f, rdb_error *err) {
    rdb_file_facts facts;
    memset(f, 0, sizeof(*f));
    memset(err, 0, sizeof(*err));
    rdb_read_calls calls = {collect, NULL};
    return rdb_read(bytes, len, &calls, f, &facts, err);
}

/* A copy of bytes with a correct checksum over everything before the last 8. */
static uint8_t *with_crc(const uint8_t *bytes, size_t len) {
    uint8_t *copy = malloc(len);
    memcpy(copy, bytes, len);
    uint64_t crc = rdb_crc64(0, copy, len - 8);
    for (int i = 0; i < 8; i++)
        copy[len - 8 + i] = (uint8_t)(crc >> (8 * i));
    return copy;
}

/* ==== The checksum and LZF ==== */

START_TEST(crc64_matches_redis) {
    uint64_t crc = rdb_crc64(0, "123456789", 9);
    ck_assert_msg(
        crc == 0xe9c6d914c4b8d9caULL,
        "crc64(\"123456789\"): expected e9c6d914c4b8d9ca (Redis's crc64Test), got %016llx",
        (unsigned long long)crc);
    uint64_t chained = rdb_crc64(rdb_crc64(0, "1234", 4), "56789", 5);
    ck_assert_msg(chained == crc, "crc64 in two calls: expected %016llx, got %016llx",
                  (unsigned long long)crc, (unsigned long long)chained);
    uint64_t dump = rdb_crc64(0, REDIS_DUMP, sizeof(REDIS_DUMP) - 8);
    ck_assert_msg(
        dump == 0x79d54097a8fbcc7fULL,
        "crc64 of Redis's dump before its checksum: expected 79d54097a8fbcc7f, got %016llx",
        (unsigned long long)dump);
}
END_TEST

START_TEST(lzf_decodes_redis_and_refuses_garbage) {
    /* Redis wrote 21 'a's as c3 06 15 | 01 61 61 e0 0a 00: a literal "aa",
     * then a reference 1 byte back of 7 + 10 + 2 = 19 bytes. */
    const uint8_t lzf[] = {0x01, 0x61, 0x61, 0xe0, 0x0a, 0x00};
    uint8_t out[32];
    ck_assert_msg(lzf_decompress(lzf, sizeof(lzf), out, 21) == 0, "21 'a's did not decode");
    for (int i = 0; i < 21; i++)
        ck_assert_msg(out[i] == 'a', "byte %d of 21 'a's: expected 'a', got 0x%02x", i, out[i]);
    ck_assert_msg(lzf_decompress(lzf, sizeof(lzf), out, 20) == -1,
                  "21 'a's decoded into a 20-byte buffer");
    ck_assert_msg(lzf_decompress(lzf, sizeof(lzf), out, 22) == -1, "21 'a's accepted as 22 bytes");
    ck_assert_msg(lzf_decompress(lzf, 5, out, 21) == -1, "a cut reference was accepted");
    const uint8_t too_far[] = {0x00, 0x61, 0x20, 0x05}; /* 3 bytes from 6 back, with 1 written */
    ck_assert_msg(lzf_decompress(too_far, sizeof(too_far), out, 4) == -1,
                  "a reference before the start of the output was accepted");
    const uint8_t long_literal[] = {0x05, 'a', 'b'}; /* says 6 bytes, has 2 */
    ck_assert_msg(lzf_decompress(long_literal, sizeof(long_literal), out, 6) == -1,
                  "a literal run past the input was accepted");
}
END_TEST

/* ==== Writing: the bytes Redis writes ==== */

START_TEST(strings_are_encoded_as_redis_does) {
    const uint8_t minus7[] = {0x00, 0xc0, 0x7b, 0xc0, 0xf9}; /* key "123", value "-7" */
    expect_key_bytes("123", 3, "-7", 2, 0, minus7, sizeof(minus7));
    const uint8_t n12345[] = {0x00, 0x01, 'k', 0xc1, 0x39, 0x30};
    expect_key_bytes("k", 1, "12345", 5, 0, n12345, sizeof(n12345));
    const uint8_t big[] = {0x00, 0x01, 'k', 0xc2, 0x00, 0x00, 0x00, 0x80}; /* -2147483648 */
    expect_key_bytes("k", 1, "-2147483648", 11, 0, big, sizeof(big));
    const uint8_t leading0[] = {0x00, 0x01, 'k', 0x04, '0', '1', '2', '3'};
    expect_key_bytes("k", 1, "0123", 4, 0, leading0, sizeof(leading0));
    const uint8_t over32[] = {0x00, 0x01, 'k', 0x0a, '4', '2', '9',
                              '4',  '9',  '6', '7',  '2', '9', '6'};
    expect_key_bytes("k", 1, "4294967296", 10, 0, over32, sizeof(over32));
    const uint8_t ttl[] = {0xfc, 0x00, 0xb4, 0xc5, 0xda, 0xb8, 0x01, 0x00, 0x00,
                           0x00, 0x03, 'b',  'a',  'z',  0x03, 'q',  'u',  'x'};
    expect_key_bytes("baz", 3, "qux", 3, 1893456000000, ttl, sizeof(ttl));
}
END_TEST

START_TEST(lengths_use_all_four_forms) {
    static char v[70000];
    memset(v, 'v', sizeof(v));
    size_t lens[] = {0, 63, 64, 100, 16383, 16384, 70000};
    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        FILE *f = start_file(&writer, 1, 0);
        rdb_write_string_key(&writer, "k", 1, v, lens[i], 0);
        written w = end_file(&writer, f);
        size_t at = header_len() + 5 + 3; /* FE 00 FB 01 00, 00 01 'k' */
        size_t need = lens[i] < 64 ? 1 : lens[i] < 16384 ? 2 : 5;
        uint8_t first = w.bytes[at];
        uint8_t want = lens[i] < 64      ? (uint8_t)lens[i]
                       : lens[i] < 16384 ? (uint8_t)(0x40 | (lens[i] >> 8))
                                         : 0x80;
        ck_assert_msg(first == want,
                      "a %zu-byte value: expected its length to start 0x%02x, got 0x%02x", lens[i],
                      want, first);
        ck_assert_msg(w.len == at + need + lens[i] + 9,
                      "a %zu-byte value: expected %zu bytes in the file, got %zu", lens[i],
                      at + need + lens[i] + 9, w.len);
        found fd;
        rdb_error err;
        ck_assert_msg(read_all(w.bytes, w.len, &fd, &err) == 0, "a %zu-byte value: %s at %zu",
                      lens[i], err.what, err.offset);
        free(w.bytes);
    }
    const uint8_t hundred[] = {0x40, 0x64}; /* Redis: a 100-byte string starts 40 64 */
    ck_assert(hundred[0] == (uint8_t)(0x40 | (100 >> 8)) && hundred[1] == 100);
}
END_TEST

/* ==== Reading ==== */

START_TEST(writes_redis_dump_byte_for_byte) {
    /* Given the AUX values Redis's dump had, the writer produces its 121
     * bytes exactly, checksum included (the keys in the dump's order). */
    FILE *f = tmpfile();
    ck_assert(f != NULL);
    rdb_aux aux = {1796150576, 1038296, 2, 1};
    rdb_write_start(&writer, fileno(f), &aux);
    rdb_write_string_key(&writer, "baz", 3, "qux", 3, 1893456000000);
    rdb_write_string_key(&writer, "foo", 3, "bar", 3, 0);
    written w = end_file(&writer, f);
    size_t first_difference = 0;
    while (first_difference < w.len && first_difference < sizeof(REDIS_DUMP) &&
           w.bytes[first_difference] == REDIS_DUMP[first_difference])
        first_difference++;
    ck_assert_msg(
        w.len == sizeof(REDIS_DUMP) && first_difference == w.len,
        "expected Redis's %zu-byte dump, wrote %zu bytes, the first difference at byte %zu "
        "(expected 0x%02x, wrote 0x%02x)",
        sizeof(REDIS_DUMP), w.len, first_difference,
        first_difference < sizeof(REDIS_DUMP) ? REDIS_DUMP[first_difference] : 0,
        first_difference < w.len ? w.bytes[first_difference] : 0);
    free(w.bytes);
}
END_TEST

START_TEST(reads_a_redis_dump) {
    found f;
    rdb_error err;
    ck_assert_msg(read_all(REDIS_DUMP, sizeof(REDIS_DUMP), &f, &err) == 0,
                  "Redis's dump refused: offset %zu: %s", err.offset, err.what);
    ck_assert_msg(f.n == 2, "Redis's dump: expected 2 keys, read %d", f.n);
    ck_assert_msg(f.keylen[0] == 3 && memcmp(f.key[0], "baz", 3) == 0 && f.has_expire[0] &&
                      f.expire[0] == 1893456000000,
                  "Redis's dump: expected baz first, expiring at 1893456000000; got '%.*s' at %lld",
                  (int)f.keylen[0], f.key[0], (long long)f.expire[0]);
    ck_assert_msg(f.vallen[1] == 3 && memcmp(f.val[1], "bar", 3) == 0 && !f.has_expire[1],
                  "Redis's dump: expected foo = bar, no TTL");
}
END_TEST

START_TEST(round_trip_keeps_every_key) {
    const char *keys[] = {"", "k", "123", "-7", "a\0b\r\n", "0123"};
    size_t keylens[] = {0, 1, 3, 2, 5, 4};
    int64_t expires[] = {0, 1893456000000, 1, 0, 4102444800000, 0};
    FILE *file = start_file(&writer, 6, 3);
    for (int i = 0; i < 6; i++)
        rdb_write_string_key(&writer, keys[i], keylens[i], keys[5 - i], keylens[5 - i], expires[i]);
    written w = end_file(&writer, file);
    found f;
    rdb_error err;
    ck_assert_msg(read_all(w.bytes, w.len, &f, &err) == 0, "our file refused: offset %zu: %s",
                  err.offset, err.what);
    ck_assert_msg(f.n == 6, "expected 6 keys back, got %d", f.n);
    for (int i = 0; i < 6; i++) {
        ck_assert_msg(f.keylen[i] == keylens[i] && memcmp(f.key[i], keys[i], keylens[i]) == 0,
                      "key %d did not come back as written", i);
        ck_assert_msg(f.vallen[i] == keylens[5 - i] &&
                          memcmp(f.val[i], keys[5 - i], f.vallen[i]) == 0,
                      "the value of key %d did not come back as written", i);
        ck_assert_msg(f.has_expire[i] == (expires[i] != 0) &&
                          (!expires[i] || f.expire[i] == expires[i]),
                      "key %d: expected expire %lld, got %lld", i, (long long)expires[i],
                      (long long)f.expire[i]);
    }
    free(w.bytes);
}
END_TEST

START_TEST(every_cut_and_every_flip_is_refused_inside_the_file) {
    found f;
    rdb_error err;
    for (size_t len = 0; len < sizeof(REDIS_DUMP); len++) {
        ck_assert_msg(read_all(REDIS_DUMP, len, &f, &err) == -1,
                      "Redis's dump cut to %zu bytes was accepted", len);
        ck_assert_msg(err.offset <= len && err.what[0] != '\0',
                      "cut to %zu bytes: the error says offset %zu (%s)", len, err.offset,
                      err.what);
    }
    uint8_t copy[sizeof(REDIS_DUMP)];
    for (size_t i = 0; i < sizeof(REDIS_DUMP); i++) {
        memcpy(copy, REDIS_DUMP, sizeof(copy));
        copy[i] ^= 0x01;
        int rc = read_all(copy, sizeof(copy), &f, &err);
        /* A flip in the checksum's own bytes or anywhere before them is
         * caught: by the parser, or else by the checksum. */
        ck_assert_msg(rc == -1, "Redis's dump with byte %zu flipped was accepted", i);
        ck_assert_msg(err.offset <= sizeof(copy), "flip at %zu: offset %zu is outside the file", i,
                      err.offset);
    }
    memcpy(copy, REDIS_DUMP, sizeof(copy));
    copy[sizeof(copy) - 1] ^= 0x80;
    ck_assert(read_all(copy, sizeof(copy), &f, &err) == -1);
    ck_assert_msg(strstr(err.what, "wrong checksum") && err.offset == sizeof(copy) - 8,
                  "a bad checksum: expected \"wrong checksum\" at offset %zu, got \"%s\" at %zu",
                  sizeof(copy) - 8, err.what, err.offset);
    memset(copy + sizeof(copy) - 8, 0, 8); /* rdbchecksum no: Redis accepts it */
    ck_assert_msg(read_all(copy, sizeof(copy), &f, &err) == 0 && f.n == 2,
                  "a zero checksum (rdbchecksum no) was refused: %s", err.what);
}
END_TEST

START_TEST(versions_types_and_old_expire_times) {
    found f;
    rdb_error err;
    /* Version 11 (Redis 7.2, CodeCrafters' files): FD seconds, FC ms, an LZF key. */
    const uint8_t v11[] = {'R',  'E',  'D',  'I',  'S',  '0',  '0',  '1',  '1',  0xfe, 0x00, 0xfb,
                           0x03, 0x02, 0xfd, 0x80, 0xd8, 0xdb, 0x70, 0x00, 0x01, 's',  0x01, '1',
                           0xfc, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 'p',
                           0x01, '2',  0x00, 0xc3, 0x06, 0x15, 0x01, 0x61, 0x61, 0xe0, 0x0a, 0x00,
                           0x01, 'v',  0xff, 0,    0,    0,    0,    0,    0,    0,    0};
    uint8_t *file = with_crc(v11, sizeof(v11));
    ck_assert_msg(read_all(file, sizeof(v11), &f, &err) == 0, "a version-11 file: %s at %zu",
                  err.what, err.offset);
    ck_assert_msg(f.n == 3 && f.expire[0] == 1893456000000LL && f.expire[1] == 1 &&
                      f.keylen[2] == 21 && !f.has_expire[2],
                  "version 11: expected s at 1893456000000 (FD, seconds), p at 1, 21 a's without "
                  "TTL; got %d keys, %lld, %lld",
                  f.n, (long long)f.expire[0], (long long)f.expire[1]);
    memcpy(file + 5, "0013", 4);
    ck_assert_msg(read_all(file, sizeof(v11), &f, &err) == -1 && strstr(err.what, "version 13"),
                  "version 13: expected a refusal naming it, got \"%s\"", err.what);
    free(file);
    /* A list: refused, naming the key and the type. */
    const uint8_t list[] = {'R',  'E',  'D', 'I', 'S', '0', '0',  '1',  '0',
                            0x12, 0x04, 'l', 'i', 's', 't', 0x01, 0x02, 0x00,
                            0xff, 0,    0,   0,   0,   0,   0,    0,    0};
    ck_assert(read_all(list, sizeof(list), &f, &err) == -1);
    ck_assert_msg(strstr(err.what, "'list'") && strstr(err.what, "list") && err.offset == 9,
                  "a list: expected a refusal at offset 9 naming key 'list', got \"%s\" at %zu",
                  err.what, err.offset);
    const uint8_t db1[] = {'R', 'E', 'D', 'I', 'S', '0', '0', '0', '3', 0xfe, 0x01, 0xff};
    ck_assert_msg(read_all(db1, sizeof(db1), &f, &err) == -1 && strstr(err.what, "database 1"),
                  "keys of database 1: expected a refusal, got \"%s\"", err.what);
    const uint8_t v3[] = {'R',  'E',  'D', 'I', 'S', '0',  '0', '0', '3', 0xfe, 0x00,
                          0x00, 0x03, 'f', 'o', 'o', 0x03, 'b', 'a', 'r', 0xff};
    ck_assert_msg(read_all(v3, sizeof(v3), &f, &err) == 0 && f.n == 1,
                  "a version-3 file without a checksum: %s", err.what);
    const uint8_t magic[] = {'R', 'E', 'D', 'I', 'X', '0', '0', '1', '0', 0xff};
    ck_assert_msg(read_all(magic, sizeof(magic), &f, &err) == -1 && err.offset == 0,
                  "a wrong magic: expected a refusal at offset 0, got \"%s\" at %zu", err.what,
                  err.offset);
}
END_TEST

static Suite *rdb_suite(void) {
    Suite *s = suite_create("rdb");
    TCase *tc = tcase_create("format");
    tcase_add_test(tc, crc64_matches_redis);
    tcase_add_test(tc, lzf_decodes_redis_and_refuses_garbage);
    tcase_add_test(tc, strings_are_encoded_as_redis_does);
    tcase_add_test(tc, lengths_use_all_four_forms);
    tcase_add_test(tc, writes_redis_dump_byte_for_byte);
    tcase_add_test(tc, reads_a_redis_dump);
    tcase_add_test(tc, round_trip_keeps_every_key);
    tcase_add_test(tc, every_cut_and_every_flip_is_refused_inside_the_file);
    tcase_add_test(tc, versions_types_and_old_expire_times);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(rdb_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
