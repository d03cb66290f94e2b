/* mpd/abi/lang.h: MPD language-core support for generated code — temporaries,
 * strings, arrays, records (blobs), pointers, arithmetic and runtime checks.
 *
 * Value model (see docs/compiler.md):
 *  - bool, char, int, real, enum, pointers are C scalars (_Bool, unsigned char,
 *    int, double, int, void*).
 *  - strings, arrays and records are "blobs": 16-byte aligned memory with a
 *    self-describing header, copied by value with memcpy-like helpers.
 *      string[n] blob : mpd_strhdr {len, max} then max bytes.
 *      array blob     : mpd_arrhdr {lb, ub, esize, pad} then (ub-lb+1)
 *                       elements of esize bytes.  A k-dimensional array is an
 *                       array of (k-1)-dimensional array blobs.
 *      record blob    : fields at offsets fixed by the compiler.
 *  - A string expression value is an mpd_sv (pointer, length) view.
 *  - Temporaries of one statement live on a list (mpd_tmp) freed when the
 *    statement ends; that keeps them per process, so processes may switch
 *    in the middle of an expression. */
#ifndef MPD_LANG_H
#define MPD_LANG_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdbool.h>
#include <limits.h>
#include "mpd/err.h"
#include "mpd/abi/io.h"
#include "mpd/abi/ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- temporaries ---------------------------------------------------- */
typedef struct mpd_tmp mpd_tmp;
void *mpd_tmp_alloc(mpd_tmp **list, size_t n); /* zeroed, 16-aligned */
/* The same with only the first `zeroed` bytes zeroed: an invocation block
 * whose dynamic parameters (after its fixed part) are copied over next */
void *mpd_tmp_alloc_head(mpd_tmp **list, size_t n, size_t zeroed);
void mpd__tmp_free_list(mpd_tmp **list);
/* Frees the statement's temporaries; inline because most statements made none. */
static inline void mpd_tmp_free(mpd_tmp **list)
{
    if (__builtin_expect(*list != 0, 0))
        mpd__tmp_free_list(list);
}
void *mpd_blob_new(size_t n); /* zeroed heap blob */
struct mpd_res;
void *mpd_res_blob_new(struct mpd_res *r, size_t n); /* zeroed, freed with instance r */
void mpd_blob_free(void *p);

#define MPD_ALIGN(n) (((size_t)(n) + 15) & ~(size_t)15)

/* ---- strings ---------------------------------------------------------- */
typedef struct {
    int len;
    int max;
} mpd_strhdr;
typedef struct {
    const char *p;
    int len;
} mpd_sv;

#define MPD_STR_SIZE(max) MPD_ALIGN(sizeof(mpd_strhdr) + (size_t)(max) + 1)
#define MPD_STR_LEN(b) (((mpd_strhdr *)(b))->len)
#define MPD_STR_MAX(b) (((mpd_strhdr *)(b))->max)
#define MPD_STR_CHARS(b) ((char *)(b) + sizeof(mpd_strhdr))

static inline mpd_sv mpd_sv_of(const void *blob)
{
    mpd_sv v = {(const char *)blob + sizeof(mpd_strhdr), ((const mpd_strhdr *)blob)->len};
    return v;
}
static inline mpd_sv mpd_sv_lit(const char *p, int len)
{
    mpd_sv v = {p, len};
    return v;
}
void mpd_str_init(void *blob, int max);
/* the characters of a string blob, NUL-terminated (for external C functions) */
static inline char *mpd_str_cstr(void *blob)
{
    char *c = MPD_STR_CHARS(blob);
    c[MPD_STR_LEN(blob)] = 0;
    return c;
}
/* a C string result of an external: NULL is "", at most max characters */
mpd_sv mpd_sv_cstr(const char *p, int max);
/* after an external stored into a var/res string: length up to its NUL */
void mpd_str_sync_cstr(void *blob);
void mpd_str_set(const char *f, int l, void *blob, mpd_sv v); /* length-checked */
/* s = s || v, in place (the compiler's form of that assignment): linear in
 * v, where set(cat(s, v)) copies s twice; same check and message as set */
void mpd_str_append(const char *f, int l, void *blob, mpd_sv v);
/* locate(n, host [, path]): machine number n names host (path, the
 * executable to start there, is only checked: every vm lives in this
 * process).  A host name longer than 255 characters or a path longer than
 * 4095 aborts ("strings too long in locate call", as MPD 1.0.1 reports it
 * for its virtual machine).  mpd_vm_machine_of(host) is the number located
 * for host (create vm() on "host"); 0 (this machine) for a host never
 * located.  See mpd_vm_create in mpd/abi/ops.h. */
