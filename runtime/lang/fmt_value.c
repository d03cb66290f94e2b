/* fmt_value.c: how MPD prints one value (write, writes, string(x)), and the
 * growable buffer that output statements are built in. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "io_internal.h"

void io_buf_init(io_buf *b)
{
    b->p = b->small;
    b->len = 0;
    b->cap = sizeof b->small;
}

void io_buf_free(io_buf *b)
{
    if (b->p != b->small)
        free(b->p);
    io_buf_init(b);
}

static void grow(io_buf *b, size_t need)
{
    size_t cap = b->cap;
    while (cap < need)
        cap *= 2;
    char *p = b->p == b->small ? malloc(cap) : realloc(b->p, cap);
    if (!p)
        mpd_rts_fatal("out of memory");
    if (b->p == b->small)
        memcpy(p, b->small, b->len);
    b->p = p;
    b->cap = cap;
}

void io_buf_reserve(io_buf *b, size_t more)
{
    if (b->len + more + 1 > b->cap)
        grow(b, b->len + more + 1);
}

void io_buf_add(io_buf *b, const char *p, size_t n)
{
    if (b->len + n + 1 > b->cap)
        grow(b, b->len + n + 1);
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

void io_buf_addc(io_buf *b, char c)
{
    if (b->len + 2 > b->cap)
        grow(b, b->len + 2);
    b->p[b->len++] = c;
}

int mpd_fmt_int(char *buf, long long i)
{
    return snprintf(buf, MPD_FMT_MAX, "%lld", i);
}

/* MPD 1.0.1 printed reals with C's "%#g": six significant digits with the
 * trailing zeros kept (2.00000, 0.500000, 213334., 1.00000e+10). */
int mpd_fmt_real(char *buf, double r)
{
    return snprintf(buf, MPD_FMT_MAX, "%#g", r);
}

int mpd_fmt_bool(char *buf, int b)
{
    return snprintf(buf, MPD_FMT_MAX, "%s", b ? "true" : "false");
}

/* Pointers print as "%08X" of the address (wider when it needs more digits). */
int mpd_fmt_ptr(char *buf, const void *p)
{
    if (!p)
        return snprintf(buf, MPD_FMT_MAX, "==null==");
    return snprintf(buf, MPD_FMT_MAX, "%08llX", (unsigned long long)(uintptr_t)p);
}

int mpd_fmt_val(char *buf, const mpd_val *v)
{
    switch (v->kind) {
    case MPD_V_INT:
        return mpd_fmt_int(buf, v->u.i);
    case MPD_V_REAL:
        return mpd_fmt_real(buf, v->u.r);
    case MPD_V_BOOL:
        return mpd_fmt_bool(buf, v->u.b);
    case MPD_V_PTR:
        return mpd_fmt_ptr(buf, v->u.p);
    case MPD_V_CHAR:
        buf[0] = (char)v->u.c;
        buf[1] = 0;
        return 1;
    default:
        mpd_rts_fatal("mpd_fmt_val: not a scalar value (kind %d)", v->kind);
    }
}

void io_buf_add_val(io_buf *b, const mpd_val *v)
{
    char tmp[MPD_FMT_MAX];
    int n = 0;
    switch (v->kind) {
    case MPD_V_INT:
        n = mpd_fmt_int(tmp, v->u.i);
        break;
    case MPD_V_REAL:
        n = mpd_fmt_real(tmp, v->u.r);
        break;
    case MPD_V_BOOL:
        n = mpd_fmt_bool(tmp, v->u.b);
        break;
    case MPD_V_PTR:
        n = mpd_fmt_ptr(tmp, v->u.p);
        break;
    case MPD_V_CHAR:
        io_buf_addc(b, (char)v->u.c);
        return;
    case MPD_V_STR:
        if (v->u.s.len > 0)
            io_buf_add(b, v->u.s.p, (size_t)v->u.s.len);
        return;
    default:
        mpd_rts_fatal("malformed value (kind %d) given to an output call", v->kind);
    }
    io_buf_add(b, tmp, (size_t)n);
}

void mpd_string_of(const char *file, int line, char *data, int cap, int *len, const mpd_val *v)
{
    io_buf b;
    io_buf_init(&b);
    io_buf_add_val(&b, v);
    if (b.len > (size_t)cap)
        mpd_rts_abort(file, line, "string of length %zu is too long to assign to string[%d]", b.len,
                      cap);
    memcpy(data, b.p, b.len);
    *len = (int)b.len;
    io_buf_free(&b);
}

static void write_values(const char *file, int line, mpd_file f, int n, const mpd_val *v,
                         int spaced)
{
    io_buf b;
    io_buf_init(&b);
    for (int i = 0; i < n; i++) {
        if (spaced && i > 0)
            io_buf_addc(&b, ' ');
        io_buf_add_val(&b, &v[i]);
    }
    if (spaced)
        io_buf_addc(&b, '\n');
    io_emit(file, line, f, b.p, b.len);
    io_buf_free(&b);
}

void mpd_write(const char *file, int line, mpd_file f, int n, const mpd_val *v)
{
    write_values(file, line, f, n, v, 1);
}

void mpd_writes(const char *file, int line, mpd_file f, int n, const mpd_val *v)
{
    write_values(file, line, f, n, v, 0);
}
