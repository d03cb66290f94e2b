/* io_scanf.c: MPD's scanf/sscanf — C's input conversions read by MPD's
 * rules: %i takes MPD literals (12, 12q, 12afx), %o/%x take an optional
 * q/x suffix, %b takes true/false/TRUE/FALSE, %p takes hex or ==null==; a
 * field stops at the first character that cannot extend a legal value. */
#include <stdlib.h>
#include <string.h>
#include "io_internal.h"

#define DEFAULT_WIDTH 512     /* the ANSI limit MPD used for unbounded fields */

typedef struct {
    io_src *in;
    const char *fmt;
    int flen, n;
    const mpd_dest *d;
    long long result;
    const char *err;          /* set instead of aborting inside the input job */
} scan_job;

enum { OK, MATCH_FAIL, INPUT_FAIL };

static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_hex(int c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
static int is_oct(int c) { return c >= '0' && c <= '7'; }

/* Can character c extend the field text t[0..n) toward a legal value? */
typedef int (*extends_fn)(const char *t, int n, int c);

static int signed_start(const char *t, int n, int c, int *body)
{
    int s = n > 0 && (t[0] == '+' || t[0] == '-');
    *body = n - s;
    return n == 0 && (c == '+' || c == '-');
}

static int ends_with_suffix(const char *t, int n)
{
    return n > 0 && strchr("qQxX", t[n - 1]) != NULL;
}

static int ext_dec(const char *t, int n, int c)
{
    int body;
    return signed_start(t, n, c, &body) || is_digit(c);
}

static int ext_lit(const char *t, int n, int c)        /* %i: MPD literal */
{
    int body;
    if (signed_start(t, n, c, &body))
        return 1;
    if (ends_with_suffix(t, n))
        return 0;
    if (body == 0)
        return is_digit(c);
    return is_hex(c) || strchr("qQxX", c) != NULL;
}

static int ext_oct(const char *t, int n, int c)
{
    int body;
    if (signed_start(t, n, c, &body))
        return 1;
    if (ends_with_suffix(t, n))
        return 0;
    return is_oct(c) || (body > 0 && (c == 'q' || c == 'Q'));
}

static int ext_hex(const char *t, int n, int c)
{
    int body;
    if (signed_start(t, n, c, &body))
        return 1;
    if (ends_with_suffix(t, n))
        return 0;
    return is_hex(c) || (body > 0 && (c == 'x' || c == 'X'));
}

static int ext_real(const char *t, int n, int c)
{
    int body, dot = 0, e = 0, digits = 0, edigits = 0;
    if (signed_start(t, n, c, &body))
        return 1;
    for (int i = n - body; i < n; i++) {
        if (t[i] == '.') dot = 1;
        else if (t[i] == 'e' || t[i] == 'E') e = 1;
        else if (is_digit(t[i])) { if (e) edigits++; else digits++; }
    }
    if (is_digit(c))
        return 1;
    if (c == '.')
        return !dot && !e;
    if (c == 'e' || c == 'E')
        return digits > 0 && !e;
    if (c == '+' || c == '-')
        return n > 0 && (t[n - 1] == 'e' || t[n - 1] == 'E');
    (void)edigits;
    return 0;
}

static int ext_bool(const char *t, int n, int c)
{
    static const char *const words[] = { "true", "false", "TRUE", "FALSE" };
    for (int i = 0; i < 4; i++)
        if ((int)strlen(words[i]) > n && strncmp(words[i], t, (size_t)n) == 0 && words[i][n] == c)
            return 1;
    return 0;
}

static int ext_ptr(const char *t, int n, int c)
{
    static const char nul[] = "==null==";
    if (n < 8 && (n == 0 ? c == '=' : t[0] == '='))
        return c == nul[n];
    return (n == 0 || t[0] != '=') && is_hex(c);
}

/* Skips whitespace; 0 if the input ended. */
static int skip_space(io_src *in)
{
    int c;
    do
        c = io_getc(in);
    while (c != EOF && io_isspace(c));
    io_ungetc(in, c);
    return c != EOF;
}

/* Reads up to w characters that keep extending the field. */
static int read_field(io_src *in, io_buf *b, int w, extends_fn ext)
{
    while ((int)b->len < w) {
        int c = io_getc(in);
        if (c == EOF)
            break;
        if (!ext(b->p, (int)b->len, c)) {
            io_ungetc(in, c);
            break;
        }
        io_buf_addc(b, (char)c);
    }
    return (int)b->len;
}

/* Parses the scanset of %[...] starting at fmt[*i] (just past '[') into set. */
static int parse_set(const char *fmt, int len, int *i, unsigned char set[256])
{
    int neg = 0;
    memset(set, 0, 256);
    if (*i < len && fmt[*i] == '^')
        neg = 1, (*i)++;
    int first = 1;
    while (*i < len && (fmt[*i] != ']' || first)) {
        unsigned char c = (unsigned char)fmt[(*i)++];
        if (*i + 1 < len && fmt[*i] == '-' && fmt[*i + 1] != ']') {
            unsigned char hi = (unsigned char)fmt[*i + 1];
            for (int k = c; k <= hi; k++)
                set[k] = 1;
            *i += 2;
        } else {
            set[c] = 1;
        }
        first = 0;
    }
    if (*i >= len)
        return 0;
    (*i)++;   /* the ']' */
    if (neg)
        for (int k = 0; k < 256; k++)
            set[k] = !set[k];
    return 1;
}

static long long parse_base(const char *t, int n, int base)
{
    int neg = n > 0 && t[0] == '-';
    int i = n > 0 && (t[0] == '-' || t[0] == '+');
    unsigned long long v = 0;
    for (; i < n && strchr("qQxX", t[i]) == NULL; i++)
        v = v * (unsigned)base + (unsigned)(is_digit(t[i]) ? t[i] - '0' : (t[i] | 0x20) - 'a' + 10);
    return neg ? -(long long)v : (long long)v;
}

/* One conversion; fmt[*i] is just past the '%'.  Sets j->err on a misuse. */
static int conversion(scan_job *j, int *i, int *argi, long long *count, int *converted)
{
    const char *fmt = j->fmt;
    int len = j->flen, suppress = 0, width = 0;
    if (*i < len && fmt[*i] == '*')
        suppress = 1, (*i)++;
    while (*i < len && is_digit(fmt[*i]))
        width = width * 10 + (fmt[(*i)++] - '0');
    if (*i >= len)
        return j->err = "unterminated conversion spec (%...) in format", MATCH_FAIL;
    char c = fmt[(*i)++];
    if (c == 'h' || c == 'l' || c == 'L')
        return j->err = "illegal size modifier (h/l/L) in format spec", MATCH_FAIL;
    if (c == '%') {
        if (!skip_space(j->in))
            return INPUT_FAIL;
        int k = io_getc(j->in);
        if (k == '%')
            return OK;
        io_ungetc(j->in, k);
        return MATCH_FAIL;
    }
    unsigned char set[256];
    if (c == '[' && !parse_set(fmt, len, i, set))
        return j->err = "unterminated conversion spec (%...) in format", MATCH_FAIL;
    if (!strchr("diouqxXbeEfgGcs[p", c))
        return j->err = "illegal specification character in format", MATCH_FAIL;

    const mpd_dest *d = NULL;
    if (!suppress) {
        if (*argi >= j->n)
            return j->err = "insufficient argument list for format", MATCH_FAIL;
        d = &j->d[(*argi)++];
        const char *want = NULL;
        if (strchr("diouqxX", c) && d->kind != MPD_V_INT)
            want = "format calls for an int argument";
        else if (c == 'b' && d->kind != MPD_V_BOOL)
            want = "format calls for a bool argument";
        else if (strchr("eEfgG", c) && d->kind != MPD_V_REAL)
            want = "format calls for a real argument";
        else if (c == 'p' && d->kind != MPD_V_PTR)
            want = "format calls for a pointer argument";
        else if (strchr("cs[", c) && d->kind != MPD_V_STR &&
                 !(d->kind == MPD_V_CHAR && c != 's' && (width == 1 || (c == 'c' && width == 0))))
            want = c == 's' ? "format calls for a string argument"
                            : "format calls for a char or string argument";
        if (want)
            return j->err = want, MATCH_FAIL;
    }

    io_buf b;
    io_buf_init(&b);
    int r = OK;
    io_src *in = j->in;
    if (c == 'c') {
        int w = width ? width : 1, k;
        while ((int)b.len < w && (k = io_getc(in)) != EOF)
            io_buf_addc(&b, (char)k);
        if (b.len == 0)
            r = INPUT_FAIL;
    } else if (c == '[') {
        int w = width ? width : DEFAULT_WIDTH, k = 0;
        while ((int)b.len < w && (k = io_getc(in)) != EOF && set[k])
            io_buf_addc(&b, (char)k);
        if ((int)b.len < w)
            io_ungetc(in, k);
        if (b.len == 0)
            r = k == EOF ? INPUT_FAIL : MATCH_FAIL;
    } else if (!skip_space(in)) {
        r = INPUT_FAIL;
    } else if (c == 's') {
        int w = width ? width : DEFAULT_WIDTH, k = 0;
        while ((int)b.len < w && (k = io_getc(in)) != EOF && !io_isspace(k))
            io_buf_addc(&b, (char)k);
        if ((int)b.len < w)
            io_ungetc(in, k);
    } else {
        extends_fn ext = c == 'd' || c == 'u' ? ext_dec : c == 'i' ? ext_lit
                       : c == 'o' || c == 'q' ? ext_oct : c == 'x' || c == 'X' ? ext_hex
                       : c == 'b' ? ext_bool : c == 'p' ? ext_ptr : ext_real;
        read_field(in, &b, width ? width : c == 'p' ? 8 : DEFAULT_WIDTH, ext);
        io_buf_add(&b, "", 0);
        b.p[b.len] = 0;
        int n = (int)b.len, ok = n > 0 && (b.p[n - 1] != '+' && b.p[n - 1] != '-');
        long long v = 0;
        double rv = 0;
        void *pv = NULL;
        if (ok) {
            if (c == 'i')
                ok = mpd_parse_int(b.p, n, &v);
            else if (c == 'd' || c == 'u')
                v = atoll(b.p);
            else if (c == 'o' || c == 'q' || c == 'x' || c == 'X') {
                int digits = n - (b.p[0] == '+' || b.p[0] == '-') - ends_with_suffix(b.p, n);
                ok = digits > 0;
                v = parse_base(b.p, n, c == 'o' || c == 'q' ? 8 : 16);
            } else if (c == 'b')
                ok = strcmp(b.p, "true") == 0 || strcmp(b.p, "TRUE") == 0 ||
                     strcmp(b.p, "false") == 0 || strcmp(b.p, "FALSE") == 0, v = b.p[0] == 't' || b.p[0] == 'T';
            else if (c == 'p')
                ok = mpd_parse_ptr(b.p, n, &pv);
            else
                ok = mpd_parse_real(b.p, n, &rv);
        }
        if (!ok)
            r = MATCH_FAIL;
        else if (d && c == 'b')
            io_store_bool(d, (int)v);
        else if (d && c == 'p')
            *(void **)d->addr = pv;
        else if (d && strchr("eEfgG", c))
            *(double *)d->addr = rv;
        else if (d)
            io_store_int(d, v);
    }
    if (r == OK) {
        *converted = 1;
        if (d && strchr("cs[", c)) {
            if (d->kind == MPD_V_CHAR)
                *(unsigned char *)d->addr = (unsigned char)b.p[0];
            else
                io_store_chars(d, b.p, (int)b.len, ' ');
        }
        if (d)
            (*count)++;
    }
    io_buf_free(&b);
    return r;
}

static void do_scan(io_src *in, void *arg)
{
    scan_job *j = arg;
    j->in = in;
    long long count = 0;
    int argi = 0, converted = 0, r = OK;
    for (int i = 0; i < j->flen && r == OK && !j->err;) {
        unsigned char f = (unsigned char)j->fmt[i];
        if (io_isspace(f)) {
            while (i < j->flen && io_isspace((unsigned char)j->fmt[i]))
                i++;
            skip_space(j->in);
        } else if (f == '%') {
            i++;
            r = conversion(j, &i, &argi, &count, &converted);
        } else {
            i++;
            int c = io_getc(j->in);
            if (c != f) {
                io_ungetc(j->in, c);
                r = c == EOF ? INPUT_FAIL : MATCH_FAIL;
            }
        }
    }
    if (r == OK && !j->err && argi < j->n)
        j->err = "too many arguments for format";
    j->result = r == INPUT_FAIL && !converted ? MPD_EOF : count;
}

long long mpd_scanf(const char *file, int line, mpd_file f, const char *fmt, int fmtlen,
                    int n, const mpd_dest *d)
{
    if (!io_usable(file, line, f))
        return MPD_EOF;
    scan_job j = { NULL, fmt, fmtlen, n, d, 0, NULL };
    io_input(f, do_scan, &j);
    if (j.err)
        mpd_rts_abort(file, line, "%s", j.err);
    return j.result;
}

long long mpd_sscanf(const char *file, int line, const char *buf, int buflen,
                     const char *fmt, int fmtlen, int n, const mpd_dest *d)
{
    io_src in = { NULL, NULL, 0, buf, buflen, 0 };
    scan_job j = { NULL, fmt, fmtlen, n, d, 0, NULL };
    do_scan(&in, &j);
    if (j.err)
        mpd_rts_abort(file, line, "%s", j.err);
    return j.result;
}
