/* arr.c: MPD arrays — headers, checked assignment, slices, comparison. */
#include "mpd/abi/lang.h"
#include <limits.h>

void mpd_arr_check_bounds(const char *f, int l, int lb, int ub)
{
    if (ub < lb - 1)
        mpd_rts_abort(f, l, "illegal bounds [%d:%d] for array creation", lb, ub);
}

void mpd_arr_hdr(void *b, int lb, int ub, int esize)
{
    mpd_arrhdr *h = b;
    h->lb = lb;
    h->ub = ub;
    h->esize = esize;
    h->pad = 0;
}

static int count(const mpd_arrhdr *h)
{
    return h->ub >= h->lb ? h->ub - h->lb + 1 : 0;
}

static void copy_elems(void *dst, const void *src, int n, int des, int ses)
{
    if (des == ses) {
        memmove(dst, src, (size_t)n * (size_t)des);
        return;
    }
    /* element blobs of different capacity (e.g. string[7] into string[3]) */
    for (int i = 0; i < n; i++)
        memmove((char *)dst + (size_t)i * des, (const char *)src + (size_t)i * ses,
                (size_t)(des < ses ? des : ses));
}

void mpd_arr_assign(const char *f, int l, void *a, const void *b)
{
    mpd_arrhdr *ha = a;
    const mpd_arrhdr *hb = b;
    if (a == b)
        return;
    if (count(ha) != count(hb))
        mpd_rts_abort(f, l, "size mismatch on array assignment:  [%d:%d] := [%d:%d]", ha->lb,
                      ha->ub, hb->lb, hb->ub);
    copy_elems(MPD_ARR_DATA(a), (const char *)b + MPD_ARR_HDR, count(ha), ha->esize, hb->esize);
}

void *mpd_arr_dup(mpd_tmp **t, const void *b)
{
    const mpd_arrhdr *h = b;
    size_t n = mpd_arr_size(h->lb, h->ub, (size_t)h->esize);
    void *p = mpd_tmp_alloc(t, n);
    memcpy(p, b, n);
    return p;
}

void *mpd_arr_slice(const char *f, int l, mpd_tmp **t, const void *a, int lo, int hi)
{
    const mpd_arrhdr *h = a;
    if (hi < lo - 1 || (hi >= lo && (lo < h->lb || hi > h->ub)))
        mpd_rts_abort(f, l, "illegal slice [%d:%d] of array with bounds [%d:%d]", lo, hi, h->lb,
                      h->ub);
    size_t n = mpd_arr_size(lo, hi, (size_t)h->esize);
    void *p = mpd_tmp_alloc(t, n);
    mpd_arr_hdr(p, 1, hi - lo + 1, h->esize); /* a slice is indexed from 1 */
    if (hi >= lo)
        memcpy(MPD_ARR_DATA(p), (const char *)a + MPD_ARR_HDR + (size_t)(lo - h->lb) * h->esize,
               (size_t)(hi - lo + 1) * h->esize);
    return p;
}

void mpd_arr_slice_set(const char *f, int l, void *a, int lo, int hi, const void *v)
{
    mpd_arrhdr *h = a;
    const mpd_arrhdr *hv = v;
    if (hi < lo - 1 || (hi >= lo && (lo < h->lb || hi > h->ub)))
        mpd_rts_abort(f, l, "illegal slice [%d:%d] of array with bounds [%d:%d]", lo, hi, h->lb,
                      h->ub);
    int n = hi >= lo ? hi - lo + 1 : 0;
    if (n != count(hv)) /* MPD's words for a slice target */
        mpd_rts_abort(f, l, "size mismatch on assignment to slice: [%d:%d] := [%d:%d]", lo, hi,
                      hv->lb, hv->ub);
    copy_elems(MPD_ARR_DATA(a) + (size_t)(lo - h->lb) * h->esize, (const char *)v + MPD_ARR_HDR, n,
               h->esize, hv->esize);
}

int mpd_arr_eq(const void *a, const void *b)
{
    const mpd_arrhdr *ha = a, *hb = b;
    if (count(ha) != count(hb) || ha->esize != hb->esize)
        return 0;
    return memcmp((const char *)a + MPD_ARR_HDR, (const char *)b + MPD_ARR_HDR,
                  (size_t)count(ha) * ha->esize) == 0;
}

void mpd_arr_rebase(void *b, int depth, const int *lbs, const int *ubs)
{
    mpd_arrhdr *h = b;
    int n = count(h);
    if (lbs[0] != INT_MIN) {
        h->lb = lbs[0];
        h->ub = lbs[0] + n - 1;
    } else if (ubs[0] != INT_MIN) {
        h->ub = ubs[0];
        h->lb = ubs[0] - n + 1;
    }
    if (depth > 1)
        for (int i = 0; i < n; i++)
            mpd_arr_rebase(MPD_ARR_DATA(b) + (size_t)i * h->esize, depth - 1, lbs + 1, ubs + 1);
}

void mpd_arr_copyback(void *dst, const void *src, int depth)
{
    mpd_arrhdr *h = dst;
    int n = count(h);
    if (depth <= 1) {
        memmove(MPD_ARR_DATA(dst), (const char *)src + MPD_ARR_HDR, (size_t)n * h->esize);
        return;
    }
    for (int i = 0; i < n; i++)
        mpd_arr_copyback(MPD_ARR_DATA(dst) + (size_t)i * h->esize,
                         (const char *)src + MPD_ARR_HDR + (size_t)i * h->esize, depth - 1);
}

/* ---- sections: a[*, 2], a[1:2, 3:4] ... (several subscripts, some ranges) ---- */

