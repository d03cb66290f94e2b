/* values.c: how MPD prints ints, reals, bools, chars and pointers, and the
 * string conversions int(s) real(s) bool(s) char(s) ptr(s) — cases taken
 * from MPD 1.0.1's expected outputs. */
#include <math.h>
#include <stdint.h>
#include "mpd/abi/io.h"
#include "check.h"

static const char *real_str(double r)
{
    static char buf[MPD_FMT_MAX];
    mpd_fmt_real(buf, r);
    return buf;
}

static const char *string_of(mpd_val v)
{
    static char buf[100];
    int len = -1;
    mpd_string_of("t.mpd", 1, buf, 99, &len, &v);
    buf[len] = 0;
    return buf;
}

static void conversions_that_abort(const char *which)
{
    if (!strcmp(which, "int"))
        mpd_int_of_str("runerrs.mpd", 90, "twelve", 6);
    else if (!strcmp(which, "bool"))
        mpd_bool_of_str("runerrs.mpd", 89, "uncertain", 9);
    else if (!strcmp(which, "real")) {
        char s[5000];
        memset(s, '*', sizeof s);
        mpd_real_of_str("runerrs.mpd", 91, s, (int)sizeof s);
    } else if (!strcmp(which, "fit")) {
        char buf[4];
        int len;
        mpd_val v = MPD_VR(2.7183);
        mpd_string_of("x.mpd", 7, buf, 3, &len, &v);
    } else if (!strcmp(which, "toolarge"))
        mpd_int_of_real("x.mpd", 8, 3e12);
    exit(0);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        conversions_that_abort(argv[1]);

    /* reals: C's "%#g" */
    CHECK_STR(real_str(3.0), "3.00000");
    CHECK_STR(real_str(0.5), "0.500000");
    CHECK_STR(real_str(0.0), "0.00000");
    CHECK_STR(real_str(-27.0), "-27.0000");
    CHECK_STR(real_str(213334.0), "213334.");
    CHECK_STR(real_str(3e-20), "3.00000e-20");
    CHECK_STR(real_str(5e20), "5.00000e+20");
    CHECK_STR(real_str(12.3), "12.3000");
    CHECK_STR(real_str(0.003), "0.00300000");
    CHECK_STR(real_str(-4.5e7), "-4.50000e+07");
    CHECK_STR(real_str(13456789.13456789), "1.34568e+07");
    CHECK_STR(real_str(log(2.71828)), "0.999999");
    CHECK_STR(real_str(14.92), "14.9200");
    CHECK_STR(real_str(2.7183), "2.71830");

    /* write's text of each kind = string(x) */
    CHECK_STR(string_of(MPD_VI(-2147483648LL)), "-2147483648");
    CHECK_STR(string_of(MPD_VI(97)), "97");
    CHECK_STR(string_of(MPD_VB(1)), "true");
    CHECK_STR(string_of(MPD_VB(0)), "false");
    CHECK_STR(string_of(MPD_VC('%')), "%");
    CHECK_STR(string_of(MPD_VP(NULL)), "==null==");
    CHECK_STR(string_of(MPD_VP((void *)(uintptr_t)12345)), "00003039");
    CHECK_STR(string_of(MPD_VP((void *)(uintptr_t)0x803344ffu)), "803344FF");
    CHECK_STR(string_of(MPD_VS(" 29 ", 4)), " 29 ");

    char buf[MPD_FMT_MAX];
    CHECK_INT(mpd_fmt_val(buf, &MPD_VR(0.25)), 8);
    CHECK_STR(buf, "0.250000");
    CHECK_INT(mpd_fmt_val(buf, &MPD_VC('q')), 1);
    CHECK_STR(buf, "q");

    /* int(s): decimal, octal q, hex x, sign, blanks around */
    long long i = 0;
    CHECK_INT(mpd_int_of_str("t", 1, " 64x ", 5), 100);
    CHECK_INT(mpd_int_of_str("t", 1, " -100 ", 6), -100);
    CHECK_INT(mpd_int_of_str("t", 1, " +144q ", 7), 100);
    CHECK_INT(mpd_int_of_str("t", 1, "100x", 4), 256);
    CHECK_INT(mpd_int_of_str("t", 1, "12afx", 5), 4783);
    CHECK_INT(mpd_int_of_str("t", 1, "-12x", 4), -18);
    CHECK_INT(mpd_int_of_str("t", 1, "12Q", 3), 10);
    CHECK_INT(mpd_int_of_str("t", 1, "FFFFFFFFx", 9), -1);
    CHECK(!mpd_parse_int("12AFG", 5, &i));
    CHECK(!mpd_parse_int("47BAD", 5, &i));
    CHECK(!mpd_parse_int("", 0, &i));
    CHECK(!mpd_parse_int(" - ", 3, &i));
    /* out of range: decimal saturates, octal/hex is a 32-bit pattern */
    CHECK_INT(mpd_int_of_str("t", 1, "99999999999999999999999", 23), 2147483647);
    CHECK_INT(mpd_int_of_str("t", 1, "4294967296", 10), 2147483647);
    CHECK_INT(mpd_int_of_str("t", 1, "2147483648", 10), 2147483647);
    CHECK_INT(mpd_int_of_str("t", 1, "-2147483648", 11), -2147483648LL);
    CHECK_INT(mpd_int_of_str("t", 1, "-2147483649", 11), -2147483648LL);
    CHECK_INT(mpd_int_of_str("t", 1, "-4294967296", 11), -2147483648LL);
    CHECK_INT(mpd_int_of_str("t", 1, "1FFFFFFFFx", 10), -1);
    CHECK_INT(mpd_int_of_str("t", 1, "-FFFFFFFFx", 10), 1);
    CHECK_INT(mpd_int_of_str("t", 1, "100000000000q", 13), -1);
    CHECK_INT(mpd_int_of_str("t", 1, "80000000x", 9), -2147483648LL);
    CHECK(!mpd_parse_int("99999999999999999999999z", 24, &i));

    /* real(s): all of the text must be a number */
    double r = 0;
    CHECK(mpd_parse_real("  +314159e-5 ", 13, &r) && r == 3.14159);
    CHECK(mpd_parse_real(".005", 4, &r) && r == 0.005);
    CHECK(mpd_parse_real("178", 3, &r) && r == 178);
    CHECK(!mpd_parse_real("4.5 e7", 6, &r));
    CHECK(!mpd_parse_real("", 0, &r));

    /* bool(s): t/true/f/false, any case */
    int b = -1;
    CHECK(mpd_parse_bool(" TRUE ", 6, &b) && b == 1);
    CHECK(mpd_parse_bool("  FALSE  ", 9, &b) && b == 0);
    CHECK(mpd_parse_bool("TrUe", 4, &b) && b == 1);
    CHECK(mpd_parse_bool(" f  ", 4, &b) && b == 0);
    CHECK(mpd_parse_bool("t", 1, &b) && b == 1);
    CHECK(!mpd_parse_bool("fal", 3, &b));
    CHECK(!mpd_parse_bool("g", 1, &b));

    /* char(s): first non-blank character, or NUL */
    CHECK_INT(mpd_char_of_str("  blfft ", 8), 'b');
    CHECK_INT(mpd_char_of_str("    ", 4), 0);
    CHECK_INT(mpd_char_of_str("", 0), 0);

    /* ptr(s) */
    void *p = (void *)1;
    CHECK(mpd_parse_ptr("==null==", 8, &p) && p == NULL);
    CHECK(mpd_parse_ptr("deadbeef", 8, &p) && (uintptr_t)p == 0xdeadbeefu);
    CHECK(mpd_parse_ptr("ABCDEF", 6, &p) && (uintptr_t)p == 0xabcdefu);
    CHECK(!mpd_parse_ptr("abcdefgh", 8, &p));

    CHECK_INT(mpd_int_of_real("t", 1, 98.6), 98);
    CHECK_INT(mpd_int_of_real("t", 1, -2.7), -2);

    /* failures carry MPD's message and position */
    CHECK_CASE(argv[0], "int", "", 0, 1,
               "RTS abort: file runerrs.mpd, line 90:\n   illegal conversion: int(\"twelve\")\n");
    CHECK_CASE(
        argv[0], "bool", "", 0, 1,
        "RTS abort: file runerrs.mpd, line 89:\n   illegal conversion: bool(\"uncertain\")\n");
    CHECK_CASE(argv[0], "real", "", 0, 1,
               "RTS abort: file runerrs.mpd, line 91:\n"
               "   illegal conversion: real(\"********************...\")\n");
    CHECK_CASE(argv[0], "fit", "", 0, 1,
               "RTS abort: file x.mpd, line 7:\n"
               "   string of length 7 is too long to assign to string[3]\n");
    CHECK_CASE(argv[0], "toolarge", "", 0, 1,
               "RTS abort: file x.mpd, line 8:\n   illegal conversion: int(3.00000e+12)\n");
    return report("io/values");
}
