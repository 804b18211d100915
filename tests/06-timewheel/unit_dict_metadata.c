/* unit_dict_metadata.c -- unit tests of the per-entry metadata chapter 06
 * adds to the hash table (steps/06-timewheel/dict.c), where the timing
 * wheel keeps each key's node: dict_create(metadata_bytes),
 * dict_entry_metadata() and dict_entry_from_metadata(). The metadata must
 * be aligned, zeroed, apart from the key, in the entry's one block, and
 * stay put through rehashes. The rest of the table is tested in
 * tests/02-get-set/unit_dict.c and the chapters after it. */
#include "dict.h"
#include "../helpers/dict_keys.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"

#ifdef __APPLE__
#include <malloc/malloc.h>
#define usable_size(p) malloc_size(p)
#else
#include <malloc.h>
#define usable_size(p) malloc_usable_size(p)
#endif

/* ============================ Tests ============================ */

/* Metadata must be 8-byte aligned, zero on insertion even when malloc hands
 * back dirty memory, separate from the key bytes, and stay put (with its
 * contents) while the entry is moved by a rehash; dict_entry_from_metadata()
 * must lead back to the entry from it, before and after the moves. */
START_TEST(test_metadata) {
    const size_t sizes[] = {8, 12, 16, 24};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t meta = sizes[s];
        dict *d = dict_create(meta);
        char key[32];
        for (int round = 0; round < 2; round++) {
            /* Round 0 fills the metadata with 0xff and deletes every key;
             * round 1 re-adds them into memory malloc is likely to reuse. */
            for (size_t i = 0; i < 1000; i++) {
                size_t len = make_key(key, i);
                dict_entry *de = dict_add(d, key, len, val_for(i));
                if (de == NULL)
                    ck_abort_msg("%zu bytes, key:%zu: expected a new entry, got NULL", meta, i);
                unsigned char *m = dict_entry_metadata(de);
                if ((uintptr_t)m % 8 != 0)
                    ck_abort_msg("%zu bytes, key:%zu: expected 8-byte aligned metadata, got %p",
                                 meta, i, (void *)m);
                for (size_t b = 0; b < meta; b++)
                    if (m[b] != 0)
                        ck_abort_msg("%zu bytes, key:%zu: expected metadata byte %zu to be 0, "
                                     "got 0x%02x",
                                     meta, i, b, m[b]);
                if (dict_entry_from_metadata(m) != de)
                    ck_abort_msg("%zu bytes, key:%zu: expected dict_entry_from_metadata() to "
                                 "give the entry %p, got %p",
                                 meta, i, (void *)de, (void *)dict_entry_from_metadata(m));
                memset(m, 0xff, meta);
                if (de->keylen != len || memcmp(dict_entry_key(de), key, len) != 0)
                    ck_abort_msg("%zu bytes: expected key \"%s\" intact after writing the "
                                 "metadata, got %zu bytes \"%.*s\"",
                                 meta, key, (size_t)de->keylen, (int)de->keylen,
                                 dict_entry_key(de));
            }
            if (round == 0)
                for (size_t i = 0; i < 1000; i++)
                    dict_delete_entry(d, find_key(d, i));
        }
        /* Stamp each entry's metadata with its index, force the table
         * through more resizes, and check both pointer and contents held. */
        unsigned char *where[1000];
        for (size_t i = 0; i < 1000; i++) {
            dict_entry *de = find_key(d, i);
            ck_assert_ptr_nonnull(de);
            where[i] = dict_entry_metadata(de);
            memcpy(where[i], &i, sizeof(i));
        }
        add_keys(d, 1000, 20000);
        finish_rehashing(d);
        for (size_t i = 0; i < 1000; i++) {
            dict_entry *de = find_key(d, i);
            if (de == NULL) ck_abort_msg("%zu bytes: expected key:%zu, got no entry", meta, i);
            size_t stamp;
            memcpy(&stamp, dict_entry_metadata(de), sizeof(stamp));
            if (dict_entry_metadata(de) != where[i] || stamp != i)
                ck_abort_msg("%zu bytes, key:%zu: expected metadata at %p stamped %zu, got %p "
                             "stamped %zu",
                             meta, i, (void *)where[i], i, dict_entry_metadata(de), stamp);
            if (dict_entry_from_metadata(where[i]) != de)
                ck_abort_msg("%zu bytes, key:%zu: expected dict_entry_from_metadata() to give "
                             "%p after the rehash, got %p",
                             meta, i, (void *)de, (void *)dict_entry_from_metadata(where[i]));
        }
        dict_free(d, NULL);
    }
}
END_TEST

/* An entry is one block of header + metadata + key, in that order (the
 * picture in dict.h), allocated through alloc.h: adding a key raises
 * mem_used() by exactly that block, which holds all three, and deleting it
 * gives every byte back. Metadata in a block of its own fails here. */
START_TEST(test_entry_is_one_block) {
    dict *d = dict_create(16);
    size_t empty = mem_used();
    ck_assert_uint_gt(empty, 0); /* the dict and its first table are counted */
    dict_entry *de = dict_add(d, "0123456789abcdef", 16, NULL);
    ck_assert_ptr_nonnull(de);
    size_t block = usable_size(de);
    ck_assert_uint_eq(mem_used() - empty, block);
    ck_assert_uint_ge(block, sizeof(dict_entry) + 16 + 16);
    ck_assert_ptr_eq(dict_entry_metadata(de), (char *)de + sizeof(dict_entry));
    ck_assert_ptr_eq(dict_entry_key(de), (const char *)de + sizeof(dict_entry) + 16);
    dict_delete_entry(d, de);
    ck_assert_uint_eq(mem_used(), empty);
    dict_free(d, NULL);
}
END_TEST

int main(void) {
    Suite *s = suite_create("06-timewheel: dict metadata");
    TCase *tc = tcase_create("metadata");
    tcase_add_checked_fixture(tc, use_test_seed, NULL);
    tcase_add_test(tc, test_metadata);
    tcase_add_test(tc, test_entry_is_one_block);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
