/* io_scanf.c: MPD's scanf/sscanf, conversion by conversion the way MPD 1.0.1
 * reads them (its behaviour, checked against the original, is listed in
 * docs/lang-runtime.md, "read, get, scanf").  It is not C's scanf:
 *   - a character of the format other than '%' matches exactly one equal
 *     input character (a blank matches one blank; nothing is skipped);
 *   - %i takes MPD literals (12, 17q, 1fx), %o/%x an optional q/x suffix,
 *     %b true/false/TRUE/FALSE (a width compares a prefix), %p hex digits or
 *     ==null==;
 *   - with no width a field is at most 512 characters, 8 for %p, and 1 when
 *     the destination is a char (so %s and %[ can fill a char);
 *   - the destination's type is checked when the field has been read: a
 *     mismatch aborts, but input that fails first just ends the statement. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "io_internal.h"

#define FIELD_MAX 512       /* MPD's (ANSI's) limit on one field */
#define WIDTH_DIGITS_MAX 50 /* a width of this many digits is an error */
#define MISMATCH "arguments do not match format string"

/* How a conversion ends the statement: go on, return the count, or return
 * the count but EOF when nothing was converted yet. */
enum { GO, STOP, STOP_EOF };

typedef struct {
    io_src *in;
    const char *fmt;
    int flen, fi; /* the format and the position in it */
    const mpd_dest *d;
    int n, argi;     /* destinations and the next one */
    long long nread; /* values stored */
    const char *err; /* set instead of aborting inside the input job */
} scan_job;