void mpd_vm_locate(const char *F, int L, int n, mpd_sv host, mpd_sv path);
int mpd_vm_machine_of(mpd_sv host);
mpd_sv mpd_str_cat(mpd_tmp **t, mpd_sv a, mpd_sv b);
mpd_sv mpd_str_char(mpd_tmp **t, unsigned char c);
int mpd_str_cmp(mpd_sv a, mpd_sv b);
unsigned char mpd_str_get(const char *f, int l, const void *blob, int i);
char *mpd_str_at(const char *f, int l, void *blob, int i); /* lvalue s[i] */
mpd_sv mpd_str_slice(const char *f, int l, mpd_sv s, int smax, int lo, int hi);
void mpd_str_slice_set(const char *f, int l, void *blob, int lo, int hi, mpd_sv v);
mpd_sv mpd_str_copy(mpd_tmp **t, mpd_sv v); /* detach from its source */
/* blob of string[max] holding v (for passing values to procedures) */
void *mpd_str_blob(mpd_tmp **t, mpd_sv v, int max);

/* ---- arrays ----------------------------------------------------------- */
typedef struct {
    int lb, ub, esize, pad;
} mpd_arrhdr;
#define MPD_ARR_HDR ((size_t)sizeof(mpd_arrhdr))
#define MPD_ARR_LB(b) (((mpd_arrhdr *)(b))->lb)
#define MPD_ARR_UB(b) (((mpd_arrhdr *)(b))->ub)
#define MPD_ARR_ES(b) (((mpd_arrhdr *)(b))->esize)
#define MPD_ARR_DATA(b) ((char *)(b) + MPD_ARR_HDR)
static inline size_t mpd_arr_size(int lb, int ub, size_t esize)
{
    return MPD_ARR_HDR + (ub >= lb ? (size_t)(ub - lb + 1) * esize : 0);
}
/* element address with bounds check */
static inline char *mpd_arr_elem(const char *f, int l, void *b, int i)
{
    mpd_arrhdr *h = (mpd_arrhdr *)b;
    if (__builtin_expect(i < h->lb || i > h->ub, 0))
        mpd_rts_abort(f, l, "illegal subscript [%d] of array with bounds [%d:%d]", i, h->lb, h->ub);
    return (char *)b + MPD_ARR_HDR + (size_t)(i - h->lb) * (size_t)h->esize;
}
static inline char *mpd_arr_elem_nc(void *b, int i)
{
    mpd_arrhdr *h = (mpd_arrhdr *)b;
    return (char *)b + MPD_ARR_HDR + (size_t)(i - h->lb) * (size_t)h->esize;
}
void mpd_arr_check_bounds(const char *f, int l, int lb, int ub);
void mpd_arr_hdr(void *b, int lb, int ub, int esize);
/* a := b (same element layout, counts must match; bounds of a are kept) */
void mpd_arr_assign(const char *f, int l, void *a, const void *b);
/* a := b for `depth` nested array levels, keeping a's inner bounds; with
 * leafstr the innermost elements are strings (checked against a's maxima) */
void mpd_arr_assign_d(const char *f, int l, void *a, const void *b, int depth, int leafstr);
/* copy of b as a new temporary blob */
void *mpd_arr_dup(mpd_tmp **t, const void *b);
/* slice a[lo:hi] as a new temporary blob (bounds 1..hi-lo+1, as MPD) */
void *mpd_arr_slice(const char *f, int l, mpd_tmp **t, const void *a, int lo, int hi);
void mpd_arr_slice_set(const char *f, int l, void *a, int lo, int hi, const void *v);
/* whole-array equality by bytes of the elements (counts must match) */
int mpd_arr_eq(const void *a, const void *b);
/* array parameters: give a copy the formal's bounds, level by level: lbs[i]
 * fixes the lower bound; when it is INT_MIN, ubs[i] fixes the upper one
 * (`[*:hi]`); both INT_MIN keep the actual's.  Copy the elements back into
 * the actual on return */
void mpd_arr_rebase(void *b, int depth, const int *lbs, const int *ubs);
void mpd_arr_copyback(void *dst, const void *src, int depth);
/* sections: several subscripts, some of them ranges (a[*, 2] is column 2).
 * A range with lo INT_MIN / hi INT_MAX means the bound of that dimension. */
typedef struct {
    int slice, lo, hi;
} mpd_sub;
void *mpd_arr_section(const char *f, int l, mpd_tmp **t, const void *b, int n, const mpd_sub *s);
void mpd_arr_section_set(const char *f, int l, void *b, int n, const mpd_sub *s, const void *src);
/* chars(s) and string(a) conversions */
void *mpd_chars(mpd_tmp **t, mpd_sv s);
mpd_sv mpd_string_of_chars(mpd_tmp **t, const void *a);
/* assign a char array to a string variable (checked) */
void mpd_str_set_chars(const char *f, int l, void *blob, const void *a);

