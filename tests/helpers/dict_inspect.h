/* dict_inspect.h -- what the tests look at inside a dict: whether a rehash
 * is under way, how many buckets there are, and a walk over every entry. No
 * server needs any of it (they only find, add and delete), so it lives here,
 * with the tests that check a table entry by entry and step by step.
 *
 * It reads the dict's private tables, so this header compiles the step's
 * dict.c into the test that includes it (found on the include path, as
 * dict.h is). Such a test does not link dict.o too: the step's archive
 * (unit.mk) gives the linker dict.o only for symbols still undefined, and
 * there are none.
 *
 * The walk takes a snapshot: dict_iter_init() records every entry there is,
 * table[0] then table[1], bucket by bucket, along each chain, and
 * dict_iter_next() hands them out in that order. Every entry present at the
 * start is returned exactly once, whatever rehash steps run meanwhile; the
 * caller may delete the entry just returned, but no other, and entries it
 * adds are not returned. */
#ifndef DICT_INSPECT_H
#define DICT_INSPECT_H

#include <stdlib.h>

#include "dict.c"

/* 1 while an incremental rehash is in progress, else 0. */
static inline int dict_is_rehashing(const dict *d) {
    return is_rehashing(d);
}

/* Buckets currently allocated, in both tables. */
static inline size_t dict_bucket_count(const dict *d) {
    return d->table[0].size + d->table[1].size;
}

typedef struct dict_iter {
    dict_entry **entries; /* the snapshot, in table order */
    size_t count;         /* entries in it: what the tables hold, which dict_size() should say */
    size_t next;          /* index of the entry to return next */
} dict_iter;

/* Calls fn on every entry of both tables, in table order. */
static inline void dict_iter_each(dict *d, void (*fn)(dict_iter *, dict_entry *), dict_iter *it) {
    for (int i = 0; i < 2; i++) {
        dict_table *t = &d->table[i];
        for (size_t b = 0; b < t->size; b++)
            for (dict_entry *de = t->buckets[b]; de != NULL; de = de->next)
                fn(it, de);
    }
}

static inline void dict_iter_count(dict_iter *it, dict_entry *de) {
    (void)de;
    it->count++;
}

static inline void dict_iter_record(dict_iter *it, dict_entry *de) {
    it->entries[it->next++] = de;
}

/* Take the snapshot: count the entries the tables hold, then record them. */
static inline void dict_iter_init(dict_iter *it, dict *d) {
    it->count = 0;
    dict_iter_each(d, dict_iter_count, it);
    it->entries = malloc((it->count + 1) * sizeof(*it->entries));
    if (it->entries == NULL) abort();
    it->next = 0;
    dict_iter_each(d, dict_iter_record, it);
    it->next = 0;
}

/* The next entry, or NULL when all have been returned. */
static inline dict_entry *dict_iter_next(dict_iter *it) {
    return it->next < it->count ? it->entries[it->next++] : NULL;
}

static inline void dict_iter_release(dict_iter *it) {
    free(it->entries);
    it->entries = NULL;
}

#endif