static int is_digit(int c)
{
    return c >= '0' && c <= '9';
}
static int is_hex(int c)
{
    return is_digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

/* The next format character, '\0' at the end. */
static char fmt_next(scan_job *j)
{
    return j->fi < j->flen ? j->fmt[j->fi++] : '\0';
}
static char fmt_peek(const scan_job *j)
{
    return j->fi < j->flen ? j->fmt[j->fi] : '\0';
}

/* MPD's letter for the type of the next destination (0: none left). */
static char arg_type(const scan_job *j)
{
    if (j->argi >= j->n)
        return 0;
    const mpd_dest *d = &j->d[j->argi];
    switch (d->kind) {
    case MPD_V_INT:
        return 'i';
    case MPD_V_REAL:
        return 'r';
    case MPD_V_CHAR:
        return 'c';
    case MPD_V_BOOL:
        return 'b';
    case MPD_V_PTR:
        return 'p';
    case MPD_V_STR:
        return d->len ? 's' : 'a'; /* string, or char array */
    default:
        return '?';
    }
}

/* The next destination, which must have type t; NULL (and the error set)
 * if it does not. */
static const mpd_dest *take(scan_job *j, char t)
{
    if (arg_type(j) != t) {
        j->err = MISMATCH;
        return NULL;
    }
    return &j->d[j->argi++];
}

/* ---- reading fields; each returns the field's length, or -1 when the
 * input ended before it ---- */

static int skip_blanks(io_src *in)
{
    int c;
    while ((c = io_getc(in)) != EOF && io_isspace(c))
        ;
    return c;
}

/* Up to len non-blank characters after blanks (%s, %b). */
static int read_token(io_src *in, char *buf, int len)
{
    int c = skip_blanks(in), n = 0;
    if (c == EOF)
        return -1;
    while (c != EOF && !io_isspace(c) && n < len) {
        buf[n++] = (char)c;
        c = io_getc(in);
    }
    io_ungetc(in, c);
    return n;
}

/* Up to len characters of the set, blanks included (%[). */
static int read_from_set(io_src *in, char *buf, int len, const unsigned char *set)
{
    int c = io_getc(in), n = 0;
    if (c == EOF)
        return -1;
    while (c != EOF && set[c] && n < len) {
        buf[n++] = (char)c;
        c = io_getc(in);
    }
    io_ungetc(in, c);
    return n;
}

/* The digits of an integer for conversion *type (d u q x i); a q or x
 * suffix is consumed and sets *type.  %i turns hex when it meets a hex
 * letter, and then needs the x suffix: without it the field is 0 long. */
static int read_integer(io_src *in, char *buf, int len, char *type)
{
    int c = skip_blanks(in), n = 0, need_x = 0;
    if (c == EOF)
        return -1;
    if (c == '-' && *type == 'u') {
        io_ungetc(in, c);
        return 0;
    }
    if (c == '-' || c == '+')
        buf[n++] = (char)c;
    else
        io_ungetc(in, c);
    while (n < len && (c = io_getc(in)) != EOF) {
        if (c >= '0' && c <= '7') {
            buf[n++] = (char)c;
        } else if (c == '8' || c == '9') {
            if (*type == 'q')
                break;
            buf[n++] = (char)c;
        } else if (is_hex(c)) {
            if (*type == 'i')
                *type = 'x', need_x = 1;
            if (*type != 'x')
                break;
            buf[n++] = (char)c;
        } else if ((c == 'x' || c == 'X') && (*type == 'x' || *type == 'i')) {
            *type = 'x';
            return need_x = 0, n;
        } else if ((c == 'q' || c == 'Q') && (*type == 'q' || *type == 'i')) {
            *type = 'q';
            return n;
        } else {
            break;
        }
    }
    if (c != EOF && n >= len && need_x) { /* the width ended the hex digits */
        io_ungetc(in, c);
        return 0;
    }
    if (n < len)
        io_ungetc(in, c);
    return need_x ? 0 : n;
}

/* A real: [sign] digits [. digits] [e [sign] digits], at most len long.
 * A field the width cuts inside the fraction marker or the exponent marker
 * fails, as in MPD. */
static int read_real(io_src *in, char *buf, int len)
{
    int c = skip_blanks(in), n = 0, int_digits = 0, dot = 0;
    if (c == EOF)
        return -1;
    if (c == '-' || c == '+') {
        buf[n++] = (char)c;
        c = io_getc(in);
    }
    if (n >= len)
        return 0;
    for (; is_digit(c); c = io_getc(in)) {
        buf[n++] = (char)c;
        int_digits = 1;
        if (n >= len)
            return n;
    }
    if (c == '.') {
        dot = 1;
        buf[n++] = (char)c;
        c = io_getc(in);
        if (n >= len || (!is_digit(c) && !int_digits))
            return 0;
        for (; is_digit(c); c = io_getc(in)) {
            buf[n++] = (char)c;
            if (n >= len)
                return n;
        }
    }
    if (c == 'e' || c == 'E') {
        buf[n++] = (char)c;
        if (n >= len)
            return 0;
        c = io_getc(in);
        if (c == '-' || c == '+') {
            buf[n++] = (char)c;
            if (n >= len)
                return 0;
            c = io_getc(in);
        }
        if (!is_digit(c)) { /* "1.5e" reads as 1.5; "1e" is no real */
            if (!dot)
                return 0;
            io_ungetc(in, c);
            return n;
        }
        for (; is_digit(c); c = io_getc(in)) {
            buf[n++] = (char)c;
            if (n >= len)
                return n;
        }
    }
    io_ungetc(in, c);
    return n;
}

/* Hex digits (a following x is consumed), or "=..." up to a blank. */
static int read_pointer(io_src *in, char *buf, int len)
{
    int c = skip_blanks(in), n = 0;
    if (c == EOF)
        return -1;
    if (c == '=') {
        for (; n < len && c != EOF && !io_isspace(c); c = io_getc(in))
            buf[n++] = (char)c;
        io_ungetc(in, c);
    } else {
        for (; n < len && is_hex(c); c = io_getc(in))
            buf[n++] = (char)c;
        if (c != 'x' && c != 'X')
            io_ungetc(in, c);
    }
    return n;
}

/* ---- converting fields ---- */

/* The int C's sscanf gave MPD on 32 bits: %d saturates, %o/%x wrap a
 * negative value, and a magnitude above 32 bits is all ones (-1, as
 * strtoul's ULONG_MAX, whatever the sign).  0 if there is no digit. */
static int field_to_int(const char *buf, int n, char type, long long *out)
{
    int neg = n > 0 && buf[0] == '-', i = n > 0 && (buf[0] == '-' || buf[0] == '+');
    if (i >= n)
        return 0;
    int base = type == 'q' ? 8 : type == 'x' ? 16 : 10;
    unsigned long long mag = 0;
    for (; i < n; i++) {
        int dv = is_digit(buf[i]) ? buf[i] - '0' : (buf[i] | 0x20) - 'a' + 10;
        if (dv >= base)
            break;
        if (mag <= UINT32_MAX)
            mag = mag * (unsigned)base + (unsigned)dv;
    }
    *out = mpd_int_from_magnitude(mag, neg, base); /* int(s)'s rule */
    return 1;
}

static int field_to_ptr(const char *buf, int n, void **out)
{
    if (n == 8 && memcmp(buf, "==null==", 8) == 0) {
        *out = NULL;
        return 1;
    }
    uintptr_t v = 0;
    int i = 0;
    for (; i < n && is_hex(buf[i]); i++)
        v = v * 16 + (uintptr_t)(is_digit(buf[i]) ? buf[i] - '0' : (buf[i] | 0x20) - 'a' + 10);
    *out = (void *)v;
    return i > 0;
}

/* strncmp(buf, word, w) == 0 for the w characters of a %Nb field. */
static int prefix_is(const char *buf, int w, const char *word)
{
    return strncmp(buf, word, (size_t)w) == 0;
}

/* Stores n characters into a char array, blank-padded, or a string. */
static void store_chars(const mpd_dest *d, const char *p, int n)
{
    io_store_chars(d, p, n, ' ');
}

/* ---- one conversion each ---- */

typedef struct {
    char c; /* conversion letter */
    int suppress, width, has_width;
} spec;

static int conv_integer(scan_job *j, spec *s, char *buf)
{
    char type = s->c == 'o' ? 'q' : s->c;
    int n = read_integer(j->in, buf, s->width, &type);
    if (n < 0)
        return STOP_EOF;
    if (n == 0)
        return STOP;
    if (s->suppress)
        return GO;
    const mpd_dest *d = take(j, 'i');
    long long v;
    if (!d)
        return STOP;
    if (!field_to_int(buf, n, type == 'i' || type == 'u' ? 'd' : type, &v))
        return STOP;
    io_store_int(d, v);
    j->nread++;
    return GO;
}

static int conv_real(scan_job *j, spec *s, char *buf)
{
    int n = read_real(j->in, buf, s->width);
    if (n < 0)
        return STOP_EOF;
    if (n == 0)
        return STOP;
    if (s->suppress)
        return GO;
    const mpd_dest *d = take(j, 'r');
    if (!d)
        return STOP;
    buf[n] = 0;
    char *end;
    double v = strtod(buf, &end);
    if (end == buf)
        return STOP;
    *(double *)d->addr = v;
    j->nread++;
    return GO;
}

static int conv_bool(scan_job *j, spec *s, char *buf)
{
    int v, n;
    if (s->has_width) { /* exactly width characters, a prefix of a word */
        n = read_token(j->in, buf, s->width);
        if (n < 0)
            return STOP_EOF;
        buf[n] = 0;
        if (n != s->width)
            return STOP;
        if (prefix_is(buf, n, "true ") || prefix_is(buf, n, "TRUE "))
            v = 1;
        else if (prefix_is(buf, n, "false") || prefix_is(buf, n, "FALSE"))
            v = 0;
        else
            return STOP;
    } else {
        n = read_token(j->in, buf, 4);
        if (n < 0)
            return STOP_EOF;
        if (n != 4)
            return STOP;
        if (memcmp(buf, "true", 4) == 0 || memcmp(buf, "TRUE", 4) == 0) {
            v = 1;
        } else if (memcmp(buf, "fals", 4) == 0 || memcmp(buf, "FALS", 4) == 0) {
            int c = io_getc(j->in);
            if (c == EOF)
                return STOP_EOF;
            if (c != (buf[0] == 'f' ? 'e' : 'E'))
                return STOP;
            v = 0;
        } else {
            return STOP;
        }
    }
    if (s->suppress)
        return GO;
    const mpd_dest *d = take(j, 'b');
    if (!d)
        return STOP;
    io_store_bool(d, v);
    j->nread++;
    return GO;
}

static int conv_pointer(scan_job *j, spec *s, char *buf)
{
    int n = read_pointer(j->in, buf, s->has_width ? s->width : 8);
    void *p;
    if (n < 0)
        return STOP_EOF;
    if (n == 0 || !field_to_ptr(buf, n, &p))
        return STOP;
    if (s->suppress)
        return GO;
    const mpd_dest *d = take(j, 'p');
    if (!d)
        return STOP;
    *(void **)d->addr = p;
    j->nread++;
    return GO;
}

/* %s and %[ (set != NULL): one char when the destination is a char and the
 * width 1; a char array takes at most its size; a string the field, cut to
 * its maximum length. */
static int conv_string(scan_job *j, spec *s, char *buf, const unsigned char *set)
{
    char t = s->suppress ? 0 : arg_type(j);
    int n;
    if (t == 'c' && s->width == 1) {
        int c = set ? io_getc(j->in) : skip_blanks(j->in);
        if (c == EOF || (set && !set[c]))
            return STOP_EOF;
        *(unsigned char *)j->d[j->argi++].addr = (unsigned char)c;
        j->nread++;
        return GO;
    }
    int w = s->width;
    if (t == 'a' && j->d[j->argi].size < w)
        w = j->d[j->argi].size;
    n = set ? read_from_set(j->in, buf, w, set) : read_token(j->in, buf, w);
    if (n < 0)
        return STOP_EOF;
    if (n == 0)
        return STOP;
    if (s->suppress)
        return GO;
    const mpd_dest *d = t == 'a' ? &j->d[j->argi++] : take(j, 's');
    if (!d)
        return STOP;
    store_chars(d, buf, n);
    j->nread++;
    return GO;
}

/* %c: width characters (default 1), blanks included. */
static int conv_chars(scan_job *j, spec *s, char *buf)
{
    int w = s->has_width ? s->width : 1, n = 0, c = 0;
    if (s->suppress) {
        for (; n < w && (c = io_getc(j->in)) != EOF; n++)
            ;
        return n == 0 ? STOP_EOF : GO;
    }
    char t = arg_type(j);
    if (t == 'c') {
        if (s->has_width && w != 1) {
            j->err = "invalid field width for char variable";
            return STOP;
        }
        if ((c = io_getc(j->in)) == EOF)
            return STOP_EOF;
        *(unsigned char *)j->d[j->argi++].addr = (unsigned char)c;
        j->nread++;
        return GO;
    }
    if (t != 'a' && t != 's') {
        j->err = MISMATCH;
        return STOP;
    }
    const mpd_dest *d = &j->d[j->argi++];
    if (d->size == 0 && t == 'a')
        return GO;
    if (d->size < w)
        w = d->size;
    while (n < w && (c = io_getc(j->in)) != EOF)
        buf[n++] = (char)c;
    if (n == 0)
        return STOP_EOF;
    store_chars(d, buf, n);
    j->nread++;
    return c == EOF ? STOP : GO;
}

/* The set of %[...]; the format position is just past '['.  A ']' right
 * after '[' or '[^' belongs to the set; "a-z" is a range. */
static int parse_set(scan_job *j, unsigned char set[256])
{
    int in = 1;
    if (fmt_peek(j) == '^')
        in = 0, j->fi++;
    memset(set, !in, 256);
    int start = j->fi;
    for (;;) {
        unsigned char c = (unsigned char)fmt_next(j);
        if (c == ']' && j->fi != start + 1)
            return 1;
        if (c == '\0')
            break;
        if (fmt_peek(j) == '-') {
            j->fi++;
            unsigned char hi = (unsigned char)fmt_next(j);
            if (hi == '\0')
                break;
            for (int k = c; k <= hi; k++)
                set[k] = (unsigned char)in;
        } else {
            set[c] = (unsigned char)in;
        }
    }
    j->err = "premature termination of format string";
    return 0;
}

/* The width digits; the format position is at the first one. */
static int parse_width(scan_job *j, int *width)
{
    int digits = 0;
    long long w = 0;
    while (is_digit(fmt_peek(j))) {
        if (++digits >= WIDTH_DIGITS_MAX)
            return j->err = "field width specifier too long", 0;
        if (w <= INT_MAX)
            w = w * 10 + (fmt_next(j) - '0');
        else
            j->fi++;
    }
    if (w > FIELD_MAX)
        return j->err = "field width too large", 0;
    if (w <= 0)
        return j->err = "field width must be greater than zero", 0;
    *width = (int)w;
    return 1;
}

/* One conversion; the format position is just past the '%'. */
static int conversion(scan_job *j)
{
    char buf[FIELD_MAX + 1];
    spec s = {0, 0, 0, 0};
    if (fmt_peek(j) == '%') { /* a literal '%', no blanks skipped */
        j->fi++;
        int c = io_getc(j->in);
        return c == '%' ? GO : c == EOF ? STOP_EOF : STOP;
    }
    if (fmt_peek(j) == '*')
        s.suppress = 1, j->fi++;
    if (is_digit(fmt_peek(j))) {
        if (!parse_width(j, &s.width))
            return STOP;
        s.has_width = 1;
    } else {
        s.width = arg_type(j) == 'c' && !s.suppress ? 1 : FIELD_MAX;
    }
    s.c = fmt_next(j);
    unsigned char set[256];
    switch (s.c) {
    case '\0':
        j->err = "premature termination of format string";
        return STOP;
    case 'd':
    case 'u':
    case 'o':
    case 'q':
    case 'x':
    case 'i':
        return conv_integer(j, &s, buf);
    case 'e':
    case 'f':
    case 'g':
        return conv_real(j, &s, buf);
    case 'b':
        return conv_bool(j, &s, buf);
    case 'p':
        return conv_pointer(j, &s, buf);
    case 's':
        return conv_string(j, &s, buf, NULL);
    case '[':
        return parse_set(j, set) ? conv_string(j, &s, buf, set) : STOP;
    case 'c':
        return conv_chars(j, &s, buf);
    default:
        j->err = "invalid field specifier in format string";
        return STOP;
    }
}

static void do_scan(io_src *in, void *arg)
{
    scan_job *j = arg;
    int r = GO;
    j->in = in;
    while (r == GO && !j->err && j->fi < j->flen) {
        char f = fmt_next(j);
        if (f == '%') {
            r = conversion(j);
        } else if (io_getc(in) != (unsigned char)f) { /* consumed even so */
            r = STOP;
        }
    }
    if (r == GO && !j->err && j->argi < j->n)
        j->err = "more arguments than fields in format string";
    if (r == STOP_EOF && j->nread == 0)
        j->nread = MPD_EOF;
}

/* The format ends at a NUL, as MPD's C string did. */
static int c_length(const char *p, int len)
{
    const char *z = memchr(p, 0, (size_t)len);
    return z ? (int)(z - p) : len;
}

long long mpd_scanf(const char *file, int line, mpd_file f, const char *fmt, int fmtlen, int n,
                    const mpd_dest *d)
{
    if (!io_usable(file, line, f))
        return MPD_EOF;
    scan_job j = {NULL, fmt, c_length(fmt, fmtlen), 0, d, n, 0, 0, NULL};
    io_input(f, do_scan, &j);
    if (j.err)
        mpd_rts_abort(file, line, "%s", j.err);
    return j.nread;
}

long long mpd_sscanf(const char *file, int line, const char *buf, int buflen, const char *fmt,
                     int fmtlen, int n, const mpd_dest *d)
{
    io_src in = {NULL, NULL, 0, buf, c_length(buf, buflen), 0};
    scan_job j = {NULL, fmt, c_length(fmt, fmtlen), 0, d, n, 0, 0, NULL};
    do_scan(&in, &j);
    if (j.err)
        mpd_rts_abort(file, line, "%s", j.err);
    return j.nread;
}
