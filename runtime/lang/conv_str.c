/* conv_str.c: MPD's conversions from text — int(s), real(s), bool(s),
 * char(s), ptr(s) — shared by the conversion functions, read and getarg. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "io_internal.h"

int io_isspace(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Strips MPD whitespace from both ends of (p, len). */
static void trim(const char **p, int *len)
{
    while (*len > 0 && io_isspace((unsigned char)**p))
        (*p)++, (*len)--;
    while (*len > 0 && io_isspace((unsigned char)(*p)[*len - 1]))
        (*len)--;
}

static int digit_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return 99;
}

/* MPD ints are 32 bits, and text naming a larger one is not an error:
 * MPD 1.0.1 read it with strtol/strtoul on a 32-bit machine, which clamp.
 * So a decimal number saturates at -2147483648 and 2147483647, and an octal
 * or hexadecimal one is a 32-bit pattern (FFFFFFFFx is -1), all bits set
 * when it needs more than 32 (strtoul's ULONG_MAX), negated after.
 * mag is the magnitude, already capped (see mpd_digits_value). */
long long mpd_int_from_magnitude(unsigned long long mag, int neg, int base)
{
    if (base == 10) {
        if (neg)
            return mag > (unsigned long long)INT32_MAX + 1 ? INT32_MIN : -(long long)mag;
        return mag > INT32_MAX ? INT32_MAX : (long long)mag;
    }
    if (mag > UINT32_MAX)
        return -1;
    uint32_t bits = (uint32_t)mag;
    return (int32_t)(neg ? 0u - bits : bits);
}

/* The value of digits p[0..len) in base, capped just above 32 bits so a
 * long run of digits cannot overflow; -1 if a character is not a digit. */
int mpd_digits_value(const char *p, int len, int base, unsigned long long *mag)
{
    unsigned long long v = 0;
    for (int i = 0; i < len; i++) {
        int d = digit_value((unsigned char)p[i]);
        if (d >= base)
            return -1;
        v = v * (unsigned)base + (unsigned)d;
        if (v > (unsigned long long)UINT32_MAX + 1)
            v = (unsigned long long)UINT32_MAX + 1;
    }
    *mag = v;
    return 0;
}

/* An MPD integer literal with an optional sign: decimal "12", octal "12q",
 * hexadecimal "12afx" (suffixes in either case); out of range as above. */
int mpd_parse_int(const char *p, int len, long long *out)
{
    trim(&p, &len);
    int neg = 0;
    if (len > 0 && (*p == '+' || *p == '-'))
        neg = *p == '-', p++, len--;
    if (len == 0)
        return 0;
    int base = 10;
    char last = p[len - 1];
    if (last == 'q' || last == 'Q')
        base = 8, len--;
    else if (last == 'x' || last == 'X')
        base = 16, len--;
    if (len == 0)
        return 0;
    unsigned long long v;
    if (mpd_digits_value(p, len, base, &v) < 0)
        return 0;
    *out = mpd_int_from_magnitude(v, neg, base);
    return 1;
}

/* As C's strtod (MPD used scanf "%lf"), but the whole text must be a number. */
int mpd_parse_real(const char *p, int len, double *out)
{
    trim(&p, &len);
    if (len == 0 || len > 4000)
        return 0;
    char buf[4001];
    memcpy(buf, p, (size_t)len);
    buf[len] = 0;
    char *end;
    errno = 0;
    double r = strtod(buf, &end);
    if (end != buf + len)
        return 0;
    *out = r;
    return 1;
}

static int same_word(const char *p, int len, const char *w)
{
    if ((int)strlen(w) != len)
        return 0;
    for (int i = 0; i < len; i++) {
        int c = (unsigned char)p[i];
        if (c >= 'A' && c <= 'Z')
            c += 'a' - 'A';
        if (c != w[i])
            return 0;
    }
    return 1;
}

/* "t", "true", "f", "false" in any case. */
int mpd_parse_bool(const char *p, int len, int *out)
{
    trim(&p, &len);
    if (same_word(p, len, "t") || same_word(p, len, "true"))
        return *out = 1, 1;
    if (same_word(p, len, "f") || same_word(p, len, "false"))
        return *out = 0, 1;
    return 0;
}

/* "==null==" or an address in hexadecimal digits. */
int mpd_parse_ptr(const char *p, int len, void **out)
{
    trim(&p, &len);
    if (len == 8 && memcmp(p, "==null==", 8) == 0)
        return *out = NULL, 1;
    if (len == 0 || len > 16)
        return 0;
    unsigned long long v = 0;
    for (int i = 0; i < len; i++) {
        int d = digit_value((unsigned char)p[i]);
        if (d >= 16)
            return 0;
        v = v * 16 + (unsigned)d;
    }
    *out = (void *)(uintptr_t)v;
    return 1;
}

int mpd_char_of_str(const char *p, int len)
{
    trim(&p, &len);
    return len > 0 ? (unsigned char)*p : 0;
}

/* "illegal conversion: T("text")", the text cut to 20 characters as MPD did. */
static _Noreturn void bad_conversion(const char *file, int line, const char *type, const char *p,
                                     int len)
{
    if (len > 20)
        mpd_rts_abort(file, line, "illegal conversion: %s(\"%.20s...\")", type, p);
    mpd_rts_abort(file, line, "illegal conversion: %s(\"%.*s\")", type, len, p);
}

long long mpd_int_of_str(const char *file, int line, const char *p, int len)
{
    long long v;
    if (!mpd_parse_int(p, len, &v))
        bad_conversion(file, line, "int", p, len);
    return v;
}

double mpd_real_of_str(const char *file, int line, const char *p, int len)
{
    double r;
    if (!mpd_parse_real(p, len, &r))
        bad_conversion(file, line, "real", p, len);
    return r;
}

int mpd_bool_of_str(const char *file, int line, const char *p, int len)
{
    int b;
    if (!mpd_parse_bool(p, len, &b))
        bad_conversion(file, line, "bool", p, len);
    return b;
}

void *mpd_ptr_of_str(const char *file, int line, const char *p, int len)
{
    void *v;
    if (!mpd_parse_ptr(p, len, &v))
        bad_conversion(file, line, "ptr", p, len);
    return v;
}

long long mpd_int_of_real(const char *file, int line, double r)
{
    double t = trunc(r);
    if (!(t >= (double)INT32_MIN && t <= (double)INT32_MAX)) {
        char buf[MPD_FMT_MAX];
        mpd_fmt_real(buf, r);
        mpd_rts_abort(file, line, "illegal conversion: int(%s)", buf);
    }
    return (long long)t;
}