static char *sec_elem(const char *f, int l, const void *b, int i)
{
    return mpd_arr_elem(f, l, (void *)b, i);
}

static void sec_range(const char *f, int l, const void *b, const mpd_sub *s, int *lo, int *hi)
{
    const mpd_arrhdr *h = b;
    *lo = s->lo == INT_MIN ? h->lb : s->lo;
    *hi = s->hi == INT_MAX ? h->ub : s->hi;
    if (*hi < *lo - 1 || (*hi >= *lo && (*lo < h->lb || *hi > h->ub)))
        mpd_rts_abort(f, l, "illegal slice [%d:%d] of array with bounds [%d:%d]", *lo, *hi, h->lb,
                      h->ub);
}

static size_t sec_size(const char *f, int l, const void *b, int n, const mpd_sub *s)
{
    const mpd_arrhdr *h = b;
    if (!s->slice)
        return n == 1 ? (size_t)h->esize : sec_size(f, l, sec_elem(f, l, b, s->lo), n - 1, s + 1);
    int lo, hi;
    sec_range(f, l, b, s, &lo, &hi);
    size_t es = (size_t)h->esize;
    if (n > 1)
        es = hi >= lo ? sec_size(f, l, sec_elem(f, l, b, lo), n - 1, s + 1) : 0;
    return MPD_ALIGN(mpd_arr_size(lo, hi, es));
}

static void sec_fill(const char *f, int l, char *dst, const void *b, int n, const mpd_sub *s)
{
    const mpd_arrhdr *h = b;
    if (!s->slice) {
        char *e = sec_elem(f, l, b, s->lo);
        if (n == 1)
            memcpy(dst, e, (size_t)h->esize);
        else
            sec_fill(f, l, dst, e, n - 1, s + 1);
        return;
    }
    int lo, hi;
    sec_range(f, l, b, s, &lo, &hi);
    size_t es = (size_t)h->esize;
    if (n > 1)
        es = hi >= lo ? sec_size(f, l, sec_elem(f, l, b, lo), n - 1, s + 1) : 0;
    mpd_arr_hdr(dst, 1, hi - lo + 1, (int)es); /* each range is indexed from 1 */
    for (int i = lo; i <= hi; i++) {
        char *d = dst + MPD_ARR_HDR + (size_t)(i - lo) * es;
        char *e = sec_elem(f, l, b, i);
        if (n == 1)
            memcpy(d, e, es);
        else
            sec_fill(f, l, d, e, n - 1, s + 1);
    }
}

void *mpd_arr_section(const char *f, int l, mpd_tmp **t, const void *b, int n, const mpd_sub *s)
{
    size_t sz = sec_size(f, l, b, n, s);
    char *p = mpd_tmp_alloc(t, sz);
    sec_fill(f, l, p, b, n, s);
    return p;
}

static void sec_set(const char *f, int l, void *b, int n, const mpd_sub *s, const void *src)
{
    mpd_arrhdr *h = b;
    if (!s->slice) {
        char *e = sec_elem(f, l, b, s->lo);
        if (n == 1)
            memmove(e, src, (size_t)h->esize);
        else
            sec_set(f, l, e, n - 1, s + 1, src);
        return;
    }
    int lo, hi;
    sec_range(f, l, b, s, &lo, &hi);
    const mpd_arrhdr *hs = src;
    int cnt = hi >= lo ? hi - lo + 1 : 0;
    if (cnt != count(hs))
        mpd_rts_abort(f, l, "size mismatch on assignment to slice: [%d:%d] := [%d:%d]", lo, hi,
                      hs->lb, hs->ub);
    for (int i = 0; i < cnt; i++) {
        const char *se = (const char *)src + MPD_ARR_HDR + (size_t)i * hs->esize;
        char *e = sec_elem(f, l, b, lo + i);
        if (n == 1)
            memmove(e, se, (size_t)(h->esize < hs->esize ? h->esize : hs->esize));
        else
            sec_set(f, l, e, n - 1, s + 1, se);
    }
}

void mpd_arr_section_set(const char *f, int l, void *b, int n, const mpd_sub *s, const void *src)
{
    sec_set(f, l, b, n, s, src);
}

void mpd_arr_assign_d(const char *f, int l, void *a, const void *b, int depth, int leafstr)
{
    mpd_arrhdr *ha = a;
    const mpd_arrhdr *hb = b;
    if (a == b)
        return;
    if (depth <= 1 && !leafstr) {
        mpd_arr_assign(f, l, a, b);
        return;
    }
    if (count(ha) != count(hb))
        mpd_rts_abort(f, l, "size mismatch on array assignment:  [%d:%d] := [%d:%d]", ha->lb,
                      ha->ub, hb->lb, hb->ub);
    int n = count(ha);
    for (int i = 0; i < n; i++) {
        char *da = MPD_ARR_DATA(a) + (size_t)i * ha->esize;
        const char *db = (const char *)b + MPD_ARR_HDR + (size_t)i * hb->esize;
        if (depth > 1) {
            mpd_arr_assign_d(f, l, da, db, depth - 1, leafstr);
        } else {
            const mpd_strhdr *sb = (const mpd_strhdr *)db;
            mpd_strhdr *sa = (mpd_strhdr *)da;
            if (sb->len > sa->max)
                mpd_rts_abort(f, l, "element %d (length=%d) is too long to assign to string[%d]",
                              hb->lb + i, sb->len, sa->max);
            memmove(MPD_STR_CHARS(da), (const char *)db + sizeof(mpd_strhdr), (size_t)sb->len);
            sa->len = sb->len;
        }
    }
}
