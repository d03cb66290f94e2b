/* conv_dest.c: storing converted input into MPD variables (mpd_dest), for
 * read, scanf and getarg. */
#include <stdint.h>
#include <string.h>
#include "io_internal.h"

void io_store_int(const mpd_dest *d, long long v)
{
    switch (d->size) {
    case 1:
        *(int8_t *)d->addr = (int8_t)v;
        break;
    case 2:
        *(int16_t *)d->addr = (int16_t)v;
        break;
    case 4:
        *(int32_t *)d->addr = (int32_t)v;
        break;
    default:
        *(int64_t *)d->addr = (int64_t)v;
        break;
    }
}

void io_store_bool(const mpd_dest *d, int v)
{
    if (d->size == 1)
        *(unsigned char *)d->addr = (unsigned char)(v != 0);
    else
        io_store_int(d, v != 0);
}

void io_store_chars(const mpd_dest *d, const char *p, int n, int pad)
{
    if (n > d->size)
        n = d->size;
    if (n > 0)
        memmove(d->addr, p, (size_t)n);
    if (d->len)
        *d->len = n;
    else if (pad >= 0 && n < d->size)
        memset((char *)d->addr + n, pad, (size_t)(d->size - n));
}

int io_store_parsed(const mpd_dest *d, const char *p, int n)
{
    long long i;
    double r;
    int b;
    void *ptr;
    switch (d->kind) {
    case MPD_V_INT:
        if (!mpd_parse_int(p, n, &i))
            return 0;
        io_store_int(d, i);
        return 1;
    case MPD_V_REAL:
        if (!mpd_parse_real(p, n, &r))
            return 0;
        *(double *)d->addr = r;
        return 1;
    case MPD_V_BOOL:
        if (!mpd_parse_bool(p, n, &b))
            return 0;
        io_store_bool(d, b);
        return 1;
    case MPD_V_CHAR:
        *(unsigned char *)d->addr = (unsigned char)mpd_char_of_str(p, n);
        return 1;
    case MPD_V_PTR:
        if (!mpd_parse_ptr(p, n, &ptr))
            return 0;
        *(void **)d->addr = ptr;
        return 1;
    case MPD_V_STR:
        io_store_chars(d, p, n, -1);
        return 1;
    default:
        mpd_rts_fatal("malformed destination (kind %d) given to an input call", d->kind);
    }
}
