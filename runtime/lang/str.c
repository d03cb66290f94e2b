/* str.c: MPD strings — string[n] blobs, views, concatenation, slices, checks. */
#include "mpd/abi/lang.h"
#include <stdlib.h>

void mpd_str_init(void *blob, int max)
{
    mpd_strhdr *h = blob;
    h->len = 0;
    h->max = max;
}

void mpd_str_set(const char *f, int l, void *blob, mpd_sv v)
{
    mpd_strhdr *h = blob;
    if (v.len > h->max)
        mpd_rts_abort(f, l, "string of length %d is too long to assign to string[%d]", v.len,
                      h->max);
    memmove(MPD_STR_CHARS(blob), v.p, (size_t)v.len);
    h->len = v.len;
}

/* s = s || v: v goes after s's characters, in place (v may be s itself). */
void mpd_str_append(const char *f, int l, void *blob, mpd_sv v)
{
    mpd_strhdr *h = blob;
    if (v.len > h->max - h->len)
        mpd_rts_abort(f, l, "string of length %lld is too long to assign to string[%d]",
                      (long long)h->len + v.len, h->max);
    memmove(MPD_STR_CHARS(blob) + h->len, v.p, (size_t)v.len);
    h->len += v.len;
}

mpd_sv mpd_str_cat(mpd_tmp **t, mpd_sv a, mpd_sv b)
{
    char *p = mpd_tmp_alloc(t, (size_t)a.len + (size_t)b.len + 1);
    memcpy(p, a.p, (size_t)a.len);
    memcpy(p + a.len, b.p, (size_t)b.len);
    return mpd_sv_lit(p, a.len + b.len);
}

mpd_sv mpd_str_char(mpd_tmp **t, unsigned char c)
{
    char *p = mpd_tmp_alloc(t, 2);
    p[0] = (char)c;
    return mpd_sv_lit(p, 1);
}

mpd_sv mpd_str_copy(mpd_tmp **t, mpd_sv v)
{
    char *p = mpd_tmp_alloc(t, (size_t)v.len + 1);
    memcpy(p, v.p, (size_t)v.len);
    return mpd_sv_lit(p, v.len);
}

void *mpd_str_blob(mpd_tmp **t, mpd_sv v, int max)
{
    if (max < v.len)
        max = v.len;
    void *b = mpd_tmp_alloc(t, MPD_STR_SIZE(max));
    mpd_str_init(b, max);
    memcpy(MPD_STR_CHARS(b), v.p, (size_t)v.len);
    MPD_STR_LEN(b) = v.len;
    return b;
}

int mpd_str_cmp(mpd_sv a, mpd_sv b)
{
    int n = a.len < b.len ? a.len : b.len;
    int c = memcmp(a.p, b.p, (size_t)n);
    if (c)
        return c < 0 ? -1 : 1;
    return a.len < b.len ? -1 : a.len > b.len;
}

unsigned char mpd_str_get(const char *f, int l, const void *blob, int i)
{
    const mpd_strhdr *h = blob;
    if (i < 1 || i > h->len)
        mpd_rts_abort(f, l, "illegal subscript [%d] of string[%d] with current length %d", i,
                      h->max, h->len);
    return (unsigned char)((const char *)blob + sizeof(mpd_strhdr))[i - 1];
}

char *mpd_str_at(const char *f, int l, void *blob, int i)
{
    mpd_strhdr *h = blob;
    if (i < 1 || i > h->len)
        mpd_rts_abort(f, l, "illegal subscript [%d] of string[%d] with current length %d", i,
                      h->max, h->len);
    return MPD_STR_CHARS(blob) + i - 1;
}

mpd_sv mpd_str_slice(const char *f, int l, mpd_sv s, int smax, int lo, int hi)
{
    if (lo < 1 || hi > s.len || hi < lo - 1)
        mpd_rts_abort(f, l, "illegal slice [%d:%d] of string[%d] with current length %d", lo, hi,
                      smax, s.len);
    return mpd_sv_lit(s.p + lo - 1, hi - lo + 1);
}

void mpd_str_slice_set(const char *f, int l, void *blob, int lo, int hi, mpd_sv v)
{
    mpd_strhdr *h = blob;
    if (lo < 1 || hi > h->len || hi < lo - 1)
        mpd_rts_abort(f, l, "illegal slice [%d:%d] of string[%d] with current length %d", lo, hi,
                      h->max, h->len);
    if (v.len != hi - lo + 1)
        mpd_rts_abort(f, l, "string of length %d is wrong length to assign to slice [%d:%d]", v.len,
                      lo, hi);
    memmove(MPD_STR_CHARS(blob) + lo - 1, v.p, (size_t)v.len);
}

void *mpd_chars(mpd_tmp **t, mpd_sv s)
{
    void *b = mpd_tmp_alloc(t, mpd_arr_size(1, s.len, 1));
    mpd_arr_hdr(b, 1, s.len, 1);
    memcpy(MPD_ARR_DATA(b), s.p, (size_t)s.len);
    return b;
}

mpd_sv mpd_string_of_chars(mpd_tmp **t, const void *a)
{
    const mpd_arrhdr *h = a;
    int n = h->ub - h->lb + 1;
    if (n < 0)
        n = 0;
    char *p = mpd_tmp_alloc(t, (size_t)n + 1);
    memcpy(p, (const char *)a + MPD_ARR_HDR, (size_t)n);
    return mpd_sv_lit(p, n);
}

void mpd_str_set_chars(const char *f, int l, void *blob, const void *a)
{
    const mpd_arrhdr *h = a;
    int n = h->ub - h->lb + 1;
    if (n < 0)
        n = 0;
    mpd_str_set(f, l, blob, mpd_sv_lit((const char *)a + MPD_ARR_HDR, n));
}

mpd_sv mpd_sv_cstr(const char *p, int max)
{
    mpd_sv v = {"", 0};
    if (p) {
        v.p = p;
        v.len = (int)strnlen(p, (size_t)(max < 0 ? 0 : max));
    }
    return v;
}

void mpd_str_sync_cstr(void *blob)
{
    MPD_STR_LEN(blob) = (int)strnlen(MPD_STR_CHARS(blob), (size_t)MPD_STR_MAX(blob));
}