/* ---- blobs in general ------------------------------------------------- */
static inline void mpd_blob_copy(void *dst, const void *src, size_t n)
{
    if (dst != src)
        memmove(dst, src, n);
}

/* ---- arithmetic and conversions --------------------------------------- */
int mpd_int_pow(const char *f, int l, int i, int j);
double mpd_real_pow(const char *f, int l, double x, double y);
double mpd_real_powi(const char *f, int l, double x, int j);
int mpd_int_mod(const char *f, int l, int i, int j);
int mpd_int_div(const char *f, int l, int i, int j);
double mpd_real_mod(const char *f, int l, double x, double y);
double mpd_real_rem(const char *f, int l, double x, double y);
unsigned char mpd_char_of_int(const char *f, int l, int i);
int mpd_enum_check(const char *f, int l, int v, int n, const char *tname);
void mpd_check_null_ptr(const char *f, int l, const void *p);

/* ---- new/free --------------------------------------------------------- */
void *mpd_new(size_t n);
void mpd_free(const char *f, int l, void *p);

/* ---- more blob helpers ------------------------------------------------- */
enum { MPD_BLOB_STR = -1, MPD_BLOB_ARR = -2 };
/* size of a blob: kind MPD_BLOB_STR / MPD_BLOB_ARR read it from the header,
 * otherwise kind is the size */
size_t mpd_blob_size_k(const void *b, int kind);
void *mpd_blob_dup(mpd_tmp **t, const void *b, int kind);
void mpd_blob_swap(void *a, void *b, size_t n);
void mpd_str_swap(const char *f, int l, void *a, void *b);
void mpd_arr_swap(const char *f, int l, void *a, void *b);
int mpd_rep_count(const char *f, int l, int n);
#define mpd_blob_size(b) mpd_arr_size(MPD_ARR_LB(b), MPD_ARR_UB(b), MPD_ARR_ES(b))

/* ---- checks and small operators ---------------------------------------- */
static inline void *mpd_ptr_check(const char *f, int l, void *p)
{
    if (__builtin_expect(p == NULL, 0))
        mpd_rts_abort(f, l, "null pointer dereference");
    return p;
}
int mpd_int_rem(const char *f, int l, int i, int j);
static inline int mpd_int_abs(int i)
{
    return i < 0 ? (int)(0u - (unsigned)i) : i;
}
int mpd_ord_step(const char *f, int l, int v, int lo, int hi, const char *what);

/* v[i] = val in a realloc'ed vector of capacity *cap (co quantifier values) */
int *mpd_ivec_set(int *v, int *cap, int i, int val);

/* sem s[...] = array: element k of the array (row by row) initialises sem idx+k */
void mpd_sem_init_arr(const char *f, int l, mpd_res *self, uint32_t idx, uint32_t n, const void *a,
                      int depth);
/* the same for semaphores MPD does not make semaphores (mpd_op_sem_held) */
void mpd_sem_init_arr_held(const char *f, int l, mpd_res *self, uint32_t idx, uint32_t n,
                           const void *a, int depth);

/* the capability of an op known by pointer (an element of an op array) */
static inline mpd_cap mpd_cap_of_op(mpd_op *op)
{
    return mpd_cap_of(op->owner, op->idx);
}

/* ---- glue to mpd/abi/io.h --------------------------------------------------- */
static inline mpd_val mpd_v_sv(mpd_sv s)
{
    return MPD_VS(s.p, s.len);
}
static inline mpd_val mpd_v_chars(const void *a)
{
    int n = MPD_ARR_UB(a) - MPD_ARR_LB(a) + 1;
    return MPD_VS((const char *)a + MPD_ARR_HDR, n < 0 ? 0 : n);
}
static inline mpd_dest mpd_d_str(void *b)
{
    return MPD_DS(MPD_STR_CHARS(b), MPD_STR_MAX(b), &MPD_STR_LEN(b));
}
static inline mpd_dest mpd_d_chars(void *a)
{
    int n = MPD_ARR_UB(a) - MPD_ARR_LB(a) + 1;
    return MPD_DA(MPD_ARR_DATA(a), n < 0 ? 0 : n);
}
/* string(x) of a scalar as a temporary view */
mpd_sv mpd_string_of_val(const char *f, int l, mpd_tmp **t, mpd_val v);

/* ---- program ------------------------------------------------------------ */
/* stop(n): flush output and end the program with status n */
_Noreturn void mpd_lang_stop(int n);
void mpd_lang_nap(int ms);
/* Called before the main resource starts; remembers argv for getarg. */
void mpd_lang_start(int argc, char **argv);
extern int mpd_lang_argc;
extern char **mpd_lang_argv;

#ifdef __cplusplus
}
#endif
#endif
