/* arr.c: MPD arrays — headers, checked assignment, slices, comparison. */
#include "mpd/lang.h"

void mpd_arr_check_bounds(const char *f, int l, int lb, int ub) {
    if (ub < lb - 1)
        mpd_rts_abort(f, l, "illegal bounds [%d:%d] for array creation", lb, ub);
}

void mpd_arr_hdr(void *b, int lb, int ub, int esize) {
    mpd_arrhdr *h = b;
    h->lb = lb;
    h->ub = ub;
    h->esize = esize;
    h->pad = 0;
}

static int count(const mpd_arrhdr *h) { return h->ub >= h->lb ? h->ub - h->lb + 1 : 0; }

static void copy_elems(void *dst, const void *src, int n, int des, int ses) {
    if (des == ses) {
        memmove(dst, src, (size_t)n * (size_t)des);
        return;
    }
    /* element blobs of different capacity (e.g. string[7] into string[3]) */
    for (int i = 0; i < n; i++)
        memmove((char *)dst + (size_t)i * des, (const char *)src + (size_t)i * ses, (size_t)(des < ses ? des : ses));
}

void mpd_arr_assign(const char *f, int l, void *a, const void *b) {
    mpd_arrhdr *ha = a;
    const mpd_arrhdr *hb = b;
    if (a == b) return;
    if (count(ha) != count(hb))
        mpd_rts_abort(f, l, "size mismatch on array assignment:  [%d:%d] := [%d:%d]", ha->lb, ha->ub, hb->lb, hb->ub);
    copy_elems(MPD_ARR_DATA(a), (const char *)b + MPD_ARR_HDR, count(ha), ha->esize, hb->esize);
}

void *mpd_arr_dup(mpd_tmp **t, const void *b) {
    const mpd_arrhdr *h = b;
    size_t n = mpd_arr_size(h->lb, h->ub, (size_t)h->esize);
    void *p = mpd_tmp_alloc(t, n);
    memcpy(p, b, n);
    return p;
}

void *mpd_arr_slice(const char *f, int l, mpd_tmp **t, const void *a, int lo, int hi) {
    const mpd_arrhdr *h = a;
    if (hi < lo - 1 || (hi >= lo && (lo < h->lb || hi > h->ub)))
        mpd_rts_abort(f, l, "illegal slice [%d:%d] of array with bounds [%d:%d]", lo, hi, h->lb, h->ub);
    size_t n = mpd_arr_size(lo, hi, (size_t)h->esize);
    void *p = mpd_tmp_alloc(t, n);
    mpd_arr_hdr(p, lo, hi, h->esize);
    if (hi >= lo)
        memcpy(MPD_ARR_DATA(p), (const char *)a + MPD_ARR_HDR + (size_t)(lo - h->lb) * h->esize,
               (size_t)(hi - lo + 1) * h->esize);
    return p;
}

void mpd_arr_slice_set(const char *f, int l, void *a, int lo, int hi, const void *v) {
    mpd_arrhdr *h = a;
    const mpd_arrhdr *hv = v;
    if (hi < lo - 1 || (hi >= lo && (lo < h->lb || hi > h->ub)))
        mpd_rts_abort(f, l, "illegal slice [%d:%d] of array with bounds [%d:%d]", lo, hi, h->lb, h->ub);
    int n = hi >= lo ? hi - lo + 1 : 0;
    if (n != count(hv))
        mpd_rts_abort(f, l, "size mismatch on array assignment:  [%d:%d] := [%d:%d]", lo, hi, hv->lb, hv->ub);
    copy_elems(MPD_ARR_DATA(a) + (size_t)(lo - h->lb) * h->esize, (const char *)v + MPD_ARR_HDR, n, h->esize,
               hv->esize);
}

int mpd_arr_eq(const void *a, const void *b) {
    const mpd_arrhdr *ha = a, *hb = b;
    if (count(ha) != count(hb) || ha->esize != hb->esize) return 0;
    return memcmp((const char *)a + MPD_ARR_HDR, (const char *)b + MPD_ARR_HDR,
                  (size_t)count(ha) * ha->esize) == 0;
}
