/* fmt_printf.c: MPD's printf/sprintf — C's conversions plus %b/%B (bool)
 * and %q (octal), with each argument's type checked at run time and MPD
 * 1.0.1's error messages. */
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include "io_internal.h"

/* MPD limited one conversion to 509 characters (the ANSI minimum). */
#define MAX_CONV 509

/* One "%flags width .prec" prefix, ready to be completed by a C conversion. */
typedef struct {
    char c_spec[40]; /* "%" flags width [.prec] */
    int prec;        /* -1: none */
} spec;

static void add_formatted(io_buf *b, const char *cfmt, ...) __attribute__((format(printf, 2, 3)));
static void add_formatted(io_buf *b, const char *cfmt, ...)
{
    va_list ap, ap2;
    va_start(ap, cfmt);
    va_copy(ap2, ap);
    int n = vsnprintf(b->p + b->len, b->cap - b->len, cfmt, ap);
    if (n > 0 && (size_t)n >= b->cap - b->len) {
        io_buf_reserve(b, (size_t)n + 1);
        vsnprintf(b->p + b->len, (size_t)n + 1, cfmt, ap2);
    }
    if (n > 0)
        b->len += (size_t)n;
    va_end(ap2);
    va_end(ap);
}

/* Appends the C conversion character c to s's prefix (with modifier mod). */
static const char *with_conv(spec *s, const char *mod, char c, char *out, size_t outsz)
{
    snprintf(out, outsz, "%s%s%c", s->c_spec, mod, c);
    return out;
}

/* %s, %b, %p: text given as (p, n) with the spec's width, flags, precision. */
static void add_text(io_buf *b, spec *s, const char *p, int n)
{
    char cf[64];
    if (s->prec >= 0 && s->prec < n)
        n = s->prec;
    /* the precision is re-stated as the (possibly cut) length: p needs no NUL */
    char *dot = strchr(s->c_spec, '.');
    if (dot)
        *dot = 0;
    snprintf(cf, sizeof cf, "%s.*s", s->c_spec);
    add_formatted(b, cf, n, p);
}

typedef struct {
    const char *file;
    int line;
    io_buf *out;
    const mpd_val *v;
    int n, next;
} fmt_state;

/* The next argument, or NULL when the list is used up. */
static const mpd_val *next_arg(fmt_state *st)
{
    return st->next < st->n ? &st->v[st->next++] : NULL;
}

#define NEED_ARG(a)                                                                                \
    if (((a) = next_arg(st)) == NULL)                                                              \
    return "insufficient argument list for format"

/* Formats one conversion; fmt[*i] is just past the '%'.  Returns an error
 * message or NULL. */
