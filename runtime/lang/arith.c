/* arith.c: MPD arithmetic with runtime checks (**, mod, /) and conversions. */
#include "mpd/abi/lang.h"
#include <math.h>

int mpd_int_pow(const char *f, int l, int i, int j)
{
    if (j < 0)
        mpd_rts_abort(f, l, "i**j with j<0");
    if (i == 0 && j == 0)
        mpd_rts_abort(f, l, "0**i with i<=0");
    unsigned r = 1, b = (unsigned)i;
    while (j) {
        if (j & 1)
            r *= b;
        b *= b;
        j >>= 1;
    }
    return (int)r;
}

double mpd_real_pow(const char *f, int l, double x, double y)
{
    if (x == 0.0 && y <= 0.0)
        mpd_rts_abort(f, l, "0.0**y with y<=0");
    if (x < 0.0 && y != floor(y))
        mpd_rts_abort(f, l, "x**y with x<0 and y not an integer");
    return pow(x, y);
}

double mpd_real_powi(const char *f, int l, double x, int j)
{
    if (x == 0.0 && j <= 0)
        mpd_rts_abort(f, l, "0.0**i with i<=0");
    return pow(x, (double)j);
}

/* mod takes the sign of the divisor (-7 mod 3 = 2, 7 mod -3 = -2); % is C's remainder */
int mpd_int_mod(const char *f, int l, int i, int j)
{
    if (j == 0)
        mpd_rts_abort(f, l, "i mod j with j=0");
    if (j == -1)
        return 0;
    int r = i % j;
    if (r != 0 && ((r < 0) != (j < 0)))
        r += j;
    return r;
}

int mpd_int_div(const char *f, int l, int i, int j)
{
    if (j == 0)
        mpd_rts_abort(f, l, "division by zero");
    if (j == -1)
        return (int)(0u - (unsigned)i);
    return i / j;
}

double mpd_real_mod(const char *f, int l, double x, double y)
{
    if (y == 0.0)
        mpd_rts_abort(f, l, "x mod y with y=0.0");
    double r = fmod(x, y);
    if (r != 0.0 && ((r < 0) != (y < 0)))
        r += y;
    return r;
}

double mpd_real_rem(const char *f, int l, double x, double y)
{
    if (y == 0.0)
        mpd_rts_abort(f, l, "x mod y with y=0.0");
    return fmod(x, y);
}

unsigned char mpd_char_of_int(const char *f, int l, int i)
{
    /* the bits above the low 8 must be all 0 or all 1: char(-221) is '#' */
    if ((i >> 8) != 0 && (i >> 8) != -1)
        mpd_rts_abort(f, l, "illegal conversion: char(%d)", i);
    return (unsigned char)i;
}

int mpd_enum_check(const char *f, int l, int v, int n, const char *tname)
{
    if (v < 0 || v >= n)
        mpd_rts_abort(f, l, "illegal conversion: %s(%d)", tname, v);
    return v;
}

void mpd_check_null_ptr(const char *f, int l, const void *p)
{
    if (!p)
        mpd_rts_abort(f, l, "null pointer dereference");
}

int mpd_int_rem(const char *f, int l, int i, int j)
{
    if (j == 0)
        mpd_rts_abort(f, l, "i %% j with j=0");
    if (j == -1)
        return 0;
    return i % j;
}

int mpd_ord_step(const char *f, int l, int v, int lo, int hi, const char *what)
{
    if (v < lo || v > hi)
        mpd_rts_abort(f, l, "%s() of value out of range", what);
    return v;
}
