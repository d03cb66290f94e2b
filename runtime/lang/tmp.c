/* tmp.c: statement temporaries and heap blobs for generated code. */
#include "mpd/abi/lang.h"
#include <stdlib.h>
#include <string.h>

struct mpd_tmp {
    struct mpd_tmp *next;
    size_t pad; /* keeps the payload 16-byte aligned */
};

/* Sizes are rounded up to MPD_ALIGN: mpd_blob_size_k reports an array
 * blob's size aligned, and generated code copies that many bytes. */
static void *zalloc(size_t n)
{
    void *p = calloc(1, n ? MPD_ALIGN(n) : 1);
    if (!p)
        mpd_rts_fatal("out of memory (%zu bytes)", n);
    return p;
}

void *mpd_tmp_alloc(mpd_tmp **list, size_t n)
{
    mpd_tmp *t = zalloc(sizeof(mpd_tmp) + n);
    t->next = *list;
    *list = t;
    return t + 1;
}

/* A block of n bytes whose bytes from `zeroed` on are all written by the
 * caller (or are alignment padding nobody reads): a 64 KiB string[*]
 * argument is copied once, not zeroed first and then copied over. */
void *mpd_tmp_alloc_head(mpd_tmp **list, size_t n, size_t zeroed)
{
    mpd_tmp *t = malloc(sizeof(mpd_tmp) + MPD_ALIGN(n));
    if (!t)
        mpd_rts_fatal("out of memory (%zu bytes)", n);
    memset(t + 1, 0, zeroed < n ? zeroed : n);
    t->next = *list;
    *list = t;
    return t + 1;
}

void mpd__tmp_free_list(mpd_tmp **list)
{
    mpd_tmp *t = *list;
    while (t) {
        mpd_tmp *n = t->next;
        free(t);
        t = n;
    }
    *list = NULL;
}

void *mpd_blob_new(size_t n)
{
    return zalloc(n);
}
void mpd_blob_free(void *p)
{
    free(p);
}

/* A block of new() has a header (16 bytes: the payload stays aligned) whose
 * mark free() checks, so that freeing twice, or what new() did not give, is
 * SR 2.3.3's and MPD 1.0.1's RTS abort instead of a crash in malloc. */
#define NEW_MARK 0x6d70646e65775f31ull /* "mpdnew_1" */
#define FREED_MARK 0x6d70646672656564ull

struct new_hdr {
    unsigned long long mark;
    unsigned long long pad;
};

void *mpd_new(size_t n)
{
    struct new_hdr *h = zalloc(sizeof(struct new_hdr) + n);
    h->mark = NEW_MARK;
    return h + 1;
}

void mpd_free(const char *f, int l, void *p)
{
    if (!p)
        return;
    struct new_hdr *h = (struct new_hdr *)p - 1;
    if (h->mark != NEW_MARK)
        mpd_rts_abort(f, l, "bad address for free(), or block overwritten");
    h->mark = FREED_MARK;
    free(h);
}

int mpd_lang_argc;
char **mpd_lang_argv;

void mpd_lang_start(int argc, char **argv)
{
    mpd_lang_argc = argc;
    mpd_lang_argv = argv;
    mpd_args_set(argc, argv);
}