static const char *conversion(fmt_state *st, const char *fmt, int len, int *i)
{
    io_buf *b = st->out;
    spec s;
    size_t k = 0;
    char cf[64];
    s.c_spec[k++] = '%';
    s.prec = -1;
    while (*i < len && strchr("-+ 0#", fmt[*i]) && k < 20)
        s.c_spec[k++] = fmt[(*i)++];
    int width = 0;
    while (*i < len && fmt[*i] >= '0' && fmt[*i] <= '9') {
        if (width < 100000)
            width = width * 10 + (fmt[*i] - '0');
        (*i)++;
    }
    if (*i < len && fmt[*i] == '.') {
        (*i)++;
        s.prec = 0;
        while (*i < len && fmt[*i] >= '0' && fmt[*i] <= '9') {
            if (s.prec < 100000)
                s.prec = s.prec * 10 + (fmt[*i] - '0');
            (*i)++;
        }
    }
    if (*i >= len)
        return "unterminated conversion spec (%...) in format";
    char c = fmt[(*i)++];
    if (c == 'h' || c == 'l' || c == 'L')
        return "illegal size modifier (h/l/L) in format spec";
    if (width)
        k += (size_t)snprintf(s.c_spec + k, sizeof s.c_spec - k, "%d", width);
    if (s.prec >= 0)
        k += (size_t)snprintf(s.c_spec + k, sizeof s.c_spec - k, ".%d", s.prec);
    s.c_spec[k] = 0;

    const mpd_val *a;
    switch (c) {
    case '%':
        io_buf_addc(b, '%');
        return NULL;
    case 'd':
    case 'i':
        NEED_ARG(a);
        if (a->kind != MPD_V_INT)
            return "format calls for an int argument";
        add_formatted(b, with_conv(&s, "ll", c, cf, sizeof cf), a->u.i);
        return NULL;
    case 'o':
    case 'q':
    case 'x':
    case 'X':
    case 'u':
        NEED_ARG(a);
        if (a->kind != MPD_V_INT)
            return "format calls for an int argument";
        if (c == 'q')
            c = 'o';
        /* MPD ints were 32 bits: a negative int shows its 32-bit pattern */
        if (a->u.i >= INT32_MIN && a->u.i <= INT32_MAX)
            add_formatted(b, with_conv(&s, "", c, cf, sizeof cf), (unsigned)(int32_t)a->u.i);
        else
            add_formatted(b, with_conv(&s, "ll", c, cf, sizeof cf), (unsigned long long)a->u.i);
        return NULL;
    case 'b':
    case 'B':
        NEED_ARG(a);
        if (a->kind != MPD_V_BOOL)
            return "format calls for a bool argument";
        if (c == 'b')
            add_text(b, &s, a->u.b ? "true" : "false", a->u.b ? 4 : 5);
        else
            add_text(b, &s, a->u.b ? "TRUE" : "FALSE", a->u.b ? 4 : 5);
        return NULL;
    case 'c':
        NEED_ARG(a);
        if (a->kind != MPD_V_CHAR)
            return "format calls for a char argument";
        add_formatted(b, with_conv(&s, "", 'c', cf, sizeof cf), a->u.c);
        return NULL;
    case 's':
    case 'r':
        NEED_ARG(a);
        if (a->kind != MPD_V_STR)
            return c == 's' ? "format calls for a string argument" : "string argument expected";
        {
            int n = a->u.s.len;
            if (s.prec >= 0 && s.prec < n)
                n = s.prec;
            if (n > MAX_CONV)
                return "illegal string length for %s";
            add_text(b, &s, a->u.s.p, n);
        }
        return NULL;
    case 'f':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
        NEED_ARG(a);
        if (a->kind == MPD_V_REAL)
            add_formatted(b, with_conv(&s, "", c, cf, sizeof cf), a->u.r);
        else if (a->kind == MPD_V_INT) /* ints convert to real, as in MPD */
            add_formatted(b, with_conv(&s, "", c, cf, sizeof cf), (double)a->u.i);
        else
            return "format calls for a real argument";
        return NULL;
    case 'p':
        NEED_ARG(a);
        if (a->kind != MPD_V_PTR)
            return "format calls for a pointer argument";
        if (!a->u.p) { /* as write() shows it; width and precision as for %s */
            add_text(b, &s, "==null==", 8);
        } else {
            char hex[MPD_FMT_MAX];
            int n = snprintf(hex, sizeof hex, "%08llX", (unsigned long long)(uintptr_t)a->u.p);
            add_text(b, &s, hex, n);
        }
        return NULL;
    default:
        return "illegal specification character in format";
    }
}

/* Formats the whole statement into b; returns NULL or the error message
 * (b then holds the text formatted before the error). */
static const char *format(fmt_state *st, const char *fmt, int len)
{
    for (int i = 0; i < len;) {
        const char *pct = memchr(fmt + i, '%', (size_t)(len - i));
        int stop = pct ? (int)(pct - fmt) : len;
        io_buf_add(st->out, fmt + i, (size_t)(stop - i));
        i = stop;
        if (i >= len)
            break;
        i++;
        const char *err = conversion(st, fmt, len, &i);
        if (err)
            return err;
    }
    if (st->next < st->n)
        return "too many arguments for format";
    return NULL;
}

void mpd_printf(const char *file, int line, mpd_file f, const char *fmt, int fmtlen, int n,
                const mpd_val *v)
{
    io_buf b;
    io_buf_init(&b);
    fmt_state st = {file, line, &b, v, n, 0};
    const char *err = format(&st, fmt, fmtlen);
    io_emit(file, line, f, b.p, b.len);
    io_buf_free(&b);
    if (err)
        mpd_rts_abort(file, line, "%s", err);
}

void mpd_sprintf(const char *file, int line, char *data, int cap, int *len, const char *fmt,
                 int fmtlen, int n, const mpd_val *v)
{
    io_buf b;
    io_buf_init(&b);
    fmt_state st = {file, line, &b, v, n, 0};
    const char *err = format(&st, fmt, fmtlen);
    if (err)
        mpd_rts_abort(file, line, "%s", err);
    if (b.len > (size_t)cap)
        mpd_rts_abort(file, line, "string of length %zu is too long to assign to string[%d]", b.len,
                      cap);
    memcpy(data, b.p, b.len);
    *len = (int)b.len;
    io_buf_free(&b);
}
