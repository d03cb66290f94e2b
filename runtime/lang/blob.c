/* blob.c: sizes, copies and swaps of string/array/record blobs. */
#include "mpd/abi/lang.h"
#include <stdlib.h>

size_t mpd_blob_size_k(const void *b, int kind)
{
    if (kind == MPD_BLOB_STR)
        return MPD_STR_SIZE(((const mpd_strhdr *)b)->max);
    if (kind == MPD_BLOB_ARR) {
        const mpd_arrhdr *h = b;
        return MPD_ALIGN(mpd_arr_size(h->lb, h->ub, (size_t)h->esize));
    }
    return (size_t)kind;
}

void *mpd_blob_dup(mpd_tmp **t, const void *b, int kind)
{
    size_t n = mpd_blob_size_k(b, kind);
    void *p = mpd_tmp_alloc(t, n);
    memcpy(p, b, n);
    return p;
}

void mpd_blob_swap(void *a, void *b, size_t n)
{
    unsigned char *x = a, *y = b;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = x[i];
        x[i] = y[i];
        y[i] = c;
    }
}

void mpd_str_swap(const char *f, int l, void *a, void *b)
{
    mpd_strhdr *ha = a, *hb = b;
    if (ha->len > hb->max)
        mpd_rts_abort(f, l, "string of length %d is too long to assign to string[%d]", ha->len,
                      hb->max);
    if (hb->len > ha->max)
        mpd_rts_abort(f, l, "string of length %d is too long to assign to string[%d]", hb->len,
                      ha->max);
    int n = ha->len > hb->len ? ha->len : hb->len;
    mpd_blob_swap(MPD_STR_CHARS(a), MPD_STR_CHARS(b), (size_t)n);
    int t = ha->len;
    ha->len = hb->len;
    hb->len = t;
}

void mpd_arr_swap(const char *f, int l, void *a, void *b)
{
    mpd_arrhdr *ha = a, *hb = b;
    int na = ha->ub - ha->lb + 1, nb = hb->ub - hb->lb + 1;
    if (na != nb || ha->esize != hb->esize)
        mpd_rts_abort(f, l, "size mismatch on array assignment:  [%d:%d] := [%d:%d]", ha->lb,
                      ha->ub, hb->lb, hb->ub);
    if (na > 0)
        mpd_blob_swap(MPD_ARR_DATA(a), MPD_ARR_DATA(b), (size_t)na * (size_t)ha->esize);
}

int mpd_rep_count(const char *f, int l, int n)
{
    if (n < 0)
        mpd_rts_abort(f, l, "illegal repetition count %d in array constructor", n);
    return n;
}

int *mpd_ivec_set(int *v, int *cap, int i, int val)
{
    if (i >= *cap) {
        int n = *cap ? *cap : 16;
        while (n <= i)
            n *= 2;
        int *w = realloc(v, sizeof(int) * (size_t)n);
        if (!w)
            mpd_rts_fatal("out of memory");
        v = w;
        *cap = n;
    }
    v[i] = val;
    return v;
}
