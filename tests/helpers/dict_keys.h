/* dict_keys.h -- helpers the hash table's unit tests share (tests/NN-name/
 * unit_dict*.c and the tests of the modules built on the table), each of
 * which compiles its own step's dict.c in (dict_inspect.h): keys named
 * "key:<i>", values i + 1 stored in the pointer, insertion of new keys, and
 * checks that say what was expected and what came back. Static inline, so a
 * test that uses only some of them compiles without warnings. */
#ifndef DICT_KEYS_H
#define DICT_KEYS_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dict.h"
#include "dict_inspect.h" /* dict_is_rehashing(), for finish_rehashing() */

/* The seed every test starts from, so runs are repeatable. */
static const uint8_t TEST_SEED[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

static inline void use_test_seed(void) {
    dict_set_hash_seed(TEST_SEED);
}

/* Keys are "key:<i>"; buf must hold 32 bytes. Returns the key's length. */
static inline size_t make_key(char *buf, size_t i) {
    return (size_t)snprintf(buf, 32, "key:%zu", i);
}

/* The i of a "key:<i>" key. */
static inline size_t key_index(const dict_entry *de) {
    char buf[32];
    size_t len = de->keylen;
    memcpy(buf, dict_entry_key(de), len);
    buf[len] = '\0';
    return (size_t)strtoull(buf + 4, NULL, 10);
}

/* Values are i + 1 stored in the pointer (so no value is NULL). */
static inline void *val_for(size_t i) {
    return (void *)(uintptr_t)(i + 1);
}

/* de must be key i's entry, with val_for(i). */
static inline void require_value(const dict_entry *de, size_t i, const char *when) {
    if (de == NULL)
        ck_abort_msg("%s: key:%zu expected with value %p, got no entry", when, i, val_for(i));
    if (de->val != val_for(i))
        ck_abort_msg("%s: key:%zu expected with value %p, got value %p", when, i, val_for(i),
                     de->val);
}

/* de must be NULL: key i is expected absent. */
static inline void require_absent(const dict_entry *de, size_t i, const char *when) {
    if (de != NULL)
        ck_abort_msg("%s: key:%zu expected absent, got an entry with value %p", when, i, de->val);
}

static inline dict_entry *find_key(dict *d, size_t i) {
    char key[32];
    size_t len = make_key(key, i);
    return dict_find(d, key, len);
}

/* Insert a key that must be new, with value val: the new entry, or NULL
 * (and nothing changed) when the key is already present. The server only
 * needs dict_add_or_find(); the tests insert this way. */
static inline dict_entry *dict_add(dict *d, const char *key, size_t len, void *val) {
    int existed;
    dict_entry *de = dict_add_or_find(d, key, len, &existed);
    if (existed) return NULL;
    de->val = val;
    return de;
}

/* Add keys [from, to), each with val_for(i); each must be new. */
static inline void add_keys(dict *d, size_t from, size_t to) {
    char key[32];
    for (size_t i = from; i < to; i++) {
        size_t len = make_key(key, i);
        if (dict_add(d, key, len, val_for(i)) == NULL)
            ck_abort_msg("dict_add of new key:%zu: expected a new entry, got NULL (refused as a "
                         "duplicate)",
                         i);
    }
}

/* Do finds until any rehash in progress has finished. */
static inline void finish_rehashing(dict *d) {
    for (int i = 0; i < 10000000 && dict_is_rehashing(d); i++)
        dict_find(d, "x", 1);
    ck_assert_int_eq(dict_is_rehashing(d), 0);
}

#endif
