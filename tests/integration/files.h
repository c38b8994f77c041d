/*
 * files.h - whole local files for the tests that cut, flip or read the
 * daemons' files directly (test_recovery.c, test_mgr_journal.c).  Each
 * fails the test on an error.
 */
#ifndef PVFS_TEST_FILES_H
#define PVFS_TEST_FILES_H

#include <stddef.h>
#include <stdint.h>

/* The whole file, malloc'd (one spare byte at the end); its size in *len. */
uint8_t *file_slurp(const char *path, size_t *len);
/* Replace the file with len bytes of p (mode 0600 if it is created). */
void file_spill(const char *path, const uint8_t *p, size_t len);
/* At most buflen - 1 bytes of the file as a string: "" if unreadable. */
void file_text(const char *path, char *buf, size_t buflen);
/* Fail, showing text, unless it holds what. */
void assert_contains(const char *text, const char *what);

#endif /* PVFS_TEST_FILES_H */
